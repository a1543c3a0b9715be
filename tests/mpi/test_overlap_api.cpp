// The overlap API (relay/overlap.h): bad input fails on every rank naming the argument, and
// the communicator stays usable; duplicates are made once per (communicator, index), cached
// and freed with the communicator; a blocking call with n_dup = 1 makes exactly the MPI calls
// of the plain collective; per-part times describe the split. MPI calls are counted through
// the profiling interface: this program's MPI_Comm_dup, MPI_Bcast, ... count and forward to
// PMPI_..., and the relay library's calls bind to them.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "relay/overlap.h"

namespace {

struct Counts {
  int dup = 0, free = 0, bcast = 0, ibcast = 0, reduce = 0, ireduce = 0;
  bool operator==(const Counts& o) const {
    return dup == o.dup && free == o.free && bcast == o.bcast && ibcast == o.ibcast &&
           reduce == o.reduce && ireduce == o.ireduce;
  }
  Counts operator-(const Counts& o) const {
    return {dup - o.dup,       free - o.free,     bcast - o.bcast,
            ibcast - o.ibcast, reduce - o.reduce, ireduce - o.ireduce};
  }
};
Counts g_calls;

std::string to_string(const Counts& c) {
  return "dup=" + std::to_string(c.dup) + " free=" + std::to_string(c.free) +
         " bcast=" + std::to_string(c.bcast) + " ibcast=" + std::to_string(c.ibcast) +
         " reduce=" + std::to_string(c.reduce) + " ireduce=" + std::to_string(c.ireduce);
}

}  // namespace

extern "C" {
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  ++g_calls.dup;
  return PMPI_Comm_dup(comm, out);
}
int MPI_Comm_free(MPI_Comm* comm) {
  ++g_calls.free;
  return PMPI_Comm_free(comm);
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  ++g_calls.bcast;
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* r) {
  ++g_calls.ibcast;
  return PMPI_Ibcast(b, n, t, root, c, r);
}
int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  ++g_calls.reduce;
  return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Ireduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                MPI_Request* q) {
  ++g_calls.ireduce;
  return PMPI_Ireduce(s, r, n, t, op, root, c, q);
}
}

namespace {

using relay::test::all_ranks;
using relay::test::world_rank;
using relay::test::world_size;

relay_bcast_options_t bcast_options(relay_bcast_algorithm_t algorithm) {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  o.algorithm = algorithm;
  return o;
}
relay_coll_options_t coll_options(int algorithm) {
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  o.algorithm = algorithm;
  return o;
}

// An overlapped allreduce that must work afterwards.
bool good_overlap() {
  std::vector<int> in(100, 1), out(100, 0);
  const auto o = coll_options(RELAY_ALLREDUCE_RING);
  if (relay_overlap_allreduce(in.data(), out.data(), 100, MPI_INT, MPI_SUM, MPI_COMM_WORLD, 3, &o,
                              nullptr) != RELAY_SUCCESS) {
    return false;
  }
  for (int x : out) {
    if (x != world_size()) return false;
  }
  return true;
}

void expect_failure(relay_status_t got, relay_status_t want, const char* part, const char* what) {
  const std::string msg = relay_last_error();
  const bool ok = got == want && msg.find(part) != std::string::npos;
  EXPECT_TRUE(all_ranks(ok)) << what << ": got " << relay_status_string(got) << " '" << msg << "'";
  EXPECT_TRUE(all_ranks(good_overlap())) << "communicator unusable after: " << what;
}

TEST(OverlapApi, BadInputFailsOnEveryRankNamingTheArgument) {
  const int size = world_size();
  std::vector<int> a(64, 1), b(64, 0);
  const MPI_Comm w = MPI_COMM_WORLD;
  auto bo = bcast_options(RELAY_BCAST_BINOMIAL);
  auto ro = coll_options(RELAY_REDUCE_BINOMIAL);
  auto ao = coll_options(RELAY_ALLREDUCE_RING);
  expect_failure(relay_overlap_bcast(a.data(), 8, MPI_INT, 0, w, 0, &bo, nullptr), RELAY_ERR_NDUP,
                 "relay_overlap_bcast: argument 6 (n_dup = 0) is not in 1..64", "n_dup 0");
  expect_failure(relay_overlap_bcast(a.data(), 8, MPI_INT, 0, w, -3, &bo, nullptr), RELAY_ERR_NDUP,
                 "argument 6 (n_dup = -3)", "n_dup -3");
  expect_failure(relay_overlap_bcast(a.data(), 8, MPI_INT, 0, w, 65, &bo, nullptr), RELAY_ERR_NDUP,
                 "argument 6 (n_dup = 65)", "n_dup 65");
  expect_failure(relay_overlap_bcast(a.data(), -1, MPI_INT, 0, w, 2, &bo, nullptr), RELAY_ERR_COUNT,
                 "relay_overlap_bcast: argument 2 (count = -1) is negative", "negative count");
  expect_failure(relay_overlap_bcast(a.data(), 8, MPI_INT, size, w, 2, &bo, nullptr),
                 RELAY_ERR_ROOT, "argument 4 (root = ", "root = size");
  expect_failure(relay_overlap_bcast(nullptr, 8, MPI_INT, 0, w, 2, &bo, nullptr), RELAY_ERR_BUFFER,
                 "argument 1 (buffer) is NULL", "NULL buffer");
  auto bad = bcast_options(static_cast<relay_bcast_algorithm_t>(15));
  expect_failure(relay_overlap_bcast(a.data(), 8, MPI_INT, 0, w, 2, &bad, nullptr),
                 RELAY_ERR_ALGORITHM, "relay_overlap_bcast: argument 7 (options->algorithm = 15)",
                 "unknown algorithm");
  expect_failure(
      relay_overlap_reduce(nullptr, b.data(), 8, MPI_INT, MPI_SUM, 0, w, 2, &ro, nullptr),
      RELAY_ERR_BUFFER, "relay_overlap_reduce: argument 1 (sendbuf) is NULL", "NULL sendbuf");
  expect_failure(
      relay_overlap_reduce(a.data(), b.data(), 8, MPI_INT, MPI_SUM, -1, w, 2, &ro, nullptr),
      RELAY_ERR_ROOT, "argument 6 (root = -1)", "root -1");
  expect_failure(
      relay_overlap_reduce(a.data(), b.data(), -5, MPI_INT, MPI_SUM, 0, w, 2, &ro, nullptr),
      RELAY_ERR_COUNT, "argument 3 (count = -5)", "negative count (reduce)");
  expect_failure(
      relay_overlap_reduce(a.data(), b.data(), 8, MPI_INT, MPI_SUM, 0, w, 0, &ro, nullptr),
      RELAY_ERR_NDUP, "relay_overlap_reduce: argument 8 (n_dup = 0)", "n_dup 0 (reduce)");
  expect_failure(
      relay_overlap_allreduce(a.data(), nullptr, 8, MPI_INT, MPI_SUM, w, 2, &ao, nullptr),
      RELAY_ERR_BUFFER, "argument 2 (recvbuf) is NULL", "NULL recvbuf");
  expect_failure(
      relay_overlap_allreduce(a.data(), b.data(), 8, MPI_INT, MPI_OP_NULL, w, 2, &ao, nullptr),
      RELAY_ERR_OP, "argument 5 (op) is MPI_OP_NULL", "null op");
  expect_failure(
      relay_overlap_allreduce(a.data(), b.data(), 8, MPI_INT, MPI_SUM, w, 100, &ao, nullptr),
      RELAY_ERR_NDUP, "relay_overlap_allreduce: argument 7 (n_dup = 100)", "n_dup 100");
  expect_failure(relay_overlap_allreduce(a.data(), b.data(), 8, MPI_DATATYPE_NULL, MPI_SUM, w, 2,
                                         &ao, nullptr),
                 RELAY_ERR_DATATYPE, "argument 4 (datatype)", "null datatype");
  expect_failure(relay_overlap_reduce_bcast(a.data(), b.data(), 8, MPI_INT, MPI_SUM, 0, w, 0, w, 0,
                                            &ro, &bo, nullptr),
                 RELAY_ERR_NDUP, "relay_overlap_reduce_bcast: argument 10 (n_dup = 0)",
                 "n_dup 0 (chained)");
  expect_failure(relay_overlap_reduce_bcast(a.data(), b.data(), 8, MPI_INT, MPI_SUM, size, w, 0, w,
                                            2, &ro, &bo, nullptr),
                 RELAY_ERR_ROOT, "argument 6 (reduce_root = ", "reduce_root out of range");
  expect_failure(relay_overlap_reduce_bcast(a.data(), b.data(), 8, MPI_INT, MPI_SUM, 0, w, -2, w, 2,
                                            &ro, &bo, nullptr),
                 RELAY_ERR_ROOT, "argument 8 (bcast_root = -2)", "bcast_root out of range");
  expect_failure(relay_overlap_reduce_bcast(a.data(), b.data(), 8, MPI_INT, MPI_SUM, 0, w, 0, w, 2,
                                            &ro, &bad, nullptr),
                 RELAY_ERR_ALGORITHM, "argument 12 (options->algorithm = 15)",
                 "bad broadcast options (chained)");
  relay_request_t* no_request = nullptr;
  expect_failure(relay_overlap_ibcast(a.data(), 8, MPI_INT, 0, w, 2, &bo, nullptr, no_request),
                 RELAY_ERR_REQUEST, "relay_overlap_ibcast: argument 9 (request) is NULL",
                 "NULL request");
  expect_failure(relay_overlap_prepare(MPI_COMM_NULL, 2), RELAY_ERR_COMM,
                 "relay_overlap_prepare: argument 1 (comm) is MPI_COMM_NULL", "null comm");
  expect_failure(relay_overlap_prepare(w, 0), RELAY_ERR_NDUP, "argument 2 (n_dup = 0)",
                 "prepare n_dup 0");
  if (size > 1) {
    // Errors only some ranks can see: the collective check makes every rank fail.
    bo.check = RELAY_CHECK_COLLECTIVE;
    const int n_dup = world_rank() == size - 1 ? 3 : 2;
    const relay_status_t st = relay_overlap_bcast(a.data(), 8, MPI_INT, 0, w, n_dup, &bo, nullptr);
    EXPECT_TRUE(all_ranks(st == RELAY_ERR_MISMATCH &&
                          std::string(relay_last_error()).find("disagree on the n_dup") !=
                              std::string::npos))
        << relay_last_error();
    // Broadcasting from a rank that is not the reduce root: the bcast root alone can tell.
    ro.check = RELAY_CHECK_COLLECTIVE;
    const relay_status_t cs = relay_overlap_reduce_bcast(a.data(), b.data(), 8, MPI_INT, MPI_SUM, 0,
                                                         w, 1, w, 2, &ro, &bo, nullptr);
    const std::string msg = relay_last_error();
    EXPECT_TRUE(all_ranks(cs == RELAY_ERR_ROOT &&
                          msg.find(world_rank() == 1 ? "argument 8 (bcast_root = 1) is this rank"
                                                     : "rank 1 reported") != std::string::npos))
        << msg;
    EXPECT_TRUE(all_ranks(good_overlap()));
  }
}

TEST(OverlapApi, DuplicatesAreMadeOnceCachedAndFreedWithTheCommunicator) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<double> x(1000, world_rank() == 0 ? 2.5 : 0.0), y(1000);
  const auto bo = bcast_options(RELAY_BCAST_BINOMIAL);
  const auto ao = coll_options(RELAY_ALLREDUCE_MPI);
  Counts before = g_calls;
  ASSERT_EQ(relay_overlap_bcast(x.data(), 1000, MPI_DOUBLE, 0, comm, 4, &bo, nullptr),
            RELAY_SUCCESS)
      << relay_last_error();
  // Duplicates 0..3, and relay's private copy of each (made with it, not while in flight).
  EXPECT_EQ((g_calls - before).dup, 8);
  before = g_calls;
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(relay_overlap_bcast(x.data(), 1000, MPI_DOUBLE, 0, comm, 4, &bo, nullptr),
              RELAY_SUCCESS);
    ASSERT_EQ(relay_overlap_allreduce(x.data(), y.data(), 1000, MPI_DOUBLE, MPI_SUM, comm, 3, &ao,
                                      nullptr),
              RELAY_SUCCESS);
    relay_request_t r;
    ASSERT_EQ(relay_overlap_ibcast(x.data(), 1000, MPI_DOUBLE, 0, comm, 1, &bo, nullptr, &r),
              RELAY_SUCCESS);
    ASSERT_EQ(relay_wait(&r), RELAY_SUCCESS);
  }
  EXPECT_EQ((g_calls - before).dup, 0) << "calls with n_dup <= 4 reuse the cached duplicates";
  EXPECT_EQ(x[999], 2.5);
  EXPECT_EQ(y[0], 2.5 * world_size());
  before = g_calls;
  ASSERT_EQ(relay_overlap_prepare(comm, 6), RELAY_SUCCESS);
  EXPECT_EQ((g_calls - before).dup, 4) << "duplicates 4 and 5, and relay's copies";
  before = g_calls;
  MPI_Comm_free(&comm);
  EXPECT_EQ((g_calls - before).free, 1 + 12) << "the caller's, then 6 duplicates and 6 copies";
}

// The MPI calls one relay call makes on a fresh communicator.
template <class Call>
Counts calls_on_fresh_comm(Call call) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const Counts before = g_calls;
  EXPECT_EQ(call(comm), RELAY_SUCCESS) << relay_last_error();
  const Counts made = g_calls - before;
  MPI_Comm_free(&comm);
  return made;
}

TEST(OverlapApi, BlockingNDupOneIsExactlyThePlainCall) {
  const int n = 4096;
  std::vector<float> in(n, 1.0f), out(n, 0.0f);
  for (auto b : {RELAY_BCAST_MPI, RELAY_BCAST_PIPELINE}) {
    const auto o = bcast_options(b);
    const Counts overlap = calls_on_fresh_comm([&](MPI_Comm c) {
      return relay_overlap_bcast(out.data(), n, MPI_FLOAT, 0, c, 1, &o, nullptr);
    });
    const Counts plain = calls_on_fresh_comm(
        [&](MPI_Comm c) { return relay_bcast(out.data(), n, MPI_FLOAT, 0, c, &o); });
    EXPECT_TRUE(overlap == plain) << to_string(overlap) << " vs " << to_string(plain);
    EXPECT_EQ(overlap.bcast, b == RELAY_BCAST_MPI ? 1 : 0);
    EXPECT_EQ(overlap.ibcast, 0);
  }
  const auto ro = coll_options(RELAY_REDUCE_MPI);
  const auto mb = bcast_options(RELAY_BCAST_MPI);
  const Counts chained = calls_on_fresh_comm([&](MPI_Comm c) {
    return relay_overlap_reduce_bcast(in.data(), out.data(), n, MPI_FLOAT, MPI_SUM, 0, c, 0, c, 1,
                                      &ro, &mb, nullptr);
  });
  const Counts sequence = calls_on_fresh_comm([&](MPI_Comm c) {
    const relay_status_t st = relay_reduce(in.data(), out.data(), n, MPI_FLOAT, MPI_SUM, 0, c, &ro);
    return st != RELAY_SUCCESS ? st : relay_bcast(out.data(), n, MPI_FLOAT, 0, c, &mb);
  });
  EXPECT_TRUE(chained == sequence) << to_string(chained) << " vs " << to_string(sequence);
  EXPECT_EQ(chained.reduce, 1);
  EXPECT_EQ(chained.bcast, 1);
  EXPECT_EQ(out[n - 1], static_cast<float>(world_size()));
  // n_dup = 4: four nonblocking calls on the duplicates, no blocking one.
  const Counts four = calls_on_fresh_comm([&](MPI_Comm c) {
    return relay_overlap_reduce_bcast(in.data(), out.data(), n, MPI_FLOAT, MPI_SUM, 0, c, 0, c, 4,
                                      &ro, &mb, nullptr);
  });
  EXPECT_EQ(four.ireduce, 4) << to_string(four);
  EXPECT_EQ(four.ibcast, 4) << to_string(four);
  EXPECT_EQ(four.reduce + four.bcast, 0) << to_string(four);
}

TEST(OverlapApi, PartTimesDescribeTheSplit) {
  std::vector<int> buf(10, world_rank() == 0 ? 7 : 0);
  const auto o = bcast_options(RELAY_BCAST_BINOMIAL);
  relay_overlap_part_times_t t[4];
  ASSERT_EQ(relay_overlap_bcast(buf.data(), 10, MPI_INT, 0, MPI_COMM_WORLD, 3, &o, t),
            RELAY_SUCCESS);
  EXPECT_EQ(t[0].element_count, 4);
  EXPECT_EQ(t[1].element_count, 3);
  EXPECT_EQ(t[2].element_count, 3);
  for (int c = 0; c < 3; ++c) {
    EXPECT_LE(0.0, t[c].post_start_s);
    EXPECT_LE(t[c].post_start_s, t[c].posted_s);
    EXPECT_LE(t[c].posted_s, t[c].first_done_s);
    EXPECT_EQ(t[c].first_done_s, t[c].done_s);
    EXPECT_EQ(t[c].second_post_start_s, -1.0);
    EXPECT_EQ(t[c].second_posted_s, -1.0);
  }
  // Fewer elements than parts: the last parts are empty and never posted.
  relay_request_t r;
  ASSERT_EQ(relay_overlap_ibcast(buf.data(), 2, MPI_INT, 0, MPI_COMM_WORLD, 4, &o, t, &r),
            RELAY_SUCCESS);
  ASSERT_EQ(relay_wait(&r), RELAY_SUCCESS);
  EXPECT_EQ(t[0].element_count + t[1].element_count, 2);
  EXPECT_EQ(t[1].element_count, 1);
  EXPECT_GT(t[1].done_s, 0.0);
  for (int c : {2, 3}) {
    EXPECT_EQ(t[c].element_count, 0);
    EXPECT_EQ(t[c].post_start_s, 0.0);
    EXPECT_EQ(t[c].done_s, 0.0);
  }
  EXPECT_EQ(buf[9], 7);
}

}  // namespace
