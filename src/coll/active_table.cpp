#include "coll/active_table.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "core/settings.hpp"
#include "core/status.hpp"

namespace relay::coll {
namespace {

std::mutex mutex;
ActiveTable current;
bool env_checked = false;
std::string env_error;  // why RELAY_TUNING_FILE (or RELAY_TUNING_ON_ERROR) could not be used

}  // namespace

relay_status_t active_table(ActiveTable& out) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!env_checked) {
    env_checked = true;
    // RELAY_TUNING_ON_ERROR is checked whether or not the table loads: a misspelt value would
    // otherwise be found only on the day the table breaks.
    OnTableError on_error = OnTableError::fail;
    try {
      on_error = on_table_error(core::read_setting(core::Knob::tuning_on_error));
    } catch (const std::exception& e) {
      env_error = e.what();
    }
    const char* path = core::read_setting(core::Knob::tuning_file);
    if (env_error.empty() && path != nullptr && current == nullptr) {
      try {
        current = std::make_shared<const coll::LoadedTable>(
            coll::LoadedTable{coll::Table::load(path), path});
      } catch (const std::exception& e) {
        const std::string why = std::string("RELAY_TUNING_FILE: ") + e.what();
        if (on_error == OnTableError::defaults) {
          std::fprintf(stderr,
                       "relay: warning: %s; choosing by the model instead "
                       "(RELAY_TUNING_ON_ERROR=defaults)\n",
                       why.c_str());
        } else {
          env_error = why + " (fix or unset it; RELAY_TUNING_ON_ERROR=defaults goes on without it)";
        }
      }
    }
  }
  if (!env_error.empty()) return core::fail(RELAY_ERR_TUNING, "{}", env_error);
  out = current;
  return RELAY_SUCCESS;
}

relay_status_t auto_rule(const std::string& operation, int size, std::int64_t bytes,
                         const std::function<bool(const Rule&)>& usable, AutoRule& out) {
  out = AutoRule{};
  ActiveTable active;
  if (auto st = active_table(active); st != RELAY_SUCCESS) return st;
  const Rule* rule = active ? active->table.lookup(operation, size, bytes) : nullptr;
  if (rule != nullptr && usable(*rule)) out.rule = rule;
  out.table = std::move(active);
  return RELAY_SUCCESS;
}

std::string AutoRule::origin() const {
  if (rule != nullptr)
    return fmt::format("table {} rule {}", table->path, rule - table->table.rules.data());
  return table ? fmt::format("model, no rule in {}", table->path) : "model";
}

void take_choice(const Rule& rule, std::int64_t& segment_bytes, relay_policy_t& policy,
                 int& fanout) {
  segment_bytes = rule.choice.segment_bytes;
  if (policy == RELAY_POLICY_DEFAULT) {
    policy = rule.choice.policy == "blocking" ? RELAY_POLICY_BLOCKING : RELAY_POLICY_NONBLOCKING;
  }
  if (fanout == 0) fanout = rule.choice.fanout;
}

}  // namespace relay::coll

namespace relay::coll {

relay_status_t load_table(const char* path) {
  std::lock_guard<std::mutex> lock(mutex);
  env_checked = true;  // an explicit load replaces whatever the environment named
  env_error.clear();
  if (path == nullptr) {
    current = nullptr;
    return RELAY_SUCCESS;
  }
  try {
    current = std::make_shared<const LoadedTable>(LoadedTable{Table::load(path), path});
  } catch (const std::exception& e) {
    return core::fail(RELAY_ERR_TUNING, "relay_tuning_load: {}", e.what());
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::coll
