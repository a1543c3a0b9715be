// Overlapped collectives (relay/overlap.h) against MPI's own results: broadcast, reduce and
// allreduce for n_dup 1, 2, 3, 4, 8, counts 0, 1, < n_dup, odd and large, int (exact) and
// double (within the reassociation bound 2 P u sum_r |x_r|), parts from MPI (`mpi`) and from
// relay's schedules (several algorithms, segmented ones included); huang2018's chained
// reduce -> broadcast on a p x p grid; several overlapped operations in flight at once,
// completed in different orders on different ranks. Guard elements around every buffer must
// stay untouched.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mpi_test.hpp"
#include "relay/overlap.h"

namespace {

using relay::test::all_ranks;
using relay::test::Failures;
using relay::test::world_rank;
using relay::test::world_size;

enum class Op { bcast, reduce, allreduce };
enum class Parts { mpi, relay };
const char* name(Op op) {
  return op == Op::bcast ? "bcast" : op == Op::reduce ? "reduce" : "allreduce";
}

const int kDups[] = {1, 2, 3, 4, 8};
constexpr int kLarge = 1 << 17;

template <class T>
MPI_Datatype mpi_type() {
  return std::is_integral_v<T> ? MPI_INT : MPI_DOUBLE;
}
template <class T>
T value(int rank, std::int64_t i) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(((rank + 1) * 131 + i * 7) % 100003 - 50000);
  } else {
    return std::sin(rank * 1.3 + static_cast<double>(i) * 0.01) * (1 + rank);
  }
}
template <class T>
T sentinel() {
  return static_cast<T>(-77777);
}

// The parts: MPI's collectives, or one of relay's schedules (varied with n_dup, so that
// unsegmented, segmented and scatter-based ones all serve as parts somewhere).
relay_bcast_options_t bcast_options(Parts parts, int n_dup) {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  const relay_bcast_algorithm_t relay[] = {RELAY_BCAST_BINOMIAL, RELAY_BCAST_PIPELINE,
                                           RELAY_BCAST_SCATTER_ALLGATHER};
  o.algorithm = parts == Parts::mpi ? RELAY_BCAST_MPI : relay[n_dup % 3];
  if (o.algorithm == RELAY_BCAST_PIPELINE) o.segment_bytes = 4096;
  return o;
}
relay_coll_options_t coll_options(Op op, Parts parts, int n_dup) {
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  const int reduce[] = {RELAY_REDUCE_BINOMIAL, RELAY_REDUCE_PIPELINE, RELAY_REDUCE_RABENSEIFNER};
  const int allreduce[] = {RELAY_ALLREDUCE_RING, RELAY_ALLREDUCE_RECURSIVE_DOUBLING,
                           RELAY_ALLREDUCE_RABENSEIFNER};
  if (parts == Parts::mpi) {
    o.algorithm = op == Op::reduce ? int{RELAY_REDUCE_MPI} : int{RELAY_ALLREDUCE_MPI};
  } else {
    o.algorithm = op == Op::reduce ? reduce[n_dup % 3] : allreduce[n_dup % 3];
    if (o.algorithm == RELAY_REDUCE_PIPELINE) o.segment_bytes = 4096;
  }
  return o;
}

// Checks got[0..n) against want: exact for int, else within 2 P u sum_r |x_r| of element i
// (sum over ranks' inputs, `summed`).
template <class T>
void compare(const T* got, const T* want, std::int64_t n, bool summed, const std::string& what,
             Failures& f) {
  const double u = std::ldexp(1.0, -53);
  for (std::int64_t i = 0; i < n; ++i) {
    double bound = 0;
    if (std::is_floating_point_v<T> && summed) {
      for (int r = 0; r < world_size(); ++r)
        bound += std::fabs(static_cast<double>(value<T>(r, i)));
      bound *= 2.0 * world_size() * u;
    }
    if (!(std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= bound)) {
      std::ostringstream s;
      s << what << ": element " << i << " is " << got[i] << ", MPI's is " << want[i];
      f.add(s.str());
      return;
    }
  }
}

template <class T>
void run_case(Op op, Parts parts, int n_dup, int count, int root, Failures& f) {
  const int rank = world_rank();
  const MPI_Datatype type = mpi_type<T>();
  const auto n = static_cast<std::size_t>(count);
  std::ostringstream label;
  label << name(op) << (std::is_integral_v<T> ? " int" : " double")
        << (parts == Parts::mpi ? " mpi" : " relay") << " parts n_dup=" << n_dup
        << " count=" << count << " root=" << root;
  // Element 0 and n + 1 of each buffer are guards.
  std::vector<T> send(n + 2, sentinel<T>()), recv(n + 2, sentinel<T>()), want(n + 1, T{});
  for (std::size_t i = 0; i < n; ++i) send[i + 1] = value<T>(rank, static_cast<std::int64_t>(i));
  relay_status_t st = RELAY_SUCCESS;
  if (op == Op::bcast) {
    for (std::size_t i = 0; i < n; ++i) {
      if (rank == root) recv[i + 1] = want[i] = send[i + 1];
    }
    MPI_Bcast(want.data(), count, type, root, MPI_COMM_WORLD);
    const auto o = bcast_options(parts, n_dup);
    st =
        relay_overlap_bcast(recv.data() + 1, count, type, root, MPI_COMM_WORLD, n_dup, &o, nullptr);
  } else {
    const auto o = coll_options(op, parts, n_dup);
    if (op == Op::reduce) {
      MPI_Reduce(send.data() + 1, want.data(), count, type, MPI_SUM, root, MPI_COMM_WORLD);
      st = relay_overlap_reduce(send.data() + 1, recv.data() + 1, count, type, MPI_SUM, root,
                                MPI_COMM_WORLD, n_dup, &o, nullptr);
    } else {
      MPI_Allreduce(send.data() + 1, want.data(), count, type, MPI_SUM, MPI_COMM_WORLD);
      st = relay_overlap_allreduce(send.data() + 1, recv.data() + 1, count, type, MPI_SUM,
                                   MPI_COMM_WORLD, n_dup, &o, nullptr);
    }
  }
  if (st != RELAY_SUCCESS) {
    f.add(label.str() + ": " + relay_last_error());
    return;
  }
  if (recv[0] != sentinel<T>() || recv[n + 1] != sentinel<T>() || send[0] != sentinel<T>() ||
      send[n + 1] != sentinel<T>()) {
    f.add(label.str() + ": a guard element was overwritten");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (send[i + 1] != value<T>(rank, static_cast<std::int64_t>(i))) {
      f.add(label.str() + ": the send buffer changed");
      break;
    }
  }
  if (op != Op::reduce || rank == root) {
    compare(recv.data() + 1, want.data(), count, op != Op::bcast, label.str(), f);
  }
}

// Every case of one operation, type and kind of parts; roots rotate over the ranks.
template <class T>
void run_matrix(Op op, Parts parts) {
  Failures f;
  int k = 0;
  for (int n_dup : kDups) {
    for (int count : {0, 1, n_dup - 1, 1001, kLarge + 3}) {
      run_case<T>(op, parts, n_dup, count, k++ % world_size(), f);
    }
  }
  f.report();
}

TEST(Overlap, BcastIntMpiParts) { run_matrix<int>(Op::bcast, Parts::mpi); }
TEST(Overlap, BcastIntRelayParts) { run_matrix<int>(Op::bcast, Parts::relay); }
TEST(Overlap, BcastDoubleMpiParts) { run_matrix<double>(Op::bcast, Parts::mpi); }
TEST(Overlap, BcastDoubleRelayParts) { run_matrix<double>(Op::bcast, Parts::relay); }
TEST(Overlap, ReduceIntMpiParts) { run_matrix<int>(Op::reduce, Parts::mpi); }
TEST(Overlap, ReduceIntRelayParts) { run_matrix<int>(Op::reduce, Parts::relay); }
TEST(Overlap, ReduceDoubleMpiParts) { run_matrix<double>(Op::reduce, Parts::mpi); }
TEST(Overlap, ReduceDoubleRelayParts) { run_matrix<double>(Op::reduce, Parts::relay); }
TEST(Overlap, AllreduceIntMpiParts) { run_matrix<int>(Op::allreduce, Parts::mpi); }
TEST(Overlap, AllreduceIntRelayParts) { run_matrix<int>(Op::allreduce, Parts::relay); }
TEST(Overlap, AllreduceDoubleMpiParts) { run_matrix<double>(Op::allreduce, Parts::mpi); }
TEST(Overlap, AllreduceDoubleRelayParts) { run_matrix<double>(Op::allreduce, Parts::relay); }

// The largest p x p grid the ranks allow (ranks beyond p^2 get MPI_COMM_NULL everywhere):
// rank (i, j) = i p + j; row i holds (i, 0..p-1) in order j, column j holds (0..p-1, j).
struct Grid {
  int p = 1, i = 0, j = 0;
  MPI_Comm grid = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  Grid() {
    while ((p + 1) * (p + 1) <= world_size()) ++p;
    const int rank = world_rank();
    const bool in = rank < p * p;
    MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank, &grid);
    i = rank / p;
    j = rank % p;
    MPI_Comm_split(MPI_COMM_WORLD, in ? i : MPI_UNDEFINED, j, &row);
    MPI_Comm_split(MPI_COMM_WORLD, in ? p + j : MPI_UNDEFINED, i, &col);
  }
  ~Grid() {
    for (MPI_Comm* c : {&grid, &row, &col}) {
      if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
    }
  }
  bool member() const { return grid != MPI_COMM_NULL; }
};

// Rank (i, j)'s contribution to y_i: element e of y_i^{(j)}.
template <class T>
T contribution(int i, int j, std::int64_t e) {
  return value<T>(i * 16 + j, e);
}

// y_j on rank (i, j) after Algorithm 2, checked against the serial sum over k of y_j^{(k)}.
template <class T>
void check_y(const Grid& g, const T* y, std::int64_t m, const std::string& what, Failures& f) {
  const double u = std::ldexp(1.0, -53);
  for (std::int64_t e = 0; e < m; ++e) {
    T want{};
    double bound = 0;
    for (int k = 0; k < g.p; ++k) {
      want += contribution<T>(g.j, k, e);
      bound += std::fabs(static_cast<double>(contribution<T>(g.j, k, e)));
    }
    bound = std::is_integral_v<T> ? 0.0 : 2.0 * g.p * u * bound;
    if (!(std::fabs(static_cast<double>(y[e]) - static_cast<double>(want)) <= bound)) {
      std::ostringstream s;
      s << what << ": y[" << e << "] = " << y[e] << ", serial " << want;
      f.add(s.str());
      return;
    }
  }
}

template <class T>
void chained_on_grid(Parts parts) {
  Grid g;
  Failures f;
  if (g.member()) {
    for (int n_dup : kDups) {
      for (int m : {0, 1, n_dup - 1, 1001, kLarge + 3}) {
        const auto n = static_cast<std::size_t>(m);
        std::vector<T> part(n), y(n + 2, sentinel<T>());
        for (std::size_t e = 0; e < n; ++e)
          part[e] = contribution<T>(g.i, g.j, static_cast<std::int64_t>(e));
        const auto ro = coll_options(Op::reduce, parts, n_dup);
        const auto bo = bcast_options(parts, n_dup);
        std::ostringstream what;
        what << g.p << "x" << g.p << " grid n_dup=" << n_dup << " m=" << m;
        relay_overlap_part_times_t times[8];
        const relay_status_t st =
            relay_overlap_reduce_bcast(part.data(), y.data() + 1, m, mpi_type<T>(), MPI_SUM, g.i,
                                       g.row, g.j, g.col, n_dup, &ro, &bo, times);
        if (st != RELAY_SUCCESS) {
          f.add(what.str() + ": " + relay_last_error());
          continue;
        }
        if (y[0] != sentinel<T>() || y[n + 1] != sentinel<T>()) f.add(what.str() + ": guard");
        check_y(g, y.data() + 1, m, what.str(), f);
        // Each part's broadcast started after its own reduction completed (Algorithm 2).
        for (int c = 0; c < n_dup; ++c) {
          const auto& t = times[c];
          if (t.element_count > 0 &&
              !(t.post_start_s <= t.posted_s && t.posted_s <= t.first_done_s &&
                t.first_done_s <= t.second_post_start_s &&
                t.second_post_start_s <= t.second_posted_s && t.second_posted_s <= t.done_s)) {
            f.add(what.str() + ": part " + std::to_string(c) + "'s times are out of order");
          }
        }
      }
    }
  }
  f.report();
}

TEST(Overlap, ChainedReduceBcastOnGridIntMpiParts) { chained_on_grid<int>(Parts::mpi); }
TEST(Overlap, ChainedReduceBcastOnGridIntRelayParts) { chained_on_grid<int>(Parts::relay); }
TEST(Overlap, ChainedReduceBcastOnGridDoubleMpiParts) { chained_on_grid<double>(Parts::mpi); }
TEST(Overlap, ChainedReduceBcastOnGridDoubleRelayParts) { chained_on_grid<double>(Parts::relay); }

// Operations in flight at once on the same communicators: two chained ones on the grid
// (their broadcasts start whenever their reductions end, at different times on different
// ranks), an overlapped broadcast, reduce and allreduce on the world, and a plain
// relay_iallreduce. Even ranks complete them first to last, odd ranks last to first.
struct InFlight {
  Grid g;
  int m = 20001, n = 30011;
  std::vector<int> part_a, part_b, y_a, y_b, bc, red, all, plain, in;
  std::vector<relay_request_t> requests;

  InFlight()
      : part_a(m),
        part_b(m),
        y_a(m, -1),
        y_b(m, -1),
        bc(n),
        red(n, -1),
        all(n, -1),
        plain(n, -1),
        in(n) {
    const int rank = world_rank(), size = world_size();
    for (int e = 0; e < m; ++e) {
      part_a[e] = contribution<int>(g.i, g.j, e);
      part_b[e] = 3 * contribution<int>(g.i, g.j, e);
    }
    for (int e = 0; e < n; ++e) {
      in[e] = value<int>(rank, e);
      bc[e] = rank == size - 1 ? value<int>(size, e) : -1;
    }
  }
  relay_request_t q = RELAY_REQUEST_NULL;  // the request being posted
  // Called with a posting call's status, so after that call has set q.
  void posted(relay_status_t st, Failures& f) {
    if (st != RELAY_SUCCESS) f.add(std::string("posting: ") + relay_last_error());
    requests.push_back(q);
  }
  // Posts the operations; with mpi_only, every part is MPI's.
  void post(bool mpi_only, Failures& f) {
    const int size = world_size();
    const Parts relay = mpi_only ? Parts::mpi : Parts::relay;
    const auto ro = coll_options(Op::reduce, relay, 2),
               mo = coll_options(Op::reduce, Parts::mpi, 4);
    const auto bo = bcast_options(relay, 2), mb = bcast_options(Parts::mpi, 4);
    const auto rr = coll_options(Op::reduce, relay, 3), ao = coll_options(Op::allreduce, relay, 4);
    if (g.member()) {
      posted(relay_overlap_ireduce_bcast(part_a.data(), y_a.data(), m, MPI_INT, MPI_SUM, g.i, g.row,
                                         g.j, g.col, 4, &ro, &bo, nullptr, &q),
             f);
      posted(relay_overlap_ireduce_bcast(part_b.data(), y_b.data(), m, MPI_INT, MPI_SUM, g.i, g.row,
                                         g.j, g.col, 3, &mo, &mb, nullptr, &q),
             f);
    }
    posted(
        relay_overlap_ibcast(bc.data(), n, MPI_INT, size - 1, MPI_COMM_WORLD, 4, &mb, nullptr, &q),
        f);
    posted(relay_overlap_ireduce(in.data(), red.data(), n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, 3,
                                 &rr, nullptr, &q),
           f);
    posted(relay_overlap_iallreduce(in.data(), all.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, 8,
                                    &ao, nullptr, &q),
           f);
    if (!mpi_only) {
      posted(relay_iallreduce(in.data(), plain.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, nullptr,
                              &q),
             f);
    }
  }
  // Completes them in this rank's order. relay's schedules advance only when their rank calls
  // into relay, so with them every request is progressed while one is waited for; MPI's
  // parts advance inside any MPI call, so then relay_wait alone must do: a wait must start
  // what its operation queues behind (another chained operation's broadcast).
  void complete(bool progress_all, Failures& f) {
    const int k = static_cast<int>(requests.size());
    for (int x = 0; x < k; ++x) {
      relay_request_t& req =
          requests[static_cast<std::size_t>(world_rank() % 2 == 0 ? x : k - 1 - x)];
      relay_status_t st = RELAY_SUCCESS;
      for (int flag = 0; progress_all && st == RELAY_SUCCESS && !flag;) {
        for (auto& other : requests) {
          if (st == RELAY_SUCCESS) st = relay_progress(other);
        }
        if (st == RELAY_SUCCESS) st = relay_test(&req, &flag);
      }
      if (st == RELAY_SUCCESS) st = relay_wait(&req);
      if (st != RELAY_SUCCESS || req != RELAY_REQUEST_NULL) {
        f.add(std::string("completing: ") + relay_last_error());
      }
    }
  }
  void check(bool mpi_only, Failures& f) {
    const int rank = world_rank(), size = world_size();
    if (g.member()) {
      check_y(g, y_a.data(), m, "chained A", f);
      for (int& v : y_b) v /= 3;
      check_y(g, y_b.data(), m, "chained B", f);
    }
    for (int e = 0; e < n && f.empty(); ++e) {
      int sum = 0;
      for (int r = 0; r < size; ++r) sum += value<int>(r, e);
      if (bc[e] != value<int>(size, e)) f.add("overlapped bcast element " + std::to_string(e));
      if (rank == 0 && red[e] != sum) f.add("overlapped reduce element " + std::to_string(e));
      if (all[e] != sum) f.add("overlapped allreduce element " + std::to_string(e));
      if (!mpi_only && plain[e] != sum) f.add("plain allreduce element " + std::to_string(e));
    }
  }
};

void in_flight(bool mpi_only) {
  Failures f;
  InFlight run;
  run.post(mpi_only, f);
  run.complete(!mpi_only, f);
  run.check(mpi_only, f);
  f.report();
}

TEST(Overlap, SeveralOperationsInFlightRelayAndMpiParts) { in_flight(false); }
TEST(Overlap, SeveralOperationsInFlightMpiPartsWaitAlone) { in_flight(true); }

}  // namespace
