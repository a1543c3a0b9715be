// gemm::choose_panel_bcasts, the automatic choice's costings dealt out over the grid's
// processes: every process must end with exactly what one process weighing everything alone
// (choose_panel_bcast) finds, whatever the process count (4, 6, 8, 16 in ctest), or the
// processes would run different algorithms and wait for each other forever. A file of its own:
// namespace relay::gemm (the engine's) and the function relay::gemm (relay/gemm.hpp) cannot
// meet in one translation unit.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "gemm/cost.hpp"
#include "gemm/grid.hpp"
#include "layout/descriptor.hpp"
#include "layout/process_grid.hpp"

namespace {

namespace gemm = relay::gemm;

// An n x n x n double multiply in n / side blocks, costed on a side x side grid the test does
// not need to run on (the model reads only the shape).
gemm::Problem square_problem(std::int64_t n, std::int64_t block) {
  gemm::Problem p;
  p.m = p.n = p.k = n;
  p.type = MPI_DOUBLE;
  p.desca = relay::layout::make_descriptor_inb(n, n, block, block, block, block, 0, 0, 0, block);
  p.descb = p.descc = p.desca;
  return p;
}

gemm::CostInputs torus_like() {
  gemm::CostInputs in;
  in.machine.alpha_s = 2e-6;
  in.machine.beta_s_per_byte = 1.0 / 5e9;
  in.flops_per_s = 128e9;
  in.copies_charged = true;
  in.source = "test";
  return in;
}

void expect_same(const gemm::PanelChoice& shared, const gemm::PanelChoice& alone,
                 const std::string& what) {
  EXPECT_EQ(shared.bcast.algorithm, alone.bcast.algorithm) << what;
  EXPECT_EQ(shared.bcast.segment_bytes, alone.bcast.segment_bytes) << what;
  EXPECT_EQ(shared.by_model, alone.by_model) << what;
  EXPECT_EQ(shared.considered, alone.considered) << what;
  // To the last digit: each costing is one process's, copied.
  EXPECT_EQ(shared.cost.total_s, alone.cost.total_s) << what;
  EXPECT_EQ(shared.cost.replicate_s, alone.cost.replicate_s) << what;
  EXPECT_EQ(shared.cost.panels_s, alone.cost.panels_s) << what;
  EXPECT_EQ(shared.cost.compute_s, alone.cost.compute_s) << what;
  EXPECT_EQ(shared.cost.reduce_s, alone.cost.reduce_s) << what;
  EXPECT_EQ(shared.cost.pieces, alone.cost.pieces) << what;
  EXPECT_EQ(shared.cost.ok, alone.cost.ok) << what;
  EXPECT_EQ(shared.cost.panels_by_table, alone.cost.panels_by_table) << what;
  EXPECT_EQ(shared.cost.panels_by_closed_form, alone.cost.panels_by_closed_form) << what;
}

TEST(Gemm, AutoWeighsOverTheProcessesWhatOneProcessWouldAlone) {
  const gemm::CostInputs in = torus_like();
  relay::layout::ProcessGrid grid;
  grid.rows = grid.cols = 16;
  const std::vector<gemm::Candidate> candidates = gemm::auto_candidates(grid);
  ASSERT_GE(candidates.size(), 4u);  // 2D, 2.5D with several c, 3D
  const gemm::Problem p = square_problem(8192, 512);
  for (int lookahead : {0, 1}) {
    gemm::Options o;
    relay_bcast_options_init(&o.bcast);  // auto: the configurations are weighed
    o.lookahead = lookahead;
    const std::vector<gemm::PanelChoice> shared =
        gemm::choose_panel_bcasts(p, grid, candidates, o, in, MPI_COMM_WORLD);
    ASSERT_EQ(shared.size(), candidates.size());
    int weighed = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const gemm::PanelChoice alone = gemm::choose_panel_bcast(p, grid, candidates[i], o, in);
      expect_same(
          shared[i], alone,
          gemm::candidate_name(candidates[i]) + ", look-ahead " + std::to_string(lookahead));
      if (!alone.considered.empty()) ++weighed;
    }
    // The second round ran: otherwise only the first costings were compared.
    EXPECT_EQ(weighed, static_cast<int>(candidates.size())) << "look-ahead " << lookahead;
  }
  // The caller's broadcast stands (no second round): still each candidate's own costing.
  gemm::Options fixed;
  relay_bcast_options_init(&fixed.bcast);
  fixed.bcast.algorithm = RELAY_BCAST_BINOMIAL;
  const std::vector<gemm::PanelChoice> shared =
      gemm::choose_panel_bcasts(p, grid, candidates, fixed, in, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const gemm::PanelChoice alone = gemm::choose_panel_bcast(p, grid, candidates[i], fixed, in);
    EXPECT_TRUE(alone.considered.empty());
    EXPECT_TRUE(shared[i].cost.ok);
    expect_same(shared[i], alone, gemm::candidate_name(candidates[i]) + ", binomial");
  }
  // Nothing to weigh: no costing, and still collective-safe (every process returns at once).
  EXPECT_TRUE(gemm::choose_panel_bcasts(p, grid, {}, fixed, in, MPI_COMM_WORLD).empty());
}

// The grid's cache: a call whose candidates are partly kept (a forced call made one of them,
// as bench gemm's 2d before auto) weighs the others only, and each answer lands at its own
// candidate's place.
TEST(Gemm, AutoCacheFillsOnlyTheCandidatesNotKept) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  relay_grid* grid = nullptr;
  std::string error;
  ASSERT_EQ(gemm::create_grid(MPI_COMM_WORLD, 1, size, relay::layout::GridOrder::row_major, true,
                              &grid, error),
            RELAY_SUCCESS)
      << error;
  std::vector<gemm::Candidate> candidates = gemm::auto_candidates(grid->shape);
  if (candidates.size() < 2) {  // one process: 2D alone
    gemm::Candidate layered;
    layered.algorithm = RELAY_GEMM_25D;  // costed only, never run: the model reads the shape
    candidates.push_back(layered);
  }
  const gemm::CostInputs in = torus_like();
  const gemm::Problem p = square_problem(1024, 64);
  gemm::Options o;
  relay_bcast_options_init(&o.bcast);
  o.lookahead = 1;
  std::vector<gemm::PanelChoice> alone;
  for (const gemm::Candidate& c : candidates) {
    alone.push_back(gemm::choose_panel_bcast(p, grid->shape, c, o, in));
  }
  // The last candidate first, alone; then all (the last one kept); then all again (all kept).
  const std::vector<gemm::PanelChoice> last =
      gemm::cached_panel_bcasts(*grid, p, {candidates.back()}, o, in);
  ASSERT_EQ(last.size(), 1u);
  expect_same(last[0], alone.back(), "the last candidate alone");
  for (int round = 0; round < 2; ++round) {
    const std::vector<gemm::PanelChoice> all =
        gemm::cached_panel_bcasts(*grid, p, candidates, o, in);
    ASSERT_EQ(all.size(), candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      expect_same(all[i], alone[i],
                  gemm::candidate_name(candidates[i]) + ", round " + std::to_string(round));
    }
  }
  ASSERT_TRUE(grid->panel_choices);
  EXPECT_EQ(grid->panel_choices->by_key.size(), candidates.size());
  gemm::free_grid(grid);
}

}  // namespace
