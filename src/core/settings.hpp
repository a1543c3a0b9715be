// Every RELAY_* environment variable in one table: its name, type, default, meaning, who reads
// it and whether ranks must agree on it. The code reads each variable through its row (by
// Knob), `relay env` prints the table, and a test checks docs/environment.md against it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace relay::core {

/// One row of the table each. Families (RELAY_<OP>_...) are one row with an <OP> placeholder
/// standing for a collective's name in upper case (BCAST, ALLREDUCE, ...).
enum class Knob {
  op_algorithm,
  op_policy,
  op_segment_bytes,
  op_fanout,
  op_max_requests,
  check,
  log,
  tuning_file,
  tuning_on_error,
  idle_sleep_us,
  peer_bytes_in_flight,
  gemm_panel_width,
  gemm_lookahead,
  gemm_pieces,
  gemm_panel_broadcasts,
  gemm_algorithm,
  gemm_layers,
  gemm_memory_limit,
  model_params,
  scalapack_on_error,
  scalapack_forward,
  profile_dir,
  profile_library,
  python,
  python_dir,
  cluster_script,
  cluster_job,
  cluster_timeout,
  cluster_name,
  cluster_cache,
  cluster_check_bin,
  simulate_relay,
  simulate_smpirun,
  simulate_platform,
  simulate_compute,
  simulate_gflops,
  link_bits_per_s,
  machine_id,
  powercap_root,
  cluster_test_program,
  test_max_bytes,
  test_gemm_cases,
  robustness_case,
  robustness_table,
};

/// Who reads a variable.
enum class Reader { library, command, cluster_tool, tests };

/// Whether the ranks of a communicator must give a variable the same value. The first call on
/// a communicator compares a fingerprint of the `value` ones (api/shared_state.cpp): ranks
/// that differ there would run different schedules and hang.
enum class Agreement {
  value,     // changes which messages a schedule exchanges
  contents,  // a file whose contents are compared instead (the tuning table's rules)
  free,      // changes only pacing, output or tools: may differ between ranks
};

struct Setting {
  Knob knob;
  std::string_view name;           // "RELAY_CHECK", or "RELAY_<OP>_POLICY" for a family
  std::string_view type;           // what values it takes
  std::string_view default_value;  // what applies when it is unset or empty
  std::string_view meaning;
  Reader reader;
  Agreement agreement;
};

inline constexpr std::string_view kOpPlaceholder = "<OP>";

/// The whole table, in Knob order.
const Setting* settings_begin();
const Setting* settings_end();
std::size_t settings_count();

const Setting& setting(Knob knob);
bool is_family(const Setting& s);
/// "reads the library", "the relay command", ...: the table's reader column.
std::string_view to_string(Reader reader);
std::string_view to_string(Agreement agreement);

/// The variable's name; for a family, with `op` ("BCAST") in place of <OP>. For messages.
std::string setting_name(Knob knob, std::string_view op = {});

/// A variable of the environment (its name) looked up in the table: the row, and for a
/// family the OP word it carries ("RELAY_BCAST_POLICY" -> op_policy, "BCAST"). Any non-empty
/// word matches <OP> here; the caller checks it against the collectives it knows.
struct SettingMatch {
  const Setting* setting = nullptr;  // nullptr: not in the table
  std::string_view op;
};
SettingMatch find_setting(std::string_view name);

/// The value of a variable read once (getenv), or nullptr when it is unset or empty: relay
/// reads an empty variable as unset. For the variables read once per process or per command;
/// the collectives' per-call reads go through RelayEnvironment (core/environment.hpp).
const char* read_setting(Knob knob, std::string_view op = {});

}  // namespace relay::core
