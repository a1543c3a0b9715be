// relay_bcast / relay_ibcast: argument checks (in argument order, like ScaLAPACK), the
// optional collective agreement, then dispatch to MPI_Bcast or to a cached schedule.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "api/checks.hpp"
#include "api/request.hpp"
#include "api/shared_state.hpp"
#include "coll/program_cache.hpp"
#include "coll/select.hpp"
#include "core/status.hpp"

namespace {

using relay::core::fail;

// Everything a call needs once its arguments are known to be valid.
struct BcastCall {
  char* base = nullptr;  // buffer + true lower bound
  std::int64_t total_bytes = 0;
  std::int64_t elem_bytes = 0;
  bool contiguous = true;
  int size = 0;
  int rank = 0;
  relay::core::RelayEnvironment env;  // read once per call
  relay::coll::Config config;
};

// Local checks, in argument order, so the first wrong argument is the one reported.
relay_status_t check_arguments(const char* fn, void* buffer, int count, MPI_Datatype datatype,
                               int root, MPI_Comm comm, const relay_bcast_options_t* options,
                               BcastCall& call) {
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  if (count < 0) {
    return fail(RELAY_ERR_COUNT, "{}: argument 2 (count = {}) is negative", fn, count);
  }
  relay::api::TypeInfo type;
  if (auto st = relay::api::check_datatype(fn, 3, datatype, count, type); st != RELAY_SUCCESS) {
    return st;
  }
  if (buffer == MPI_IN_PLACE) {  // a broadcast has one buffer: in place is all it can be
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 1 (buffer) is MPI_IN_PLACE, which a broadcast "
                "does not take (pass the buffer itself on every rank)",
                fn);
  }
  if (buffer == nullptr && count > 0 && type.size > 0 && type.true_lb == 0) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 1 (buffer) is NULL but count = {} > 0", fn, count);
  }
  if (auto st = relay::api::check_comm(fn, 5, comm, call.size, call.rank); st != RELAY_SUCCESS) {
    return st;
  }
  if (root < 0 || root >= call.size) {
    return fail(RELAY_ERR_ROOT,
                "{}: argument 4 (root = {}) is not a rank of the communicator "
                "(size {})",
                fn, root, call.size);
  }
  call.elem_bytes = type.size;
  call.total_bytes = static_cast<std::int64_t>(count) * type.size;
  call.contiguous = type.contiguous;
  call.base = static_cast<char*>(buffer) + type.true_lb;
  const relay::coll::Call resolved_for{relay::coll::Collective::bcast, call.size, call.total_bytes,
                                       std::max<std::int64_t>(1, call.elem_bytes)};
  if (auto st = relay::coll::resolve(call.env, options, resolved_for, fn, 6, call.config);
      st != RELAY_SUCCESS) {
    return st;
  }
  if (!call.contiguous && call.config.algorithm->build != nullptr) {
    return fail(RELAY_ERR_DATATYPE,
                "{}: argument 3 (datatype) is not contiguous; relay's "
                "schedules move contiguous bytes (use algorithm mpi, or a contiguous type)",
                fn);
  }
  return RELAY_SUCCESS;
}

// With RELAY_CHECK_COLLECTIVE: all ranks agree on failures and on the resolved configuration.
relay_status_t agree(const char* fn, MPI_Comm comm, relay_status_t local, int root,
                     const BcastCall& call) {
  const long long values[5] = {
      call.total_bytes, root, call.config.algorithm != nullptr ? call.config.algorithm->id : -1,
      call.config.segment_bytes, call.config.fanout * 4 + static_cast<int>(call.config.policy)};
  static const char* const names[5] = {"message size in bytes", "root", "algorithm",
                                       "segment_bytes", "fanout/policy"};
  return relay::api::agree(fn, comm, local, values, names, 5);
}

relay_status_t start_bcast(const char* fn, void* buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, const relay_bcast_options_t* options,
                           relay_request* request) {
  relay::core::clear_last_error();
  // The communicator's state first (collective on first use, with its configuration check):
  // every rank with a usable communicator gets there, whatever its other arguments.
  relay::exec::CommState* state = nullptr;
  if (relay::api::usable_comm(comm)) {
    if (auto st = relay::api::shared_state(fn, comm, &state); st != RELAY_SUCCESS) return st;
  }
  BcastCall call;
  relay_status_t st = check_arguments(fn, buffer, count, datatype, root, comm, options, call);
  // No agreement is possible over a communicator that is itself invalid.
  // stored_check: options->check may hold any int (check_arguments has reported it).
  const bool collective_check =
      relay::api::wants_collective_check(relay::coll::stored_check(options), call.env);
  if (collective_check && st != RELAY_ERR_COMM) st = agree(fn, comm, st, root, call);
  if (st != RELAY_SUCCESS) return st;
  const relay::coll::Config& c = call.config;
  if (relay::core::log_enabled()) {
    relay::core::log_line(fmt::format("{} bytes={} ranks={} root={} {}", fn, call.total_bytes,
                                      call.size, root, relay::coll::to_string(c)));
  }
  if (c.algorithm->build == nullptr) {
    request->kind = relay_request::Kind::mpi;
    const int rc = request->blocking ? MPI_Bcast(buffer, count, datatype, root, state->comm)
                                     : MPI_Ibcast(buffer, count, datatype, root, state->comm,
                                                  &request->mpi_request);
    if (rc != MPI_SUCCESS) return fail(RELAY_ERR_MPI, "{}: MPI_Bcast failed ({})", fn, rc);
    request->mpi_done = request->blocking;
    return RELAY_SUCCESS;
  }
  relay::coll::Shape shape;
  shape.size = call.size;
  shape.root = root;
  shape.bytes = call.total_bytes;
  shape.elem_bytes = std::max<std::int64_t>(1, call.elem_bytes);
  shape.segment_bytes = c.segment_bytes;
  shape.fanout = c.fanout;
  auto program = relay::coll::cached_program(*c.algorithm, shape, call.rank);
  request->kind = relay_request::Kind::schedule;
  if (const relay_status_t started = request->executor.start(
          std::move(program), call.base, state->comm, state->next_tag(), c.policy, c.max_requests);
      started != RELAY_SUCCESS) {
    return fail(started, "{}: {}", fn, request->executor.error());
  }
  return RELAY_SUCCESS;
}

}  // namespace

extern "C" {

void relay_bcast_options_init_sized(relay_bcast_options_t* options, size_t struct_size) {
  relay::coll::init_options(options, struct_size);
}

relay_status_t relay_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           const relay_bcast_options_t* options) {
  relay::api::BlockingRequest request;
  const relay_status_t st =
      start_bcast("relay_bcast", buffer, count, datatype, root, comm, options, request.get());
  if (st != RELAY_SUCCESS) return st;
  return relay_request_finish(request.get(), "relay_bcast");
}

relay_status_t relay_ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                            const relay_bcast_options_t* options, relay_request_t* request) {
  relay::core::clear_last_error();
  if (request == nullptr) {
    return fail(RELAY_ERR_REQUEST, "relay_ibcast: argument 7 (request) is NULL");
  }
  *request = RELAY_REQUEST_NULL;
  auto r = std::make_unique<relay_request>();
  const relay_status_t st =
      start_bcast("relay_ibcast", buffer, count, datatype, root, comm, options, r.get());
  if (st != RELAY_SUCCESS) return st;
  *request = r.release();
  return RELAY_SUCCESS;
}

relay_status_t relay_bcast_describe(int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                    const relay_bcast_options_t* options, char* text, size_t size) {
  relay::core::clear_last_error();
  BcastCall call;
  static char dummy;
  const relay_status_t st =
      check_arguments("relay_bcast_describe", &dummy, count, datatype, root, comm, options, call);
  if (st != RELAY_SUCCESS) return st;
  relay::api::copy_text(relay::coll::to_string(call.config), text, size);
  return RELAY_SUCCESS;
}

}  // extern "C"
