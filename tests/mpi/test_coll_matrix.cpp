// The collectives matrix, generated from the registries: every algorithm of reduce, allreduce,
// allgather, reduce_scatter_block, gather, scatter and alltoall x root {0, middle, last}
// (reduce, gather, scatter) x count {0, 1, < P, odd, ~1 MiB} x segment {one element, 7
// elements, ~1000 bytes, 64 KiB, unsegmented} x datatype {MPI_INT, MPI_DOUBLE} x op {SUM, MAX,
// MIN, PROD, a user-defined commutative op; SUM and the user op at the roots other than 0; the
// reductions only} x policy, compared with the MPI library's own collective on the same data:
// exactly for MPI_INT, MAX and MIN and the data-moving collectives; within the reassociation
// bound for MPI_DOUBLE SUM, PROD and the user op (two orders of summing P terms differ by at
// most 2 (P-1) u sum|x_i|, u = 2^-53).
// Also: MPI_IN_PLACE, the nonblocking forms progressed with relay_test between slices of other
// work, a non-commutative user op (composition of affine maps, exact) that the rank-order
// algorithms reduce in rank order and the others refuse with RELAY_ERR_OP, allreduce results
// identical to the bit on every rank, guard bytes around every receive buffer that must stay
// untouched, and send buffers left as they were. The barrier: no rank leaves before every
// rank has arrived, with one rank arriving late (arrival and departure times on the machine's
// monotonic clock).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

#include "coll/registry.hpp"
#include "mpi_test.hpp"
#include "relay/relay.h"

namespace {

using relay::coll::Collective;

constexpr int kGuard = 64;
constexpr unsigned char kGuardByte = 0xA5;

// The user-defined commutative op: a (+) b = a + b + 1 (associative and commutative; every
// combine adds one, so a missed or repeated combine shows even where SUM would hide it).
void plus_one(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type == MPI_INT) {
    auto* a = static_cast<int*>(in);
    auto* b = static_cast<int*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = a[i] + b[i] + 1;
  } else {
    auto* a = static_cast<double*>(in);
    auto* b = static_cast<double*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = a[i] + b[i] + 1;
  }
}

// The non-commutative op on pairs (m, c) of 32-bit unsigned integers (MPI_2INT storage): the
// affine map x -> m x + c; a (+) b = "a, then b" = (a.m b.m, a.c b.m + b.c) modulo 2^32.
void compose(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<std::uint32_t*>(in);
  auto* b = static_cast<std::uint32_t*>(inout);
  for (int i = 0; i < *len; ++i) {
    const std::uint32_t m = a[2 * i] * b[2 * i], c = a[2 * i + 1] * b[2 * i] + b[2 * i + 1];
    b[2 * i] = m;
    b[2 * i + 1] = c;
  }
}

MPI_Op g_plus_one = MPI_OP_NULL, g_compose = MPI_OP_NULL;

enum class Op { sum, max, min, prod, plus_one, compose };
const char* name(Op op) {
  switch (op) {
    case Op::sum:
      return "sum";
    case Op::max:
      return "max";
    case Op::min:
      return "min";
    case Op::prod:
      return "prod";
    case Op::plus_one:
      return "plus_one";
    case Op::compose:
      return "compose";
  }
  return "?";
}
MPI_Op mpi_op(Op op) {
  switch (op) {
    case Op::sum:
      return MPI_SUM;
    case Op::max:
      return MPI_MAX;
    case Op::min:
      return MPI_MIN;
    case Op::prod:
      return MPI_PROD;
    case Op::plus_one:
      return g_plus_one;
    case Op::compose:
      return g_compose;
  }
  return MPI_OP_NULL;
}

struct Case {
  Collective collective;
  int algorithm;
  int root = 0;
  int count = 0;
  long long segment = 0;
  MPI_Datatype type = MPI_INT;
  Op op = Op::sum;
  relay_policy_t policy = RELAY_POLICY_NONBLOCKING;
  bool nonblocking = false;
  bool in_place = false;
  std::string name() const {
    return std::string(relay::coll::to_string(collective)) + "/" +
           relay_coll_algorithm_name(static_cast<relay_collective_t>(collective), algorithm) +
           " root=" + std::to_string(root) + " count=" + std::to_string(count) +
           " segment=" + std::to_string(segment) +
           (type == MPI_INT      ? " int"
            : type == MPI_DOUBLE ? " double"
                                 : " 2int") +
           " " + ::name(op) + " " + relay_policy_name(policy) +
           (nonblocking ? " nonblocking-call" : "") + (in_place ? " in-place" : "");
  }
};

std::int64_t elem_bytes(MPI_Datatype t) { return t == MPI_DOUBLE || t == MPI_2INT ? 8 : 4; }

bool reduction(Collective c) {
  return c == Collective::reduce || c == Collective::allreduce ||
         c == Collective::reduce_scatter_block;
}
bool rooted(Collective c) {
  return c == Collective::reduce || c == Collective::gather || c == Collective::scatter;
}
bool blocks(Collective c) { return c != Collective::reduce && c != Collective::allreduce; }

// Element i of rank r's input. The data-moving collectives get values unique across ranks and
// elements, so a block in the wrong place shows.
void fill(const Case& c, int r, std::int64_t n, unsigned char* out) {
  for (std::int64_t i = 0; i < n; ++i) {
    if (!reduction(c.collective)) {
      const int v = r * (1 << 24) + static_cast<int>(i);
      const double d = v + 0.5;
      std::memcpy(out + elem_bytes(c.type) * i,
                  c.type == MPI_INT ? static_cast<const void*>(&v) : static_cast<const void*>(&d),
                  static_cast<std::size_t>(elem_bytes(c.type)));
    } else if (c.type == MPI_INT) {
      int v = static_cast<int>((r * 37 + i * 13) % 101) - 50;
      if (c.op == Op::prod) v = (r + i) % 5 == 0 ? -1 : ((r * 3 + i) % 4 == 0 ? 2 : 1);
      std::memcpy(out + 4 * i, &v, 4);
    } else if (c.type == MPI_DOUBLE) {
      double v = static_cast<double>((r * 37 + i * 13) % 101) - 50.0 + 0.1 * (r + 1) / 3.0;
      if (c.op == Op::prod) v = 1.0 + static_cast<double>((r * 31 + i * 17) % 97) / 997.0;
      std::memcpy(out + 8 * i, &v, 8);
    } else {
      const std::uint32_t m = static_cast<std::uint32_t>(2 * (r * 7 + i) + 3),
                          a = static_cast<std::uint32_t>(r * 1000 + i);
      std::memcpy(out + 8 * i, &m, 4);
      std::memcpy(out + 8 * i + 4, &a, 4);
    }
  }
}

// How far each double result may be from MPI's: 2 P u (sum_r |x_r| + P) (SUM and the user op,
// whose ones add up to P - 1), 4 P u prod_r |x_r| (PROD), 0 (MAX, MIN).
std::vector<double> bounds(const Case& c, int size, std::int64_t n) {
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0), prod(static_cast<std::size_t>(n), 1.0);
  std::vector<unsigned char> x(static_cast<std::size_t>(std::max<std::int64_t>(1, n * 8)));
  for (int r = 0; r < size; ++r) {
    fill(c, r, n, x.data());
    for (std::int64_t i = 0; i < n; ++i) {
      double v;
      std::memcpy(&v, x.data() + 8 * i, 8);
      sum[i] += std::fabs(v);
      prod[i] *= std::fabs(v);
    }
  }
  const double u = std::ldexp(1.0, -53);
  for (std::int64_t i = 0; i < n; ++i) {
    if (c.op == Op::max || c.op == Op::min) {
      sum[i] = 0;
    } else if (c.op == Op::prod) {
      sum[i] = 4.0 * size * u * prod[i];
    } else {
      sum[i] = 2.0 * size * u * (sum[i] + size);
    }
  }
  return sum;
}

// Input elements per rank, result elements per rank's receive buffer.
std::int64_t send_elems(const Case& c, int size) {
  const bool all = c.collective == Collective::reduce_scatter_block ||
                   c.collective == Collective::scatter || c.collective == Collective::alltoall;
  return all ? std::int64_t{c.count} * size : c.count;
}
std::int64_t recv_elems(const Case& c, int size) {
  const bool all = c.collective == Collective::allgather || c.collective == Collective::gather ||
                   c.collective == Collective::alltoall;
  return all ? std::int64_t{c.count} * size : c.count;
}

relay_status_t call_relay(const Case& c, const void* send, void* recv,
                          const relay_coll_options_t* o, relay_request_t* req) {
  const MPI_Op op = mpi_op(c.op);
  switch (c.collective) {
    case Collective::reduce:
      return req ? relay_ireduce(send, recv, c.count, c.type, op, c.root, MPI_COMM_WORLD, o, req)
                 : relay_reduce(send, recv, c.count, c.type, op, c.root, MPI_COMM_WORLD, o);
    case Collective::allreduce:
      return req ? relay_iallreduce(send, recv, c.count, c.type, op, MPI_COMM_WORLD, o, req)
                 : relay_allreduce(send, recv, c.count, c.type, op, MPI_COMM_WORLD, o);
    case Collective::allgather:
      return req ? relay_iallgather(send, recv, c.count, c.type, MPI_COMM_WORLD, o, req)
                 : relay_allgather(send, recv, c.count, c.type, MPI_COMM_WORLD, o);
    case Collective::reduce_scatter_block:
      return req ? relay_ireduce_scatter_block(send, recv, c.count, c.type, op, MPI_COMM_WORLD, o,
                                               req)
                 : relay_reduce_scatter_block(send, recv, c.count, c.type, op, MPI_COMM_WORLD, o);
    case Collective::gather:
      return req ? relay_igather(send, recv, c.count, c.type, c.root, MPI_COMM_WORLD, o, req)
                 : relay_gather(send, recv, c.count, c.type, c.root, MPI_COMM_WORLD, o);
    case Collective::scatter:
      return req ? relay_iscatter(send, recv, c.count, c.type, c.root, MPI_COMM_WORLD, o, req)
                 : relay_scatter(send, recv, c.count, c.type, c.root, MPI_COMM_WORLD, o);
    case Collective::alltoall:
      return req ? relay_ialltoall(send, recv, c.count, c.type, MPI_COMM_WORLD, o, req)
                 : relay_alltoall(send, recv, c.count, c.type, MPI_COMM_WORLD, o);
    case Collective::barrier:
      return req ? relay_ibarrier(MPI_COMM_WORLD, o, req) : relay_barrier(MPI_COMM_WORLD, o);
    case Collective::allgatherv:
      break;  // test_coll_matrix_allgatherv.cpp
    case Collective::bcast:
      break;  // test_bcast_matrix.cpp
  }
  return RELAY_ERR_INTERNAL;
}

void call_mpi(const Case& c, const void* send, void* recv) {
  const MPI_Op op = mpi_op(c.op);
  switch (c.collective) {
    case Collective::reduce:
      MPI_Reduce(send, recv, c.count, c.type, op, c.root, MPI_COMM_WORLD);
      break;
    case Collective::allreduce:
      MPI_Allreduce(send, recv, c.count, c.type, op, MPI_COMM_WORLD);
      break;
    case Collective::allgather:
      MPI_Allgather(send, c.count, c.type, recv, c.count, c.type, MPI_COMM_WORLD);
      break;
    case Collective::reduce_scatter_block:
      MPI_Reduce_scatter_block(send, recv, c.count, c.type, op, MPI_COMM_WORLD);
      break;
    case Collective::gather:
      MPI_Gather(send, c.count, c.type, recv, c.count, c.type, c.root, MPI_COMM_WORLD);
      break;
    case Collective::scatter:
      MPI_Scatter(send, c.count, c.type, recv, c.count, c.type, c.root, MPI_COMM_WORLD);
      break;
    case Collective::alltoall:
      MPI_Alltoall(send, c.count, c.type, recv, c.count, c.type, MPI_COMM_WORLD);
      break;
    case Collective::barrier:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case Collective::allgatherv:
      break;  // test_coll_matrix_allgatherv.cpp
    case Collective::bcast:
      break;  // test_bcast_matrix.cpp
  }
}

// A slice of unrelated work between progress calls of a nonblocking operation.
double g_sink = 0;
void other_work() {
  for (int i = 0; i < 2000; ++i) g_sink += std::sqrt(static_cast<double>(i) + g_sink);
}

// Runs one case; expect_refusal: the op is non-commutative and the algorithm reorders.
void run_case(const Case& c, bool expect_refusal, relay::test::Failures& failures) {
  const int rank = relay::test::world_rank(), size = relay::test::world_size();
  const std::int64_t e = elem_bytes(c.type);
  const std::int64_t ns = send_elems(c, size), nr = recv_elems(c, size);
  std::vector<unsigned char> send(static_cast<std::size_t>(std::max<std::int64_t>(1, ns * e)));
  fill(c, rank, ns, send.data());
  const std::vector<unsigned char> sent = send;
  // In place: the input goes where MPI_IN_PLACE says (recvbuf; allgather and gather: block
  // `rank`); a scatter's root passes recvbuf = MPI_IN_PLACE and keeps its block in sendbuf.
  const bool scatter_root_in_place = c.in_place && c.collective == Collective::scatter;
  const std::int64_t in_place_elems = c.collective == Collective::reduce_scatter_block ? ns : nr;
  const std::int64_t recv_bytes =
      (c.in_place && !scatter_root_in_place ? std::max(nr, in_place_elems) : nr) * e;
  std::vector<unsigned char> storage(static_cast<std::size_t>(recv_bytes + 2 * kGuard), kGuardByte);
  unsigned char* recv = storage.data() + kGuard;
  const void* send_arg = send.data();
  void* recv_arg = recv;
  if (scatter_root_in_place) {
    recv_arg = MPI_IN_PLACE;
  } else if (c.in_place) {
    send_arg = MPI_IN_PLACE;
    if (c.collective == Collective::allgather || c.collective == Collective::gather) {
      std::memcpy(recv + rank * c.count * e, send.data(), static_cast<std::size_t>(c.count * e));
    } else {
      std::memcpy(recv, send.data(), static_cast<std::size_t>(ns * e));
    }
  }
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  o.algorithm = c.algorithm;
  o.policy = c.policy;
  o.segment_bytes = c.segment;
  relay_status_t st;
  if (c.nonblocking) {
    relay_request_t req = RELAY_REQUEST_NULL;
    st = call_relay(c, send_arg, recv_arg, &o, &req);
    int flag = 0;
    while (st == RELAY_SUCCESS && !flag) {
      other_work();
      st = relay_test(&req, &flag);
    }
  } else {
    st = call_relay(c, send_arg, recv_arg, &o, nullptr);
  }
  if (expect_refusal) {
    if (st != RELAY_ERR_OP ||
        std::strstr(relay_last_error(), "(op) is not commutative") == nullptr) {
      failures.add(c.name() + ": expected RELAY_ERR_OP naming the op, got status " +
                   relay_status_string(st) + ": " + relay_last_error());
    }
    return;
  }
  if (st != RELAY_SUCCESS) {
    failures.add(c.name() + ": status " + relay_status_string(st) + ": " + relay_last_error());
    return;
  }
  std::vector<unsigned char> reference(static_cast<std::size_t>(std::max<std::int64_t>(1, nr * e)));
  call_mpi(c, send.data(), reference.data());
  if (send != sent) failures.add(c.name() + ": the send buffer was written");
  const bool significant =
      (!rooted(c.collective) || c.collective == Collective::scatter || rank == c.root) &&
      !scatter_root_in_place;
  const bool exact = c.type != MPI_DOUBLE || !reduction(c.collective);
  const std::vector<double> bound =
      exact || !significant ? std::vector<double>{} : bounds(c, size, ns);
  for (std::int64_t i = 0; significant && i < nr; ++i) {
    bool ok;
    std::string got, want;
    if (exact) {
      ok = std::memcmp(recv + i * e, reference.data() + i * e, static_cast<std::size_t>(e)) == 0;
    } else {
      double a, b;
      std::memcpy(&a, recv + i * e, 8);
      std::memcpy(&b, reference.data() + i * e, 8);
      const std::int64_t base =
          c.collective == Collective::reduce_scatter_block ? rank * c.count : 0;
      ok = std::fabs(a - b) <= bound[base + i];
      got = " got " + std::to_string(a);
      want = " MPI " + std::to_string(b);
    }
    if (!ok) {
      failures.add(c.name() + ": element " + std::to_string(i) + " differs from MPI's" + got +
                   want);
      break;
    }
  }
  // Allreduce: every rank holds the same bits (each block is reduced once, or pairs agree).
  if (c.collective == Collective::allreduce && nr > 0) {
    std::vector<unsigned char> first(recv, recv + nr * e);
    MPI_Bcast(first.data(), static_cast<int>(nr * e), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (std::memcmp(first.data(), recv, static_cast<std::size_t>(nr * e)) != 0) {
      failures.add(c.name() + ": the result differs from rank 0's");
    }
  }
  for (int g = 0; g < kGuard; ++g) {
    if (storage[g] != kGuardByte || storage[kGuard + recv_bytes + g] != kGuardByte) {
      failures.add(c.name() + ": bytes outside the receive buffer were written");
      break;
    }
  }
}

struct Param {
  Collective collective;
  int algorithm;
};

class CollMatrix : public testing::TestWithParam<Param> {};

TEST_P(CollMatrix, MatchesMpi) {
  const int size = relay::test::world_size();
  const Param p = GetParam();
  const auto* algorithm = relay::coll::find_algorithm(p.collective, p.algorithm);
  const bool schedule_based = algorithm->build != nullptr;
  std::vector<int> roots = {0};
  if (rooted(p.collective)) roots = {0, size / 2, size - 1};
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  // ~1 MiB of ints in the buffer the schedule moves.
  const int large = blocks(p.collective) ? (1 << 18) / size + 1 : (1 << 18) + 1;
  relay::test::Failures failures;
  int ran = 0, variant = 0;
  for (int root : roots) {
    for (int count : {0, 1, std::max(1, size - 1), 1001}) {
      for (MPI_Datatype type : {MPI_INT, MPI_DOUBLE}) {
        const long long e = elem_bytes(type);
        for (long long segment : {e, 7 * e, 1000 / e * e, 0LL}) {
          if (segment == e && count > 64) continue;  // thousands of messages test nothing new
          for (Op op : {Op::sum, Op::max, Op::min, Op::prod, Op::plus_one}) {
            if (!reduction(p.collective) && op != Op::sum) continue;
            // Other roots: the ops that catch wrong data (sum) and wrong combine counts.
            if (root != 0 && op != Op::sum && op != Op::plus_one) continue;
            if (!schedule_based && segment != 0) continue;
            Case c{p.collective, p.algorithm, root, count, segment, type, op};
            ++variant;
            c.policy = variant % 2 ? RELAY_POLICY_BLOCKING : RELAY_POLICY_NONBLOCKING;
            c.nonblocking = variant % 3 == 0;
            c.in_place =
                variant % 5 == 0 && (!rooted(p.collective) || relay::test::world_rank() == root);
            run_case(c, false, failures);
            ++ran;
          }
        }
      }
    }
    // ~1 MiB: both types with SUM, segmented (64 KiB) and not, both policies, one nonblocking.
    for (MPI_Datatype type : {MPI_INT, MPI_DOUBLE}) {
      for (long long segment : {65536LL, 0LL}) {
        if (!schedule_based && segment != 0) continue;
        Case c{p.collective, p.algorithm, root, large, segment, type, Op::sum};
        c.policy = segment == 0 ? RELAY_POLICY_BLOCKING : RELAY_POLICY_NONBLOCKING;
        c.nonblocking = type == MPI_DOUBLE && segment != 0;
        run_case(c, false, failures);
        ++ran;
      }
    }
    // A non-commutative op: rank order, or a clear refusal.
    if (reduction(p.collective)) {
      for (int count : {1, 1001}) {
        for (long long segment : {0LL, 8 * 37LL}) {
          Case c{p.collective, p.algorithm, root, count, schedule_based ? segment : 0,
                 MPI_2INT,     Op::compose};
          run_case(c, !algorithm->keeps_rank_order, failures);
          ++ran;
        }
      }
    }
  }
  failures.report();
  EXPECT_GT(ran, 0);
}

std::vector<Param> registered() {
  std::vector<Param> out;
  for (Collective c : relay::coll::kCollectives) {
    if (c == Collective::barrier) continue;  // moves no data: its own test below
    // Blocks of per-rank sizes and places: test_coll_matrix_allgatherv.cpp, same executable.
    if (c == Collective::allgatherv) continue;
    if (c == Collective::bcast) continue;  // test_bcast_matrix.cpp
    for (const auto& a : relay::coll::algorithms(c)) out.push_back({c, a.id});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, CollMatrix, testing::ValuesIn(registered()),
                         [](const testing::TestParamInfo<Param>& param_info) {
                           return std::string(relay::coll::to_string(param_info.param.collective)) +
                                  "_" +
                                  relay_coll_algorithm_name(
                                      static_cast<relay_collective_t>(param_info.param.collective),
                                      param_info.param.algorithm);
                         });

// Nanoseconds on CLOCK_MONOTONIC: one clock for every process of a machine.
long long monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

// The barrier: every rank reads the machine's monotonic clock just before it arrives and just
// after it leaves; the latest arrival must come before the earliest departure. One rank arrives
// 20 ms late, so a barrier that let a rank leave before the last arrival is caught. (Every rank
// reads the same clock because the ranks of this test share a machine; one-sided puts read back
// after the barrier were tried first, and MPICH did not always show them.) Every algorithm (and
// auto), both policies, blocking and nonblocking calls, the late rank first, middle and last.
TEST(Barrier, NoRankLeavesBeforeEveryRankHasArrived) {
  const int rank = relay::test::world_rank(), size = relay::test::world_size();
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  if (!relay::test::all_ranks(node_size == size)) {
    GTEST_SKIP() << "the ranks are on several machines, whose clocks differ";
  }
  std::vector<int> algorithms = {RELAY_BARRIER_AUTO};
  for (const auto& a : relay::coll::algorithms(Collective::barrier)) {
    algorithms.push_back(a.id);
  }
  std::vector<int> late_ranks = {0, size / 2, size - 1};
  late_ranks.erase(std::unique(late_ranks.begin(), late_ranks.end()), late_ranks.end());
  relay::test::Failures failures;
  int ran = 0, variant = 0;
  for (int algorithm : algorithms) {
    for (relay_policy_t policy : {RELAY_POLICY_BLOCKING, RELAY_POLICY_NONBLOCKING}) {
      for (int late : late_ranks) {
        const bool nonblocking = variant++ % 2 == 1;
        const std::string name =
            std::string("barrier/") + relay_coll_algorithm_name(RELAY_COLL_BARRIER, algorithm) +
            " " + relay_policy_name(policy) + (nonblocking ? " nonblocking-call" : "") +
            " late rank " + std::to_string(late);
        relay_coll_options_t o;
        relay_coll_options_init(&o);
        o.algorithm = algorithm;
        o.policy = policy;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == late) usleep(20000);
        relay_status_t st;
        const long long arrived = monotonic_ns();
        if (nonblocking) {
          relay_request_t req = RELAY_REQUEST_NULL;
          st = relay_ibarrier(MPI_COMM_WORLD, &o, &req);
          int flag = 0;
          while (st == RELAY_SUCCESS && !flag) {
            other_work();
            st = relay_test(&req, &flag);
          }
        } else {
          st = relay_barrier(MPI_COMM_WORLD, &o);
        }
        const long long left = monotonic_ns();
        if (st != RELAY_SUCCESS) {
          failures.add(name + ": status " + relay_status_string(st) + ": " + relay_last_error());
        }
        long long last_arrival = 0;
        MPI_Allreduce(&arrived, &last_arrival, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (left < last_arrival) {
          failures.add(name + ": left " + std::to_string((last_arrival - left) / 1000) +
                       " us before the last rank arrived");
        }
        ++ran;
      }
    }
  }
  failures.report();
  EXPECT_EQ(ran, static_cast<int>(algorithms.size() * 2 * late_ranks.size()));
}

class OpEnvironment : public testing::Environment {
 public:
  void SetUp() override {
    MPI_Op_create(plus_one, 1, &g_plus_one);
    MPI_Op_create(compose, 0, &g_compose);
  }
  void TearDown() override {
    MPI_Op_free(&g_plus_one);
    MPI_Op_free(&g_compose);
  }
};
const testing::Environment* const g_env = testing::AddGlobalTestEnvironment(new OpEnvironment);

}  // namespace
