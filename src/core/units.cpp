#include "core/units.hpp"

#include <cctype>
#include <limits>

namespace relay::core {

std::optional<long long> parse_integer(std::string_view text, long long min, long long max) {
  if (text.empty()) return std::nullopt;
  bool negative = false;
  std::size_t i = 0;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  unsigned long long value = 0;
  for (; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
    if (value > (1ULL << 62)) return std::nullopt;
  }
  const long long v = negative ? -static_cast<long long>(value) : static_cast<long long>(value);
  if (v < min || v > max) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_bytes(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  const auto number =
      parse_integer(text.substr(0, digits), 0, std::numeric_limits<long long>::max());
  if (!number) return std::nullopt;
  std::string unit;
  for (char c : text.substr(digits))
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // 1024^power for the binary units and the bare letters, 1000^power for KB, MB, GB.
  std::int64_t base = 1024;
  int power = 0;
  if (unit.empty() || unit == "b") {
    power = 0;
  } else if (unit == "k" || unit == "kib" || unit == "kb") {
    power = 1;
  } else if (unit == "m" || unit == "mib" || unit == "mb") {
    power = 2;
  } else if (unit == "g" || unit == "gib" || unit == "gb") {
    power = 3;
  } else {
    return std::nullopt;
  }
  if (unit.size() == 2 && unit[1] == 'b') base = 1000;
  std::int64_t value = *number;
  for (int i = 0; i < power; ++i) {
    if (value > std::numeric_limits<std::int64_t>::max() / base) return std::nullopt;
    value *= base;
  }
  return value;
}

std::string format_bytes(std::int64_t bytes) {
  if (bytes > 0 && bytes % (1LL << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
  if (bytes > 0 && bytes % (1LL << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes > 0 && bytes % (1LL << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

}  // namespace relay::core
