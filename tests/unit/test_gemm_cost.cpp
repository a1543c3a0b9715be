// How auto cuts SUMMA's local update into pieces (gemm/cost.hpp): a rank passes the next
// panels' messages on only between pieces, and each further piece is a BLAS call that packs the
// left operand again; best_pieces weighs the two on one panel step.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "gemm/cost.hpp"
#include "gemm/layers.hpp"
#include "layout/process_grid.hpp"

namespace gemm = relay::gemm;
namespace layout = relay::layout;
using relay::gemm::best_pieces;
using relay::gemm::piece_grid;
using relay::gemm::step_s;
using relay::gemm::StepTimes;

namespace {

// Broadcasts of 20 rounds, 10 ms, behind a 50 ms multiply.
StepTimes step_with(double piece_overhead_s) {
  StepTimes t;
  t.comm_s = 0.010;
  t.rounds = 20;
  t.compute_s = 0.050;
  t.piece_overhead_s = piece_overhead_s;
  return t;
}

TEST(GemmPieces, StepTimeHidesTheShareOfRoundsThePiecesReach) {
  const StepTimes t = step_with(0.0);
  // One piece: 1/20 of the broadcasts hidden (0.5 ms, under the multiply), 19/20 exposed.
  EXPECT_DOUBLE_EQ(step_s(t, 1), 0.050 + 0.95 * 0.010);
  EXPECT_DOUBLE_EQ(step_s(t, 10), 0.050 + 0.5 * 0.010);
  EXPECT_DOUBLE_EQ(step_s(t, 20), 0.050);
  EXPECT_DOUBLE_EQ(step_s(t, 40), 0.050);
  // Pieces cost their overhead whether or not they hide anything.
  EXPECT_DOUBLE_EQ(step_s(step_with(0.001), 20), 0.050 + 19 * 0.001);
  // A broadcast longer than the multiply: what the multiply cannot cover stays exposed.
  StepTimes slow = t;
  slow.comm_s = 0.080;
  EXPECT_DOUBLE_EQ(step_s(slow, 20), 0.080);
}

TEST(GemmPieces, BestIsTheRoundsWhenPiecesAreFree) {
  // Free pieces: the rounds themselves (more hide nothing more; on a tie the fewer).
  EXPECT_EQ(best_pieces(step_with(0.0), 1, 64), 20);
  // Cheap pieces (0.1 ms each against 0.5 ms of broadcast each hides): still all the rounds.
  EXPECT_EQ(best_pieces(step_with(0.0001), 1, 64), 20);
  // Dear ones (5 ms each): one piece, the broadcasts exposed.
  EXPECT_EQ(best_pieces(step_with(0.005), 1, 64), 1);
  // In between (0.4 ms against 0.5 ms): as many as hide, the rounds.
  EXPECT_EQ(best_pieces(step_with(0.0004), 1, 64), 20);
  // Never more than the caller allows (a piece needs a local column).
  EXPECT_EQ(best_pieces(step_with(0.0), 1, 8), 8);
  EXPECT_EQ(best_pieces(step_with(0.0), 1, 1), 1);
  // A floor (auto's 4 with look-ahead) holds even where fewer would do.
  EXPECT_EQ(best_pieces(step_with(0.005), 4, 64), 4);
  EXPECT_EQ(best_pieces(step_with(0.0), 4, 64), 20);
  EXPECT_EQ(best_pieces(step_with(0.0), 4, 2), 2);  // the cap wins: a piece needs a column
  // A broadcast of one round: one piece hides it all.
  StepTimes short_bcast = step_with(0.0);
  short_bcast.rounds = 1;
  EXPECT_EQ(best_pieces(short_bcast, 1, 64), 1);
  // The count returned is the least step time of every count allowed.
  for (double overhead : {0.0, 0.0001, 0.0004, 0.001, 0.005}) {
    const StepTimes t = step_with(overhead);
    const int best = best_pieces(t, 1, 64);
    for (int pieces = 1; pieces <= 64; ++pieces) {
      EXPECT_LE(step_s(t, best), step_s(t, pieces) + 1e-15)
          << "overhead " << overhead << ": " << best << " pieces against " << pieces;
    }
  }
}

TEST(GemmPieces, TilesAddTheLeastPacking) {
  // Equal costs per band: the squarest grid.
  EXPECT_EQ(piece_grid(64, 4096, 4096, 1.0, 1.0).rows, 8);
  EXPECT_EQ(piece_grid(64, 4096, 4096, 1.0, 1.0).cols, 8);
  EXPECT_EQ(piece_grid(4, 1000, 1000, 1.0, 1.0).rows, 2);
  // B's band ten times A's (the one-process probe in docs/measurements/issue26_tiles gave 5.5x
  // at 2048 rows): few row bands; 16 pieces by columns alone
  // add 15 (2 x 8: 7 + 10 = 17), 64 as 2 x 32 (31 + 10 = 41 against 63 and 15 + 30 = 45).
  EXPECT_EQ(piece_grid(16, 4096, 4096, 1.0, 10.0).rows, 1);
  EXPECT_EQ(piece_grid(64, 4096, 4096, 1.0, 10.0).rows, 2);
  // A's dearer: row bands.
  EXPECT_EQ(piece_grid(16, 4096, 4096, 10.0, 1.0).rows, 16);
  // A prime count, a triangle (m = 0), unknown or free costs: columns only.
  EXPECT_EQ(piece_grid(7, 4096, 4096, 1.0, 1.0).cols, 7);
  EXPECT_EQ(piece_grid(64, 0, 4096, 1.0, 1.0).cols, 64);
  EXPECT_EQ(piece_grid(64, 4096, 4096, 0.0, 0.0).cols, 64);
  EXPECT_EQ(piece_grid(64, 4096, 4096, 1.0, 0.0).cols, 64);
  EXPECT_EQ(piece_grid(0, 100, 100, 1.0, 1.0).rows * piece_grid(0, 100, 100, 1.0, 1.0).cols, 1);
  // Every count is cut into exactly that many tiles, never more bands than rows or columns
  // (the run caps the count at the local columns).
  for (const auto& [m, n] : {std::pair<int, int>{300, 200}, {3, 64}, {64, 3}, {1, 64}, {7, 9}}) {
    for (int pieces = 1; pieces <= std::min(64, n); ++pieces) {
      const auto g = piece_grid(pieces, m, n, 1.0, 1.0);
      EXPECT_EQ(g.rows * g.cols, pieces) << m << " x " << n;
      EXPECT_LE(g.rows, m) << m << " x " << n << ", " << pieces;
      EXPECT_LE(g.cols, n) << m << " x " << n << ", " << pieces;
    }
  }
}

TEST(GemmPieces, StepTimeCountsBothPanelsPacking) {
  StepTimes t = step_with(0.001);
  t.row_band_s = 0.002;
  t.m = 4096;
  t.n = 4096;
  // 16 pieces: 1 x 16 adds 15 ms, 2 x 8 7 + 2 = 9 ms, 4 x 4 3 + 6 = 9 ms: on the tie the
  // fewer row bands, 2 x 8.
  EXPECT_DOUBLE_EQ(step_s(t, 16), 0.050 + 7 * 0.001 + 1 * 0.002 + 0.2 * 0.010);
  // Columns only (a triangle): 15 further column bands.
  t.m = 0;
  EXPECT_DOUBLE_EQ(step_s(t, 16), 0.050 + 15 * 0.001 + 0.2 * 0.010);
}

}  // namespace

// The 2.5D placement: every fiber's c members on consecutive slots, layer index inner, each
// slot used once; c that does not split the grid gives none.
TEST(FiberPlacement, FibersOnConsecutiveSlots) {
  for (const auto& [rows, cols, c] : std::vector<std::tuple<int, int, int>>{
           {4, 4, 4}, {8, 8, 4}, {8, 8, 16}, {2, 4, 2}, {4, 2, 2}, {6, 4, 2}, {64, 64, 16}}) {
    layout::ProcessGrid grid{rows, cols, layout::GridOrder::row_major};
    const std::vector<int> slot = gemm::fiber_major_slots(grid, c);
    ASSERT_EQ(slot.size(), static_cast<std::size_t>(grid.size())) << rows << "x" << cols;
    std::vector<int> sorted = slot;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < grid.size(); ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
    int cx = 0, cy = 0;
    ASSERT_TRUE(gemm::split_layers(grid, c, cx, cy));
    const int qx = rows / cx, qy = cols / cy;
    for (int r = 0; r < grid.size(); ++r) {
      const layout::GridCoord at = grid.coord_of(r);
      // Same place (a fiber): the same block of c slots, at its layer's index in it.
      const int place = (at.row % qx) * qy + at.col % qy;
      const int layer = (at.row / qx) * cy + at.col / qy;
      EXPECT_EQ(slot[static_cast<std::size_t>(r)] / c, place) << r;
      EXPECT_EQ(slot[static_cast<std::size_t>(r)] % c, layer) << r;
    }
  }
  // The first fiber of a 4x4 grid with 4 layers (2x2 of 2x2): grid ranks 0, 2, 8, 10.
  const std::vector<int> s44 =
      gemm::fiber_major_slots(layout::ProcessGrid{4, 4, layout::GridOrder::row_major}, 4);
  EXPECT_EQ(s44[0], 0);
  EXPECT_EQ(s44[2], 1);
  EXPECT_EQ(s44[8], 2);
  EXPECT_EQ(s44[10], 3);
  EXPECT_TRUE(
      gemm::fiber_major_slots(layout::ProcessGrid{3, 3, layout::GridOrder::row_major}, 2).empty());
}
