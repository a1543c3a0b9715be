#include "core/mpi_library.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <vector>

namespace relay::core {

std::string running_mpi_library() {
  // The buffer must hold the running library's string, whose bound is that library's
  // MPI_MAX_LIBRARY_VERSION_STRING, not necessarily our header's: Open MPI's is 256, MPICH's
  // 8192 (and MPICH's string, with its configure options, is long): an Open MPI build asking
  // MPICH overflowed a 256-byte buffer.
  std::vector<char> version(65536, '\0');
  int length = 0;
  if (MPI_Get_library_version(version.data(), &length) != MPI_SUCCESS) return "";
  version.back() = '\0';
  std::string running(version.data());  // `length` may count the terminating NUL
  running = running.substr(0, running.find('\n'));
  while (!running.empty() && (running.back() == ',' || running.back() == ' ')) running.pop_back();
  return running;
}

std::string built_for_mpi_library() {
#if defined(OPEN_MPI)
  return fmt::format("Open MPI {}.{}.{}", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                     OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
  return std::string("MPICH ") + MPICH_VERSION;
#else
  return "";
#endif
}

}  // namespace relay::core
