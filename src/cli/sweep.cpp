#include "cli/sweep.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "core/units.hpp"

namespace relay::cli {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, sep)) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

std::vector<std::string> split_list(const std::string& text) { return split(text, ','); }

namespace {

std::int64_t size_of(const std::string& item) {
  if (item == "none") return 0;
  const auto b = core::parse_bytes(item);
  if (!b) {
    throw std::invalid_argument("'" + item + "' is not a size like 4096, 64KiB or 8MiB (" +
                                core::kByteUnitsHelp + ")");
  }
  return *b;
}

}  // namespace

std::vector<std::int64_t> parse_size_list(const std::string& text) {
  std::vector<std::int64_t> sizes;
  for (const auto& item : split(text, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      sizes.push_back(size_of(item));
      continue;
    }
    const std::int64_t lo = size_of(item.substr(0, colon));
    const std::int64_t hi = size_of(item.substr(colon + 1));
    if (lo <= 0 || hi < lo) throw std::invalid_argument("bad range '" + item + "'");
    for (std::int64_t s = lo; s <= hi; s *= 2) sizes.push_back(s);
  }
  if (sizes.empty()) throw std::invalid_argument("empty size list");
  return sizes;
}

std::vector<std::string> parse_name_list(const std::string& text,
                                         const std::vector<std::string>& all,
                                         const std::string& what) {
  std::vector<std::string> names;
  for (const auto& item : split(text, ',')) {
    if (item == "all") {
      names.insert(names.end(), all.begin(), all.end());
    } else if (std::find(all.begin(), all.end(), item) != all.end()) {
      names.push_back(item);
    } else {
      std::string valid;
      for (const auto& a : all) valid += (valid.empty() ? "" : ", ") + a;
      throw std::invalid_argument("'" + item + "' is not a " + what + " (one of: " + valid +
                                  ", all)");
    }
  }
  if (names.empty()) throw std::invalid_argument("empty " + what + " list");
  return names;
}

std::vector<int> parse_int_list(const std::string& text, int min, int max,
                                const std::string& what) {
  std::vector<int> values;
  for (const auto& item : split(text, ',')) {
    const auto v = core::parse_integer(item, min, max);
    if (!v) {
      throw std::invalid_argument("'" + item + "' is not a " + what + " (an integer in " +
                                  std::to_string(min) + ".." + std::to_string(max) + ")");
    }
    values.push_back(static_cast<int>(*v));
  }
  if (values.empty()) throw std::invalid_argument("empty " + what + " list");
  return values;
}

}  // namespace relay::cli
