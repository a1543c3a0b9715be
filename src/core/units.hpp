// Byte sizes as people write them: "4096", "64KiB", "1MiB", "8MB", "16m".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace relay::core {

/// Parses a byte count with an optional binary unit (B, K/KB/KiB, M/MB/MiB, G/GB/GiB; all
/// powers of 1024, case-insensitive). nullopt for anything else, negatives or overflow.
std::optional<std::int64_t> parse_bytes(std::string_view text);

/// Shortest exact form: 1048576 -> "1MiB", 1000 -> "1000B", 3 -> "3B".
std::string format_bytes(std::int64_t bytes);

/// Parses a decimal int in [min, max]; nullopt otherwise.
std::optional<long long> parse_integer(std::string_view text, long long min, long long max);

}  // namespace relay::core
