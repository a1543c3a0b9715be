// The RAPL meter (measure/energy.hpp) against fake powercap trees made in a temporary
// directory: a normal reading over two packages, wraparound through max_energy_range_uj, a
// missing DRAM domain, unreadable and malformed counters, no tree at all; and the totals the
// benchmarks print (per call, watts, rounds combined through the rows).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "measure/energy.hpp"

namespace fs = std::filesystem;
using relay::measure::counter_delta;
using relay::measure::EnergyDomain;
using relay::measure::EnergyReading;
using relay::measure::EnergyTotal;
using relay::measure::RaplMeter;

namespace {

constexpr std::uint64_t kPackageRange = 262143328850;  // a Xeon's, as the kernel reports it
constexpr std::uint64_t kDramRange = 65712999613;

// A powercap tree in a fresh temporary directory, removed at the end of the test.
class FakeTree {
 public:
  FakeTree() {
    char templ[] = "/tmp/relay_powercap_XXXXXX";
    root_ = mkdtemp(templ);
  }
  ~FakeTree() { fs::remove_all(root_); }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  const std::string& root() const { return root_; }
  // A zone `path` (relative: "intel-rapl:0" or "intel-rapl:0/intel-rapl:0:1") named `name`.
  void zone(const std::string& path, const std::string& name, std::uint64_t energy_uj,
            std::uint64_t range_uj) {
    fs::create_directories(dir(path));
    write(path + "/name", name + "\n");
    set(path, energy_uj);
    write(path + "/max_energy_range_uj", std::to_string(range_uj) + "\n");
  }
  void set(const std::string& path, std::uint64_t energy_uj) {
    write(path + "/energy_uj", std::to_string(energy_uj) + "\n");
  }
  void write(const std::string& file, const std::string& text) {
    std::ofstream(dir(file), std::ios::trunc) << text;
  }
  fs::path dir(const std::string& path) const { return fs::path(root_) / path; }

 private:
  std::string root_;
};

double joules(const EnergyReading& before, const EnergyReading& after, EnergyDomain d) {
  const auto j = relay::measure::energy_between(before, after)[static_cast<std::size_t>(d)];
  EXPECT_TRUE(j.joules.has_value()) << j.unavailable;
  return j.joules.value_or(-1);
}

std::string why(const EnergyReading& r, EnergyDomain d) {
  return r[static_cast<std::size_t>(d)].unavailable;
}

// Two packages, each with its DRAM zone nested inside, a core zone, and psys at the top.
void two_sockets(FakeTree& t) {
  t.zone("intel-rapl:0", "package-0", 1000000, kPackageRange);
  t.zone("intel-rapl:0/intel-rapl:0:0", "core", 500, kPackageRange);
  t.zone("intel-rapl:0/intel-rapl:0:1", "dram", 2000, kDramRange);
  t.zone("intel-rapl:1", "package-1", 3000000, kPackageRange);
  t.zone("intel-rapl:1/intel-rapl:1:0", "dram", 4000, kDramRange);
  t.zone("intel-rapl:2", "psys", 10, kPackageRange);
}

}  // namespace

TEST(Energy, ReadsPackagesAndDramSummedOverZones) {
  FakeTree t;
  two_sockets(t);
  // The flat layout of /sys/class/powercap: the nested zones appear at the top as links too.
  fs::create_directory_symlink(t.dir("intel-rapl:0/intel-rapl:0:1"), t.dir("intel-rapl:0:1"));
  const RaplMeter meter(t.root());
  const EnergyReading before = meter.read();
  ASSERT_EQ(why(before, EnergyDomain::package), "");
  ASSERT_EQ(why(before, EnergyDomain::dram), "");
  EXPECT_EQ(before[0].zones.size(), 2u);            // package-0, package-1: core and psys left out
  EXPECT_EQ(before[1].zones.size(), 2u);            // each DRAM zone once, though linked twice
  t.set("intel-rapl:0", 1000000 + 2500000);         // 2.5 J
  t.set("intel-rapl:1", 3000000 + 1500000);         // 1.5 J
  t.set("intel-rapl:0/intel-rapl:0:0", 999999999);  // core: not counted
  t.set("intel-rapl:0/intel-rapl:0:1", 2000 + 250000);
  t.set("intel-rapl:1/intel-rapl:1:0", 4000 + 750000);
  t.set("intel-rapl:2", 999999999);  // psys: not counted
  const EnergyReading after = meter.read();
  EXPECT_DOUBLE_EQ(joules(before, after, EnergyDomain::package), 4.0);
  EXPECT_DOUBLE_EQ(joules(before, after, EnergyDomain::dram), 1.0);
  EXPECT_DOUBLE_EQ(joules(before, before, EnergyDomain::package), 0.0);  // a static tree
  EXPECT_EQ(meter.describe(), "RAPL (" + t.root() + ")");
}

TEST(Energy, WrapsAroundAtTheCountersRange) {
  EXPECT_EQ(counter_delta(100, 350, 1000), 250u);
  EXPECT_EQ(counter_delta(900, 50, 1000), 150u);  // 100 to the range, 50 after it
  EXPECT_EQ(counter_delta(1000, 0, 1000), 0u);
  FakeTree t;
  t.zone("intel-rapl:0", "package-0", kPackageRange - 1000000, kPackageRange);  // 1 J to go
  t.zone("intel-rapl:0/intel-rapl:0:1", "dram", kDramRange - 10, kDramRange);
  const RaplMeter meter(t.root());
  const EnergyReading before = meter.read();
  t.set("intel-rapl:0", 2000000);                     // wrapped: 1 J + 2 J
  t.set("intel-rapl:0/intel-rapl:0:1", 500000 - 10);  // wrapped: 10 uJ + 0.49999 J
  const EnergyReading after = meter.read();
  EXPECT_DOUBLE_EQ(joules(before, after, EnergyDomain::package), 3.0);
  EXPECT_DOUBLE_EQ(joules(before, after, EnergyDomain::dram), 0.5);
}

TEST(Energy, AMissingDramDomainIsUnavailableNotZero) {
  FakeTree t;
  t.zone("intel-rapl:0", "package-0", 1000, kPackageRange);
  t.zone("intel-rapl:0/intel-rapl:0:0", "core", 10, kPackageRange);
  const RaplMeter meter(t.root());
  const EnergyReading before = meter.read();
  EXPECT_EQ(why(before, EnergyDomain::package), "");
  EXPECT_NE(why(before, EnergyDomain::dram).find("no dram zone"), std::string::npos)
      << why(before, EnergyDomain::dram);
  t.set("intel-rapl:0", 1000 + 7000000);
  const auto j = relay::measure::energy_between(before, meter.read());
  EXPECT_DOUBLE_EQ(j[0].joules.value_or(-1), 7.0);
  EXPECT_FALSE(j[1].joules.has_value());
  EXPECT_NE(j[1].unavailable.find("no dram zone"), std::string::npos);
}

TEST(Energy, MalformedOrUnreadableCountersMakeTheirDomainUnavailable) {
  for (const std::string bad : {"", "12abc", "-5", "0x10", "99999999999999999999999"}) {
    FakeTree t;
    two_sockets(t);
    t.write("intel-rapl:1/energy_uj", bad + "\n");
    const EnergyReading r = RaplMeter(t.root()).read();
    EXPECT_NE(why(r, EnergyDomain::package).find("is not a whole number"), std::string::npos)
        << "'" << bad << "': " << why(r, EnergyDomain::package);
    EXPECT_TRUE(r[0].zones.empty());
    EXPECT_EQ(why(r, EnergyDomain::dram), "");  // the other domain still counts
  }
  {  // a counter beyond its own range
    FakeTree t;
    t.zone("intel-rapl:0", "package-0", kPackageRange + 1, kPackageRange);
    EXPECT_NE(why(RaplMeter(t.root()).read(), EnergyDomain::package).find("not within"),
              std::string::npos);
  }
  {  // no range: a wraparound could not be corrected
    FakeTree t;
    two_sockets(t);
    fs::remove(t.dir("intel-rapl:0/intel-rapl:0:1/max_energy_range_uj"));
    const EnergyReading r = RaplMeter(t.root()).read();
    EXPECT_NE(why(r, EnergyDomain::dram).find("max_energy_range_uj"), std::string::npos);
    EXPECT_EQ(why(r, EnergyDomain::package), "");
  }
  {  // unreadable: a counter that cannot be opened (a dangling link), or read (a directory)
    FakeTree t;
    two_sockets(t);
    fs::remove(t.dir("intel-rapl:0/energy_uj"));
    fs::create_symlink(t.dir("nowhere"), t.dir("intel-rapl:0/energy_uj"));
    fs::remove(t.dir("intel-rapl:1/intel-rapl:1:0/energy_uj"));
    fs::create_directory(t.dir("intel-rapl:1/intel-rapl:1:0/energy_uj"));
    const EnergyReading r = RaplMeter(t.root()).read();
    EXPECT_NE(why(r, EnergyDomain::package).find("No such file"), std::string::npos)
        << why(r, EnergyDomain::package);
    EXPECT_NE(why(r, EnergyDomain::dram).find("intel-rapl:1:0/energy_uj"), std::string::npos)
        << why(r, EnergyDomain::dram);
  }
  if (geteuid() != 0) {  // as without root on kernels since 5.10 (root reads anything)
    FakeTree t;
    two_sockets(t);
    fs::permissions(t.dir("intel-rapl:0/energy_uj"), fs::perms::none);
    EXPECT_NE(why(RaplMeter(t.root()).read(), EnergyDomain::package).find("Permission denied"),
              std::string::npos);
  }
}

TEST(Energy, NoTreeMeansUnavailable) {
  const EnergyReading r = RaplMeter("/nonexistent/relay/powercap").read();
  for (EnergyDomain d : relay::measure::kAllEnergyDomains) {
    EXPECT_NE(why(r, d).find("no powercap tree at /nonexistent/relay/powercap"), std::string::npos);
  }
  FakeTree empty;  // a tree without RAPL zones
  const EnergyReading e = RaplMeter(empty.root()).read();
  EXPECT_NE(why(e, EnergyDomain::package).find("no package zone"), std::string::npos);
  const auto j = relay::measure::energy_between(r, r);
  EXPECT_FALSE(j[0].joules.has_value());
  EXPECT_FALSE(j[1].joules.has_value());
  EXPECT_NE(relay::measure::NoMeter("a simulation").read()[0].unavailable.find("simulation"),
            std::string::npos);
}

TEST(Energy, RootFromTheEnvironment) {
  unsetenv("RELAY_POWERCAP_ROOT");
  EXPECT_EQ(relay::measure::powercap_root(), "/sys/class/powercap");
  setenv("RELAY_POWERCAP_ROOT", "/tmp/fake", 1);
  EXPECT_EQ(relay::measure::powercap_root(), "/tmp/fake");
  setenv("RELAY_POWERCAP_ROOT", "", 1);  // empty is unset
  EXPECT_EQ(relay::measure::powercap_root(), "/sys/class/powercap");
  unsetenv("RELAY_POWERCAP_ROOT");
}

TEST(Energy, TotalsPerCallWattsAndRounds) {
  using relay::measure::DomainJoules;
  using relay::measure::EnergyJoules;
  EnergyJoules both{DomainJoules{6.0, ""}, DomainJoules{2.0, ""}};
  EnergyJoules no_dram{DomainJoules{4.0, ""}, DomainJoules{std::nullopt, "no dram zone"}};
  EnergyTotal t;
  EXPECT_FALSE(t.joules_per_call(EnergyDomain::package));  // nothing measured
  t.add(both, 2.0, 3);
  EXPECT_DOUBLE_EQ(t.joules_per_call(EnergyDomain::package).value(), 2.0);
  EXPECT_DOUBLE_EQ(t.watts(EnergyDomain::package).value(), 3.0);
  EXPECT_DOUBLE_EQ(t.watts(EnergyDomain::dram).value(), 1.0);
  t.add(both, 2.0, 1);  // 12 J over 4 calls and 4 s
  EXPECT_DOUBLE_EQ(t.joules_per_call(EnergyDomain::package).value(), 3.0);
  EXPECT_DOUBLE_EQ(t.watts(EnergyDomain::package).value(), 3.0);

  // Through a row and back (rounds of a sweep combine this way): the same figures.
  nlohmann::json row;
  t.to_row(row);
  EXPECT_DOUBLE_EQ(row["energy_package_J"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(row["power_dram_W"].get<double>(), 1.0);
  EnergyTotal rounds = EnergyTotal::from_row(row);
  rounds.add(EnergyTotal::from_row(row));
  EXPECT_DOUBLE_EQ(rounds.joules_per_call(EnergyDomain::package).value(), 3.0);
  EXPECT_EQ(rounds.calls(), 8);

  // A region without DRAM makes the whole total's DRAM unavailable, package still counts.
  t.add(no_dram, 4.0, 4);
  EXPECT_DOUBLE_EQ(t.joules_per_call(EnergyDomain::package).value(), 2.0);  // 16 J / 8 calls
  EXPECT_FALSE(t.joules_per_call(EnergyDomain::dram));
  EXPECT_FALSE(t.watts(EnergyDomain::dram));
  EXPECT_EQ(t.unavailable(EnergyDomain::dram), "no dram zone");
  t.add(both, 1.0, 1);  // stays unavailable
  EXPECT_FALSE(t.joules_per_call(EnergyDomain::dram));
  nlohmann::json partial;
  t.to_row(partial);
  EXPECT_TRUE(partial["energy_dram_J"].is_null());
  EXPECT_TRUE(partial["power_dram_W"].is_null());
  EXPECT_FALSE(EnergyTotal::from_row(partial).joules_per_call(EnergyDomain::dram));
  EXPECT_FALSE(EnergyTotal::from_row(nlohmann::json::object()).watts(EnergyDomain::package));
}
