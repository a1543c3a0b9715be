// Parsing the lists a sweep is made of: "1B:16MiB" (powers of two), "8KiB,64KiB", "all".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relay::cli {

/// Appended to the help of size options: what the units mean (core::parse_bytes).
inline constexpr const char* kSizesHelpUnits =
    " (64KiB = 65536 bytes, 64KB = 64000: relay --help lists the units)";

/// The items of a comma-separated list, spaces around them trimmed, empty items dropped.
std::vector<std::string> split_list(const std::string& text);

/// Byte sizes from a comma-separated list whose items are sizes ("64KiB") or power-of-two
/// ranges ("1B:16MiB", "4KiB:1MiB"); "none"/"0" give 0. Throws std::invalid_argument.
std::vector<std::int64_t> parse_size_list(const std::string& text);

/// Names from a comma-separated list; "all" expands to `all`. Unknown names throw
/// std::invalid_argument naming the valid ones.
std::vector<std::string> parse_name_list(const std::string& text,
                                         const std::vector<std::string>& all,
                                         const std::string& what);

/// Integers in min..max from a comma-separated list ("2,4,8"). Throws std::invalid_argument.
std::vector<int> parse_int_list(const std::string& text, int min, int max, const std::string& what);

}  // namespace relay::cli
