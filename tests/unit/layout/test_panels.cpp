// Panels: for every small distribution, range and width limit, the panels tile the range in
// order, each lies inside one block (one owner, contiguous local indices), and each is as wide
// as the limit, the block and the range allow. Joint panels do the same in two distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "layout/panels.hpp"
#include "reference.hpp"

namespace relay::layout {
namespace {

using test::brute_map;
using test::BruteMap;
using test::describe;
using test::for_each_dim;

constexpr int64_t extent = 24;
constexpr int64_t widths[] = {1, 2, 3, unlimited_width};

// Checks that the panel [g, g + width) of `ref` starting at global g sits in one block, is
// contiguous on its owner and is where `place` says.
void expect_in_one_block(const BruteMap& ref, int64_t g, int64_t width, const PanelPlace& place) {
  ASSERT_EQ(place.owner, ref.owner[g]);
  ASSERT_EQ(place.local, ref.local[g]);
  for (int64_t k = 1; k < width; ++k) {
    ASSERT_EQ(ref.block[g + k], ref.block[g]);
    ASSERT_EQ(ref.local[g + k], ref.local[g] + k);
  }
}

// True if global index g + width starts a new block (or lies past the checked extent).
bool at_block_boundary(const BruteMap& ref, int64_t g, int64_t width) {
  return g + width >= ref.size() || ref.block[g + width] != ref.block[g + width - 1];
}

TEST(Panels, TileTheRangeWithinBlocks) {
  for_each_dim(4, 4, 4, [](const BlockCyclic& dim) {
    const auto ref = brute_map(dim, extent + 1);
    for (int64_t start = 0; start < extent; ++start) {
      for (int64_t n = 0; start + n <= extent; ++n) {
        for (int64_t max_width : widths) {
          int64_t next = 0;
          for (const Panel& p : panels(dim, start, n, max_width)) {
            ASSERT_EQ(p.offset, next) << describe(dim) << " start=" << start << " n=" << n;
            ASSERT_GE(p.width, 1);
            ASSERT_LE(p.width, max_width);
            ASSERT_LE(p.offset + p.width, n);
            const int64_t g = start + p.offset;
            expect_in_one_block(ref, g, p.width, PanelPlace{p.owner, p.local});
            // Maximal: the panel stops only at the range end, the width limit or a block end.
            const bool stopped = p.offset + p.width == n || p.width == max_width ||
                                 at_block_boundary(ref, g, p.width);
            ASSERT_TRUE(stopped) << describe(dim) << " start=" << start << " n=" << n
                                 << " offset=" << p.offset << " width=" << p.width;
            next = p.offset + p.width;
          }
          ASSERT_EQ(next, n) << describe(dim) << " start=" << start << " n=" << n;
        }
      }
    }
  });
}

TEST(Panels, JointPanelsCutAtTheBlocksOfBoth) {
  const std::vector<BlockCyclic> dims{{1, 1, 0, 1},  {2, 2, 0, 2}, {1, 3, 1, 2}, {4, 2, 2, 3},
                                      {3, 3, -1, 2}, {5, 4, 0, 3}, {2, 5, 1, 4}};
  for (const BlockCyclic& a : dims) {
    const auto aref = brute_map(a, extent + 1);
    for (const BlockCyclic& b : dims) {
      const auto bref = brute_map(b, extent + 1);
      for (int64_t sa = 0; sa < 8; ++sa) {
        for (int64_t sb = 0; sb < 8; ++sb) {
          for (int64_t max_width : {int64_t{2}, int64_t{3}, unlimited_width}) {
            const int64_t n = extent - std::max(sa, sb);
            int64_t next = 0;
            for (const JointPanel& p : joint_panels(a, sa, b, sb, n, max_width)) {
              ASSERT_EQ(p.offset, next);
              ASSERT_GE(p.width, 1);
              ASSERT_LE(p.width, max_width);
              expect_in_one_block(aref, sa + p.offset, p.width, p.a);
              expect_in_one_block(bref, sb + p.offset, p.width, p.b);
              const bool stopped = p.offset + p.width == n || p.width == max_width ||
                                   at_block_boundary(aref, sa + p.offset, p.width) ||
                                   at_block_boundary(bref, sb + p.offset, p.width);
              ASSERT_TRUE(stopped) << describe(a) << " / " << describe(b) << " at " << p.offset;
              next = p.offset + p.width;
            }
            ASSERT_EQ(next, n);
          }
        }
      }
    }
  }
}

TEST(Panels, HandWorkedExample) {
  // fb=2 nb=3 over 3 processes from 1: blocks [0,2) p1, [2,5) p2, [5,8) p0, [8,11) p1.
  // Range [1, 10) with width at most 2.
  std::vector<Panel> got;
  for (const Panel& p : panels(BlockCyclic{2, 3, 1, 3}, 1, 9, 2)) got.push_back(p);
  const std::vector<Panel> want{{0, 1, 1, 1}, {1, 2, 2, 0}, {3, 1, 2, 2},
                                {4, 2, 0, 0}, {6, 1, 0, 2}, {7, 2, 1, 2}};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].offset, want[i].offset) << "panel " << i;
    EXPECT_EQ(got[i].width, want[i].width) << "panel " << i;
    EXPECT_EQ(got[i].owner, want[i].owner) << "panel " << i;
    EXPECT_EQ(got[i].local, want[i].local) << "panel " << i;
  }
}

TEST(Panels, EmptyRangeAndBadArguments) {
  const BlockCyclic dim{2, 2, 0, 2};
  const PanelRange none = panels(dim, 3, 0);
  EXPECT_TRUE(none.begin() == none.end());
  EXPECT_THROW(panels(dim, 0, 4, 0), std::invalid_argument);
  EXPECT_THROW(panels(dim, 0, -1), std::invalid_argument);
  EXPECT_THROW(joint_panels(dim, 0, dim, 0, 4, -2), std::invalid_argument);
}

}  // namespace
}  // namespace relay::layout
