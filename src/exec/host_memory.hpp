// How much memory this node can still give: for the commands' memory checks and the GEMM's
// memory limit (a 2.5D or 3D call keeps c shares of C per rank).
#pragma once

#include <cstdint>

namespace relay::exec {

/// The bytes this node can still give: MemAvailable from /proc/meminfo, or the room left under
/// this process's cgroup memory limit when that is less; -1 when neither can be read.
std::int64_t available_memory_bytes();

}  // namespace relay::exec
