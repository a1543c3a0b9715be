#include "core/settings.hpp"

#include <array>
#include <cstdlib>

namespace relay::core {

namespace {

using R = Reader;
using A = Agreement;

// Ranges and defaults here are the ones the readers enforce (coll/options.hpp's kMaxFanout and
// kMaxMaxRequests, exec/executor.cpp, gemm/arguments.cpp); a test compares this table with
// docs/environment.md and `relay env`.
constexpr std::array kSettings{
    Setting{Knob::op_algorithm, "RELAY_<OP>_ALGORITHM", "algorithm name", "auto",
            "the algorithm of every <OP> call, over the caller's options (relay algorithms "
            "lists the names)",
            R::library, A::value},
    Setting{Knob::op_policy, "RELAY_<OP>_POLICY", "blocking, nonblocking or default", "default",
            "the executor policy of every <OP> call, over the caller's options (default: "
            "nonblocking)",
            R::library, A::free},
    Setting{Knob::op_segment_bytes, "RELAY_<OP>_SEGMENT_BYTES", "bytes or default", "default",
            "segment size of every <OP> call, over the caller's options (65536, 64KiB; 0 "
            "unsegmented; default: the algorithm's)",
            R::library, A::value},
    Setting{Knob::op_fanout, "RELAY_<OP>_FANOUT", "integer [0, 1048576]", "0",
            "chains or tree arity of every <OP> call, over the caller's options (0: the "
            "algorithm's default)",
            R::library, A::value},
    Setting{Knob::op_max_requests, "RELAY_<OP>_MAX_REQUESTS", "integer [0, 65536]", "0",
            "receives pre-posted and sends in flight per rank, each, over the caller's options "
            "(0: 16)",
            R::library, A::free},
    Setting{Knob::check, "RELAY_CHECK", "local or collective", "local",
            "argument checks of calls whose options leave it to the environment: collective "
            "agrees on errors and arguments over all ranks",
            R::library, A::value},
    Setting{Knob::log, "RELAY_LOG", "flag", "off",
            "anything but 0 logs each call's resolved configuration to stderr", R::library,
            A::free},
    Setting{Knob::tuning_file, "RELAY_TUNING_FILE", "path", "none",
            "decision table that `auto` consults (relay tune writes one); ranks must share its "
            "rules",
            R::library, A::contents},
    Setting{Knob::tuning_on_error, "RELAY_TUNING_ON_ERROR", "defaults", "fail",
            "defaults: warn and choose by the model when RELAY_TUNING_FILE cannot be used",
            R::library, A::value},
    Setting{Knob::idle_sleep_us, "RELAY_IDLE_SLEEP_US", "integer [0, 1000000]", "0",
            "microseconds a waiting rank sleeps between polls instead of spinning in MPI",
            R::library, A::free},
    Setting{Knob::peer_bytes_in_flight, "RELAY_PEER_BYTES_IN_FLIGHT", "bytes", "64KiB",
            "bytes of sends in flight to one peer (one larger message is always allowed; 0: one "
            "message at a time)",
            R::library, A::free},
    Setting{Knob::gemm_panel_width, "RELAY_GEMM_PANEL_WIDTH", "integer [0, 1073741824]", "0",
            "GEMM panel width, over options->panel_width (0: the block size)", R::library,
            A::value},
    Setting{Knob::gemm_lookahead, "RELAY_GEMM_LOOKAHEAD", "integer [0, 64]", "0",
            "panels broadcast ahead of the multiplication, over options->lookahead", R::library,
            A::value},
    Setting{Knob::gemm_pieces, "RELAY_GEMM_PIECES", "integer [0, 4096]", "0",
            "pieces each local multiplication is cut into for progress, over options->pieces "
            "(0: auto, 1 without lookahead, else the model's count: docs/gemm.md)",
            R::library, A::value},
    Setting{Knob::gemm_panel_broadcasts, "RELAY_GEMM_PANEL_BROADCASTS", "per_owner or per_block",
            "per_owner",
            "how a panel step's pieces are broadcast, over options->panel_broadcasts: one "
            "broadcast per owning process (all its k blocks of the panel) or one per k block",
            R::library, A::value},
    Setting{Knob::gemm_algorithm, "RELAY_GEMM_ALGORITHM", "auto, default, 2d, 2.5d or 3d",
            "default",
            "GEMM algorithm, over options->algorithm (default: auto, the model's choice; one "
            "the call cannot use runs as 2d)",
            R::library, A::value},
    Setting{Knob::gemm_layers, "RELAY_GEMM_LAYERS", "integer [0, 65536]", "0",
            "layers c of the 2.5D GEMM, over options->layers (0: the largest c <= min(4, "
            "P^(1/3)) the grid splits into)",
            R::library, A::value},
    Setting{Knob::gemm_memory_limit, "RELAY_GEMM_MEMORY_LIMIT", "bytes", "0",
            "bytes a 2.5D/3D GEMM may hold per process beyond the matrices, over "
            "options->memory_limit_bytes (0: the node's available memory over its ranks)",
            R::library, A::free},
    Setting{Knob::model_params, "RELAY_MODEL_PARAMS", "path", "none",
            "point-to-point parameters (relay model measure) the GEMM's automatic choice costs "
            "with, read by the grid's first process once per grid (none: a quick ping-pong on "
            "the grid)",
            R::library, A::free},
    Setting{Knob::scalapack_on_error, "RELAY_SCALAPACK_ON_ERROR", "return", "abort",
            "return: p?gemm_ and p?syrk_ print PBLAS's message and return instead of aborting",
            R::library, A::free},
    Setting{Knob::scalapack_forward, "RELAY_SCALAPACK_FORWARD", "auto, relay or scalapack", "auto",
            "who serves the drop-in's p?gemm_ and p?syrk_: auto = relay, except one panel step "
            "(k within a block) on a grid within one node and every p?syrk_, which ScaLAPACK's "
            "own serves; relay = always relay; scalapack = always ScaLAPACK's own (found after "
            "librelay_scalapack in the link order); relay profile --forward sets it",
            R::library, A::free},
    Setting{
        Knob::profile_dir, "RELAY_PROFILE_DIR", "path", "unset",
        "set by relay profile: the drop-in records every p?gemm_ and p?syrk_ call (shape, "
        "time, who served it) and writes it there at exit, one file per process (docs/profile.md)",
        R::library, A::free},
    Setting{Knob::profile_library, "RELAY_PROFILE_LIBRARY", "path", "installed",
            "the librelay_scalapack relay profile preloads (default: the installed one, then the "
            "build tree's)",
            R::command, A::free},
    Setting{Knob::python, "RELAY_PYTHON", "path", "python3",
            "interpreter (with matplotlib) that draws --plot figures", R::command, A::free},
    Setting{Knob::python_dir, "RELAY_PYTHON_DIR", "path", "installed",
            "directory of relay's plot scripts", R::command, A::free},
    Setting{Knob::cluster_script, "RELAY_CLUSTER_SCRIPT", "path", "installed",
            "the relay-cluster script that `relay cluster` runs", R::command, A::free},
    Setting{Knob::cluster_job, "RELAY_CLUSTER_JOB", "text", "unset",
            "set by relay cluster run in its ranks; --cluster is refused inside one", R::command,
            A::free},
    Setting{Knob::cluster_timeout, "RELAY_CLUSTER_TIMEOUT", "seconds", "3600",
            "hang timeout of `relay bench ... --cluster` runs", R::command, A::free},
    Setting{Knob::cluster_name, "RELAY_CLUSTER_NAME", "text", "default",
            "which emulated cluster relay-cluster works on (its --name)", R::cluster_tool, A::free},
    Setting{Knob::cluster_cache, "RELAY_CLUSTER_CACHE", "path", "~/.cache/relay-cluster",
            "where relay-cluster keeps its state", R::cluster_tool, A::free},
    Setting{Knob::cluster_check_bin, "RELAY_CLUSTER_CHECK_BIN", "path", "built",
            "the relay_cluster_check program relay-cluster measures links with", R::cluster_tool,
            A::free},
    Setting{Knob::simulate_relay, "RELAY_SIMULATE_RELAY", "path", "built",
            "the relay program built for SimGrid SMPI (relay-smpi) that `relay simulate` runs",
            R::command, A::free},
    Setting{Knob::simulate_smpirun, "RELAY_SIMULATE_SMPIRUN", "path", "built",
            "the smpirun `relay simulate` runs: SimGrid 3.32 with relay's patch when "
            "./dev simgrid has built it (.deps/simgrid-3.32-relay), else Debian's",
            R::command, A::free},
    Setting{Knob::simulate_platform, "RELAY_SIMULATE_PLATFORM", "text", "unset",
            "set by relay simulate for its ranks: the simulated platform, printed with results",
            R::command, A::free},
    Setting{Knob::simulate_compute, "RELAY_SIMULATE_COMPUTE", "charge, real, timing", "charge",
            "under SimGrid SMPI: local multiplications charged as simulated time, or run for "
            "real; timing: charged, and relay's own scratch of reductions and gathers shared "
            "between simulated ranks too (their results are then not real: timings at scale only)",
            R::library, A::free},
    Setting{Knob::simulate_gflops, "RELAY_SIMULATE_GFLOPS", "number", "platform",
            "under SimGrid SMPI: GFLOP/s per rank charged computations run at (default: the "
            "host's speed in the platform)",
            R::library, A::free},
    Setting{Knob::link_bits_per_s, "RELAY_LINK_BITS_PER_S", "number", "unknown",
            "bits per second of a node's network link, each direction: the link bound `relay "
            "bench gemm` prints (relay cluster run sets it to the cluster's rate)",
            R::command, A::free},
    Setting{Knob::machine_id, "RELAY_MACHINE_ID", "text", "boot id",
            "the machine whose cores this rank shares: ranks with the same value compete for "
            "its cores in the BLAS bound relay bench gemm prints (default: the kernel's boot "
            "id; relay cluster run sets the host's, which its nodes share)",
            R::command, A::free},
    Setting{Knob::powercap_root, "RELAY_POWERCAP_ROOT", "path", "/sys/class/powercap",
            "the powercap tree whose intel-rapl zones (package, dram) the benchmarks' energy "
            "columns read, one process per node (docs/energy.md)",
            R::command, A::free},
    Setting{Knob::cluster_test_program, "RELAY_CLUSTER_TEST_PROGRAM", "command", "none",
            "a program the cluster test also runs on its ranks", R::tests, A::free},
    Setting{Knob::test_max_bytes, "RELAY_TEST_MAX_BYTES", "integer", "none",
            "largest message of the broadcast matrix test", R::tests, A::free},
    Setting{Knob::test_gemm_cases, "RELAY_TEST_GEMM_CASES", "integer", "40",
            "random cases of the GEMM test", R::tests, A::free},
    Setting{Knob::robustness_case, "RELAY_ROBUSTNESS_CASE", "text", "all",
            "runs only the robustness cases whose entry point or input contains it", R::tests,
            A::free},
    Setting{Knob::robustness_table, "RELAY_ROBUSTNESS_TABLE", "path", "none",
            "file the robustness test writes its Markdown table to", R::tests, A::free},
};

constexpr bool in_knob_order() {
  for (std::size_t i = 0; i < kSettings.size(); ++i) {
    if (static_cast<std::size_t>(kSettings[i].knob) != i) return false;
  }
  return true;
}
static_assert(in_knob_order(), "kSettings rows must follow the order of Knob");
static_assert(kSettings.size() == static_cast<std::size_t>(Knob::robustness_table) + 1,
              "every Knob has a row");

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

const Setting* settings_begin() { return kSettings.data(); }
const Setting* settings_end() { return kSettings.data() + kSettings.size(); }
std::size_t settings_count() { return kSettings.size(); }

const Setting& setting(Knob knob) { return kSettings[static_cast<std::size_t>(knob)]; }

bool is_family(const Setting& s) { return s.name.find(kOpPlaceholder) != std::string_view::npos; }

std::string_view to_string(Reader reader) {
  switch (reader) {
    case Reader::library:
      return "library";
    case Reader::command:
      return "relay command";
    case Reader::cluster_tool:
      return "relay-cluster";
    case Reader::tests:
      return "tests";
  }
  return "?";
}

std::string_view to_string(Agreement agreement) {
  switch (agreement) {
    case Agreement::value:
      return "same value";
    case Agreement::contents:
      return "same contents";
    case Agreement::free:
      return "may differ";
  }
  return "?";
}

std::string setting_name(Knob knob, std::string_view op) {
  const std::string_view name = setting(knob).name;
  const std::size_t at = name.find(kOpPlaceholder);
  if (at == std::string_view::npos) return std::string(name);
  std::string spelled(name.substr(0, at));
  spelled += op;
  spelled += name.substr(at + kOpPlaceholder.size());
  return spelled;
}

SettingMatch find_setting(std::string_view name) {
  for (const Setting& s : kSettings) {
    if (name == s.name) return {&s, {}};
  }
  for (const Setting& s : kSettings) {
    const std::size_t at = s.name.find(kOpPlaceholder);
    if (at == std::string_view::npos) continue;
    const std::string_view before = s.name.substr(0, at);
    const std::string_view after = s.name.substr(at + kOpPlaceholder.size());
    if (name.size() > before.size() + after.size() && starts_with(name, before) &&
        ends_with(name, after)) {
      return {&s, name.substr(before.size(), name.size() - before.size() - after.size())};
    }
  }
  return {};
}

const char* read_setting(Knob knob, std::string_view op) {
  const char* v = std::getenv(setting_name(knob, op).c_str());
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

}  // namespace relay::core
