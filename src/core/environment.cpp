#include "core/environment.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

namespace relay::core {

namespace {

constexpr std::string_view kRelayPrefix = "RELAY_";

// The value of `entry` ("NAME=value") when its name is the concatenation of `parts`.
const char* match(const char* entry, std::initializer_list<std::string_view> parts) {
  const char* p = entry;
  for (std::string_view part : parts) {
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

const char* RelayEnvironment::get(std::string_view name) const {
  if (overflow_) return non_empty(std::getenv(std::string(name).c_str()));
  for (int i = 0; i < count_; ++i) {
    if (const char* v = match(entries_[i], {name})) return non_empty(v);
  }
  return nullptr;
}

const char* RelayEnvironment::get(std::string_view op, std::string_view field) const {
  if (overflow_) {
    return get(fmt::format("{}{}_{}", kRelayPrefix, op, field));
  }
  for (int i = 0; i < count_; ++i) {
    if (const char* v = match(entries_[i], {kRelayPrefix, op, "_", field})) return non_empty(v);
  }
  return nullptr;
}

}  // namespace relay::core
