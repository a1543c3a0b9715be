#include "api/checks.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/mpi_library.hpp"
#include "core/status.hpp"

namespace relay::api {

using core::fail;

// Open MPI's handles are pointers and MPICH's integers: a relay built for one and run with the
// other (both libraries loaded, the program's MPI answering) fails deep inside MPI ("Invalid
// communicator") or crashes. MPI_Get_library_version may be called at any time and touches no
// handle, so it is asked once, before relay uses any handle. Only a library positively of the
// other family counts as a mismatch: MPICH's ABI relatives (Intel MPI, MVAPICH, Cray MPICH) do
// not say "MPICH" alike.
const std::string& mpi_mismatch() {
  static const std::string text = [] {
    const std::string built = core::built_for_mpi_library();
    if (built.empty()) return std::string();
    const std::string running = core::running_mpi_library();
    const bool ours_ompi = built.rfind("Open MPI", 0) == 0;
    const bool runs_ompi = running.find("Open MPI") != std::string::npos;
    const bool runs_mpich_family = running.find("MPICH") != std::string::npos ||
                                   running.find("MVAPICH") != std::string::npos ||
                                   running.find("Intel(R) MPI") != std::string::npos;
    if ((ours_ompi && runs_mpich_family && !runs_ompi) || (!ours_ompi && runs_ompi)) {
      return fmt::format(
          "relay was built for {} but this program runs {} (their MPI handles differ): use the "
          "relay built for the program's MPI",
          built, running);
    }
    return std::string();
  }();
  return text;
}

relay_status_t check_mpi(const char* fn) {
  if (const std::string& mismatch = mpi_mismatch(); !mismatch.empty()) {
    return fail(RELAY_ERR_MPI, "{}: {}", fn, mismatch);
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) {
    return fail(RELAY_ERR_COMM, "{}: MPI is not initialized (or already finalized)", fn);
  }
  return RELAY_SUCCESS;
}

relay_status_t check_datatype(const char* fn, int position, MPI_Datatype datatype, int count,
                              TypeInfo& info) {
  if (datatype == MPI_DATATYPE_NULL) {
    return fail(RELAY_ERR_DATATYPE, "{}: argument {} (datatype) is MPI_DATATYPE_NULL", fn,
                position);
  }
  // The _x forms: a type of 2 GiB or more has no int size (MPI_Type_size gives MPI_UNDEFINED,
  // which read as a size made such a type "not contiguous").
  MPI_Count type_size = 0, lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (MPI_Type_size_x(datatype, &type_size) != MPI_SUCCESS ||
      MPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS ||
      MPI_Type_get_true_extent_x(datatype, &true_lb, &true_extent) != MPI_SUCCESS ||
      type_size == MPI_UNDEFINED) {
    return fail(RELAY_ERR_DATATYPE, "{}: argument {} (datatype) is not a valid datatype", fn,
                position);
  }
  info.size = static_cast<std::int64_t>(type_size);
  constexpr std::int64_t kMaxBytes = std::int64_t{1} << 62;  // byte offsets stay in int64
  if (count > 0 && info.size > kMaxBytes / count) {
    return fail(RELAY_ERR_COUNT,
                "{}: count = {} elements of {} bytes (argument {}) is more "
                "than 2^62 bytes",
                fn, count, info.size, position);
  }
  info.true_lb = static_cast<MPI_Aint>(true_lb);
  info.contiguous = true_extent == type_size && (count <= 1 || extent == type_size);
  return RELAY_SUCCESS;
}

relay_status_t check_comm(const char* fn, int position, MPI_Comm comm, int& size, int& rank) {
  if (comm == MPI_COMM_NULL) {
    return fail(RELAY_ERR_COMM, "{}: argument {} (comm) is MPI_COMM_NULL", fn, position);
  }
  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter) {
    return fail(RELAY_ERR_COMM, "{}: argument {} (comm) is an inter-communicator", fn, position);
  }
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  return RELAY_SUCCESS;
}

bool usable_comm(MPI_Comm comm) {
  if (!mpi_mismatch().empty()) return false;  // check_mpi says why
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized || comm == MPI_COMM_NULL) return false;
  int inter = 0;
  return MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter == 0;
}

relay_status_t check_op(const char* fn, int position, MPI_Op op, bool& commutative) {
  if (op == MPI_OP_NULL) {
    return fail(RELAY_ERR_OP, "{}: argument {} (op) is MPI_OP_NULL", fn, position);
  }
  int commute = 1;
  if (MPI_Op_commutative(op, &commute) != MPI_SUCCESS) {
    return fail(RELAY_ERR_OP, "{}: argument {} (op) is not a valid MPI_Op", fn, position);
  }
  commutative = commute != 0;
  return RELAY_SUCCESS;
}

relay_status_t check_reduction_buffers(const char* fn, const ReductionBuffers& b) {
  const bool in_place = b.sendbuf == MPI_IN_PLACE;
  if (in_place && b.root >= 0 && b.rank != b.root) {
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 1 (sendbuf) is MPI_IN_PLACE on rank {}, which "
                "is not the root ({})",
                fn, b.rank, b.root);
  }
  if (!in_place && b.sendbuf == nullptr && b.has_data) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 1 (sendbuf) is NULL but count = {} > 0", fn,
                b.count);
  }
  if (b.recvbuf == MPI_IN_PLACE) {
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 2 (recvbuf) is MPI_IN_PLACE (only sendbuf may "
                "be)",
                fn);
  }
  if (b.receives && b.recvbuf == nullptr && b.has_data) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 2 (recvbuf) is NULL but count = {} > 0", fn,
                b.count);
  }
  return RELAY_SUCCESS;
}

bool wants_collective_check(relay_check_t option, const core::RelayEnvironment& env) {
  if (option != RELAY_CHECK_DEFAULT) return option == RELAY_CHECK_COLLECTIVE;
  const char* v = env.get(core::Knob::check);
  return v != nullptr && std::strcmp(v, "collective") == 0;
}

relay_status_t agree(const char* fn, MPI_Comm comm, relay_status_t local, const long long* values,
                     const char* const* names, int n) {
  constexpr int kMax = 10;
  if (n > kMax - 2) n = kMax - 2;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  long long both[2 * kMax] = {};
  const long long head[2] = {static_cast<long long>(local), local != RELAY_SUCCESS ? rank : -1};
  const int m = n + 2;
  for (int i = 0; i < m; ++i) {
    const long long v = i < 2 ? head[i] : values[i - 2];
    both[i] = v;
    both[m + i] = -v;
  }
  long long out[2 * kMax];
  // In the call's time: MPI's own, whose ranks leave together (exec/compute.hpp).
  if (MPI_Allreduce(both, out, 2 * m, MPI_LONG_LONG, MPI_MAX, comm) != MPI_SUCCESS) {
    return fail(RELAY_ERR_MPI, "{}: MPI_Allreduce of the argument check failed", fn);
  }
  if (local != RELAY_SUCCESS) return local;  // keep this rank's own detailed message
  if (out[0] != RELAY_SUCCESS) {
    return fail(static_cast<relay_status_t>(out[0]), "{}: rank {} reported: {}", fn, out[1],
                relay_status_string(static_cast<relay_status_t>(out[0])));
  }
  for (int i = 2; i < m; ++i) {
    if (out[i] != -out[m + i]) {
      return fail(RELAY_ERR_MISMATCH, "{}: ranks disagree on the {} (from {} to {})", fn,
                  names[i - 2], -out[m + i], out[i]);
    }
  }
  return RELAY_SUCCESS;
}

void copy_text(const std::string& line, char* text, std::size_t size) {
  if (text == nullptr || size == 0) return;
  const std::size_t n = size - 1 < line.size() ? size - 1 : line.size();
  std::memcpy(text, line.data(), n);
  text[n] = '\0';
}

}  // namespace relay::api
