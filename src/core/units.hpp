// Byte sizes as people write them: "4096", "64KiB", "8MiB", "16M", "8MB".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace relay::core {

/// The units parse_bytes accepts, for help texts and error messages.
inline constexpr const char* kByteUnitsHelp =
    "units: B; KiB or K = 1024, MiB or M = 1024^2, GiB or G = 1024^3 bytes; KB = 1000, "
    "MB = 1000^2, GB = 1000^3 bytes (8MB = 8000000, 8MiB = 8388608); any case";

/// Parses a byte count with an optional unit (case-insensitive): none or B; KiB, MiB, GiB and
/// K, M, G (powers of 1024, as GNU coreutils reads K, M, G); KB, MB, GB (powers of 1000, as
/// SI and coreutils read them: "8MB" is 8000000 bytes, not 8 MiB). nullopt for anything
/// else, negatives or overflow.
std::optional<std::int64_t> parse_bytes(std::string_view text);

/// Shortest exact form: 1048576 -> "1MiB", 1000 -> "1000B", 3 -> "3B".
std::string format_bytes(std::int64_t bytes);

/// Parses a decimal int in [min, max]; nullopt otherwise.
std::optional<long long> parse_integer(std::string_view text, long long min, long long max);

}  // namespace relay::core
