// `relay env`: the table of RELAY_* variables (core/settings.hpp), the values this environment
// sets, and a warning for each RELAY_* variable relay does not know: a misspelt knob is
// otherwise silently ignored.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "coll/registry.hpp"
#include "core/settings.hpp"

extern char** environ;

namespace relay::cli {

namespace {

// The words <OP> stands for: every collective of the catalogue (BCAST first).
std::vector<std::string_view> op_words() {
  std::vector<std::string_view> ops;
  for (coll::Collective c : coll::kCollectives) ops.push_back(coll::env_prefix(c));
  return ops;
}

bool known_variable(std::string_view name, const std::vector<std::string_view>& ops) {
  const core::SettingMatch match = core::find_setting(name);
  if (match.setting == nullptr) return false;
  if (!core::is_family(*match.setting)) return true;
  for (const std::string_view op : ops) {
    if (op == match.op) return true;
  }
  return false;
}

void print_table(const std::vector<std::string_view>& ops) {
  std::string op_list;
  for (const std::string_view op : ops)
    op_list += fmt::format("{}{}", op_list.empty() ? "" : ", ", op);
  std::printf(
      "relay reads these environment variables (docs/environment.md); <OP> is one of %s.\n"
      "Empty counts as unset. \"same value\": every rank of a communicator must give it "
      "the same value.\n\n",
      op_list.c_str());
  for (auto s = core::settings_begin(); s != core::settings_end(); ++s) {
    std::printf("%s\n    type: %s; default: %s; read by: %s; ranks: %s\n    %s\n",
                std::string(s->name).c_str(), std::string(s->type).c_str(),
                std::string(s->default_value).c_str(), std::string(to_string(s->reader)).c_str(),
                std::string(to_string(s->agreement)).c_str(), std::string(s->meaning).c_str());
  }
}

// Every RELAY_* variable of this environment with its value; unknown ones also warned about
// on stderr.
void print_set_variables(const std::vector<std::string_view>& ops) {
  std::vector<std::string_view> set;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.substr(0, 6) == "RELAY_") set.push_back(entry);
  }
  std::printf("\nSet in this environment:%s\n", set.empty() ? " none" : "");
  for (const std::string_view entry : set) {
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool known = known_variable(name, ops);
    std::printf("  %s%s\n", std::string(entry).c_str(), known ? "" : "   (unknown)");
    if (!known) {
      std::fprintf(stderr,
                   "relay: warning: %s is set but relay reads no such variable (a "
                   "misspelt name? relay env lists them)\n",
                   std::string(name).c_str());
    }
  }
}

}  // namespace

void add_env(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "env", "List the RELAY_* environment variables, the values set here, and unknown ones");
  cmd->callback([&exit_code] {
    const std::vector<std::string_view> ops = op_words();
    print_table(ops);
    print_set_variables(ops);
    exit_code = std::fflush(stdout) == 0 ? 0 : kExitFailure;
  });
}

}  // namespace relay::cli
