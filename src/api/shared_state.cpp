#include "api/shared_state.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "coll/active_table.hpp"
#include "core/fingerprint.hpp"
#include "core/settings.hpp"
#include "core/status.hpp"
#include "exec/compute.hpp"
#include "exec/executor.hpp"

extern char** environ;

namespace relay::api {
namespace {

// Variables the table says may differ between ranks without changing which messages they
// exchange, or whose file is compared by its contents below (RELAY_TUNING_FILE). A RELAY_*
// name the table does not know counts: ranks that differ in a misspelt knob are told so.
bool paces_only(std::string_view name) {
  const core::SettingMatch match = core::find_setting(name);
  return match.setting != nullptr && match.setting->agreement != core::Agreement::value;
}

}  // namespace

std::uint64_t choice_fingerprint() {
  std::vector<std::string_view> variables;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.substr(0, 6) != "RELAY_") continue;
    const std::string_view name = entry.substr(0, entry.find('='));
    if (entry.size() == name.size() + 1) continue;  // set but empty: relay reads it as unset
    if (!paces_only(name)) variables.push_back(entry);
  }
  std::sort(variables.begin(), variables.end());
  core::Fingerprint f;
  for (const std::string_view v : variables) f.add(v);
  // The pacing variables may differ between ranks, but not in whether they parse: a rank
  // that refuses its own would fail alone and leave the others waiting.
  if (!exec::pacing_error().empty()) f.add("pacing: unusable");
  coll::ActiveTable table;
  const std::string saved_error = core::last_error();
  if (coll::active_table(table) != RELAY_SUCCESS) {
    f.add("tuning table: unusable");
    core::set_last_error(saved_error);  // the call itself reports it, with its own context
  } else if (table != nullptr) {
    for (const coll::Rule& r : table->table.rules) {
      f.add(r.operation);
      f.add(r.min_ranks);
      f.add(r.max_ranks);
      f.add(r.min_bytes);
      f.add(r.max_bytes);
      f.add(r.choice.algorithm);
      f.add(r.choice.segment_bytes);
      f.add(r.choice.fanout);
    }
  }
  return f.value();
}

relay_status_t shared_state(const char* fn, MPI_Comm comm, exec::CommState** state) {
  std::string error;
  const auto agree = [fn](MPI_Comm duplicate) -> relay_status_t {
    int rc = MPI_SUCCESS;
    const bool same = exec::same_on_every_rank(choice_fingerprint(), duplicate, rc);
    if (rc != MPI_SUCCESS) {
      return core::fail(RELAY_ERR_MPI, "{}: MPI_Allreduce of the configuration check failed", fn);
    }
    if (!same) {
      return core::fail(RELAY_ERR_MISMATCH,
                        "{}: the ranks of this communicator do not share the same RELAY_* "
                        "environment (algorithms, segment sizes, fanouts, RELAY_CHECK) and "
                        "tuning table (RELAY_TUNING_FILE's rules): they would run different "
                        "schedules; give every rank the same settings",
                        fn);
    }
    return RELAY_SUCCESS;
  };
  const relay_status_t st = exec::comm_state(comm, state, error, agree);
  if (st == RELAY_ERR_MISMATCH || (st != RELAY_SUCCESS && error.empty())) return st;
  if (st != RELAY_SUCCESS) return core::fail(st, "{}: {}", fn, error);
  return RELAY_SUCCESS;
}

}  // namespace relay::api
