// A 64-bit FNV-1a hash for fingerprints that ranks compare: the same on every process and
// build, which std::hash is not required to be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace relay::core {

class Fingerprint {
 public:
  void add_bytes(const void* data, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      hash_ ^= b[i];
      hash_ *= 1099511628211ull;
    }
  }
  /// A string and a separator, so that "ab", "c" differs from "a", "bc".
  void add(std::string_view text) {
    add_bytes(text.data(), text.size());
    add_bytes("\xff", 1);
  }
  void add(std::int64_t value) { add_bytes(&value, sizeof value); }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

}  // namespace relay::core
