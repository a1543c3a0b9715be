// Schedules of every registered algorithm of reduce, allreduce, allgather, allgatherv,
// reduce_scatter_block, gather, scatter, alltoall and barrier: consistent across ranks, complete
// under the nonblocking policy (unlimited and window 1) and the blocking policy with window 1,
// and correct when executed on symbolic data.
//
// The symbolic execution runs every rank's program as eagerly as its declared dependencies
// allow, with a send's data read when it starts and checked unchanged when it completes one
// round later (so a combine or receive that overwrites data still being sent is caught), and
// receives written when they complete. An element's value is the set of ranks it combines
// (a bitmask: a rank counted twice is an error), the element of the input it is (combining
// different elements is an error) and, for non-commutative ops, the range of ranks it spans
// (combining non-adjacent ranges, or in the wrong order, is an error). A barrier's combine is
// an OR (a rank may be heard from twice); alltoall's is a copy (bruck's unpacking).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "coll/reduction/reduction.hpp"
#include "model/replay.hpp"
#include "schedule/schedule.hpp"

using relay::coll::Algorithm;
using relay::coll::Collective;
using relay::coll::Shape;
using relay::schedule::RankProgram;
using relay::schedule::Step;
using relay::schedule::StepKind;

namespace {

struct Value {
  std::uint64_t mask = 0;  // 0: garbage
  int lo = 0, hi = -1;
  std::int64_t element = -1;  // which element of the ranks' inputs
  bool operator==(const Value& o) const {
    return mask == o.mask && lo == o.lo && hi == o.hi && element == o.element;
  }
  bool operator!=(const Value& o) const { return !(*this == o); }
};

Value single(int r, std::int64_t element) { return Value{std::uint64_t{1} << r, r, r, element}; }
Value everyone(int P, std::int64_t element) {
  return Value{P >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << P) - 1, 0, P - 1, element};
}

// Bytes between allgatherv's blocks are never addressed: each rank's hold its own mark.
Value gap(int r) { return Value{0, r, r, -2}; }

bool gathers_all(Collective c) { return c == Collective::allgather || c == Collective::allgatherv; }

// The block each element of the buffer belongs to (-1: between blocks).
std::vector<int> owners(const Shape& s) {
  std::vector<int> owner(static_cast<std::size_t>(s.buffer_bytes() / s.elem_bytes), -1);
  for (int b = 0; b < s.size; ++b) {
    const std::int64_t first = s.block_offset(b) / s.elem_bytes;
    for (std::int64_t i = 0; i < s.block_bytes(b) / s.elem_bytes; ++i) owner[first + i] = b;
  }
  return owner;
}

bool is_bruck_alltoall(const Algorithm& a) {
  return a.collective == Collective::alltoall && a.id == RELAY_ALLTOALL_BRUCK;
}

// What rank r's buffer holds on entry (the API's accumulator, see reduction.hpp).
std::vector<Value> initial_buffer(const Algorithm& a, const Shape& s, int r) {
  if (gathers_all(a.collective)) {
    const std::vector<int> owner = owners(s);
    std::vector<Value> b(owner.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (owner[i] < 0) b[i] = gap(r);
      if (owner[i] == r) b[i] = single(r, static_cast<std::int64_t>(i));
    }
    return b;
  }
  const std::int64_t n = s.blocks ? s.size * s.elements() : s.elements();
  std::vector<Value> b(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t block = s.blocks ? i / s.elements() : -1;
    switch (a.collective) {
      case Collective::gather:
        if (block == r) b[i] = single(r, i);
        break;
      case Collective::scatter:
        if (r == s.root) b[i] = single(r, i);
        break;
      default:
        b[i] = single(r, i);
    }
  }
  if (is_bruck_alltoall(a)) {  // own block in place, block r + i in the area of its first round
    const relay::coll::BruckAlltoallLayout layout(s.size, s.bytes);
    std::vector<Value> w(static_cast<std::size_t>(layout.bytes() / s.elem_bytes));
    for (int i = 0; i < s.size; ++i) {
      const std::int64_t at =
          i == 0 ? r * s.elements() : layout.at(layout.round_from(0, i), i) / s.elem_bytes;
      for (std::int64_t j = 0; j < s.elements(); ++j) {
        w[at + j] = single(r, (r + i) % s.size * s.elements() + j);
      }
    }
    return w;
  }
  return b;
}

struct Sim {
  const relay::schedule::Schedule& s;
  const Algorithm& algorithm;
  const Shape& shape;
  std::string error;
  std::vector<std::vector<Value>> buffer, scratch;

  Sim(const relay::schedule::Schedule& schedule, const Algorithm& a, const Shape& sh)
      : s(schedule), algorithm(a), shape(sh) {}

  // received is on the left when `received_left`; `in` is the received operand.
  Value combine(const Value& left, const Value& right, const Value& in) {
    if (algorithm.collective == Collective::alltoall) {  // a copy
      if (in.mask == 0) error = "copies garbage";
      return in;
    }
    if (left.mask == 0 || right.mask == 0) {
      error = "combines garbage";
      return {};
    }
    if (left.element != right.element) {
      error = "combines elements " + std::to_string(left.element) + " and " +
              std::to_string(right.element);
      return {};
    }
    if (algorithm.collective == Collective::barrier) {  // OR: idempotent
      return Value{left.mask | right.mask, std::min(left.lo, right.lo), std::max(left.hi, right.hi),
                   left.element};
    }
    if (left.mask & right.mask) {
      error = "counts a rank twice";
      return {};
    }
    if (!shape.commutative && left.hi + 1 != right.lo) {
      error = "breaks rank order: [" + std::to_string(left.lo) + "," + std::to_string(left.hi) +
              "] (op) [" + std::to_string(right.lo) + "," + std::to_string(right.hi) + "]";
      return {};
    }
    return Value{left.mask | right.mask, std::min(left.lo, right.lo), std::max(left.hi, right.hi),
                 left.element};
  }

  std::string run() {
    const int P = shape.size;
    const std::int64_t e = shape.elem_bytes;
    buffer.resize(P);
    scratch.resize(P);
    for (int r = 0; r < P; ++r) {
      buffer[r] = initial_buffer(algorithm, shape, r);
      // alltoall linear receives into recvbuf, the scratch: as large as P blocks.
      const std::int64_t scratch_bytes =
          algorithm.collective == Collective::alltoall
              ? std::max(s.ranks[r].scratch_bytes, shape.buffer_bytes())
              : s.ranks[r].scratch_bytes;
      scratch[r].assign(static_cast<std::size_t>(scratch_bytes / e), Value{});
    }
    struct State {
      std::int32_t posted = 0, recv_prefix = 0, started = 0, send_prefix = 0, combines = 0;
      std::vector<char> recv_done, send_done;
    };
    std::vector<State> st(P);
    for (int r = 0; r < P; ++r) {
      st[r].recv_done.assign(s.ranks[r].recv_count(), 0);
      st[r].send_done.assign(s.ranks[r].send_count(), 0);
    }
    struct InFlight {
      int from;
      std::int32_t send;
      std::vector<Value> data;
      int round;
    };
    std::map<std::pair<int, int>, std::vector<InFlight>> flying;          // (from, to) in order
    std::map<std::pair<int, int>, std::int32_t> posted_count, delivered;  // per (from, to)
    std::vector<std::vector<std::int32_t>> posted_recvs(P);               // receive ordinals posted
    auto ready = [&](const Step& x, const State& t) {
      return x.needs_recvs <= t.recv_prefix && x.needs_combines <= t.combines &&
             x.needs_sends <= t.send_prefix;
    };
    auto slice = [&](int r, const Step& x, bool to_scratch) -> Value* {
      return to_scratch ? &scratch[r][x.scratch_offset / e] : &buffer[r][x.offset / e];
    };
    for (int round = 0; round < 1000000; ++round) {
      bool progressed = false;
      for (int r = 0; r < P; ++r) {
        const RankProgram& p = s.ranks[r];
        State& t = st[r];
        while (t.posted < p.recv_count() && ready(p.steps[p.recv_steps[t.posted]], t)) {
          ++posted_count[{p.steps[p.recv_steps[t.posted]].peer, r}];
          posted_recvs[r].push_back(t.posted++);
          progressed = true;
        }
        while (t.combines < p.combine_count() && ready(p.steps[p.combine_steps[t.combines]], t)) {
          const Step& c = p.steps[p.combine_steps[t.combines]];
          Value* acc = slice(r, c, false);
          const Value* in = slice(r, c, true);
          for (std::int64_t i = 0; i < c.bytes / e; ++i) {
            acc[i] =
                c.received_left ? combine(in[i], acc[i], in[i]) : combine(acc[i], in[i], in[i]);
          }
          if (!error.empty()) return "rank " + std::to_string(r) + " " + error;
          ++t.combines;
          progressed = true;
        }
        while (t.started < p.send_count() && ready(p.steps[p.send_steps[t.started]], t)) {
          const Step& x = p.steps[p.send_steps[t.started]];
          const Value* src = slice(r, x, false);
          flying[{r, x.peer}].push_back(
              InFlight{r, t.started++, std::vector<Value>(src, src + x.bytes / e), round});
          progressed = true;
        }
      }
      // Deliver messages started in an earlier round whose receive is posted.
      for (auto& [pair, list] : flying) {
        const int from = pair.first, to = pair.second;
        while (!list.empty() && list.front().round < round &&
               delivered[pair] < posted_count[pair]) {
          InFlight m = std::move(list.front());
          list.erase(list.begin());
          const Step& x = s.ranks[from].steps[s.ranks[from].send_steps[m.send]];
          const Value* now = slice(from, x, false);
          for (std::size_t i = 0; i < m.data.size(); ++i) {
            if (now[i] != m.data[i]) {
              return "rank " + std::to_string(from) + " overwrites bytes at " +
                     std::to_string(x.offset) + " while they are being sent";
            }
          }
          // The k-th message from `from` is the k-th receive from `from`.
          const RankProgram& q = s.ranks[to];
          std::int32_t k = delivered[pair]++, ordinal = -1;
          for (std::int32_t i = 0, seen = 0; i < q.recv_count(); ++i) {
            if (q.steps[q.recv_steps[i]].peer == from && seen++ == k) {
              ordinal = i;
              break;
            }
          }
          const Step& y = q.steps[q.recv_steps[ordinal]];
          std::copy(m.data.begin(), m.data.end(), slice(to, y, y.to_scratch));
          st[to].recv_done[ordinal] = 1;
          st[from].send_done[m.send] = 1;
          progressed = true;
        }
      }
      for (int r = 0; r < P; ++r) {
        State& t = st[r];
        while (t.recv_prefix < s.ranks[r].recv_count() && t.recv_done[t.recv_prefix])
          ++t.recv_prefix;
        while (t.send_prefix < s.ranks[r].send_count() && t.send_done[t.send_prefix])
          ++t.send_prefix;
      }
      bool pending = false;
      for (auto& kv : flying) pending = pending || !kv.second.empty();
      if (!progressed && !pending) break;
      if (!progressed && round > 0) {
        bool any_ready = false;
        for (auto& [pair, list] : flying) {
          any_ready = any_ready || (!list.empty() && delivered[pair] < posted_count[pair]);
        }
        if (!any_ready) return "stuck";
      }
    }
    for (int r = 0; r < P; ++r) {
      if (st[r].combines != s.ranks[r].combine_count() ||
          st[r].recv_prefix != s.ranks[r].recv_count() ||
          st[r].send_prefix != s.ranks[r].send_count()) {
        return "rank " + std::to_string(r) + " did not finish";
      }
    }
    return {};
  }
};

std::string expect_result(const Sim& sim, const Shape& shape) {
  const int P = shape.size;
  const Collective c = sim.algorithm.collective;
  if (gathers_all(c)) {  // every block everywhere, the gaps untouched
    const std::vector<int> owner = owners(shape);
    for (int r = 0; r < P; ++r) {
      for (std::size_t i = 0; i < owner.size(); ++i) {
        const Value want = owner[i] < 0 ? gap(r) : single(owner[i], static_cast<std::int64_t>(i));
        if (sim.buffer[r][i] != want) {
          return "rank " + std::to_string(r) + " element " + std::to_string(i) + " (block " +
                 std::to_string(owner[i]) + ") holds ranks mask " +
                 std::to_string(sim.buffer[r][i].mask) + " element " +
                 std::to_string(sim.buffer[r][i].element);
        }
      }
    }
    return {};
  }
  for (int r = 0; r < P; ++r) {
    // alltoall linear leaves its result in the scratch (recvbuf), without its own block.
    const bool linear_alltoall = c == Collective::alltoall && !is_bruck_alltoall(sim.algorithm);
    const auto& b = linear_alltoall ? sim.scratch[r] : sim.buffer[r];
    const std::int64_t n = shape.blocks ? P * shape.elements() : shape.elements();
    for (std::int64_t i = 0; i < n; ++i) {
      const int block = shape.blocks ? static_cast<int>(i / shape.elements()) : -1;
      const std::int64_t j = shape.blocks ? i % shape.elements() : i;
      Value want;
      bool check = true;
      switch (c) {
        case Collective::reduce:
          check = r == shape.root;
          want = everyone(P, i);
          break;
        case Collective::allreduce:
          want = everyone(P, i);
          break;
        case Collective::allgather:
        case Collective::allgatherv:
          break;  // above
        case Collective::reduce_scatter_block:
          check = block == r;
          want = everyone(P, i);
          break;
        case Collective::gather:
          check = r == shape.root;
          want = single(block, i);
          break;
        case Collective::scatter:
          check = block == r;
          want = single(shape.root, i);
          break;
        case Collective::alltoall:
          check = !linear_alltoall || block != r;
          want = single(block, r * shape.elements() + j);
          break;
        case Collective::barrier:
          want = everyone(P, i);
          break;
        case Collective::bcast:
          break;  // test_schedule.cpp checks the broadcasts
      }
      if (check && b[static_cast<std::size_t>(i)] != want) {
        const Value& got = b[static_cast<std::size_t>(i)];
        return "rank " + std::to_string(r) + " element " + std::to_string(i) +
               " holds ranks mask " + std::to_string(got.mask) + " element " +
               std::to_string(got.element);
      }
    }
  }
  return {};
}

std::string check(const Algorithm& a, const Shape& shape) {
  const auto schedule = relay::coll::build_schedule(a, shape);
  if (auto e = relay::schedule::check_consistency(schedule); !e.empty()) return e;
  if (auto e = relay::schedule::check_completes(schedule, 0); !e.empty()) return e;
  if (auto e = relay::schedule::check_completes(schedule, 1); !e.empty()) return "window 1: " + e;
  if (auto e = relay::schedule::check_completes(schedule, 1, true); !e.empty()) {
    return "blocking, window 1: " + e;
  }
  Sim sim(schedule, a, shape);
  if (auto e = sim.run(); !e.empty()) return e;
  return expect_result(sim, shape);
}

}  // namespace

TEST(ReductionSchedules, EveryAlgorithmIsConsistentCompleteAndCorrect) {
  int checked = 0;
  for (Collective c : relay::coll::kCollectives) {
    if (c == Collective::bcast) continue;  // test_schedule.cpp checks the broadcasts
    for (const auto& a : relay::coll::algorithms(c)) {
      if (a.build == nullptr) continue;
      for (int size : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17}) {
        std::vector<int> roots = {0};
        if (relay::coll::has_root(c)) roots = {0, size / 2, size - 1};
        if (relay::coll::has_root(c) && size <= 5) {
          roots.clear();
          for (int r = 0; r < size; ++r) roots.push_back(r);
        }
        roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
        for (int root : roots) {
          for (std::int64_t elem : {1, 4}) {
            for (std::int64_t count :
                 {0LL, 1LL, static_cast<long long>(std::max(1, size - 1)), 7LL, 50LL}) {
              // A barrier is one byte (relay_barrier's shape), whatever the loops say.
              if (c == Collective::barrier && (elem != 1 || count != 1)) continue;
              for (std::int64_t seg : {std::int64_t{0}, elem, 3 * elem, 64 * elem}) {
                for (bool commutative : {true, false}) {
                  if (!commutative && !a.keeps_rank_order) continue;
                  if (!commutative && c == Collective::barrier) continue;  // always OR
                  for (int fanout : {1, 2}) {
                    if (!a.uses_fanout && fanout != 1) continue;
                    Shape shape;
                    shape.size = size;
                    shape.root = root;
                    shape.bytes = count * elem;
                    shape.elem_bytes = elem;
                    shape.segment_bytes = seg;
                    shape.commutative = commutative;
                    shape.fanout = fanout;
                    shape.blocks = relay::coll::has_blocks(c);
                    const std::string e = check(a, shape);
                    ASSERT_EQ(e, "")
                        << to_string(c) << " " << a.name << " size " << size << " root " << root
                        << " count " << count << " elem " << elem << " segment " << seg
                        << " commutative " << commutative << " fanout " << fanout;
                    ++checked;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(ReductionRegistry, NamesAndIdsAreUniqueAndRoundTrip) {
  for (Collective c : relay::coll::kCollectives) {
    if (c == Collective::bcast) continue;  // test_schedule.cpp checks the broadcasts
    std::vector<std::string> names;
    for (const auto& a : relay::coll::algorithms(c)) {
      EXPECT_EQ(std::count(names.begin(), names.end(), std::string(a.name)), 0) << a.name;
      names.emplace_back(a.name);
      EXPECT_EQ(relay::coll::find_algorithm(c, a.name), &a);
      EXPECT_EQ(relay::coll::find_algorithm(c, a.id), &a);
      EXPECT_NE(a.id, 0);
      EXPECT_FALSE(a.summary.empty());
      if (a.needs_power_of_two) {
        const auto* f = relay::coll::find_algorithm(c, a.fallback);
        ASSERT_NE(f, nullptr);
        EXPECT_FALSE(f->needs_power_of_two);
      }
    }
    EXPECT_NE(relay::coll::find_algorithm(c, "mpi"), nullptr);
  }
}

// The volumes the algorithm headers state (S bytes, P ranks).
TEST(ReductionSchedules, VolumesMatchTheirCostFormulas) {
  auto sent = [](const Algorithm& a, const Shape& shape, int rank) {
    return relay::coll::build_schedule(a, shape).ranks[rank].bytes_sent();
  };
  Shape s;
  s.size = 8;
  s.bytes = 8000;
  const auto* ring = relay::coll::find_algorithm(Collective::allreduce, "ring");
  const auto* raben = relay::coll::find_algorithm(Collective::allreduce, "rabenseifner");
  const auto* rd = relay::coll::find_algorithm(Collective::allreduce, "recursive_doubling");
  EXPECT_EQ(sent(*ring, s, 3), 2 * 8000 * 7 / 8);   // 2 S (P-1)/P
  EXPECT_EQ(sent(*raben, s, 3), 2 * 8000 * 7 / 8);  // 2 S (P-1)/P
  EXPECT_EQ(sent(*rd, s, 3), 3 * 8000);             // S log2 P
  s.blocks = true;
  s.bytes = 1000;
  const auto* bruck = relay::coll::find_algorithm(Collective::allgather, "bruck");
  EXPECT_EQ(sent(*bruck, s, 5), 7 * 1000);  // S (P-1)/P with S = P blocks
  s.size = 7;
  EXPECT_EQ(sent(*bruck, s, 5), 6 * 1000);
  // Rooted: the root of a scatter sends, and that of a gather receives, S (P-1)/P whatever the
  // tree; a binomial leaf sends one block, an inner vrank v its subtree.
  s.size = 8;
  s.root = 3;
  const auto* scatter_binomial = relay::coll::find_algorithm(Collective::scatter, "binomial");
  const auto* scatter_linear = relay::coll::find_algorithm(Collective::scatter, "linear");
  const auto* gather_binomial = relay::coll::find_algorithm(Collective::gather, "binomial");
  EXPECT_EQ(sent(*scatter_binomial, s, 3), 7 * 1000);
  EXPECT_EQ(sent(*scatter_linear, s, 3), 7 * 1000);
  EXPECT_EQ(sent(*gather_binomial, s, 4), 1000);      // vrank 1's subtree: 1 block
  EXPECT_EQ(sent(*gather_binomial, s, 7), 4 * 1000);  // vrank 4's subtree: 4 blocks
  s.root = 0;
  // alltoall: pairwise exchange sends S (P-1)/P, Bruck S/2 in each of log2 P rounds (P = 8),
  // and at P = 6 the blocks with bit k set in 1..5: 3 + 2 + 2.
  const auto* pairwise = relay::coll::find_algorithm(Collective::alltoall, "linear");
  const auto* bruck_a2a = relay::coll::find_algorithm(Collective::alltoall, "bruck");
  EXPECT_EQ(sent(*pairwise, s, 2), 7 * 1000);
  EXPECT_EQ(sent(*bruck_a2a, s, 2), 3 * 4 * 1000);
  EXPECT_EQ(relay::coll::build_schedule(*bruck_a2a, s).ranks[2].send_count(), 3);
  s.size = 6;
  EXPECT_EQ(sent(*bruck_a2a, s, 2), 7 * 1000);
  // barrier dissemination: one byte in each of ceil(log2 P) rounds.
  Shape one;
  one.size = 6;
  one.bytes = 1;
  EXPECT_EQ(sent(*relay::coll::find_algorithm(Collective::barrier, "dissemination"), one, 4), 3);
}

// The model replays reduction schedules too (a combine is local work of zero cost there):
// ring allreduce on a full-duplex alpha-beta machine takes 2 (P-1)(alpha + beta S/P), and
// recursive doubling log2 P (alpha + beta S).
TEST(ReductionSchedules, ReplayMatchesClosedForms) {
  relay::model::Machine m;
  m.alpha_s = 1e-6;
  m.beta_s_per_byte = 1e-9;
  Shape s;
  s.size = 8;
  s.bytes = 80000;
  for (auto policy : {relay::schedule::Policy::blocking, relay::schedule::Policy::nonblocking}) {
    const auto ring =
        relay::coll::build_schedule(*relay::coll::find_algorithm(Collective::allreduce, "ring"), s);
    EXPECT_NEAR(relay::model::replay(ring, policy, 16, m).time_s, 14 * (1e-6 + 1e-9 * 10000),
                1e-12);
    const auto rd = relay::coll::build_schedule(
        *relay::coll::find_algorithm(Collective::allreduce, "recursive_doubling"), s);
    EXPECT_NEAR(relay::model::replay(rd, policy, 16, m).time_s, 3 * (1e-6 + 1e-9 * 80000), 1e-12);
  }
}

namespace {

// allgatherv layouts of P blocks (elements): all empty; uneven with empty blocks, in rank order;
// one block much larger than the others; and blocks in a permuted order with gaps between them.
std::vector<std::pair<std::string, Shape>> allgatherv_layouts(int P, std::int64_t elem) {
  std::vector<std::pair<std::string, Shape>> out;
  auto add = [&](const std::string& name, std::vector<std::int64_t> counts,
                 const std::vector<int>& order, std::int64_t gap_elems) {
    Shape s;
    s.size = P;
    s.elem_bytes = elem;
    s.blocks = true;
    s.block_displs.assign(static_cast<std::size_t>(P), 0);
    std::int64_t at = 0;
    for (int r : order) {
      s.block_displs[r] = at;
      at += counts[r] + gap_elems;
    }
    s.block_counts = std::move(counts);
    out.emplace_back(name, s);
  };
  std::vector<int> rank_order(static_cast<std::size_t>(P)), permuted;
  for (int r = 0; r < P; ++r) rank_order[r] = r;
  for (int k = 0; k < P; ++k) permuted.push_back((k * 5 + 2) % P);  // a permutation unless 5 | P
  if (P % 5 == 0) permuted.assign(rank_order.rbegin(), rank_order.rend());
  std::vector<std::int64_t> uneven, large, zero(static_cast<std::size_t>(P), 0);
  for (int r = 0; r < P; ++r) {
    uneven.push_back((r * 7 + 3) % 5);  // rank 1 (and every fifth) empty
    large.push_back(r == P / 2 ? 40 : r % 3 == 1 ? 0 : 1);
  }
  add("zero", zero, rank_order, 0);
  add("uneven", uneven, rank_order, 0);
  add("large", large, rank_order, 0);
  add("permuted_gaps", uneven, permuted, 2);
  return out;
}

}  // namespace

TEST(AllgathervSchedules, UnevenEmptyAndPermutedBlocksAreConsistentCompleteAndCorrect) {
  int checked = 0;
  for (const auto& a : relay::coll::algorithms(Collective::allgatherv)) {
    if (a.build == nullptr) continue;
    for (int P = 1; P <= 9; ++P) {
      for (std::int64_t elem : {1, 4}) {
        for (auto [name, shape] : allgatherv_layouts(P, elem)) {
          for (std::int64_t seg : {std::int64_t{0}, elem, 3 * elem}) {
            shape.segment_bytes = seg;
            ASSERT_EQ(check(a, shape), "")
                << a.name << " P " << P << " " << name << " elem " << elem << " segment " << seg;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 9 * 2 * 4 * 3);
}

// Ranks may place the blocks differently (MPI lets displs differ): a program's messages depend
// on the counts only, so every rank's k-th send to a peer is as long as that peer's k-th
// receive from it even when each rank builds its program from its own displacements.
TEST(AllgathervSchedules, MessagesMatchWhenRanksPlaceBlocksDifferently) {
  for (const auto& a : relay::coll::algorithms(Collective::allgatherv)) {
    if (a.build == nullptr) continue;
    for (int P : {3, 6, 7}) {
      const auto layouts = allgatherv_layouts(P, 4);
      const Shape& in_order = layouts[1].second;  // uneven
      const Shape& permuted = layouts[3].second;  // the same counts elsewhere
      relay::schedule::Schedule s;
      for (int r = 0; r < P; ++r) s.ranks.push_back(a.build(r % 2 ? permuted : in_order, r));
      for (int from = 0; from < P; ++from) {
        for (int to = 0; to < P; ++to) {
          std::vector<std::int64_t> sent, received;
          for (const Step& x : s.ranks[from].steps) {
            if (x.kind == StepKind::send && x.peer == to) sent.push_back(x.bytes);
          }
          for (const Step& x : s.ranks[to].steps) {
            if (x.kind == StepKind::recv && x.peer == from) received.push_back(x.bytes);
          }
          EXPECT_EQ(sent, received) << a.name << " P " << P << " " << from << " -> " << to;
        }
      }
    }
  }
}

// The ring sends every block but its right neighbour's (S - |block v+1|); and the model costs
// allgatherv schedules like any other: one dominant block of L bytes takes (P-1)(alpha + beta L)
// unsegmented, but about beta L + (P-1)(alpha + beta segment) in 64 KiB segments.
TEST(AllgathervSchedules, RingVolumeAndReplayOfOneLargeBlock) {
  const auto* ring = relay::coll::find_algorithm(Collective::allgatherv, "ring");
  ASSERT_NE(ring, nullptr);
  Shape s;
  s.size = 8;
  s.blocks = true;
  s.block_counts = {5, 0, 7, 1, 1 << 20, 0, 3, 2};
  s.block_displs = {100, 0, 20, 99, 2000, 0, 50, 10};
  std::int64_t total = 0;
  for (auto c : s.block_counts) total += c;
  for (int v = 0; v < 8; ++v) {
    EXPECT_EQ(relay::coll::build_schedule(*ring, s).ranks[v].bytes_sent(),
              total - s.block_counts[(v + 1) % 8]);
  }
  relay::model::Machine m;
  m.alpha_s = 1e-6;
  m.beta_s_per_byte = 1e-9;
  const double L = 1 << 20;
  const auto whole = relay::coll::build_schedule(*ring, s);
  const auto policy = relay::schedule::Policy::nonblocking;
  const double t_whole = relay::model::replay(whole, policy, 16, m).time_s;
  EXPECT_NEAR(t_whole, 7 * (1e-6 + 1e-9 * L), 7 * 1e-9 * 100 + 1e-9);
  s.segment_bytes = 64 * 1024;
  const auto segmented = relay::coll::build_schedule(*ring, s);
  const double t_seg = relay::model::replay(segmented, policy, 16, m).time_s;
  EXPECT_LT(t_seg, 2 * 1e-9 * L);
}
