#include "cli/checks.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "cli/commands.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "exec/host_memory.hpp"

namespace relay::cli {
namespace fs = std::filesystem;

namespace {
const std::string kFiniteValidator = "finite";  // finite_in's name, found by add_shared_checks
}  // namespace

CLI::Validator finite_in(double min, double max) {
  const bool bounded = std::isfinite(max);
  const std::string range =
      bounded ? fmt::format("in [{}, {}]", min, max) : fmt::format(">= {}", min);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        if (end == begin || *end != '\0') return fmt::format("'{}' is not a number", text);
        // strtod reads "nan", "inf" and "1e999" (ERANGE, inf) without complaint.
        if (!std::isfinite(v) || (errno == ERANGE && std::fabs(v) > 1)) {
          return fmt::format("{} is not a finite number (a number {} is needed)", text, range);
        }
        if (v < min || v > max) return fmt::format("{} is not {}", text, range);
        return std::string();
      },
      range, kFiniteValidator);
}

void add_max_requests_option(CLI::App* cmd, int& max_requests, int max, const std::string& help) {
  cmd->add_option("--max-requests", max_requests, help)
      ->check(CLI::Range(1, max))
      ->capture_default_str();
  // Checked here, not by a validator: CLI11 leaves a hidden option's name out of its errors.
  cmd->add_option_function<std::string>(
         "--window",
         [&max_requests, max](const std::string& text) {
           const auto value = core::parse_integer(text, 1, max);
           if (!value)
             throw CLI::ValidationError("--window",
                                        fmt::format("'{}' is not an integer in 1..{}", text, max));
           if (launcher_rank() == 0)
             std::fprintf(stderr, "relay: --window is deprecated; it is --max-requests now\n");
           max_requests = static_cast<int>(*value);
         },
         "deprecated: --max-requests")
      ->group("");  // hidden from --help
}

CLI::Validator output_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path.empty()) return "an empty file name";
        std::error_code ec;
        const fs::path p(path);
        if (fs::is_directory(p, ec) || !p.has_filename()) {
          return fmt::format("'{}' is a directory; give a file name", path);
        }
        const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
        if (!fs::exists(dir, ec)) {
          return fmt::format(
              "directory '{}' does not exist (relay does not create directories: "
              "make it first, e.g. mkdir -p '{}')",
              dir.string(), dir.string());
        }
        if (!fs::is_directory(dir, ec)) return fmt::format("'{}' is not a directory", dir.string());
        if (access(dir.c_str(), W_OK | X_OK) != 0) {
          return fmt::format("cannot write in directory '{}': {}", dir.string(),
                             std::strerror(errno));
        }
        return std::string();
      },
      "FILE in an existing directory");
}

namespace {

bool has_validator(CLI::Option& opt, const std::string& name) {
  try {
    opt.get_validator(name);
    return true;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

}  // namespace

void add_shared_checks(CLI::App& app) {
  static const std::vector<std::string> outputs = {"json", "plot", "output", "openmpi", "mpich"};
  for (CLI::Option* opt : app.get_options()) {
    // "FLOAT", or "FLOAT:<the descriptions of its validators>" once it has some; an option
    // with its own finite_in keeps its narrower range.
    const std::string type = opt->get_type_name();
    if (type.rfind("FLOAT", 0) == 0 && !has_validator(*opt, kFiniteValidator))
      opt->check(finite_in(0.0));
    for (const auto& name : opt->get_lnames()) {
      if (std::find(outputs.begin(), outputs.end(), name) != outputs.end()) {
        opt->check(output_file());
        break;
      }
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_shared_checks(*sub);
}

std::string human_bytes(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

void require_memory(MPI_Comm comm, double bytes, const std::string& what) {
  MPI_Comm node = MPI_COMM_NULL;
  if (exec::node_comm(comm, &node) != MPI_SUCCESS) {
    throw std::runtime_error(what + ": the node's ranks could not be found (MPI)");
  }
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  double on_node = 0, most = 0;  // the node's ranks together; the largest single rank's need
  exec::allreduce(&bytes, &on_node, 1, MPI_DOUBLE, MPI_SUM, node);
  exec::allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, node);
  const double available = node_rank == 0 ? static_cast<double>(exec::available_memory_bytes()) : 0;
  MPI_Comm_free(&node);
  // The first node (lowest rank of its leader) that lacks the memory tells every rank.
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const bool short_here = node_rank == 0 && available >= 0 && on_node > available;
  int first = short_here ? rank : std::numeric_limits<int>::max(), worst = 0;
  exec::allreduce(&first, &worst, 1, MPI_INT, MPI_MIN, comm);
  if (worst == std::numeric_limits<int>::max()) return;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  std::string message;
  if (rank == worst) {
    message = fmt::format(
        "{} needs {} per rank ({} for the {} rank{} on {} together), but {} has "
        "{} available: use smaller sizes, fewer ranks per node or more nodes",
        what, human_bytes(most), human_bytes(on_node), node_size, node_size == 1 ? "" : "s", host,
        host, human_bytes(available));
  }
  int size = static_cast<int>(message.size());
  MPI_Bcast(&size, 1, MPI_INT, worst, comm);
  message.resize(static_cast<std::size_t>(size));
  MPI_Bcast(message.data(), size, MPI_CHAR, worst, comm);
  throw AgreedError(message);
}

}  // namespace relay::cli
