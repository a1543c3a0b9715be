// Energy meters (issue 31): a node's energy counters read at two moments, and the joules
// between them. No MPI here (node_energy.hpp reads one meter per node and sums over nodes), so
// the file reading is tested against fake trees without a launcher.
//
// The Linux RAPL meter reads the powercap tree (/sys/class/powercap, or RELAY_POWERCAP_ROOT):
// every zone intel-rapl:* (top level or nested, as intel-rapl:0/intel-rapl:0:1) whose `name`
// is "package-N" counts for the package domain, "dram" for the DRAM domain (core, uncore and
// psys zones are parts or supersets of these and are left out). A zone's `energy_uj` counts
// microjoules and wraps around at `max_energy_range_uj`: a later value below an earlier one
// has wrapped once, and the range is added. A domain that cannot be read -- no zone of it, an
// energy_uj that is unreadable (root only on kernels since 5.10) or not a number, no range --
// is unavailable with the reason, never a number made up.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relay::measure {

enum class EnergyDomain { package, dram };
inline constexpr std::size_t kEnergyDomains = 2;
inline constexpr std::array<EnergyDomain, kEnergyDomains> kAllEnergyDomains = {
    EnergyDomain::package, EnergyDomain::dram};
/// "package", "dram".
std::string_view to_string(EnergyDomain domain);

/// One zone's counter at one moment: microjoules since an arbitrary origin, wrapping around at
/// range_uj.
struct ZoneCounter {
  std::string zone;  ///< its directory, "intel-rapl:0"
  std::uint64_t energy_uj = 0;
  std::uint64_t range_uj = 0;
};

/// One domain at one moment: its zones' counters (by zone name), or why it cannot be read.
struct DomainReading {
  std::vector<ZoneCounter> zones;
  std::string unavailable;  ///< empty: readable
};

/// What a meter read at one moment, per domain (index: EnergyDomain).
using EnergyReading = std::array<DomainReading, kEnergyDomains>;

/// Joules of one domain, or why there are none.
struct DomainJoules {
  std::optional<double> joules;
  std::string unavailable;  ///< set when joules is empty
};
using EnergyJoules = std::array<DomainJoules, kEnergyDomains>;

/// Microjoules from `before` to `after` of a counter that wraps around at range_uj (one wrap at
/// most: a region longer than the range at the node's power wraps unseen).
std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t range_uj);

/// Joules per domain from `before` to `after` (the same zones in both), summed over zones.
EnergyJoules energy_between(const EnergyReading& before, const EnergyReading& after);

/// A node's energy counters.
class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  /// The counters now. Reads files: call where the time spent does not count.
  virtual EnergyReading read() const = 0;
  /// What it reads, for the results: "RAPL (/sys/class/powercap)".
  virtual std::string describe() const = 0;
  /// Which counters these are: meters of equal identity read the same counters (emulated nodes
  /// of one machine share its RAPL zones), so a sum over nodes counts them once. Empty: unique.
  virtual std::string identity() const { return std::string(); }
  /// False for a meter that never has a figure (NoMeter): its every reading is unavailable,
  /// for the same reason.
  virtual bool reads() const { return true; }
};

/// Linux RAPL through the powercap tree under `root`.
class RaplMeter : public EnergyMeter {
 public:
  explicit RaplMeter(std::string root);
  EnergyReading read() const override;
  std::string describe() const override;
  /// The kernel's boot id (/proc/sys/kernel/random/boot_id) and the root.
  std::string identity() const override;

 private:
  std::string root_;
};

/// A meter without counters (a simulation): every domain unavailable for `reason`.
class NoMeter : public EnergyMeter {
 public:
  explicit NoMeter(std::string reason) : reason_(std::move(reason)) {}
  EnergyReading read() const override;
  std::string describe() const override { return "none"; }
  bool reads() const override { return false; }

 private:
  std::string reason_;
};

/// RELAY_POWERCAP_ROOT, else /sys/class/powercap.
std::string powercap_root();

/// Energy summed over regions (the repetitions of one configuration): joules per domain, the
/// regions' seconds and the calls they held. A domain unavailable in one region stays so.
class EnergyTotal {
 public:
  /// One region: its joules per domain, its seconds and how many measured calls it held.
  void add(const EnergyJoules& joules, double seconds, long calls);
  /// Another total's regions (rounds of one configuration).
  void add(const EnergyTotal& other);
  /// Joules per call (the regions' joules over their calls); empty if unavailable or no call.
  std::optional<double> joules_per_call(EnergyDomain d) const;
  /// Average watts: the regions' joules over their seconds; empty if unavailable.
  std::optional<double> watts(EnergyDomain d) const;
  /// Why `d` has no figure ("" if it has one).
  const std::string& unavailable(EnergyDomain d) const;
  double seconds() const { return seconds_; }
  long calls() const { return calls_; }

  /// Into a result row: energy_package_J and energy_dram_J (per call), power_package_W and
  /// power_dram_W, each a number or null, and energy_seconds and energy_calls (what
  /// from_row needs to combine rows).
  void to_row(nlohmann::json& row) const;
  /// A row's energy as to_row wrote it (rounds of one configuration combine by adding); a row
  /// without energy fields gives an empty total with every domain unavailable.
  static EnergyTotal from_row(const nlohmann::json& row);

 private:
  EnergyJoules joules_{};
  bool started_ = false;
  double seconds_ = 0;
  long calls_ = 0;
};

}  // namespace relay::measure
