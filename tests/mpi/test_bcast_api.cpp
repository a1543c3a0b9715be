// The broadcast API: bad input fails cleanly on every rank, options and environment resolve as
// documented, datatypes, nonblocking progress, several operations in flight, communicators
// created and freed, and the C++ interface.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "mpi_test.hpp"
#include "relay/relay.h"
#include "relay/relay.hpp"

namespace {

using relay::test::all_ranks;
using relay::test::world_rank;
using relay::test::world_size;

relay_bcast_options_t options(relay_bcast_algorithm_t algorithm = RELAY_BCAST_AUTO) {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  o.algorithm = algorithm;
  return o;
}

// A broadcast of ints that must work (the communicator is still usable after an error).
bool good_bcast(MPI_Comm comm = MPI_COMM_WORLD, relay_bcast_algorithm_t a = RELAY_BCAST_BINOMIAL) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<int> v(1000, rank == 0 ? 7 : -1);
  const auto o = options(a);
  if (relay_bcast(v.data(), 1000, MPI_INT, 0, comm, &o) != RELAY_SUCCESS) return false;
  for (int x : v) {
    if (x != 7) return false;
  }
  return true;
}

struct BadCase {
  const char* what;
  relay_status_t expected;
  const char* message_part;
};

TEST(BcastApi, BadArgumentsFailOnEveryRankNamingTheArgument) {
  const int size = world_size();
  std::vector<int> buf(64, 0);
  auto expect = [&](relay_status_t got, const BadCase& c) {
    const std::string msg = relay_last_error();
    const bool ok = got == c.expected && msg.find(c.message_part) != std::string::npos;
    EXPECT_TRUE(all_ranks(ok)) << c.what << ": got " << relay_status_string(got) << " '" << msg
                               << "'";
    EXPECT_TRUE(all_ranks(good_bcast())) << "communicator unusable after: " << c.what;
  };
  auto o = options(RELAY_BCAST_PIPELINE);
  expect(relay_bcast(buf.data(), -1, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"negative count", RELAY_ERR_COUNT, "argument 2 (count = -1)"});
  expect(relay_bcast(buf.data(), 4, MPI_INT, size, MPI_COMM_WORLD, &o),
         {"root = size", RELAY_ERR_ROOT, "argument 4 (root ="});
  expect(relay_bcast(buf.data(), 4, MPI_INT, -1, MPI_COMM_WORLD, &o),
         {"root = -1", RELAY_ERR_ROOT, "argument 4 (root = -1)"});
  expect(relay_bcast(nullptr, 5, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"NULL buffer", RELAY_ERR_BUFFER, "argument 1 (buffer) is NULL"});
  expect(relay_bcast(buf.data(), 4, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &o),
         {"null datatype", RELAY_ERR_DATATYPE, "argument 3"});
  expect(relay_bcast(buf.data(), 4, MPI_INT, 0, MPI_COMM_NULL, &o),
         {"null communicator", RELAY_ERR_COMM, "argument 5"});
  o.segment_bytes = 1001;
  expect(relay_bcast(buf.data(), 64, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"segment not whole ints", RELAY_ERR_SEGMENT, "whole number of 4-byte elements"});
  o.segment_bytes = -5;
  expect(relay_bcast(buf.data(), 64, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"negative segment", RELAY_ERR_SEGMENT, "options->segment_bytes = -5"});
  o = options(static_cast<relay_bcast_algorithm_t>(15));
  expect(relay_bcast(buf.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"unknown algorithm", RELAY_ERR_ALGORITHM, "options->algorithm = 15"});
  o = options();
  o.policy = static_cast<relay_policy_t>(3);
  expect(relay_bcast(buf.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"unknown policy", RELAY_ERR_POLICY, "options->policy = 3"});
  o = options(RELAY_BCAST_CHAIN);
  o.fanout = -2;
  expect(relay_bcast(buf.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"negative fanout", RELAY_ERR_FANOUT, "options->fanout = -2"});
  o = options();
  o.max_requests = -1;
  expect(relay_bcast(buf.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &o),
         {"negative max_requests", RELAY_ERR_WINDOW, "options->max_requests = -1"});
  relay_bcast_algorithm_t a;
  EXPECT_EQ(relay_bcast_algorithm_from_name("nosuch", &a), RELAY_ERR_ALGORITHM);
  EXPECT_NE(std::string(relay_last_error()).find("nosuch"), std::string::npos);
  relay_request_t r = RELAY_REQUEST_NULL;
  EXPECT_EQ(relay_ibcast(buf.data(), -3, MPI_INT, 0, MPI_COMM_WORLD, nullptr, &r), RELAY_ERR_COUNT);
  EXPECT_EQ(r, RELAY_REQUEST_NULL);
  EXPECT_EQ(relay_ibcast(buf.data(), 3, MPI_INT, 0, MPI_COMM_WORLD, nullptr, nullptr),
            RELAY_ERR_REQUEST);
}

TEST(BcastApi, ZeroCountNeedsNoBuffer) {
  for (const auto& alg : {RELAY_BCAST_PIPELINE, RELAY_BCAST_SCATTER_ALLGATHER, RELAY_BCAST_MPI}) {
    const auto o = options(alg);
    EXPECT_TRUE(
        all_ranks(relay_bcast(nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD, &o) == RELAY_SUCCESS));
  }
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(BcastApi, EnvironmentOverridesOptionsAndIsValidated) {
  std::vector<int> buf(100, 0);
  {
    ScopedEnv a("RELAY_BCAST_ALGORITHM", "chain");
    ScopedEnv p("RELAY_BCAST_POLICY", "blocking");
    ScopedEnv s("RELAY_BCAST_SEGMENT_BYTES", "1KiB");
    ScopedEnv f("RELAY_BCAST_FANOUT", "2");
    char text[256];
    const auto o = options(RELAY_BCAST_BINOMIAL);
    ASSERT_EQ(relay_bcast_describe(100000, MPI_INT, 0, MPI_COMM_WORLD, &o, text, sizeof text),
              RELAY_SUCCESS);
    EXPECT_STREQ(text,
                 "algorithm=chain policy=blocking segment_bytes=1024 fanout=2 max_requests=16");
    EXPECT_TRUE(all_ranks(good_bcast()));
  }
  {
    ScopedEnv a("RELAY_BCAST_ALGORITHM", "bogus");
    EXPECT_TRUE(all_ranks(relay_bcast(buf.data(), 100, MPI_INT, 0, MPI_COMM_WORLD, nullptr) ==
                          RELAY_ERR_OPTIONS));
    EXPECT_NE(std::string(relay_last_error()).find("RELAY_BCAST_ALGORITHM='bogus'"),
              std::string::npos);
  }
  {
    ScopedEnv s("RELAY_BCAST_SEGMENT_BYTES", "12abc");
    EXPECT_TRUE(all_ranks(relay_bcast(buf.data(), 100, MPI_INT, 0, MPI_COMM_WORLD, nullptr) ==
                          RELAY_ERR_OPTIONS));
    EXPECT_NE(std::string(relay_last_error()).find("RELAY_BCAST_SEGMENT_BYTES"), std::string::npos);
  }
  EXPECT_TRUE(all_ranks(good_bcast()));
}

TEST(BcastApi, DescribeResolvesDefaultsAndAuto) {
  char text[256];
  auto o = options(RELAY_BCAST_PIPELINE);
  ASSERT_EQ(relay_bcast_describe(1 << 22, MPI_BYTE, 0, MPI_COMM_WORLD, &o, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_STREQ(
      text, "algorithm=pipeline policy=nonblocking segment_bytes=65536 fanout=1 max_requests=16");
  o = options(RELAY_BCAST_MPI);
  ASSERT_EQ(relay_bcast_describe(100, MPI_BYTE, 0, MPI_COMM_WORLD, &o, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind("algorithm=mpi", 0), 0u);
  ASSERT_EQ(relay_bcast_describe(100, MPI_BYTE, 0, MPI_COMM_WORLD, nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_NE(std::string(text).find("(auto: model)"), std::string::npos) << text;
  // A default segment is rounded to whole elements of a 12-byte type.
  MPI_Datatype three_ints;
  MPI_Type_contiguous(3, MPI_INT, &three_ints);
  MPI_Type_commit(&three_ints);
  o = options(RELAY_BCAST_PIPELINE);
  ASSERT_EQ(relay_bcast_describe(1 << 20, three_ints, 0, MPI_COMM_WORLD, &o, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_NE(std::string(text).find("segment_bytes=65532"), std::string::npos) << text;
  MPI_Type_free(&three_ints);
}

TEST(BcastApi, CollectiveCheckReportsOneRanksErrorEverywhere) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  std::vector<int> buf(100, 0);
  auto o = options(RELAY_BCAST_PIPELINE);
  o.check = RELAY_CHECK_COLLECTIVE;
  int* data = world_rank() == 1 ? nullptr : buf.data();
  const relay_status_t st = relay_bcast(data, 100, MPI_INT, 0, MPI_COMM_WORLD, &o);
  const std::string msg = relay_last_error();
  const bool ok = st == RELAY_ERR_BUFFER &&
                  (world_rank() == 1 ? msg.find("argument 1") : msg.find("rank 1 reported")) !=
                      std::string::npos;
  EXPECT_TRUE(all_ranks(ok)) << relay_status_string(st) << ": " << msg;
  // Ranks that disagree on the segment size would deadlock without the check.
  o.segment_bytes = world_rank() == 0 ? 40 : 80;
  EXPECT_TRUE(all_ranks(relay_bcast(buf.data(), 100, MPI_INT, 0, MPI_COMM_WORLD, &o) ==
                        RELAY_ERR_MISMATCH));
  EXPECT_NE(std::string(relay_last_error()).find("segment_bytes"), std::string::npos);
  EXPECT_TRUE(all_ranks(good_bcast()));
}

TEST(BcastApi, DatatypesContiguousWorkNonContiguousGetAClearError) {
  const int rank = world_rank();
  for (relay_bcast_algorithm_t alg :
       {RELAY_BCAST_PIPELINE, RELAY_BCAST_SCATTER_ALLGATHER, RELAY_BCAST_BINOMIAL}) {
    std::vector<double> d(1001, rank == 0 ? 2.5 : 0.0);
    auto o = options(alg);
    o.segment_bytes = 8 * 17;
    ASSERT_EQ(relay_bcast(d.data(), 1001, MPI_DOUBLE, 0, MPI_COMM_WORLD, &o), RELAY_SUCCESS)
        << relay_last_error();
    EXPECT_TRUE(all_ranks(std::all_of(d.begin(), d.end(), [](double x) { return x == 2.5; })));
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);
    std::vector<int> v(3 * 333);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = rank == 0 ? static_cast<int>(i) : -1;
    o.segment_bytes = 12 * 5;
    ASSERT_EQ(relay_bcast(v.data(), 333, triple, 0, MPI_COMM_WORLD, &o), RELAY_SUCCESS)
        << relay_last_error();
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) ok = ok && v[i] == static_cast<int>(i);
    EXPECT_TRUE(all_ranks(ok));
    MPI_Type_free(&triple);
  }
  MPI_Datatype strided;
  MPI_Type_vector(10, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  std::vector<int> s(20, rank == 0 ? 5 : 0);
  auto o = options(RELAY_BCAST_PIPELINE);
  EXPECT_TRUE(
      all_ranks(relay_bcast(s.data(), 1, strided, 0, MPI_COMM_WORLD, &o) == RELAY_ERR_DATATYPE));
  EXPECT_NE(std::string(relay_last_error()).find("not contiguous"), std::string::npos);
  o = options(RELAY_BCAST_MPI);  // MPI_Bcast handles any datatype
  ASSERT_EQ(relay_bcast(s.data(), 1, strided, 0, MPI_COMM_WORLD, &o), RELAY_SUCCESS);
  bool ok = true;
  for (int i = 0; i < 20; ++i) ok = ok && s[i] == (i % 2 == 0 || rank == 0 ? 5 : 0);
  EXPECT_TRUE(all_ranks(ok));
  MPI_Type_free(&strided);
}

TEST(BcastApi, NonblockingProgressesInterleavedWithWork) {
  const int rank = world_rank();
  const int n = 1 << 20;
  for (relay_policy_t policy : {RELAY_POLICY_NONBLOCKING, RELAY_POLICY_BLOCKING}) {
    std::vector<int> v(n, rank == 0 ? 3 : 0);
    auto o = options(RELAY_BCAST_PIPELINE);
    o.policy = policy;
    o.segment_bytes = 16384;
    relay_request_t r = RELAY_REQUEST_NULL;
    ASSERT_EQ(relay_ibcast(v.data(), n, MPI_INT, 0, MPI_COMM_WORLD, &o, &r), RELAY_SUCCESS);
    double work = 0;
    int flag = 0, polls = 0;
    while (!flag) {
      for (int i = 0; i < 2000; ++i) work += 1.0 / (i + 1.0);  // a slice of computation
      ASSERT_EQ(relay_progress(r), RELAY_SUCCESS);
      ASSERT_EQ(relay_test(&r, &flag), RELAY_SUCCESS);
      ++polls;
    }
    EXPECT_EQ(r, RELAY_REQUEST_NULL);
    EXPECT_GT(work, 0.0);
    EXPECT_TRUE(all_ranks(std::all_of(v.begin(), v.end(), [](int x) { return x == 3; })));
  }
  int flag = 0;
  relay_request_t none = RELAY_REQUEST_NULL;
  EXPECT_EQ(relay_test(&none, &flag), RELAY_SUCCESS);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(relay_wait(&none), RELAY_SUCCESS);
}

TEST(BcastApi, SeveralOperationsInFlightOnOneCommunicator) {
  const int size = world_size(), rank = world_rank();
  const relay_bcast_algorithm_t algs[4] = {RELAY_BCAST_PIPELINE, RELAY_BCAST_BINOMIAL,
                                           RELAY_BCAST_SCATTER_ALLGATHER, RELAY_BCAST_MPI};
  std::vector<std::vector<int>> bufs(4, std::vector<int>(50000));
  std::vector<relay_request_t> reqs(4, RELAY_REQUEST_NULL);
  for (int k = 0; k < 4; ++k) {
    const int root = k % size;
    for (auto& x : bufs[k]) x = rank == root ? 100 + k : -1;
    auto o = options(algs[k]);
    o.segment_bytes = 4000;
    ASSERT_EQ(relay_ibcast(bufs[k].data(), 50000, MPI_INT, root, MPI_COMM_WORLD, &o, &reqs[k]),
              RELAY_SUCCESS);
  }
  for (int k = 3; k >= 0; --k) ASSERT_EQ(relay_wait(&reqs[k]), RELAY_SUCCESS);
  bool ok = true;
  for (int k = 0; k < 4; ++k) {
    for (int x : bufs[k]) ok = ok && x == 100 + k;
  }
  EXPECT_TRUE(all_ranks(ok));
}

// Starts the four broadcasts of the two tests below: crossing nonblocking pipelines (roots 0
// and P-1; rank 0 names the second first), then an MPI and a blocking-policy one. Broadcast k
// sends value + k.
struct CrossingBroadcasts {
  std::vector<std::vector<int>> bufs;
  std::vector<relay_request_t> reqs;
  explicit CrossingBroadcasts(int value) : bufs(4, std::vector<int>(1 << 18)), reqs(4) {
    const int size = world_size(), rank = world_rank();
    const int roots[4] = {0, size - 1, 0, size - 1};
    for (int k = 0; k < 4; ++k) {
      for (auto& x : bufs[k]) x = rank == roots[k] ? value + k : -1;
      auto o = options(k == 2 ? RELAY_BCAST_MPI : RELAY_BCAST_PIPELINE);
      o.segment_bytes = 65536;
      o.policy = k == 3 ? RELAY_POLICY_BLOCKING : RELAY_POLICY_NONBLOCKING;
      reqs[k] = RELAY_REQUEST_NULL;
      EXPECT_EQ(relay_ibcast(bufs[k].data(), static_cast<int>(bufs[k].size()), MPI_INT, roots[k],
                             MPI_COMM_WORLD, &o, &reqs[k]),
                RELAY_SUCCESS);
    }
    if (rank == 0) std::swap(reqs[0], reqs[1]);
  }
  bool arrived(int value) const {
    bool ok = true;
    for (int k = 0; k < 4; ++k) {
      for (int x : bufs[k]) ok = ok && x == value + k;
    }
    return all_ranks(ok);
  }
};

// Two pipelines whose chains cross (roots 0 and P-1), each rank naming them in its own order.
// Waited one by one with relay_wait this hangs from 3 ranks on: rank P-1 waits for the first,
// which rank 1 forwards only once rank 0 sends it, while rank 0 waits for the second, which
// rank P-1 sends only once it is done waiting (1 MiB each, 64 KiB of it in flight per peer).
// relay_waitall advances both; an MPI and a blocking-policy broadcast ride along.
TEST(BcastApi, WaitallAdvancesEveryOperationTogether) {
  CrossingBroadcasts crossing(10);
  std::vector<relay_request_t>& reqs = crossing.reqs;
  ASSERT_EQ(relay_waitall(2, reqs.data()), RELAY_SUCCESS);
  EXPECT_EQ(reqs[0], RELAY_REQUEST_NULL);
  EXPECT_EQ(reqs[1], RELAY_REQUEST_NULL);
  ASSERT_EQ(relay_waitall(2, reqs.data() + 2), RELAY_SUCCESS);
  EXPECT_TRUE(crossing.arrived(10));
  EXPECT_EQ(relay_waitall(4, reqs.data()), RELAY_SUCCESS);  // all NULL: complete
  EXPECT_EQ(relay_waitall(0, nullptr), RELAY_SUCCESS);
  EXPECT_EQ(relay_waitall(-1, reqs.data()), RELAY_ERR_REQUEST);
  EXPECT_EQ(relay_waitall(1, nullptr), RELAY_ERR_REQUEST);
}

// The crossing pipelines of the test above, each rank testing only the one it names first and
// advancing both with relay_progressall in between: without it advancing the other, this hangs
// as relay_wait one by one does (from 3 ranks). An MPI and a blocking-policy broadcast in the
// list are advanced by their own relay_progress.
TEST(BcastApi, ProgressallAdvancesEveryOperation) {
  CrossingBroadcasts crossing(20);
  std::vector<relay_request_t>& reqs = crossing.reqs;
  for (int flag = 0; flag == 0;) {
    ASSERT_EQ(relay_progressall(4, reqs.data()), RELAY_SUCCESS) << relay_last_error();
    ASSERT_EQ(relay_test(&reqs[0], &flag), RELAY_SUCCESS) << relay_last_error();
  }
  EXPECT_EQ(relay_progressall(4, reqs.data()), RELAY_SUCCESS);  // reqs[0] is NULL: skipped
  ASSERT_EQ(relay_waitall(4, reqs.data()), RELAY_SUCCESS);
  EXPECT_TRUE(crossing.arrived(20));
  EXPECT_EQ(relay_progressall(0, nullptr), RELAY_SUCCESS);
  EXPECT_EQ(relay_progressall(-1, reqs.data()), RELAY_ERR_REQUEST);
  EXPECT_EQ(relay_progressall(1, nullptr), RELAY_ERR_REQUEST);
}

// A nonblocking broadcast's root sends when relay_ibcast is called, as MPI_Ibcast does, not at
// its first relay_test or relay_wait: here the root calls relay again only after every other
// rank has polled for the data (up to 10 s). Before, the root's sends waited for its next
// relay call, and two ranks broadcasting to each other sent one panel after the other
// (relay_waitall waits for paced operations one by one).
TEST(BcastApi, RootSendsLeaveAtTheCall) {
  const int size = world_size(), rank = world_rank();
  for (relay_bcast_algorithm_t algorithm :
       {RELAY_BCAST_BINOMIAL, RELAY_BCAST_PIPELINE, RELAY_BCAST_LINEAR}) {
    std::vector<int> buf(256, rank == 0 ? 7 : -1);
    auto o = options(algorithm);
    // The pipeline in 4 segments: they all leave without a progress call (at most
    // max_requests sends are in flight; the root's further ones wait for completions).
    o.segment_bytes = algorithm == RELAY_BCAST_PIPELINE ? 256 : 0;
    relay_request_t req = RELAY_REQUEST_NULL;
    ASSERT_EQ(relay_ibcast(buf.data(), 256, MPI_INT, 0, MPI_COMM_WORLD, &o, &req), RELAY_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    bool arrived = true;
    if (rank != 0) {
      const double give_up = MPI_Wtime() + 10.0;
      int flag = 0;
      while (flag == 0 && MPI_Wtime() < give_up) {
        ASSERT_EQ(relay_test(&req, &flag), RELAY_SUCCESS);
      }
      arrived = flag != 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ASSERT_EQ(relay_wait(&req), RELAY_SUCCESS);  // the root's (and a late rank's)
    EXPECT_TRUE(all_ranks(arrived)) << relay_bcast_algorithm_name(algorithm) << " on " << size
                                    << " ranks: the data came only after the root's next call";
    EXPECT_TRUE(all_ranks(std::all_of(buf.begin(), buf.end(), [](int x) { return x == 7; })));
  }
}

TEST(BcastApi, SubCommunicatorsCreatedAndFreedRepeatedly) {
  for (int round = 0; round < 40; ++round) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &sub);
    EXPECT_TRUE(
        all_ranks(good_bcast(sub, round % 2 ? RELAY_BCAST_PIPELINE : RELAY_BCAST_BINOMIAL)));
    MPI_Comm_free(&sub);
  }
}

TEST(BcastApi, CppInterface) {
  const int rank = world_rank();
  std::vector<float> f(777, rank == 0 ? 1.5f : 0.f);
  relay::BcastOptions o;
  o.algorithm = relay::BcastAlgorithm::scatter_allgather;
  o.segment_bytes = 64;
  relay::bcast(f.data(), 777, MPI_FLOAT, 0, MPI_COMM_WORLD, o);
  EXPECT_TRUE(all_ranks(std::all_of(f.begin(), f.end(), [](float x) { return x == 1.5f; })));
  EXPECT_EQ(relay::to_string(relay::BcastAlgorithm::scatter_allgather), "scatter_allgather");
  EXPECT_EQ(relay::bcast_algorithm_from_string("pipeline"), relay::BcastAlgorithm::pipeline);
  EXPECT_FALSE(relay::bcast_algorithm_from_string("nope").has_value());
  EXPECT_EQ(relay::policy_from_string("blocking"), relay::Policy::blocking);
  try {
    relay::bcast(f.data(), 10, MPI_FLOAT, -4, MPI_COMM_WORLD);
    ADD_FAILURE() << "no exception";
  } catch (const relay::Error& e) {
    EXPECT_EQ(e.status(), RELAY_ERR_ROOT);
    EXPECT_NE(std::string(e.what()).find("argument 4"), std::string::npos);
  }
  {
    relay::Request r = relay::ibcast(f.data(), 777, MPI_FLOAT, 0, MPI_COMM_WORLD);
    EXPECT_TRUE(r.active());
    r.progress();
    // Destroyed unfinished: the destructor completes it.
  }
  relay::Request r = relay::ibcast(f.data(), 777, MPI_FLOAT, 0, MPI_COMM_WORLD);
  r.wait();
  EXPECT_FALSE(r.active());
  EXPECT_NE(relay::describe_bcast(10, MPI_FLOAT, 0, MPI_COMM_WORLD).find("algorithm="),
            std::string::npos);
}

}  // namespace
