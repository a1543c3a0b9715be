// The fields every collective's options share (coll/options.hpp), as the C API reads them from a
// caller's struct and from RELAY_<OP>_* (issue 23): one fanout cap for both, and enum fields
// holding values no enumerator has refused, naming the field, before anything reads them as
// their enum type.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "coll/options.hpp"
#include "core/environment.hpp"
#include "core/status.hpp"

// The API took any fanout >= 0 while RELAY_<OP>_FANOUT stopped at 2^20: one cap for both,
// named in the message.
TEST(CommonOptions, FanoutCapIsTheEnvironmentsCap) {
  relay::coll::CommonOptions o;
  o.fanout = INT_MAX;
  EXPECT_EQ(relay::coll::validate(o, 1, "relay_bcast", 6), RELAY_ERR_FANOUT);
  const std::string message = relay::core::last_error();
  EXPECT_NE(message.find("argument 6 (options->fanout = 2147483647)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("[0, 1048576]"), std::string::npos) << message;
  o.fanout = relay::coll::kMaxFanout;
  EXPECT_EQ(relay::coll::validate(o, 1, "relay_bcast", 6), RELAY_SUCCESS);
  o.fanout = -1;
  EXPECT_EQ(relay::coll::validate(o, 1, "relay_bcast", 6), RELAY_ERR_FANOUT);

  relay::coll::CommonOptions from_env;
  setenv("RELAY_TESTFAN_FANOUT", "1048577", 1);
  EXPECT_EQ(relay::coll::apply_environment(relay::core::RelayEnvironment(), "TESTFAN",
                                           "relay_bcast", from_env),
            RELAY_ERR_OPTIONS);
  EXPECT_NE(std::string(relay::core::last_error())
                .find("RELAY_TESTFAN_FANOUT='1048577' is not an integer in [0, 1048576]"),
            std::string::npos)
      << relay::core::last_error();
  setenv("RELAY_TESTFAN_FANOUT", "1048576", 1);
  EXPECT_EQ(relay::coll::apply_environment(relay::core::RelayEnvironment(), "TESTFAN",
                                           "relay_bcast", from_env),
            RELAY_SUCCESS);
  EXPECT_EQ(from_env.fanout, relay::coll::kMaxFanout);
  unsetenv("RELAY_TESTFAN_FANOUT");
}

namespace {
// What a C caller can do (opt.algorithm = (relay_bcast_algorithm_t)99): store an int that no
// enumerator has. In C++ even the cast is undefined, so the test stores the bytes.
template <class E>
void store(E& field, int value) {
  static_assert(sizeof(E) == sizeof(int));
  std::memcpy(&field, &value, sizeof value);
}

relay_bcast_options_t valid_bcast_options() {
  relay_bcast_options_t o;
  std::memset(&o, 0, sizeof o);  // AUTO, DEFAULT policy, DEFAULT check
  o.struct_size = sizeof o;
  o.segment_bytes = RELAY_SEGMENT_DEFAULT;
  return o;
}
}  // namespace

// Each enum field is checked as the integer stored in it, before anything reads it as its enum
// type (UBSan: "load of value 99, which is not a valid value for type"), and the message names
// the field and the value. Built with RELAY_SANITIZE=ON this test also proves no such load.
TEST(CommonOptions, OutOfRangeEnumsAreRefusedBeforeTheyAreRead) {
  using relay::coll::stored_check;
  using relay::coll::validate_stored_enums;
  relay_bcast_options_t o = valid_bcast_options();
  EXPECT_EQ(validate_stored_enums(o, "relay_bcast", 6), RELAY_SUCCESS);
  for (int id = RELAY_BCAST_AUTO; id <= RELAY_BCAST_MPI; ++id) {
    store(o.algorithm, id);
    EXPECT_EQ(validate_stored_enums(o, "relay_bcast", 6), RELAY_SUCCESS) << id;
  }
  for (int bad : {99, -1, RELAY_BCAST_MPI + 1, INT_MIN}) {
    store(o.algorithm, bad);
    EXPECT_EQ(validate_stored_enums(o, "relay_bcast", 6), RELAY_ERR_ALGORITHM) << bad;
    const std::string want =
        "relay_bcast: argument 6 (options->algorithm = " + std::to_string(bad) + ")";
    EXPECT_NE(std::string(relay::core::last_error()).find(want), std::string::npos)
        << relay::core::last_error();
  }

  o = valid_bcast_options();
  store(o.policy, 7);
  EXPECT_EQ(validate_stored_enums(o, "relay_bcast", 6), RELAY_ERR_POLICY);
  EXPECT_NE(std::string(relay::core::last_error()).find("(options->policy = 7) is not a policy"),
            std::string::npos)
      << relay::core::last_error();

  o = valid_bcast_options();
  store(o.check, -5);
  EXPECT_EQ(validate_stored_enums(o, "relay_bcast", 6), RELAY_ERR_OPTIONS);
  EXPECT_NE(
      std::string(relay::core::last_error()).find("(options->check = -5) is not a check mode"),
      std::string::npos)
      << relay::core::last_error();
  EXPECT_EQ(stored_check(&o),
            RELAY_CHECK_DEFAULT);  // whether to agree: the invalid value is not read
  store(o.check, RELAY_CHECK_COLLECTIVE);
  EXPECT_EQ(stored_check(&o), RELAY_CHECK_COLLECTIVE);
  EXPECT_EQ(stored_check(static_cast<const relay_bcast_options_t*>(nullptr)), RELAY_CHECK_DEFAULT);

  relay_coll_options_t c;
  std::memset(&c, 0, sizeof c);
  c.algorithm = 99;  // an int field: resolve_coll checks it against the collective's registry
  EXPECT_EQ(validate_stored_enums(c, "relay_allreduce", 7), RELAY_SUCCESS);
  store(c.policy, 3);
  EXPECT_EQ(validate_stored_enums(c, "relay_allreduce", 7), RELAY_ERR_POLICY);
  EXPECT_NE(std::string(relay::core::last_error())
                .find("relay_allreduce: argument 7 (options->policy = 3)"),
            std::string::npos)
      << relay::core::last_error();
  std::memset(&c, 0, sizeof c);
  store(c.check, 42);
  EXPECT_EQ(validate_stored_enums(c, "relay_allreduce", 7), RELAY_ERR_OPTIONS);
  EXPECT_EQ(stored_check(&c), RELAY_CHECK_DEFAULT);
}
