#include "measure/energy.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>

#include "core/settings.hpp"

namespace relay::measure {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kZonePrefix = "intel-rapl:";

// A small sysfs file's first line, or the reason it cannot be read ("PATH: Permission denied").
bool read_line(const fs::path& path, std::string& text, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) {
    error = fmt::format("{}: {}", path.string(), std::strerror(errno));
    return false;
  }
  char buf[128] = {};
  const std::size_t got = std::fread(buf, 1, sizeof buf - 1, f);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) {  // sysfs reports a refused read here (EACCES, EIO) rather than at open
    error = fmt::format("{}: {}", path.string(), std::strerror(err));
    return false;
  }
  text.assign(buf, got);
  const auto end = text.find_first_of("\r\n");
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return true;
}

// A counter file: a whole number of microjoules.
bool read_microjoules(const fs::path& path, std::uint64_t& value, std::string& error) {
  std::string text;
  if (!read_line(path, text, error)) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    error = fmt::format("{}: '{}' is not a whole number of microjoules", path.string(), text);
    return false;
  }
  return true;
}

bool is_zone(const fs::directory_entry& e) {
  std::error_code ec;
  return e.path().filename().string().rfind(kZonePrefix, 0) == 0 && e.is_directory(ec);
}

}  // namespace

std::string_view to_string(EnergyDomain domain) {
  return domain == EnergyDomain::package ? "package" : "dram";
}

std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t range_uj) {
  if (after >= before) return after - before;
  return (range_uj - before) + after;  // wrapped once; the reader keeps before <= range_uj
}

EnergyJoules energy_between(const EnergyReading& before, const EnergyReading& after) {
  EnergyJoules out;
  for (EnergyDomain d : kAllEnergyDomains) {
    const auto i = static_cast<std::size_t>(d);
    const DomainReading &b = before[i], &a = after[i];
    DomainJoules& j = out[i];
    if (!b.unavailable.empty() || !a.unavailable.empty()) {
      j.unavailable = !b.unavailable.empty() ? b.unavailable : a.unavailable;
      continue;
    }
    bool same = a.zones.size() == b.zones.size() && !a.zones.empty();
    std::uint64_t uj = 0;
    for (std::size_t z = 0; same && z < a.zones.size(); ++z) {
      same = a.zones[z].zone == b.zones[z].zone && a.zones[z].range_uj == b.zones[z].range_uj;
      if (same)
        uj += counter_delta(b.zones[z].energy_uj, a.zones[z].energy_uj, a.zones[z].range_uj);
    }
    if (!same) {
      j.unavailable = fmt::format("the {} zones changed between two readings", to_string(d));
      continue;
    }
    j.joules = static_cast<double>(uj) * 1e-6;
  }
  return out;
}

RaplMeter::RaplMeter(std::string root) : root_(std::move(root)) {}

std::string RaplMeter::describe() const { return fmt::format("RAPL ({})", root_); }

std::string RaplMeter::identity() const {
  std::string boot, error;
  if (!read_line("/proc/sys/kernel/random/boot_id", boot, error) || boot.empty()) return {};
  return boot + ":" + root_;
}

EnergyReading RaplMeter::read() const {
  EnergyReading out;
  auto fail_all = [&](const std::string& reason) {
    for (auto& d : out) {
      d.zones.clear();
      d.unavailable = reason;
    }
    return out;
  };
  const fs::path root(root_);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return fail_all(fmt::format("no powercap tree at {} (no RAPL counters here)", root_));
  }
  // Zones by name: the flat tree (/sys/class/powercap/intel-rapl:0:0, links) and the nested one
  // (intel-rapl:0/intel-rapl:0:0) name the same zone once.
  std::map<std::string, fs::path> zones;
  fs::directory_iterator top(root, ec), end;
  if (ec) return fail_all(fmt::format("{}: {}", root_, ec.message()));
  for (; top != end; top.increment(ec)) {
    if (ec) return fail_all(fmt::format("{}: {}", root_, ec.message()));
    if (!is_zone(*top)) continue;
    zones.emplace(top->path().filename().string(), top->path());
    std::error_code sub_ec;
    for (fs::directory_iterator sub(top->path(), sub_ec); !sub_ec && sub != end;
         sub.increment(sub_ec)) {
      if (is_zone(*sub)) zones.emplace(sub->path().filename().string(), sub->path());
    }
  }
  for (const auto& [zone, dir] : zones) {
    std::string name, error;
    if (!read_line(dir / "name", name, error)) return fail_all(error);  // no domain is certain
    EnergyDomain d;
    if (name.rfind("package-", 0) == 0) {
      d = EnergyDomain::package;
    } else if (name == "dram") {
      d = EnergyDomain::dram;
    } else {
      continue;  // core, uncore (parts of a package), psys (the platform)
    }
    DomainReading& r = out[static_cast<std::size_t>(d)];
    if (!r.unavailable.empty()) continue;
    ZoneCounter c;
    c.zone = zone;
    if (!read_microjoules(dir / "energy_uj", c.energy_uj, error) ||
        !read_microjoules(dir / "max_energy_range_uj", c.range_uj, error)) {
      r.unavailable = error;
      continue;
    }
    if (c.range_uj == 0 || c.energy_uj > c.range_uj) {
      r.unavailable = fmt::format("{}: energy_uj {} is not within max_energy_range_uj {}",
                                  (dir / "energy_uj").string(), c.energy_uj, c.range_uj);
      continue;
    }
    r.zones.push_back(c);
  }
  for (EnergyDomain d : kAllEnergyDomains) {
    DomainReading& r = out[static_cast<std::size_t>(d)];
    if (!r.unavailable.empty()) {
      r.zones.clear();
    } else if (r.zones.empty()) {
      r.unavailable = fmt::format("no {} zone (intel-rapl:*, name {}) under {}", to_string(d),
                                  d == EnergyDomain::package ? "package-N" : "dram", root_);
    }
  }
  return out;
}

EnergyReading NoMeter::read() const {
  EnergyReading out;
  for (auto& d : out) d.unavailable = reason_;
  return out;
}

std::string powercap_root() {
  const char* v = core::read_setting(core::Knob::powercap_root);
  return v != nullptr ? v : "/sys/class/powercap";
}

void EnergyTotal::add(const EnergyJoules& joules, double seconds, long calls) {
  for (std::size_t i = 0; i < kEnergyDomains; ++i) {
    DomainJoules& mine = joules_[i];
    const DomainJoules& more = joules[i];
    if (!started_ || (mine.joules && !more.joules)) {
      mine = more;
    } else if (mine.joules) {
      *mine.joules += *more.joules;
    }
  }
  started_ = true;
  seconds_ += seconds;
  calls_ += calls;
}

void EnergyTotal::add(const EnergyTotal& other) {
  if (other.started_) add(other.joules_, other.seconds_, other.calls_);
}

std::optional<double> EnergyTotal::joules_per_call(EnergyDomain d) const {
  const auto& j = joules_[static_cast<std::size_t>(d)].joules;
  if (!started_ || !j || calls_ <= 0) return std::nullopt;
  return *j / static_cast<double>(calls_);
}

std::optional<double> EnergyTotal::watts(EnergyDomain d) const {
  const auto& j = joules_[static_cast<std::size_t>(d)].joules;
  if (!started_ || !j || !(seconds_ > 0)) return std::nullopt;
  return *j / seconds_;
}

const std::string& EnergyTotal::unavailable(EnergyDomain d) const {
  static const std::string not_measured = "not measured";
  if (!started_) return not_measured;
  return joules_[static_cast<std::size_t>(d)].unavailable;
}

namespace {

std::string field(const char* what, EnergyDomain d, const char* unit) {
  return fmt::format("{}_{}_{}", what, to_string(d), unit);
}

nlohmann::json number_or_null(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void EnergyTotal::to_row(nlohmann::json& row) const {
  for (EnergyDomain d : kAllEnergyDomains) {
    row[field("energy", d, "J")] = number_or_null(joules_per_call(d));
    row[field("power", d, "W")] = number_or_null(watts(d));
  }
  row["energy_seconds"] = seconds_;
  row["energy_calls"] = calls_;
}

EnergyTotal EnergyTotal::from_row(const nlohmann::json& row) {
  EnergyTotal t;
  if (!row.contains("energy_seconds") || !row.contains("energy_calls")) return t;
  t.started_ = true;
  t.seconds_ = row["energy_seconds"].get<double>();
  t.calls_ = row["energy_calls"].get<long>();
  for (EnergyDomain d : kAllEnergyDomains) {
    const auto& v = row.value(field("energy", d, "J"), nlohmann::json(nullptr));
    DomainJoules& j = t.joules_[static_cast<std::size_t>(d)];
    if (v.is_number()) {
      j.joules = v.get<double>() * static_cast<double>(t.calls_);
    } else {
      j.unavailable = "unavailable";
    }
  }
  return t;
}

}  // namespace relay::measure
