// How auto cuts SUMMA's local update into pieces (gemm/cost.hpp): a rank passes the next
// panels' messages on only between pieces, and each further piece is a BLAS call that packs the
// left operand again; best_pieces weighs the two on one panel step.
#include <gtest/gtest.h>

#include "gemm/cost.hpp"

using relay::gemm::best_pieces;
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

}  // namespace
