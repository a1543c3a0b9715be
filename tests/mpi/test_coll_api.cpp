// The reduction and gather API: bad input fails on every rank naming the argument (and the
// communicator stays usable), RELAY_<OP>_* environment overrides, restrictions that run
// another algorithm say so, several nonblocking operations in flight at once complete in any
// order, and the collective check catches arguments only some ranks get wrong. Covers gather,
// scatter, alltoall, barrier and allgatherv as well as the reductions.
#include <gtest/gtest.h>
#include <mpi.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "relay/relay.h"

namespace {

using relay::test::all_ranks;
using relay::test::world_rank;
using relay::test::world_size;

relay_coll_options_t options(int algorithm = 0) {
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  o.algorithm = algorithm;
  return o;
}

// An allreduce that must work afterwards.
bool good_allreduce() {
  std::vector<int> in(100, 1), out(100, 0);
  const auto o = options(RELAY_ALLREDUCE_RING);
  if (relay_allreduce(in.data(), out.data(), 100, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o) !=
      RELAY_SUCCESS) {
    return false;
  }
  for (int x : out) {
    if (x != world_size()) return false;
  }
  return true;
}

// A call's status is `want` on every rank, relay_last_error() contains `part`, and the
// communicator still works.
void expect(relay_status_t got, relay_status_t want, const char* part, const char* what) {
  const std::string msg = relay_last_error();
  const bool ok = got == want && msg.find(part) != std::string::npos;
  EXPECT_TRUE(all_ranks(ok)) << what << ": got " << relay_status_string(got) << " '" << msg << "'";
  EXPECT_TRUE(all_ranks(good_allreduce())) << "communicator unusable after: " << what;
}

void noncommutative(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] * 3 + b[i];
}

// A slice of unrelated computation between progress calls.
double g_sink = 0;
void other_work() {
  for (int i = 0; i < 5000; ++i) g_sink += 1e-9 * i;
}

// Completes requests r[n-1], ..., r[0] in that order, progressing all of them meanwhile (and,
// with `work`, doing a slice of other work before each round of progress calls).
void complete_in_reverse(relay_request_t* r, int n, void (*work)() = nullptr) {
  for (int k = n - 1; k >= 0; --k) {
    int flag = 0;
    while (!flag) {
      if (work != nullptr) work();
      for (int j = 0; j < n; ++j) ASSERT_EQ(relay_progress(r[j]), RELAY_SUCCESS);
      ASSERT_EQ(relay_test(&r[k], &flag), RELAY_SUCCESS);
    }
    EXPECT_EQ(r[k], RELAY_REQUEST_NULL);
  }
}

TEST(CollApi, BadArgumentsFailOnEveryRankNamingTheArgument) {
  const int size = world_size(), rank = world_rank();
  std::vector<int> a(64 * size, 1), b(64 * size, 0);
  auto o = options(RELAY_REDUCE_BINOMIAL);
  expect(relay_reduce(a.data(), b.data(), -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
         RELAY_ERR_COUNT, "relay_reduce: argument 3 (count = -1)", "negative count");
  expect(relay_reduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD, &o),
         RELAY_ERR_ROOT, "argument 6 (root =", "root = size");
  expect(relay_reduce(a.data(), b.data(), 4, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD, &o),
         RELAY_ERR_DATATYPE, "argument 4 (datatype)", "null datatype");
  expect(relay_reduce(a.data(), b.data(), 4, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD, &o),
         RELAY_ERR_OP, "argument 5 (op) is MPI_OP_NULL", "null op");
  expect(relay_reduce(nullptr, b.data(), 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
         RELAY_ERR_BUFFER, "argument 1 (sendbuf) is NULL", "NULL sendbuf");
  expect(relay_reduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, 0, MPI_COMM_NULL, &o),
         RELAY_ERR_COMM, "argument 7 (comm)", "null communicator");
  if (size > 1) {
    // MPI_IN_PLACE everywhere: only the root may pass it, so the others fail -- and the root,
    // which cannot know, would wait: the collective check makes it fail too.
    o.check = RELAY_CHECK_COLLECTIVE;
    expect(relay_reduce(MPI_IN_PLACE, b.data(), 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &o),
           RELAY_ERR_BUFFER, "", "MPI_IN_PLACE off the root");
    o.check = RELAY_CHECK_DEFAULT;
  }
  auto ao = options(RELAY_ALLREDUCE_RING);
  expect(relay_allreduce(a.data(), nullptr, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ao),
         RELAY_ERR_BUFFER, "relay_allreduce: argument 2 (recvbuf) is NULL", "NULL recvbuf");
  expect(relay_allreduce(a.data(), MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ao),
         RELAY_ERR_BUFFER, "argument 2 (recvbuf) is MPI_IN_PLACE", "recvbuf MPI_IN_PLACE");
  ao.segment_bytes = 6;
  expect(relay_allreduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ao),
         RELAY_ERR_SEGMENT, "argument 7 (options->segment_bytes = 6) is not a whole number",
         "segment not whole ints");
  ao = options(99);
  expect(relay_allreduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ao),
         RELAY_ERR_ALGORITHM, "options->algorithm = 99) is not a allreduce algorithm",
         "unknown algorithm");
  ao = options();
  ao.max_requests = -1;
  expect(relay_allreduce(a.data(), b.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ao),
         RELAY_ERR_WINDOW, "options->max_requests = -1", "negative max_requests");
  // A non-commutative op and an algorithm that reorders operands.
  MPI_Op op;
  MPI_Op_create(noncommutative, 0, &op);
  auto ro = options(RELAY_REDUCE_SCATTER_RING);
  expect(relay_reduce_scatter_block(a.data(), b.data(), 4, MPI_INT, op, MPI_COMM_WORLD, &ro),
         RELAY_ERR_OP, "argument 5 (op) is not commutative and reduce_scatter_block ring",
         "non-commutative op, ring");
  MPI_Op_free(&op);
  // A non-contiguous datatype works with mpi only.
  MPI_Datatype strided;
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  auto go = options(RELAY_ALLGATHER_RING);
  expect(relay_allgather(a.data(), b.data(), 1, strided, MPI_COMM_WORLD, &go), RELAY_ERR_DATATYPE,
         "relay_allgather: argument 4 (datatype) is not contiguous", "non-contiguous type");
  MPI_Type_free(&strided);
  relay_request_t* null_request = nullptr;
  expect(relay_iallgather(a.data(), b.data(), 1, MPI_INT, MPI_COMM_WORLD, &go, null_request),
         RELAY_ERR_REQUEST, "relay_iallgather: argument 7 (request) is NULL", "NULL request");

  // gather, scatter, alltoall, barrier.
  auto gat = options(RELAY_GATHER_BINOMIAL);
  expect(relay_gather(a.data(), b.data(), -2, MPI_INT, 0, MPI_COMM_WORLD, &gat), RELAY_ERR_COUNT,
         "relay_gather: argument 3 (count = -2) is negative", "gather negative count");
  expect(relay_gather(a.data(), b.data(), 4, MPI_INT, -1, MPI_COMM_WORLD, &gat), RELAY_ERR_ROOT,
         "relay_gather: argument 5 (root = -1) is not a rank", "gather root -1");
  expect(relay_gather(nullptr, b.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &gat), RELAY_ERR_BUFFER,
         "relay_gather: argument 1 (sendbuf) is NULL", "gather NULL sendbuf");
  expect(relay_gather(a.data(), b.data(), 4, MPI_INT, 0, MPI_COMM_NULL, &gat), RELAY_ERR_COMM,
         "relay_gather: argument 6 (comm)", "gather null communicator");
  gat.segment_bytes = 3;
  expect(relay_gather(a.data(), b.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &gat), RELAY_ERR_SEGMENT,
         "relay_gather: argument 7 (options->segment_bytes = 3)", "gather segment");
  gat = options(42);
  expect(relay_igather(a.data(), b.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &gat, null_request),
         RELAY_ERR_REQUEST, "relay_igather: argument 8 (request) is NULL", "igather NULL request");
  relay_request_t req = RELAY_REQUEST_NULL;
  expect(relay_igather(a.data(), b.data(), 4, MPI_INT, 0, MPI_COMM_WORLD, &gat, &req),
         RELAY_ERR_ALGORITHM,
         "relay_igather: argument 7 (options->algorithm = 42) is not a "
         "gather algorithm",
         "igather unknown algorithm");
  EXPECT_EQ(req, RELAY_REQUEST_NULL);
  auto sco = options(RELAY_SCATTER_BINOMIAL);
  expect(relay_scatter(a.data(), nullptr, 4, MPI_INT, size - 1, MPI_COMM_WORLD, &sco),
         RELAY_ERR_BUFFER, "relay_scatter: argument 2 (recvbuf) is NULL", "scatter NULL recvbuf");
  expect(relay_scatter(a.data(), b.data(), 4, MPI_INT, size, MPI_COMM_WORLD, &sco), RELAY_ERR_ROOT,
         "relay_scatter: argument 5 (root = ", "scatter root = size");
  expect(relay_iscatter(a.data(), b.data(), 4, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &sco, &req),
         RELAY_ERR_DATATYPE, "relay_iscatter: argument 4 (datatype)", "iscatter null datatype");
  // sendbuf matters at the root only (NULL elsewhere is fine); MPI_IN_PLACE at the root must be
  // recvbuf: every rank fails here (the others through the collective check).
  sco.check = RELAY_CHECK_COLLECTIVE;
  expect(relay_scatter(rank == 0 ? MPI_IN_PLACE : nullptr, b.data(), 4, MPI_INT, 0, MPI_COMM_WORLD,
                       &sco),
         RELAY_ERR_BUFFER,
         rank == 0 ? "relay_scatter: argument 1 (sendbuf) is MPI_IN_PLACE at "
                     "the root"
                   : "",
         "scatter MPI_IN_PLACE sendbuf at the root");
  if (size > 1) {
    expect(relay_scatter(a.data(), MPI_IN_PLACE, 4, MPI_INT, 0, MPI_COMM_WORLD, &sco),
           RELAY_ERR_BUFFER, rank != 0 ? "argument 2 (recvbuf) is MPI_IN_PLACE on rank" : "",
           "scatter MPI_IN_PLACE recvbuf off the root");
  }
  auto ato = options(RELAY_ALLTOALL_BRUCK);
  expect(relay_alltoall(a.data(), MPI_IN_PLACE, 4, MPI_INT, MPI_COMM_WORLD, &ato), RELAY_ERR_BUFFER,
         "relay_alltoall: argument 2 (recvbuf) is MPI_IN_PLACE", "alltoall recvbuf MPI_IN_PLACE");
  expect(relay_alltoall(a.data(), b.data(), 4, MPI_INT, MPI_COMM_NULL, &ato), RELAY_ERR_COMM,
         "relay_alltoall: argument 5 (comm)", "alltoall null communicator");
  MPI_Datatype strided_a2a;
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided_a2a);
  MPI_Type_commit(&strided_a2a);
  expect(relay_alltoall(a.data(), b.data(), 1, strided_a2a, MPI_COMM_WORLD, &ato),
         RELAY_ERR_DATATYPE, "relay_alltoall: argument 4 (datatype) is not contiguous",
         "alltoall non-contiguous type");
  MPI_Type_free(&strided_a2a);
  expect(relay_ialltoall(a.data(), b.data(), 4, MPI_INT, MPI_COMM_WORLD, &ato, null_request),
         RELAY_ERR_REQUEST, "relay_ialltoall: argument 7 (request) is NULL",
         "ialltoall NULL request");
  auto bo = options(RELAY_BARRIER_DISSEMINATION);
  expect(relay_barrier(MPI_COMM_NULL, &bo), RELAY_ERR_COMM, "relay_barrier: argument 1 (comm)",
         "barrier null communicator");
  bo.max_requests = -3;
  expect(relay_barrier(MPI_COMM_WORLD, &bo), RELAY_ERR_WINDOW,
         "relay_barrier: argument 2 (options->max_requests = -3)", "barrier max_requests");
  bo = options(7);
  expect(relay_barrier(MPI_COMM_WORLD, &bo), RELAY_ERR_ALGORITHM,
         "argument 2 (options->algorithm = 7) is not a barrier algorithm", "barrier algorithm");
  expect(relay_ibarrier(MPI_COMM_WORLD, nullptr, null_request), RELAY_ERR_REQUEST,
         "relay_ibarrier: argument 3 (request) is NULL", "ibarrier NULL request");
}

TEST(CollApi, DescribeShowsEnvironmentAutoAndRestrictions) {
  const int size = world_size();
  char text[256];
  auto o = options(RELAY_ALLGATHER_RECURSIVE_DOUBLING);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLGATHER, 100, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD,
                                &o, text, sizeof text),
            RELAY_SUCCESS);
  const bool pow2 = (size & (size - 1)) == 0;
  EXPECT_EQ(std::string(text).find("needs a power-of-two size: ran bruck") != std::string::npos,
            !pow2)
      << text;
  EXPECT_EQ(std::string(text).rfind(pow2 ? "algorithm=recursive_doubling" : "algorithm=bruck", 0),
            0u)
      << text;
  setenv("RELAY_ALLREDUCE_ALGORITHM", "ring", 1);
  setenv("RELAY_ALLREDUCE_SEGMENT_BYTES", "4KiB", 1);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLREDUCE, 1 << 20, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind("algorithm=ring policy=nonblocking segment_bytes=4096", 0), 0u)
      << text;
  setenv("RELAY_ALLREDUCE_ALGORITHM", "nonsense", 1);
  EXPECT_EQ(relay_coll_describe(RELAY_COLL_ALLREDUCE, 10, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_ERR_OPTIONS);
  EXPECT_NE(std::string(relay_last_error()).find("RELAY_ALLREDUCE_ALGORITHM='nonsense'"),
            std::string::npos);
  unsetenv("RELAY_ALLREDUCE_ALGORITHM");
  unsetenv("RELAY_ALLREDUCE_SEGMENT_BYTES");
  // auto: small vectors latency-bound, large ones bandwidth-bound, rank order when needed.
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLREDUCE, 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind("algorithm=recursive_doubling", 0), 0u) << text;
  int id = -1;
  EXPECT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_REDUCE, "rabenseifner", &id), RELAY_SUCCESS);
  EXPECT_EQ(id, RELAY_REDUCE_RABENSEIFNER);
  EXPECT_STREQ(relay_coll_algorithm_name(RELAY_COLL_REDUCE_SCATTER_BLOCK,
                                         RELAY_REDUCE_SCATTER_RECURSIVE_HALVING),
               "recursive_halving");
  EXPECT_STREQ(relay_collective_name(RELAY_COLL_ALLGATHER), "allgather");
  // The new collectives: names, auto, and describe's root check where there is a root.
  EXPECT_STREQ(relay_collective_name(RELAY_COLL_BARRIER), "barrier");
  EXPECT_STREQ(relay_coll_algorithm_name(RELAY_COLL_ALLTOALL, RELAY_ALLTOALL_BRUCK), "bruck");
  EXPECT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_SCATTER, "binomial", &id), RELAY_SUCCESS);
  EXPECT_EQ(id, RELAY_SCATTER_BINOMIAL);
  EXPECT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_GATHER, "bruck", &id), RELAY_ERR_ALGORITHM);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_GATHER, 100, MPI_INT, MPI_OP_NULL, size - 1,
                                MPI_COMM_WORLD, nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind("algorithm=binomial", 0), 0u) << text;
  EXPECT_EQ(relay_coll_describe(RELAY_COLL_SCATTER, 100, MPI_INT, MPI_OP_NULL, size, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_ERR_ROOT);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLTOALL, 8, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind(size >= 8 ? "algorithm=bruck" : "algorithm=linear", 0), 0u)
      << text;
  setenv("RELAY_BARRIER_ALGORITHM", "binomial", 1);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_BARRIER, 0, MPI_BYTE, MPI_OP_NULL, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind("algorithm=binomial", 0), 0u) << text;
  unsetenv("RELAY_BARRIER_ALGORITHM");
}

// auto follows a decision table (relay tune's format) for reductions as for broadcasts; a rule
// whose algorithm would reorder a non-commutative op is passed over for one that keeps order.
TEST(CollApi, AutoFollowsTheTuningTable) {
  const int size = world_size(), rank = world_rank();
  char path[] = "/tmp/relay_coll_table_XXXXXX";
  int fd = -1;
  if (rank == 0) fd = mkstemp(path);
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const std::string doc = R"({"schema": "relay.tuning/1", "rules": [
      {"operation": "allreduce", "comm_size": [1, 64], "bytes": [0, 1048576],
       "algorithm": "ring", "policy": "blocking", "segment_bytes": 2048},
      {"operation": "reduce", "comm_size": [1, 64], "bytes": [0, 1048576],
       "algorithm": "rabenseifner", "policy": "nonblocking"}]})";
    ASSERT_EQ(write(fd, doc.data(), doc.size()), static_cast<ssize_t>(doc.size()));
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(relay_tuning_load(path), RELAY_SUCCESS) << relay_last_error();
  char text[512];
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLREDUCE, 4096, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  const std::string rule0 = std::string("(auto: table ") + path + " rule 0)";
  EXPECT_EQ(std::string(text).rfind("algorithm=ring policy=blocking segment_bytes=2048", 0), 0u)
      << text;
  EXPECT_NE(std::string(text).find(rule0), std::string::npos) << text;
  // The result of the call that followed the rule is right.
  std::vector<int> x(4096, rank + 1), y(4096, 0);
  ASSERT_EQ(relay_allreduce(x.data(), y.data(), 4096, MPI_INT, MPI_SUM, MPI_COMM_WORLD, nullptr),
            RELAY_SUCCESS);
  EXPECT_EQ(y[0], size * (size + 1) / 2);
  EXPECT_EQ(y[4095], size * (size + 1) / 2);
  // Beyond the rule's bytes: no rule, the closed forms choose.
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLREDUCE, 1 << 19, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_NE(std::string(text).find(std::string("(auto: model, no rule in ") + path + ")"),
            std::string::npos)
      << text;
  // rabenseifner reorders operands: a non-commutative op gets an order-keeping algorithm.
  MPI_Op noncommutative;
  MPI_Op_create(
      [](void* in, void* inout, int* len, MPI_Datatype*) {
        for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
      },
      0, &noncommutative);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_REDUCE, 100, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).rfind("algorithm=rabenseifner", 0), 0u) << text;
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_REDUCE, 100, MPI_INT, noncommutative, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_EQ(std::string(text).find("rabenseifner"), std::string::npos) << text;
  MPI_Op_free(&noncommutative);
  ASSERT_EQ(relay_tuning_load(nullptr), RELAY_SUCCESS);
  ASSERT_EQ(relay_coll_describe(RELAY_COLL_ALLREDUCE, 4096, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                nullptr, text, sizeof text),
            RELAY_SUCCESS);
  EXPECT_NE(std::string(text).find("(auto: model)"), std::string::npos) << text;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);
}

TEST(CollApi, SeveralNonblockingOperationsInFlight) {
  const int size = world_size(), rank = world_rank();
  const int n = 5000;
  std::vector<double> x(n), sum(n, 0);
  std::vector<int> mine(n, rank), all(static_cast<std::size_t>(n) * size, -1);
  std::vector<int> block_in(static_cast<std::size_t>(n) * size, 1), block_out(n, 0);
  for (int i = 0; i < n; ++i) x[i] = rank + i;
  relay_request_t r[4] = {};
  auto o1 = options(RELAY_ALLREDUCE_RABENSEIFNER), o2 = options(RELAY_ALLGATHER_BRUCK),
       o3 = options(RELAY_REDUCE_SCATTER_RECURSIVE_HALVING), o4 = options(RELAY_REDUCE_MPI);
  o1.segment_bytes = 1024;
  ASSERT_EQ(
      relay_iallreduce(x.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &o1, &r[0]),
      RELAY_SUCCESS);
  ASSERT_EQ(relay_iallgather(mine.data(), all.data(), n, MPI_INT, MPI_COMM_WORLD, &o2, &r[1]),
            RELAY_SUCCESS);
  ASSERT_EQ(relay_ireduce_scatter_block(block_in.data(), block_out.data(), n, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD, &o3, &r[2]),
            RELAY_SUCCESS);
  int root_sum = 0;
  const int one = 1;
  ASSERT_EQ(
      relay_ireduce(&one, &root_sum, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, &o4, &r[3]),
      RELAY_SUCCESS);
  complete_in_reverse(r, 4);
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    ok = ok && sum[i] == size * (size - 1) / 2.0 + static_cast<double>(size) * i;
    ok = ok && block_out[i] == size;
    for (int q = 0; q < size; ++q) ok = ok && all[static_cast<std::size_t>(q) * n + i] == q;
  }
  if (rank == size - 1) ok = ok && root_sum == size;
  EXPECT_TRUE(all_ranks(ok));
}

// A blocking reduction keeps its scratch and work memory for the thread's next call: fresh
// memory faults in every page it touches (the kernel zeroes it), which cost an 8 MiB reduce
// about 100 page faults per call at the root on 2 ranks. After a first call of each, repeated
// calls fault (almost) nothing. (Two rounds first: a call that needs more memory than the
// other got replaces it, and the other then touches parts of it for the first time.)
TEST(CollApi, BlockingReductionsKeepTheirMemoryBetweenCalls) {
  const int size = world_size(), rank = world_rank();
  const int n = 1 << 20;  // 8 MiB of doubles
  std::vector<double> x(n, rank + 1.0), y(n, 0.0);
  auto reduce = options(RELAY_REDUCE_BINOMIAL),
       rsb = options(RELAY_REDUCE_SCATTER_RECURSIVE_HALVING);
  const int block = n / size;
  auto calls = [&] {
    bool ok = relay_reduce(x.data(), y.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD,
                           &reduce) == RELAY_SUCCESS;
    ok = ok && relay_reduce_scatter_block(x.data(), y.data(), block, MPI_DOUBLE, MPI_SUM,
                                          MPI_COMM_WORLD, &rsb) == RELAY_SUCCESS;
    return ok;
  };
  bool ok = calls() && calls();  // the memory of both is in place
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  for (int k = 0; k < 3; ++k) ok = calls() && ok;
  getrusage(RUSAGE_SELF, &after);
  const long faults = after.ru_minflt - before.ru_minflt;
  EXPECT_TRUE(all_ranks(ok));
  EXPECT_TRUE(all_ranks(faults < 32))
      << "rank " << rank << ": " << faults << " page faults in 3 rounds of calls";
  const double want = size * (size + 1) / 2.0;
  EXPECT_TRUE(all_ranks(y[0] == want && y[static_cast<std::size_t>(block) - 1] == want));
}

// Gather, scatter, alltoall (both schedules) and barrier started together, completed in
// reverse order while all are progressed.
TEST(CollApi, GatherScatterAlltoallBarrierInFlight) {
  const int size = world_size(), rank = world_rank();
  const int n = 3000, root = size / 2;
  std::vector<int> mine(n), gathered(static_cast<std::size_t>(n) * size, -1);
  std::vector<int> parts(static_cast<std::size_t>(n) * size), part(n, -1);
  std::vector<int> out(static_cast<std::size_t>(n) * size), in(out.size(), -1), in2(out.size(), -1);
  for (int i = 0; i < n; ++i) mine[i] = rank * n + i;
  for (int q = 0; q < size; ++q) {
    for (int i = 0; i < n; ++i) {
      parts[static_cast<std::size_t>(q) * n + i] = (q + 1) * 7 + i;              // at the root
      out[static_cast<std::size_t>(q) * n + i] = rank * 1000 + q * 10 + i % 10;  // for rank q
    }
  }
  relay_request_t r[5] = {};
  auto o1 = options(RELAY_GATHER_BINOMIAL), o2 = options(RELAY_SCATTER_LINEAR),
       o3 = options(RELAY_ALLTOALL_BRUCK), o4 = options(RELAY_ALLTOALL_LINEAR),
       o5 = options(RELAY_BARRIER_DISSEMINATION);
  o1.segment_bytes = 1024;
  o3.segment_bytes = 4096;
  ASSERT_EQ(
      relay_igather(mine.data(), gathered.data(), n, MPI_INT, root, MPI_COMM_WORLD, &o1, &r[0]),
      RELAY_SUCCESS);
  ASSERT_EQ(relay_iscatter(parts.data(), part.data(), n, MPI_INT, root, MPI_COMM_WORLD, &o2, &r[1]),
            RELAY_SUCCESS);
  ASSERT_EQ(relay_ialltoall(out.data(), in.data(), n, MPI_INT, MPI_COMM_WORLD, &o3, &r[2]),
            RELAY_SUCCESS);
  ASSERT_EQ(relay_ialltoall(out.data(), in2.data(), n, MPI_INT, MPI_COMM_WORLD, &o4, &r[3]),
            RELAY_SUCCESS);
  ASSERT_EQ(relay_ibarrier(MPI_COMM_WORLD, &o5, &r[4]), RELAY_SUCCESS);
  complete_in_reverse(r, 5);
  bool ok = true;
  for (int q = 0; q < size; ++q) {
    for (int i = 0; i < n; ++i) {
      const auto at = static_cast<std::size_t>(q) * n + i;
      if (rank == root) ok = ok && gathered[at] == q * n + i;
      ok = ok && in[at] == q * 1000 + rank * 10 + i % 10 && in2[at] == in[at];
    }
  }
  for (int i = 0; i < n; ++i) ok = ok && part[i] == (rank + 1) * 7 + i;
  EXPECT_TRUE(all_ranks(ok));
}

// allgatherv: every argument named, on every rank, the communicator usable afterwards; an error
// or a recvcounts only one rank gets wrong caught everywhere by the collective check.
TEST(CollApi, AllgathervBadArgumentsFailOnEveryRankNamingTheArgument) {
  const int size = world_size(), rank = world_rank();
  std::vector<int> counts(size), displs(size);
  for (int q = 0; q < size; ++q) {
    counts[q] = q % 3 + 1;
    displs[q] = 4 * q;
  }
  const int n = counts[rank];
  std::vector<int> a(4, rank), b(4 * size + 4, 0);
  auto o = options(RELAY_ALLGATHERV_RING);
  const int* c = counts.data();
  const int* d = displs.data();
  expect(relay_allgatherv(a.data(), -1, MPI_INT, b.data(), c, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_COUNT, "relay_allgatherv: argument 2 (sendcount = -1) is negative",
         "negative sendcount");
  expect(
      relay_allgatherv(a.data(), n, MPI_DATATYPE_NULL, b.data(), c, d, MPI_INT, MPI_COMM_WORLD, &o),
      RELAY_ERR_DATATYPE, "argument 3 (datatype) is MPI_DATATYPE_NULL", "null sendtype");
  expect(
      relay_allgatherv(a.data(), n, MPI_INT, b.data(), c, d, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &o),
      RELAY_ERR_DATATYPE, "argument 7 (datatype) is MPI_DATATYPE_NULL", "null recvtype");
  expect(relay_allgatherv(a.data(), n, MPI_INT, b.data(), c, d, MPI_INT, MPI_COMM_NULL, &o),
         RELAY_ERR_COMM, "argument 8 (comm)", "null communicator");
  expect(relay_allgatherv(a.data(), n, MPI_INT, b.data(), nullptr, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_COUNT, "argument 5 (recvcounts) is NULL", "NULL recvcounts");
  expect(relay_allgatherv(a.data(), n, MPI_INT, b.data(), c, nullptr, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_BUFFER, "argument 6 (displs) is NULL", "NULL displs");
  std::vector<int> negative = counts;
  negative[size - 1] = -3;
  const int mine = rank == size - 1 ? -3 : n;
  expect(relay_allgatherv(a.data(), mine, MPI_INT, b.data(), negative.data(), d, MPI_INT,
                          MPI_COMM_WORLD, &o),
         RELAY_ERR_COUNT,
         rank == size - 1 ? "argument 2 (sendcount = -3)" : "argument 5 (recvcounts[",
         "negative recvcounts[size - 1]");
  expect(relay_allgatherv(a.data(), n + 1, MPI_INT, b.data(), c, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_COUNT,
         ("argument 2 (sendcount = " + std::to_string(n + 1) + ") differs from recvcounts[" +
          std::to_string(rank) + "]")
             .c_str(),
         "sendcount != recvcounts[rank]");
  expect(relay_allgatherv(a.data(), 3, MPI_BYTE, b.data(), c, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_COUNT, "bytes of sendtype) differs from recvcounts[", "3 bytes for ints");
  expect(relay_allgatherv(nullptr, n, MPI_INT, b.data(), c, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_BUFFER, "argument 1 (sendbuf) is NULL", "NULL sendbuf");
  expect(relay_allgatherv(a.data(), n, MPI_INT, nullptr, c, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_BUFFER, "argument 4 (recvbuf) is NULL", "NULL recvbuf");
  expect(relay_allgatherv(a.data(), n, MPI_INT, MPI_IN_PLACE, c, d, MPI_INT, MPI_COMM_WORLD, &o),
         RELAY_ERR_BUFFER, "argument 4 (recvbuf) is MPI_IN_PLACE", "recvbuf MPI_IN_PLACE");
  if (size > 1) {
    std::vector<int> overlapping = displs;
    overlapping[1] = displs[0] + counts[0] - 1;  // the last element of block 0
    expect(relay_allgatherv(a.data(), n, MPI_INT, b.data(), c, overlapping.data(), MPI_INT,
                            MPI_COMM_WORLD, &o),
           RELAY_ERR_BUFFER, "argument 6 (displs) makes the blocks of ranks 0", "overlap");
  }
  // Empty blocks may share a place; displacements need not start at 0 nor follow rank order.
  std::vector<int> zero(size, 0), reversed(size);
  for (int q = 0; q < size; ++q) reversed[q] = 4 * (size - 1 - q) + 1;
  expect(relay_allgatherv(a.data(), 0, MPI_INT, b.data(), zero.data(), zero.data(), MPI_INT,
                          MPI_COMM_WORLD, &o),
         RELAY_SUCCESS, "", "all blocks empty at one place");
  expect(relay_allgatherv(a.data(), n, MPI_INT, b.data(), c, reversed.data(), MPI_INT,
                          MPI_COMM_WORLD, &o),
         RELAY_SUCCESS, "", "reversed displacements");
  bool placed = true;
  for (int q = 0; q < size; ++q) {
    for (int i = 0; i < counts[q]; ++i) placed = placed && b[reversed[q] + i] == q;
  }
  EXPECT_TRUE(all_ranks(placed));
  // Non-contiguous types: mpi only.
  MPI_Datatype strided;
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  std::vector<int> wide(8, rank);
  expect(relay_allgatherv(wide.data(), n, strided, b.data(), c, d, strided, MPI_COMM_WORLD, &o),
         RELAY_ERR_DATATYPE, "argument 7 (recvtype) is not contiguous", "strided recvtype");
  MPI_Type_free(&strided);
  relay_request_t* null_request = nullptr;
  expect(relay_iallgatherv(a.data(), n, MPI_INT, b.data(), c, d, MPI_INT, MPI_COMM_WORLD, &o,
                           null_request),
         RELAY_ERR_REQUEST, "relay_iallgatherv: argument 10 (request) is NULL", "NULL request");
  if (size > 1) {
    // One rank's own error, and recvcounts that differ on one rank (each rank locally fine):
    // without the collective check the others would hang; with it every rank fails.
    o.check = RELAY_CHECK_COLLECTIVE;
    expect(relay_allgatherv(a.data(), rank == 1 ? n + 1 : n, MPI_INT, b.data(), c, d, MPI_INT,
                            MPI_COMM_WORLD, &o),
           RELAY_ERR_COUNT, rank == 1 ? "differs from recvcounts[1]" : "rank 1 reported",
           "sendcount wrong on rank 1 only");
    std::vector<int> other = counts;
    if (rank == 0) other[size - 1] += 1;  // still consistent on rank 0 (its own block unchanged)
    expect(relay_allgatherv(a.data(), n, MPI_INT, b.data(), other.data(), d, MPI_INT,
                            MPI_COMM_WORLD, &o),
           RELAY_ERR_MISMATCH, "", "recvcounts differ on rank 0");
  }
}

// relay_coll_describe's line for allgatherv blocks of `count` ints (defaults but for the
// environment), or "error: ..." naming relay's message.
std::string describe_allgatherv(int count) {
  char text[256];
  if (relay_coll_describe(RELAY_COLL_ALLGATHERV, count, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD,
                          nullptr, text, sizeof text) != RELAY_SUCCESS) {
    return std::string("error: ") + relay_last_error();
  }
  return text;
}

// relay_allgatherv's configuration: RELAY_ALLGATHERV_* overrides, auto by total size, names.
TEST(CollApi, AllgathervDescribeEnvironmentAndAuto) {
  const int size = world_size();
  std::string text = describe_allgatherv(8);
  EXPECT_EQ(text.rfind(size > 4 ? "algorithm=gather_bcast" : "algorithm=ring", 0), 0u) << text;
  text = describe_allgatherv(1 << 20);
  EXPECT_EQ(text.rfind("algorithm=ring policy=nonblocking segment_bytes=65536", 0), 0u) << text;
  setenv("RELAY_ALLGATHERV_ALGORITHM", "gather_bcast", 1);
  setenv("RELAY_ALLGATHERV_SEGMENT_BYTES", "4KiB", 1);
  text = describe_allgatherv(1 << 20);
  EXPECT_EQ(text.rfind("algorithm=gather_bcast policy=nonblocking segment_bytes=4096", 0), 0u)
      << text;
  setenv("RELAY_ALLGATHERV_ALGORITHM", "bruck", 1);
  text = describe_allgatherv(10);
  EXPECT_NE(text.find("RELAY_ALLGATHERV_ALGORITHM='bruck' is not a allgatherv algorithm"),
            std::string::npos)
      << text;
  unsetenv("RELAY_ALLGATHERV_ALGORITHM");
  unsetenv("RELAY_ALLGATHERV_SEGMENT_BYTES");
  EXPECT_STREQ(relay_collective_name(RELAY_COLL_ALLGATHERV), "allgatherv");
  EXPECT_STREQ(relay_coll_algorithm_name(RELAY_COLL_ALLGATHERV, RELAY_ALLGATHERV_GATHER_BCAST),
               "gather_bcast");
  int id = -1;
  EXPECT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_ALLGATHERV, "mpi", &id), RELAY_SUCCESS);
  EXPECT_EQ(id, RELAY_ALLGATHERV_MPI);
}

// Two relay_iallgatherv (ring, segmented; gather_bcast) and an MPI_Iallgatherv baseline in
// flight with an allreduce, progressed between slices of computation and completed in reverse
// order; recvcounts and displs are scribbled over as soon as the calls return (relay copies
// them).
TEST(CollApi, AllgathervNonblockingInterleavedWithOtherWork) {
  const int size = world_size(), rank = world_rank();
  std::vector<int> counts(size), displs(size), scratch_counts, scratch_displs;
  int total = 0;
  for (int q = 0; q < size; ++q) {
    counts[q] = q % 4 == 2 ? 0 : 1000 + 517 * q;
  }
  for (int q = size - 1, at = 3; q >= 0; --q) {  // reverse rank order, gaps of 5
    displs[q] = at;
    at += counts[q] + 5;
    total = at;
  }
  std::vector<int> mine(counts[rank]);
  for (int i = 0; i < counts[rank]; ++i) mine[i] = rank * 100000 + i;
  std::vector<int> out[3];
  for (auto& o : out) o.assign(static_cast<std::size_t>(total), -1);
  std::vector<int> in(64, 1), sum(64, 0);
  relay_request_t r[4] = {};
  auto o1 = options(RELAY_ALLGATHERV_RING), o2 = options(RELAY_ALLGATHERV_GATHER_BCAST),
       o3 = options(RELAY_ALLGATHERV_MPI), o4 = options(RELAY_ALLREDUCE_RING);
  o1.segment_bytes = 4096;
  for (int k = 0; k < 3; ++k) {
    scratch_counts = counts;
    scratch_displs = displs;
    const auto& o = k == 0 ? o1 : k == 1 ? o2 : o3;
    ASSERT_EQ(
        relay_iallgatherv(mine.data(), counts[rank], MPI_INT, out[k].data(), scratch_counts.data(),
                          scratch_displs.data(), MPI_INT, MPI_COMM_WORLD, &o, &r[k]),
        RELAY_SUCCESS)
        << relay_last_error();
    if (k < 2) {  // relay's copies; MPI_Iallgatherv needs its arrays until completion
      std::fill(scratch_counts.begin(), scratch_counts.end(), -7);
      std::fill(scratch_displs.begin(), scratch_displs.end(), -7);
    }
  }
  ASSERT_EQ(
      relay_iallreduce(in.data(), sum.data(), 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o4, &r[3]),
      RELAY_SUCCESS);
  complete_in_reverse(r, 4, other_work);
  bool ok = g_sink > 0 && sum[0] == size;
  std::vector<int> want(static_cast<std::size_t>(total), -1);
  for (int q = 0; q < size; ++q) {
    for (int i = 0; i < counts[q]; ++i) want[displs[q] + i] = q * 100000 + i;
  }
  for (const auto& got : out) ok = ok && got == want;
  EXPECT_TRUE(all_ranks(ok));
}

}  // namespace
