#include "core/environment.hpp"

#include <unistd.h>

#include <cstring>
#include <initializer_list>

namespace relay::core {

namespace {

constexpr std::string_view kRelayPrefix = "RELAY_";

// The value of `entry` ("NAME=value") when its name is the concatenation of `parts`.
const char* match(const char* entry, std::initializer_list<std::string_view> parts) {
  const char* p = entry;
  for (std::string_view part : parts) {
    // An empty view may have a null data(), which strncmp must not be given even for 0 bytes.
    if (part.empty()) continue;
    if (std::strncmp(p, part.data(), part.size()) != 0) return nullptr;
    p += part.size();
  }
  return *p == '=' ? p + 1 : nullptr;
}

const char* non_empty(const char* v) { return (v != nullptr && *v != '\0') ? v : nullptr; }

}  // namespace

RelayEnvironment::RelayEnvironment() {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if ((*e)[0] != 'R' || std::strncmp(*e, kRelayPrefix.data(), kRelayPrefix.size()) != 0) {
      continue;
    }
    if (count_ == kMaxEntries) {
      overflow_ = true;
      return;
    }
    entries_[count_++] = *e;
  }
}

const char* RelayEnvironment::get(Knob knob, std::string_view op) const {
  if (overflow_) return read_setting(knob, op);
  // Most programs set no RELAY_* variable: nothing to look for (a bcast reads about eight).
  if (count_ == 0) return nullptr;
  // The name as the parts either side of <OP>: no string is built on this per-call path.
  const std::string_view name = setting(knob).name;
  const std::size_t at = name.find(kOpPlaceholder);
  const std::string_view before = name.substr(0, at);
  const std::string_view after =
      at == std::string_view::npos ? std::string_view() : name.substr(at + kOpPlaceholder.size());
  for (int i = 0; i < count_; ++i) {
    if (const char* v = match(entries_[i], {before, op, after})) return non_empty(v);
  }
  return nullptr;
}

}  // namespace relay::core
