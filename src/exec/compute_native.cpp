// Real MPI: every computation executes (exec/compute.hpp).
#include "exec/compute.hpp"

#include "core/settings.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace relay::exec {

bool compute_is_charged() { return false; }
void charge_flops(double /*flops*/) {}
double charged_gflops() { return 0.0; }
int host_cores() { return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))); }
double link_bytes_per_s() { return 0.0; }
std::string machine_id() {
  if (const char* given = core::read_setting(core::Knob::machine_id)) return given;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (in >> id && !id.empty()) return id;
  char host[256] = {0};  // no procfs: the host name, the best remaining guess
  gethostname(host, sizeof host - 1);
  return host;
}
void* allocate_data(std::size_t bytes) { return ::operator new(bytes); }
void free_data(void* data, std::size_t /*bytes*/) noexcept { ::operator delete(data); }
bool scratch_is_shared() { return false; }
void* allocate_scratch(std::size_t bytes) { return ::operator new(bytes); }
void free_scratch(void* data, std::size_t /*bytes*/) noexcept { ::operator delete(data); }

}  // namespace relay::exec
