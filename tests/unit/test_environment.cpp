// RelayEnvironment: the RELAY_* variables found in one pass over the environment, read afresh
// by each call (a program may change them between calls); and the byte sizes read from it and
// from the command line (issue 23: 8MB meant 8 MiB).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/environment.hpp"
#include "core/units.hpp"

using relay::core::RelayEnvironment;

TEST(Environment, FindsWholeNamesOnly) {
  setenv("RELAY_TESTOP_SEGMENT_BYTES", "4KiB", 1);
  setenv("RELAY_TESTOP_FANOUTX", "9", 1);
  setenv("RELAY_TESTOP_POLICY", "", 1);
  const RelayEnvironment env;
  EXPECT_STREQ(env.get("TESTOP", "SEGMENT_BYTES"), "4KiB");
  EXPECT_STREQ(env.get("RELAY_TESTOP_SEGMENT_BYTES"), "4KiB");
  EXPECT_EQ(env.get("TESTOP", "SEGMENT"), nullptr);  // a prefix of a name is not the name
  EXPECT_EQ(env.get("TESTOP", "FANOUT"), nullptr);   // nor is a longer name
  EXPECT_EQ(env.get("TESTOP", "POLICY"), nullptr);   // empty counts as unset
  EXPECT_EQ(env.get("TESTOP", "MAX_REQUESTS"), nullptr);
  unsetenv("RELAY_TESTOP_SEGMENT_BYTES");
  unsetenv("RELAY_TESTOP_FANOUTX");
  unsetenv("RELAY_TESTOP_POLICY");
  EXPECT_EQ(RelayEnvironment().get("TESTOP", "SEGMENT_BYTES"), nullptr);  // read afresh
}

TEST(Environment, ManyVariablesFallBackToGetenv) {
  // More RELAY_* variables than the snapshot holds: lookups still find every one.
  for (int i = 0; i < 40; ++i) setenv(("RELAY_TESTMANY_" + std::to_string(i)).c_str(), "x", 1);
  setenv("RELAY_TESTMANY_LAST_FIELD", "found", 1);
  const RelayEnvironment env;
  EXPECT_STREQ(env.get("TESTMANY", "LAST_FIELD"), "found");
  EXPECT_STREQ(env.get("RELAY_TESTMANY_39"), "x");
  EXPECT_EQ(env.get("TESTMANY", "NONE"), nullptr);
  for (int i = 0; i < 40; ++i) unsetenv(("RELAY_TESTMANY_" + std::to_string(i)).c_str());
  unsetenv("RELAY_TESTMANY_LAST_FIELD");
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
