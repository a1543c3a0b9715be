// RelayEnvironment: the RELAY_* variables found in one pass over the environment, read afresh
// by each call (a program may change them between calls); the table of them; and the byte sizes
// read from it and from the command line (issue 23: 8MB meant 8 MiB).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/environment.hpp"
#include "core/units.hpp"

using relay::core::Knob;
using relay::core::RelayEnvironment;

TEST(Environment, FindsWholeNamesOnly) {
  setenv("RELAY_TESTOP_SEGMENT_BYTES", "4KiB", 1);
  setenv("RELAY_TESTOP_FANOUTX", "9", 1);
  setenv("RELAY_TESTOP_POLICY", "", 1);
  setenv("RELAY_TEST_MAX_BYTES", "1KiB", 1);
  const RelayEnvironment env;
  EXPECT_STREQ(env.get(Knob::op_segment_bytes, "TESTOP"), "4KiB");
  EXPECT_STREQ(env.get(Knob::test_max_bytes), "1KiB");
  EXPECT_EQ(env.get(Knob::op_segment_bytes, "TESTO"),
            nullptr);                                      // a prefix of a name is not the name
  EXPECT_EQ(env.get(Knob::op_fanout, "TESTOP"), nullptr);  // nor is a longer name
  EXPECT_EQ(env.get(Knob::op_policy, "TESTOP"), nullptr);  // empty counts as unset
  EXPECT_EQ(env.get(Knob::op_max_requests, "TESTOP"), nullptr);
  unsetenv("RELAY_TESTOP_SEGMENT_BYTES");
  unsetenv("RELAY_TESTOP_FANOUTX");
  unsetenv("RELAY_TESTOP_POLICY");
  unsetenv("RELAY_TEST_MAX_BYTES");
  EXPECT_EQ(RelayEnvironment().get(Knob::op_segment_bytes, "TESTOP"), nullptr);  // read afresh
}

TEST(Environment, ManyVariablesFallBackToGetenv) {
  // More RELAY_* variables than the snapshot holds: lookups still find every one.
  for (int i = 0; i < 40; ++i) {
    setenv(("RELAY_TESTMANY" + std::to_string(i) + "_FANOUT").c_str(), "x", 1);
  }
  setenv("RELAY_TESTMANY_ALGORITHM", "found", 1);
  const RelayEnvironment env;
  EXPECT_STREQ(env.get(Knob::op_algorithm, "TESTMANY"), "found");
  EXPECT_STREQ(env.get(Knob::op_fanout, "TESTMANY39"), "x");
  EXPECT_EQ(env.get(Knob::op_policy, "TESTMANY"), nullptr);
  for (int i = 0; i < 40; ++i) unsetenv(("RELAY_TESTMANY" + std::to_string(i) + "_FANOUT").c_str());
  unsetenv("RELAY_TESTMANY_ALGORITHM");
}

// The table of settings: every row findable by its name, families by any collective's.
TEST(Settings, NamesFindTheirRows) {
  using relay::core::find_setting;
  using relay::core::setting;
  for (auto s = relay::core::settings_begin(); s != relay::core::settings_end(); ++s) {
    const std::string name = relay::core::setting_name(s->knob, "BCAST");
    EXPECT_EQ(find_setting(name).setting, s) << name;
    EXPECT_EQ(find_setting(name).op, relay::core::is_family(*s) ? "BCAST" : "") << name;
  }
  EXPECT_EQ(find_setting("RELAY_ALLREDUCE_SEGMENT_BYTES").setting,
            &setting(Knob::op_segment_bytes));
  EXPECT_EQ(find_setting("RELAY__POLICY").setting, nullptr);  // <OP> is never empty
  EXPECT_EQ(find_setting("RELAY_CHECKS").setting, nullptr);
  EXPECT_EQ(find_setting("RELAY_BCAST_SEGMENTS").setting, nullptr);
}

// 8MB meant 8 MiB without a word: KB, MB and GB are powers of 1000 (SI, as GNU coreutils reads
// them); KiB, MiB, GiB and the bare letters K, M, G powers of 1024.
TEST(Units, DecimalAndBinaryPrefixes) {
  using relay::core::parse_bytes;
  EXPECT_EQ(parse_bytes("8MB"), 8000000);
  EXPECT_EQ(parse_bytes("8mb"), 8000000);
  EXPECT_EQ(parse_bytes("64KB"), 64000);
  EXPECT_EQ(parse_bytes("64kB"), 64000);
  EXPECT_EQ(parse_bytes("1GB"), 1000000000);
  EXPECT_EQ(parse_bytes("8MiB"), 8 << 20);
  EXPECT_EQ(parse_bytes("8mib"), 8 << 20);
  EXPECT_EQ(parse_bytes("8M"), 8 << 20);
  EXPECT_EQ(parse_bytes("64k"), 65536);
  EXPECT_EQ(parse_bytes("64KiB"), 65536);
  EXPECT_EQ(parse_bytes("2G"), 2LL << 30);
  EXPECT_EQ(parse_bytes("2GiB"), 2LL << 30);
  EXPECT_EQ(parse_bytes("5B"), 5);
  EXPECT_EQ(parse_bytes("9000000000GB"), 9000000000LL * 1000000000LL);
  EXPECT_FALSE(parse_bytes("9300000000GB"));   // over 2^63
  EXPECT_FALSE(parse_bytes("9000000000GiB"));  // over 2^63
  EXPECT_FALSE(parse_bytes("8 MB"));
  EXPECT_FALSE(parse_bytes("8MBs"));
  EXPECT_FALSE(parse_bytes("8TB"));
  EXPECT_FALSE(parse_bytes("1.5MB"));
}
