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
  const auto number = parse_integer(text.substr(0, digits), 0, std::numeric_limits<long long>::max());
  if (!number) return std::nullopt;
  std::string unit;
  for (char c : text.substr(digits)) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int shift = 0;
  if (unit.empty() || unit == "b") {
    shift = 0;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    shift = 10;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    shift = 20;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    shift = 30;
  } else {
    return std::nullopt;
  }
  if (*number > (std::numeric_limits<std::int64_t>::max() >> shift)) return std::nullopt;
  return static_cast<std::int64_t>(*number) << shift;
}

std::string format_bytes(std::int64_t bytes) {
  if (bytes > 0 && bytes % (1LL << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
  if (bytes > 0 && bytes % (1LL << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes > 0 && bytes % (1LL << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

}  // namespace relay::core
