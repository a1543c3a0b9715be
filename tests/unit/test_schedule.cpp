// Schedules of every registered broadcast: they fit together across ranks, they complete,
// every rank ends up with every byte exactly once, and nothing is forwarded before it arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "coll/registry.hpp"
#include "core/units.hpp"
#include "schedule/schedule.hpp"
#include "shapes.hpp"

using relay::coll::Shape;
using relay::schedule::RankProgram;
using relay::schedule::Segmentation;
using relay::schedule::StepKind;
using relay::test::bcast_shape;

TEST(Segmentation, Arithmetic) {
  const Segmentation a(10, 3);
  ASSERT_EQ(a.count(), 4);
  EXPECT_EQ(a.offset(3), 9);
  EXPECT_EQ(a.length(0), 3);
  EXPECT_EQ(a.length(3), 1);
  EXPECT_EQ(Segmentation(10, 0).count(), 1);
  EXPECT_EQ(Segmentation(10, 10).count(), 1);
  EXPECT_EQ(Segmentation(10, 11).count(), 1);
  EXPECT_EQ(Segmentation(10, 11).length(0), 10);
  EXPECT_EQ(Segmentation(0, 4).count(), 0);
  EXPECT_EQ(Segmentation(1 << 20, 1000).count(), 1049);
  EXPECT_EQ(Segmentation(1 << 20, 1000).length(1048), (1 << 20) - 1048 * 1000);
  for (std::int64_t total = 1; total < 200; ++total) {
    for (std::int64_t seg = 0; seg < 50; ++seg) {
      const Segmentation s(total, seg);
      std::int64_t covered = 0;
      for (std::int64_t j = 0; j < s.count(); ++j) {
        ASSERT_EQ(s.offset(j), covered);
        ASSERT_GT(s.length(j), 0);
        covered += s.length(j);
      }
      ASSERT_EQ(covered, total);
    }
  }
}

TEST(Registry, NamesAndIdsAreUniqueAndRoundTrip) {
  std::set<std::string> names;
  std::set<int> ids;
  for (const auto& a : relay::coll::algorithms(relay::coll::Collective::bcast)) {
    EXPECT_TRUE(names.insert(std::string(a.name)).second) << a.name;
    EXPECT_TRUE(ids.insert(a.id).second) << a.name;
    EXPECT_EQ(relay::coll::find_algorithm(relay::coll::Collective::bcast, a.name), &a);
    EXPECT_EQ(relay::coll::find_algorithm(relay::coll::Collective::bcast, a.id), &a);
    EXPECT_FALSE(a.summary.empty());
  }
  for (const char* required :
       {"linear", "chain", "binary", "binomial", "pipeline", "scatter_allgather", "mpi"}) {
    EXPECT_TRUE(names.count(required)) << required;
  }
  EXPECT_EQ(relay::coll::find_algorithm(relay::coll::Collective::bcast, "nonsense"), nullptr);
  EXPECT_EQ(relay::coll::find_algorithm(relay::coll::Collective::bcast, RELAY_BCAST_AUTO), nullptr);
}

namespace {

// Checks one schedule; returns "" or the first problem.
std::string check_schedule(const relay::coll::Algorithm& algorithm, const Shape& shape) {
  const auto schedule = relay::coll::build_schedule(algorithm, shape);
  if (auto e = relay::schedule::check_consistency(schedule); !e.empty()) return e;
  if (auto e = relay::schedule::check_completes(schedule); !e.empty()) return e;
  for (int r = 0; r < shape.size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    // Which receive ordinal delivered each byte (-1: held from the start, at the root).
    std::vector<std::int32_t> arrival(static_cast<std::size_t>(shape.bytes),
                                      r == shape.root ? -1 : -2);
    std::int32_t recvs_before = 0;
    for (const auto& s : p.steps) {
      if (s.offset + s.bytes > shape.bytes) return "step outside the buffer";
      if (s.kind == StepKind::recv) {
        if (r == shape.root) return "the root receives";
        for (auto b = s.offset; b < s.offset + s.bytes; ++b) {
          if (arrival[b] != -2)
            return "rank " + std::to_string(r) + " receives byte " + std::to_string(b) + " twice";
          arrival[b] = recvs_before;
        }
        ++recvs_before;
      } else {
        if (s.needs_recvs > recvs_before) {
          return "a send needs receives that come after it in program order";
        }
        for (auto b = s.offset; b < s.offset + s.bytes; ++b) {
          if (arrival[b] == -2 || arrival[b] >= s.needs_recvs) {
            return "rank " + std::to_string(r) + " forwards byte " + std::to_string(b) +
                   " before it has arrived";
          }
        }
      }
    }
    for (std::int64_t b = 0; b < shape.bytes; ++b) {
      if (arrival[b] == -2)
        return "rank " + std::to_string(r) + " never gets byte " + std::to_string(b);
    }
  }
  return {};
}

}  // namespace

TEST(BcastSchedules, EveryAlgorithmIsConsistentCompleteAndExact) {
  std::vector<int> sizes;
  for (int p = 1; p <= 17; ++p) sizes.push_back(p);
  sizes.insert(sizes.end(), {24, 32, 33});
  int checked = 0;
  for (const auto& algorithm : relay::coll::algorithms(relay::coll::Collective::bcast)) {
    if (algorithm.build == nullptr) continue;  // `mpi` has no schedule
    for (int size : sizes) {
      std::vector<int> roots = {0, size / 2, size - 1};
      if (size <= 5) {
        roots.clear();
        for (int r = 0; r < size; ++r) roots.push_back(r);
      }
      for (int root : roots) {
        for (std::int64_t elem : {1, 4, 8}) {
          for (std::int64_t count :
               {0LL, 1LL, static_cast<long long>(std::max(1, size - 1)), 7LL, 1000LL, 4099LL}) {
            const std::int64_t total = count * elem;
            for (std::int64_t seg :
                 {std::int64_t{0}, elem, 1000 / elem * elem, std::int64_t{4096}, total + elem}) {
              if (seg == elem && total > 8192) continue;  // keeps the test fast
              for (int fanout : {1, 2, 3}) {
                if (!algorithm.uses_fanout && fanout != 1) continue;
                const Shape shape = bcast_shape(size, root, total, elem, seg, fanout);
                const std::string e = check_schedule(algorithm, shape);
                ASSERT_EQ(e, "") << algorithm.name << " size " << size << " root " << root
                                 << " bytes " << total << " elem " << elem << " segment " << seg
                                 << " fanout " << fanout;
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(BcastSchedules, SegmentCountsAndVolumesMatchTheirDefinitions) {
  // pipeline on 5 ranks, 10 segments: every non-root receives 10 messages, the last sends none.
  const auto* pipeline = relay::coll::find_algorithm(relay::coll::Collective::bcast, "pipeline");
  const auto s = relay::coll::build_schedule(*pipeline, bcast_shape(5, 2, 10000, 1, 1000, 1));
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(s.ranks[r].recv_count(), r == 2 ? 0 : 10);
    const int v = (r - 2 + 5) % 5;
    EXPECT_EQ(s.ranks[r].send_steps.size(), v == 4 ? 0u : 10u);
  }
  // scatter_allgather moves about 2 S (P-1)/P per non-root rank instead of S per tree edge.
  const auto* sa = relay::coll::find_algorithm(relay::coll::Collective::bcast, "scatter_allgather");
  const auto t = relay::coll::build_schedule(*sa, bcast_shape(8, 0, 8000, 1, 0, 1));
  std::int64_t sent = 0;
  for (const auto& p : t.ranks) sent += p.bytes_sent();
  EXPECT_EQ(sent, 7 * 8000);  // each non-root receives each byte exactly once
  // The root scatters 7 blocks, then feeds its ring neighbour the 7 blocks it lacks:
  // 2 S (P-1)/P, the algorithm's bandwidth term.
  EXPECT_EQ(t.ranks[0].bytes_sent(), 7000 + 7000);
  EXPECT_EQ(t.ranks[7].bytes_sent(), 0);  // vrank 7 holds only its own block; the ring ends there
}

TEST(BcastSchedules, EqualSchedulesAreTheSameExperiment) {
  // relay tune measures algorithms with equal schedules once: chain with fanout 1 is pipeline;
  // kary with fanout 4 is linear on up to 5 ranks, not on 6.
  auto build = [](const char* name, int size, std::int64_t seg, int fanout) {
    return relay::coll::build_schedule(
        *relay::coll::find_algorithm(relay::coll::Collective::bcast, name),
        bcast_shape(size, 1, 100000, 1, seg, fanout));
  };
  for (int size : {2, 3, 4, 5, 8}) {
    for (std::int64_t seg : {std::int64_t{0}, std::int64_t{4096}}) {
      EXPECT_TRUE(build("chain", size, seg, 1) == build("pipeline", size, seg, 1))
          << size << " " << seg;
      EXPECT_EQ(build("kary", size, seg, 4) == build("linear", size, seg, 1), size <= 5)
          << size << " " << seg;
    }
  }
  EXPECT_TRUE(build("chain", 8, 4096, 2) != build("pipeline", 8, 4096, 1));
  using relay::schedule::fingerprint;
  EXPECT_EQ(fingerprint(build("chain", 8, 4096, 1)), fingerprint(build("pipeline", 8, 4096, 1)));
  EXPECT_NE(fingerprint(build("chain", 8, 4096, 2)), fingerprint(build("pipeline", 8, 4096, 1)));
  EXPECT_NE(fingerprint(build("binary", 8, 0, 1)), fingerprint(build("binomial", 8, 0, 1)));
  EXPECT_TRUE(build("chain", 8, 4096, 1) != build("chain", 8, 8192, 1));
  // One step's field is enough to differ.
  auto a = build("binomial", 5, 4096, 1);
  auto b = a;
  EXPECT_TRUE(a == b);
  b.ranks[2].steps.back().needs_recvs += 1;
  EXPECT_TRUE(a != b);
  EXPECT_NE(fingerprint(a), fingerprint(b));
}

TEST(Units, ParseAndFormatBytes) {
  using relay::core::format_bytes;
  using relay::core::parse_bytes;
  EXPECT_EQ(parse_bytes("4096"), 4096);
  EXPECT_EQ(parse_bytes("64KiB"), 65536);
  EXPECT_EQ(parse_bytes("64k"), 65536);
  EXPECT_EQ(parse_bytes("8MiB"), 8 << 20);
  EXPECT_EQ(parse_bytes("1GB"), 1000000000);  // SI; 1GiB is 2^30
  EXPECT_EQ(parse_bytes("0"), 0);
  EXPECT_EQ(parse_bytes("3B"), 3);
  EXPECT_FALSE(parse_bytes(""));
  EXPECT_FALSE(parse_bytes("-1"));
  EXPECT_FALSE(parse_bytes("12XB"));
  EXPECT_FALSE(parse_bytes("KiB"));
  EXPECT_FALSE(parse_bytes("99999999999999999999"));
  EXPECT_FALSE(parse_bytes("9999999999999G"));
  EXPECT_EQ(format_bytes(1 << 20), "1MiB");
  EXPECT_EQ(format_bytes(1000), "1000B");
  EXPECT_EQ(format_bytes(65536), "64KiB");
  EXPECT_EQ(relay::core::parse_integer("12", 0, 100), 12);
  EXPECT_FALSE(relay::core::parse_integer("101", 0, 100));
  EXPECT_FALSE(relay::core::parse_integer("1x", 0, 100));
}
