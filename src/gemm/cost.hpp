// The model's time for one GEMM call under each algorithm, and the automatic choice's inputs.
//
// The same pieces the call runs, costed by the same replay the collectives' model uses
// (model/replay.hpp) on the schedules the library would build (coll/predict.hpp):
//   - a panel step of SUMMA broadcasts, on each process row (column), the panel's pieces of
//     op(A) (op(B)): one broadcast per owning process column (row) carrying its blocks of the
//     panel (per k block with RELAY_GEMM_PANEL_BROADCASTS=per_block), all started together. They
//     are replayed together as one schedule (each piece's steps appended to every rank's program),
//     with the configuration relay_ibcast resolves for a piece (options, RELAY_BCAST_*, a tuning
//     table, the closed form; for `auto` without a table, the model's own pick:
//     choose_panel_bcast); `mpi` is costed as binomial. The row and the column broadcasts share
//     each process's network port, so a step's communication is their sum (a one-port node);
//   - the local multiply runs at the measured rate (flops_per_s; complex: 4 real flops per
//     multiply-add);
//   - without look-ahead a step is its broadcasts then its multiply; with look-ahead the next
//     panels travel during the multiply, but only as far as the multiply's pieces let ranks
//     pass messages on (a broadcast of r message rounds on its longest path hides
//     min(1, pieces / r) of its time; the rest waits for the next step);
//   - 2.5D/3D add the fiber's exchange (alltoall `linear`: every member sends each other one
//     part of its share) and the reduce-scatter of C (the configuration relay_reduce_scatter_block
//     resolves), plus the packing copies.
// Sizes are those of the busiest process (local counts rounded up to whole blocks), so the
// prediction is the critical path of an even distribution, not of each process.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coll/active_table.hpp"
#include "gemm/gemm.hpp"
#include "model/params.hpp"

namespace relay::gemm {

/// What the model costs a call with. The same on every process of a grid (agreed once).
struct CostInputs {
  model::Machine machine;
  double flops_per_s = 0;       ///< local multiply, real flops per second (the slowest rank's)
  double copy_bytes_per_s = 0;  ///< packing copies (a charged simulation: flops_per_s per element)
  /// What each further piece of a multiply adds, seconds per element of the panel it packs
  /// again (piece_grid; the slowest rank's; 0 when charged): a further column band packs A's,
  /// a further row band B's (used transposed, as SUMMA's local update does).
  double piece_s_per_element = 0;
  double row_band_s_per_element = 0;
  bool copies_charged = false;  ///< copies are charged per element, not per byte
  std::string source;           ///< where the network parameters came from, for the log
};

/// One way to run a call: 2D, 2.5D with c = cx * cy layers, or 3D with c layers.
struct Candidate {
  relay_gemm_algorithm_t algorithm = RELAY_GEMM_2D;
  int layers = 1, cx = 1, cy = 1;
};
/// What auto weighs on `grid`: 2D, 2.5D with each c <= sqrt(P) the grid splits into, and 3D
/// (c closest to P^(1/3)), in that order (layered.cpp).
std::vector<Candidate> auto_candidates(const layout::ProcessGrid& grid);

/// "2d", "2.5d:4", "3d:8".
std::string candidate_name(const Candidate& candidate);

/// The model's time of a call and where it goes, seconds (the busiest process's).
struct CostBreakdown {
  double replicate_s = 0;  ///< the fibers' exchange of A's and B's slabs, with packing
  double panels_s = 0;     ///< panel broadcasts not hidden behind the multiply
  double compute_s = 0;    ///< local multiplies
  double reduce_s = 0;     ///< the fibers' reduce-scatter of C, with packing and the sum
  double total_s = 0;
  int pieces = 1;  ///< the local update's pieces per panel costed (options' or auto's: best_pieces)
  bool ok = false;  ///< false when a broadcast or reduction configuration does not resolve
  /// How `auto` resolved the panel broadcasts (relay_ibcast's resolution): by a tuning table's
  /// rule for some of them, by the closed form (no rule) for some of them.
  bool panels_by_table = false, panels_by_closed_form = false;
};

/// One panel step of SUMMA with look-ahead as the model sees it, for cutting its multiply.
struct StepTimes {
  double comm_s = 0;            ///< the next panel's broadcasts (a row's and a column's), seconds
  double rounds = 1;            ///< their message rounds on the longest path (cost.cpp)
  double compute_s = 0;         ///< the local multiply as one BLAS call
  double piece_overhead_s = 0;  ///< each further column band: A's m x w panel packed again
  double row_band_s = 0;        ///< each further row band: B's n x w panel packed again
  /// The update's local rows and columns, which piece_grid cuts; m = 0: columns only.
  std::int64_t m = 0, n = 0;
};

/// The step's time with its multiply cut into `pieces`: the multiply plus what it leaves of the
/// broadcasts exposed. A rank passes a message on only inside MPI, i.e. between pieces (and at
/// the next wait), so the pieces hide min(1, pieces / rounds) of the broadcasts.
double step_s(const StepTimes& step, int pieces);

/// The pieces `auto` cuts the multiply into: of min_pieces, 2 min_pieces, ... 64 and the rounds
/// themselves (within [min_pieces, max_pieces]), the count with the least step_s; on a tie the
/// fewer.
int best_pieces(const StepTimes& step, int min_pieces, int max_pieces);

/// The model's time of `p` run as `candidate` on `grid` with `options`. Not collective.
CostBreakdown predict(const Problem& p, const layout::ProcessGrid& grid, const Candidate& candidate,
                      const Options& options, const CostInputs& inputs);

/// "binomial", "pipeline 64 KiB": a broadcast configuration as RELAY_LOG and relay model gemm
/// name it.
std::string bcast_config_name(relay_bcast_algorithm_t algorithm, long long segment_bytes);

/// The panel broadcasts of a call run as `candidate`: what runs them and the model's time.
struct PanelChoice {
  relay_bcast_options_t bcast{};  ///< the broadcast options to run the call with
  CostBreakdown cost;             ///< the model's time of the call with them
  bool by_model = false;          ///< chosen here (else the caller's options, unchanged)
  std::string considered;         ///< by_model: each configuration's predicted time (RELAY_LOG)
};

/// `auto` for the panel broadcasts when no tuning table covers them (issue 26: from the
/// network, not from shared-memory constants): where the caller's options leave them to `auto`
/// and relay_ibcast would take the closed form (no table rule) for every one of them, the
/// configuration the model predicts fastest for the whole call with the grid's measured network
/// (`inputs`) -- linear, binomial, binary, scatter_allgather, the pipeline at 16 KiB to 1 MiB
/// segments, or the closed form's own on a tie. Otherwise the caller's options, costed. MPI's own
/// broadcast is not a candidate: the model has no schedule of it (a tuning table, relay tune
/// --for-gemm, chooses it where it is faster). Not collective: every process computes the same.
PanelChoice choose_panel_bcast(const Problem& p, const layout::ProcessGrid& grid,
                               const Candidate& candidate, const Options& options,
                               const CostInputs& inputs);

/// choose_panel_bcast for each of `candidates`, the work dealt out over the processes of `comm`
/// (collective; `comm` holds the grid's processes). Each candidate's first costing (the
/// caller's options), then, where the closed form would run its broadcasts, each of the eight
/// configurations weighed: one costing per process in turn, one allreduce of the results per
/// round (at most two; none for a round of one costing, which every process makes itself), so
/// that every process holds every answer. The same answers as
/// choose_panel_bcast, to the last digit: each costing is computed on one process and copied.
/// Why: every process used to weigh everything itself -- on 16,384 processes (a 128x128 grid,
/// n = 32768) nine candidates with the configurations weighed cost 0.6 s on each, longer than
/// the multiplication, and a simulation of them paid it 16,384 times over.
std::vector<PanelChoice> choose_panel_bcasts(const Problem& p, const layout::ProcessGrid& grid,
                                             const std::vector<Candidate>& candidates,
                                             const Options& options, const CostInputs& inputs,
                                             MPI_Comm comm);

/// choose_panel_bcast's answers on one grid, kept for later calls of the same shape: weighing
/// nine configurations costs about half a millisecond, which a ScaLAPACK solver's hundreds of
/// small updates would pay on every call. Keyed by everything the choice reads: the problem's
/// shape, types and blocks, the options and the candidate; emptied when the active tuning
/// table changes. Every process of the grid holds the same entries (the same calls made them),
/// so all of them agree on which calls weigh again (collectively).
struct PanelChoices {
  std::map<std::string, PanelChoice> by_key;
  coll::ActiveTable table;  ///< the table they were chosen under (held: its address stays unique)
};

/// choose_panel_bcasts through `grid`'s PanelChoices: what is not cached is weighed over the
/// grid's processes (collective when anything is not; the tuning table must be the same on
/// every process, as for the broadcasts themselves).
std::vector<PanelChoice> cached_panel_bcasts(relay_grid& grid, const Problem& p,
                                             const std::vector<Candidate>& candidates,
                                             const Options& options, const CostInputs& inputs);

/// The network the model costs panels with, from a relay model measure file: its Hockney fit
/// (not the PLogP table: cost_inputs says why), with beta from the ping-pong's two largest
/// sizes and alpha from its smallest where it has them. Throws what model::machine_from_json
/// throws for a file that is not one.
model::Machine panel_machine(const nlohmann::json& params);

/// The grid's cost inputs, made on first use and kept with the grid: the network from
/// RELAY_MODEL_PARAMS (a relay model measure file: alpha from its smallest ping-pong, beta
/// from its two largest), else a
/// ping-pong between the grid's first and last process of a column (or row) at two sizes
/// (Hockney alpha and beta, minimum of repetitions); the multiply's rate from one timed
/// 512^3 local multiply per process, all at once (the slowest process's), and what cutting one
/// into pieces adds (measure_piece_s_per_element). Collective over the grid the first time;
/// every process gets the same values.
relay_status_t cost_inputs(relay_grid& grid, const CostInputs** inputs, std::string& error);

}  // namespace relay::gemm
