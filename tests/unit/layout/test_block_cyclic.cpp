// Block-cyclic index maps against the brute-force walk, for every distribution with up to 5
// processes, every source (including replicated), block sizes 1..5 and first blocks 1..7
// (smaller than, equal to and larger than the block), over ranges that wrap the grid several
// times; plus the 1-based Fortran TOOLS signatures against their published formulas.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layout/block_cyclic.hpp"
#include "reference.hpp"

namespace relay::layout {
namespace {

using test::brute_map;
using test::describe;
using test::for_each_dim;

constexpr int max_procs = 5;
constexpr int64_t max_block = 5;
constexpr int64_t max_first = 7;
constexpr int64_t extent = 48;  // global indices examined per distribution

TEST(BlockCyclic, OwnerLocalAndBlockMatchBruteForce) {
  for_each_dim(max_procs, max_block, max_first, [](const BlockCyclic& dim) {
    const auto ref = brute_map(dim, extent + 1);
    for (int64_t g = 0; g < extent; ++g) {
      ASSERT_EQ(block_of(dim, g), ref.block[g]) << describe(dim) << " g=" << g;
      ASSERT_EQ(owner(dim, g), ref.owner[g]) << describe(dim) << " g=" << g;
      ASSERT_EQ(to_local(dim, g), ref.local[g]) << describe(dim) << " g=" << g;
      // block_end is the first index of the next block.
      const int64_t end = block_end(dim, g);
      ASSERT_GT(end, g) << describe(dim) << " g=" << g;
      for (int64_t h = g; h < end && h <= extent; ++h) ASSERT_EQ(ref.block[h], ref.block[g]);
      if (end <= extent) {
        ASSERT_EQ(ref.block[end], ref.block[g] + 1) << describe(dim);
      }
    }
  });
}

TEST(BlockCyclic, ToGlobalEnumeratesEachProcessesIndicesInOrder) {
  for_each_dim(max_procs, max_block, max_first, [](const BlockCyclic& dim) {
    const auto ref = brute_map(dim, extent);
    for (int p = 0; p < dim.nprocs; ++p) {
      int64_t l = 0;
      for (int64_t g = 0; g < extent; ++g) {
        if (!ref.holds(p, g)) continue;
        ASSERT_EQ(to_global(dim, p, l), g) << describe(dim) << " p=" << p << " l=" << l;
        ++l;
      }
    }
  });
}

TEST(BlockCyclic, LocalCountsOfEveryRangeMatchBruteForce) {
  for_each_dim(max_procs, max_block, max_first, [](const BlockCyclic& dim) {
    const auto ref = brute_map(dim, extent);
    for (int p = 0; p < dim.nprocs; ++p) {
      // prefix[g] = indices of [0, g) held by p, counted by the walk.
      std::vector<int64_t> prefix(extent + 1, 0);
      for (int64_t g = 0; g < extent; ++g) prefix[g + 1] = prefix[g] + (ref.holds(p, g) ? 1 : 0);
      for (int64_t start = 0; start <= extent; ++start) {
        ASSERT_EQ(local_start(dim, p, start), prefix[start]) << describe(dim) << " p=" << p;
        ASSERT_EQ(local_count(dim, p, start), prefix[start]) << describe(dim) << " p=" << p;
        for (int64_t n = 0; start + n <= extent; ++n) {
          ASSERT_EQ(local_count(dim, p, start, n), prefix[start + n] - prefix[start])
              << describe(dim) << " p=" << p << " start=" << start << " n=" << n;
        }
      }
    }
  });
}

TEST(BlockCyclic, LocalStartIsTheLocalIndexOfTheNextHeldEntry) {
  // PB_Cinfog2l's II: on the owner of g it is g's local index; elsewhere it is the local index
  // of the first entry after g that the process holds (or its local count if none).
  for_each_dim(max_procs, max_block, max_first, [](const BlockCyclic& dim) {
    const auto ref = brute_map(dim, extent);
    for (int p = 0; p < dim.nprocs; ++p) {
      for (int64_t g = 0; g < extent; ++g) {
        int64_t h = g;
        while (h < extent && !ref.holds(p, h)) ++h;
        if (h == extent) continue;
        ASSERT_EQ(local_start(dim, p, g), ref.local[h]) << describe(dim) << " p=" << p;
      }
    }
  });
}

TEST(BlockCyclic, SubrangeIsTheDistributionOfTheTail) {
  for_each_dim(max_procs, max_block, max_first, [](const BlockCyclic& dim) {
    for (int64_t start = 0; start < extent; ++start) {
      const BlockCyclic sub = subrange(dim, start);
      ASSERT_FALSE(block_cyclic_error(sub).has_value()) << describe(sub);
      ASSERT_EQ(sub.block, dim.block);
      ASSERT_EQ(sub.nprocs, dim.nprocs);
      ASSERT_EQ(sub.source, owner(dim, start)) << describe(dim) << " start=" << start;
      ASSERT_EQ(sub.first_block, block_end(dim, start) - start);
      for (int64_t s = 0; start + s < extent; ++s) {
        const int64_t g = start + s;
        const int who = owner(dim, g);
        ASSERT_EQ(owner(sub, s), who) << describe(dim) << " start=" << start << " s=" << s;
        ASSERT_EQ(block_end(sub, s), block_end(dim, g) - start);
        const int holder = who == -1 ? 0 : who;
        ASSERT_EQ(to_local(dim, g), local_start(dim, holder, start) + to_local(sub, s))
            << describe(dim) << " start=" << start << " s=" << s;
      }
      for (int p = 0; p < dim.nprocs; ++p) {
        for (int64_t n = 0; start + n <= extent; ++n) {
          ASSERT_EQ(local_count(sub, p, n), local_count(dim, p, start, n));
        }
      }
    }
  });
}

TEST(BlockCyclic, HandWorkedDtype2Example) {
  // fb=2 nb=3 over 3 processes from process 1: [0,2) p1, [2,5) p2, [5,8) p0, [8,11) p1,
  // [11,14) p2, [14,17) p0.
  const BlockCyclic dim{2, 3, 1, 3};
  EXPECT_EQ(owner(dim, 1), 1);
  EXPECT_EQ(owner(dim, 2), 2);
  EXPECT_EQ(owner(dim, 7), 0);
  EXPECT_EQ(owner(dim, 8), 1);
  EXPECT_EQ(to_local(dim, 9), 3);   // p1 holds 0, 1, then 8, 9, 10
  EXPECT_EQ(to_local(dim, 12), 4);  // p2 holds 2, 3, 4, then 11, 12, 13
  EXPECT_EQ(to_global(dim, 1, 3), 9);
  EXPECT_EQ(to_global(dim, 0, 4), 15);
  EXPECT_EQ(local_count(dim, 1, 12), 5);
  EXPECT_EQ(local_count(dim, 2, 12), 4);
  EXPECT_EQ(local_count(dim, 0, 12), 3);
  EXPECT_EQ(local_start(dim, 2, 9), 3);
  EXPECT_EQ(local_count(dim, 1, 1, 8), 2);  // [1, 9): holds 1 and 8
  const BlockCyclic sub = subrange(dim, 6);
  EXPECT_EQ(sub, (BlockCyclic{2, 3, 0, 3}));
}

TEST(BlockCyclic, ReplicatedDimensionIsEverywhere) {
  const BlockCyclic dim{3, 2, -1, 4};
  for (int p = 0; p < 4; ++p) {
    for (int64_t g = 0; g < 20; ++g) {
      EXPECT_EQ(owner(dim, g), -1);
      EXPECT_EQ(to_local(dim, g), g);
      EXPECT_EQ(to_global(dim, p, g), g);
      EXPECT_EQ(local_start(dim, p, g), g);
      EXPECT_EQ(local_count(dim, p, 5, g), g);
    }
  }
}

TEST(BlockCyclic, ValidationNamesTheField) {
  EXPECT_FALSE(block_cyclic_error(BlockCyclic{1, 1, 0, 1}).has_value());
  EXPECT_FALSE(block_cyclic_error(BlockCyclic{4, 2, -1, 3}).has_value());
  EXPECT_FALSE(block_cyclic_error(BlockCyclic{4, 2, 2, 3}).has_value());
  struct Case {
    BlockCyclic dim;
    const char* field;
  };
  const Case cases[] = {
      {{0, 2, 0, 2}, "first block"},    {{2, 0, 0, 2}, "block size"},
      {{2, -3, 0, 2}, "block size"},    {{2, 2, 0, 0}, "process count"},
      {{2, 2, 2, 2}, "source process"}, {{2, 2, -2, 2}, "source process"},
  };
  for (const Case& c : cases) {
    const auto error = block_cyclic_error(c.dim);
    ASSERT_TRUE(error.has_value()) << describe(c.dim);
    EXPECT_NE(error->find(c.field), std::string::npos) << *error;
  }
}

// --- the 1-based TOOLS signatures ---

// The ScaLAPACK Users' Guide definitions, 1-based, block size nb for every block.
int64_t indxg2p_formula(int64_t g, int64_t nb, int src, int p) { return (src + (g - 1) / nb) % p; }
int64_t indxg2l_formula(int64_t g, int64_t nb, int p) {
  return nb * ((g - 1) / (nb * p)) + (g - 1) % nb + 1;
}
int64_t indxl2g_formula(int64_t l, int64_t nb, int proc, int src, int p) {
  return p * nb * ((l - 1) / nb) + (l - 1) % nb + ((p + proc - src) % p) * nb + 1;
}

TEST(FortranTools, IndexMapsMatchTheirDefinitions) {
  for (int p = 1; p <= 6; ++p) {
    for (int src = 0; src < p; ++src) {
      for (int64_t nb = 1; nb <= 6; ++nb) {
        for (int proc = 0; proc < p; ++proc) {
          for (int64_t g = 1; g <= 60; ++g) {
            ASSERT_EQ(fortran::indxg2p(g, nb, proc, src, p), indxg2p_formula(g, nb, src, p));
            ASSERT_EQ(fortran::indxg2l(g, nb, proc, src, p), indxg2l_formula(g, nb, p));
            ASSERT_EQ(fortran::indxl2g(g, nb, proc, src, p), indxl2g_formula(g, nb, proc, src, p));
          }
        }
      }
    }
  }
}

TEST(FortranTools, NumrocMatchesBruteForceAndKnownValues) {
  for (int p = 1; p <= 6; ++p) {
    for (int src = 0; src < p; ++src) {
      for (int64_t nb = 1; nb <= 6; ++nb) {
        const auto ref = brute_map(BlockCyclic{nb, nb, src, p}, 60);
        for (int proc = 0; proc < p; ++proc) {
          for (int64_t n = 0; n <= 60; ++n) {
            ASSERT_EQ(fortran::numroc(n, nb, proc, src, p), ref.count(proc, 0, n))
                << "n=" << n << " nb=" << nb << " proc=" << proc << " src=" << src;
          }
        }
      }
    }
  }
  EXPECT_EQ(fortran::numroc(10, 3, 0, 0, 2), 6);  // blocks 0 and 2
  EXPECT_EQ(fortran::numroc(10, 3, 1, 0, 2), 4);  // block 1 and the 1-row block 3
  EXPECT_EQ(fortran::numroc(10, 3, 0, 1, 2), 4);
  EXPECT_EQ(fortran::numroc(2, 5, 0, 0, 3), 2);  // M < MB: all on the source
  EXPECT_EQ(fortran::numroc(2, 5, 1, 0, 3), 0);
  EXPECT_EQ(fortran::numroc(0, 4, 0, 0, 3), 0);
}

}  // namespace
}  // namespace relay::layout
