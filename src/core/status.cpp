#include "core/status.hpp"

#include "core/settings.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstring>

namespace relay::core {
namespace {
thread_local std::string t_last_error;
}

void set_last_error(std::string message) { t_last_error = std::move(message); }
const char* last_error() { return t_last_error.c_str(); }
void clear_last_error() { t_last_error.clear(); }

bool log_enabled() {
  static const bool enabled = [] {
    const char* v = read_setting(Knob::log);
    return v != nullptr && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

void log_line(const std::string& line) {
  if (!log_enabled()) return;
  int rank = -1;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "relay[%d]: %s\n", rank, line.c_str());
}

}  // namespace relay::core
