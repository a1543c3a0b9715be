// RelayEnvironment: the RELAY_* variables found in one pass over the environment, read afresh
// by each call (a program may change them between calls).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/environment.hpp"

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
