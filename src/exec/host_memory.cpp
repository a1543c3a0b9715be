#include "exec/host_memory.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace relay::exec {
namespace fs = std::filesystem;

namespace {

// The first number of a file such as memory.max ("max" and unreadable files: -1).
std::int64_t read_number(const fs::path& file) {
  std::ifstream in(file);
  long long v = -1;
  if (!(in >> v)) return -1;
  return v;
}

// Room left under the memory cgroup of this process (v2: memory.max - memory.current; v1:
// memory.limit_in_bytes - memory.usage_in_bytes), -1 without a limit. A container may show
// its own cgroup at the root of the mount, so both places are tried.
std::int64_t cgroup_room() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::int64_t room = -1;
  auto consider = [&room](const fs::path& limit_file, const fs::path& usage_file) {
    const std::int64_t limit = read_number(limit_file), usage = read_number(usage_file);
    // v1 writes "no limit" as a huge number (9223372036854771712)
    if (limit <= 0 || limit >= (std::int64_t{1} << 60) || usage < 0) return;
    const std::int64_t left = std::max<std::int64_t>(0, limit - usage);
    room = room < 0 ? left : std::min(room, left);
  };
  while (std::getline(in, line)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) {  // cgroup v2
      for (const fs::path& dir : {fs::path("/sys/fs/cgroup") / fs::path(path).relative_path(),
                                  fs::path("/sys/fs/cgroup")}) {
        consider(dir / "memory.max", dir / "memory.current");
      }
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {  // v1
      for (const fs::path& dir :
           {fs::path("/sys/fs/cgroup/memory") / fs::path(path).relative_path(),
            fs::path("/sys/fs/cgroup/memory")}) {
        consider(dir / "memory.limit_in_bytes", dir / "memory.usage_in_bytes");
      }
    }
  }
  return room;
}

}  // namespace

std::int64_t available_memory_bytes() {
  std::int64_t available = -1;
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
  }
  const std::int64_t room = cgroup_room();
  if (room >= 0 && (available < 0 || room < available)) available = room;
  return available;
}

}  // namespace relay::exec
