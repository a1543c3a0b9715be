// Real MPI: every computation executes (exec/compute.hpp).
#include "exec/compute.hpp"

#include "core/settings.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace relay::exec {

int rank_key() { return 0; }

bool compute_is_charged() { return false; }
bool compute_is_timed() { return true; }
void charge_flops(double /*flops*/) {}
double charged_gflops() { return 0.0; }
int host_cores() { return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))); }
double link_bytes_per_s() { return 0.0; }
bool machine_cpu_ticks(unsigned long long& busy, unsigned long long& total) {
  std::ifstream in("/proc/stat");
  std::string label;
  // cpu  user nice system idle iowait irq softirq steal (guest time is inside user)
  unsigned long long v[8] = {};
  if (!(in >> label) || label != "cpu") return false;
  for (auto& x : v) {
    if (!(in >> x)) return false;
  }
  const unsigned long long idle = v[3] + v[4];
  busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  total = busy + idle;
  return total > 0;
}
std::string machine_id() {
  if (const char* given = core::read_setting(core::Knob::machine_id)) return given;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (in >> id && !id.empty()) return id;
  char host[256] = {0};  // no procfs: the host name, the best remaining guess
  gethostname(host, sizeof host - 1);
  return host;
}
int dup_comm(MPI_Comm comm, MPI_Comm* copy) { return MPI_Comm_dup(comm, copy); }
int test_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses) {
  return MPI_Testsome(count, requests, done, indices, statuses);
}
int test_one(MPI_Request* request, int* flag, MPI_Status* status) {
  return MPI_Test(request, flag, status);
}
bool waits_see_collectives() { return true; }
int wire_tag(int tag, std::int64_t /*bytes*/) { return tag; }

int wait_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses) {
  return MPI_Waitsome(count, requests, done, indices, statuses);
}

int allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm) {
  return MPI_Allreduce(send, recv, count, type, op, comm);
}

int node_comm(MPI_Comm comm, MPI_Comm* node) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
}

MPI_Comm machine_comm(MPI_Comm comm) {
  // Every rank's machine id, fixed width: a rank's color is the first rank with the same id.
  constexpr int kIdBytes = 64;
  std::string id = machine_id();
  id.resize(kIdBytes, '\0');
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  std::vector<char> all(static_cast<std::size_t>(size) * kIdBytes);
  if (MPI_Allgather(id.data(), kIdBytes, MPI_CHAR, all.data(), kIdBytes, MPI_CHAR, comm) !=
      MPI_SUCCESS) {
    return MPI_COMM_NULL;
  }
  int color = rank;
  for (int r = 0; r < size; ++r) {
    if (std::memcmp(all.data() + static_cast<std::size_t>(r) * kIdBytes, id.data(), kIdBytes) ==
        0) {
      color = r;
      break;
    }
  }
  MPI_Comm machine = MPI_COMM_NULL;
  if (MPI_Comm_split(comm, color, rank, &machine) != MPI_SUCCESS) return MPI_COMM_NULL;
  return machine;
}

void* allocate_data(std::size_t bytes) { return ::operator new(bytes); }
void free_data(void* data, std::size_t /*bytes*/) noexcept { ::operator delete(data); }
bool scratch_is_shared() { return false; }
void* allocate_scratch(std::size_t bytes) { return ::operator new(bytes); }
void free_scratch(void* data, std::size_t /*bytes*/) noexcept { ::operator delete(data); }

}  // namespace relay::exec
