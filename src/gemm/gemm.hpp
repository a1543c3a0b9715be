// Distributed C = alpha op(A) op(B) + beta C on block-cyclic matrices: the engine behind
// relay_gemm and the ScaLAPACK p?gemm entry points.
//
// SUMMA, stationary C: the k dimension is walked in panels; for each panel every process needs
// the rows of op(A) that match its local rows of C and the columns of op(B) that match its
// local columns of C, then it updates its C with one local BLAS call. How a panel arrives
// depends on the operand:
//   aligned   -- op(X) = X and X's distribution along the free dimension is C's (the common
//                case, and tan2014's): the panel lies in one process column (A) or row (B) and
//                is broadcast along process rows (columns) with relay's broadcast family.
//   otherwise -- (X transposed, or blocked differently from C) the panel is redistributed by
//                one MPI_Ialltoallv over the grid per panel, each element sent straight from
//                its owner to the processes that need it; memory stays O(panel).
// Look-ahead L starts the transfers of panels p+1..p+L before the update of panel p, which is
// cut into pieces with progress calls between them (MPI progresses only inside MPI calls).
#pragma once

#include <mpi.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gemm/grid.hpp"
#include "layout/descriptor.hpp"
#include "relay/gemm.h"

namespace relay::gemm {

enum class Op { none, trans, conj_trans };

/// What op character means ('N', 'T', 'C', either case); false for anything else.
bool parse_op(char c, Op& op);

/// One call, arguments as PBLAS holds them: 0-based offsets, normalised descriptors.
struct Problem {
  Op opa = Op::none, opb = Op::none;
  char transa = 'N', transb = 'N';  ///< as given (for the argument check)
  std::int64_t m = 0, n = 0, k = 0;
  MPI_Datatype type = MPI_DOUBLE;
  const void* alpha = nullptr;
  const void* a = nullptr;
  std::int64_t ia = 0, ja = 0;
  layout::Descriptor desca;
  const void* b = nullptr;
  std::int64_t ib = 0, jb = 0;
  layout::Descriptor descb;
  const void* beta = nullptr;
  void* c = nullptr;
  std::int64_t ic = 0, jc = 0;
  layout::Descriptor descc;
  std::int64_t ctxt = 0;  ///< the operation's context: descriptors must carry it
  /// 'L' or 'U': only that triangle of sub(C) (m = n) is scaled and updated, the other is
  /// neither read nor written: p?syrk_ (B = op(A)^T). 0: all of sub(C), a GEMM. Runs as 2D.
  char triangle = 0;
};

/// Options after defaults and RELAY_GEMM_* environment variables.
struct Options {
  relay_bcast_options_t bcast;
  std::int64_t panel_width = 0;  ///< 0 = default (see resolve_options)
  int lookahead = 0;
  /// The local update's pieces per panel, with progress calls between them; 0 = automatic:
  /// the model's (best_pieces) where the call is costed, else default_pieces.
  int pieces = 0;
  /// The pieces are auto's (set with the model's count): cut them into tiles by the measured
  /// cost of copying each panel again (piece_grid); else by columns, the same every run.
  bool tiles_by_cost = false;
  relay_gemm_algorithm_t algorithm = RELAY_GEMM_DEFAULT;
  int layers = 0;                         ///< c of 2.5D; 0 = default
  relay_gemm_report_t* report = nullptr;  ///< the caller's (output only)
  long long memory_limit_bytes = 0;       ///< 0 = the node's available memory over its ranks
  /// One broadcast per owner per panel step (its k blocks of the panel together), else one per
  /// k block.
  bool panels_per_owner = true;
};

/// "2d", "2.5d", "3d", "default"; nullptr for a value that is none of them.
const char* algorithm_name(relay_gemm_algorithm_t algorithm);
/// The algorithm named `name` (algorithm_name's names); false if none.
bool algorithm_from_name(const std::string& name, relay_gemm_algorithm_t& algorithm);

/// A hash of everything that must be equal on every process of the grid for SUMMA to run the
/// same steps everywhere: the operation, sizes, offsets, the global part of each descriptor
/// (not LLD, which is each process's own), the scalars' values and the resolved options.
/// PBLAS's INFO agreement cannot see a TRANSA or a descriptor that is valid on each process
/// but differs between them: the grid then waits forever for panels that never come.
std::uint64_t problem_fingerprint(const Problem& p, const Options& options);

/// relay_gemm_options_init_sized: the defaults in the first struct_size bytes of the caller's
/// struct (fields of newer versions 0), struct_size set.
void init_options(relay_gemm_options_t* options, std::size_t struct_size);

/// Fills defaults and applies RELAY_GEMM_PANEL_WIDTH / _LOOKAHEAD / _PIECES. Not collective.
relay_status_t resolve_options(const relay_gemm_options_t* given, Options& out, std::string& error);

/// PBLAS's argument check of PDGEMM on this process (INFO: 0, -position, or
/// -(100 * position + entry), positions of PDGEMM's argument list). `message` says why.
int check_arguments(const Problem& p, const relay_grid& grid, std::string& message);

/// The smallest INFO over the grid (PBLAS's order: earlier argument first), so that every
/// process sees the same outcome. Collective over grid.comm.
int agree_on_info(int info, const relay_grid& grid);

/// What every process of the grid must agree on before a multiplication starts, in one
/// MPI_Allreduce: whether any process has an INFO (then the one agree_on_info gives: one
/// collective more, on the error path only), which of three failure flags any process set, and
/// whether every process computed the same fingerprint (problem_fingerprint; a process whose
/// own checks failed passes 0, and the comparison then does not matter: the call fails).
/// Collective over grid.comm. (Under simulation each collective over every rank is dear: the
/// three agreements this replaces were a third of a simulated bench gemm's collectives.)
struct CallAgreement {
  int info = 0;
  std::array<int, 3> any_flags{};
  bool same_problem = true;
};
CallAgreement agree_on_call(int info, const std::array<int, 3>& flags, std::uint64_t fingerprint,
                            const relay_grid& grid);

/// The algorithm a call on `grid` with `options` runs, before looking at its matrices: what
/// the options ask for when the grid splits into the layers it needs, else 2D with why.
struct Plan {
  relay_gemm_algorithm_t algorithm = RELAY_GEMM_2D;
  int layers = 1;      ///< c
  int cx = 1, cy = 1;  ///< layers along the grid's rows and columns
  std::string why_2d;  ///< set when another algorithm was asked for and 2D runs
};
Plan plan(const layout::ProcessGrid& grid, const Options& options);

/// Runs the multiplication on arguments that passed check_arguments on every process, with
/// the algorithm the options ask for when the call can use it (else 2D: why is logged with
/// RELAY_LOG). Collective over the grid. Fills `stats` and options.report.
relay_status_t multiply(const Problem& p, relay_grid& grid, const Options& options,
                        relay_gemm_stats_t& stats, std::string& error);

/// Calls f(T{}) with T the element type of one of the four GEMM datatypes (float, double,
/// std::complex<float>, std::complex<double>) and returns its result; `otherwise` for any
/// other datatype.
template <class R, class F>
R with_element_type(MPI_Datatype type, R otherwise, F&& f) {
  if (type == MPI_FLOAT) return f(float{});
  if (type == MPI_DOUBLE) return f(double{});
  if (type == MPI_C_FLOAT_COMPLEX) return f(std::complex<float>{});
  if (type == MPI_C_DOUBLE_COMPLEX) return f(std::complex<double>{});
  return otherwise;
}

/// Whether a caller's relay_gemm_report_t has a struct_size some version has.
bool report_size_valid(const relay_gemm_report_t* report);

/// Writes `from` into the caller's report, as many fields as its struct_size holds.
void write_report(relay_gemm_report_t* to, const relay_gemm_report_t& from);

/// SUMMA's panel width when the caller gives none: the smallest multiple of the k block size
/// that is >= 256, as the local BLAS call needs depth (measured on this machine, 1x2 grid,
/// n = 4096, block 128: 83.5% of peak with 128-wide panels, 92% with 256).
inline std::int64_t default_panel_width(std::int64_t k_block) {
  constexpr std::int64_t kDefaultPanelDepth = 256;
  return k_block * ((kDefaultPanelDepth + k_block - 1) / k_block);
}

/// The local update's pieces when the options leave them to auto and the model does not cost
/// the call (an empty product, a configuration it cannot resolve): one without look-ahead, four
/// with it.
inline int default_pieces(int lookahead) { return lookahead > 0 ? 4 : 1; }

/// How the local update (m x n of C) is cut into `pieces` BLAS calls: rows x cols tiles. Each
/// call packs its rows of A's panel and its columns of B's, so every further column band packs
/// A's panel once more (`column_band_s`) and every further row band B's (`row_band_s`): of the
/// grids with rows x cols = pieces (rows <= m, cols <= n), the one with the least added
/// packing; on a tie the fewer row bands. Columns only (1 x pieces) when m or n is 0 (a
/// triangle's update goes by runs of columns) or the costs are unknown (0). The two differ:
/// OpenBLAS copies B's panel, used transposed, slower per element than A's (docs/gemm.md,
/// "The local update with look-ahead is cut into tiles").
struct PieceGrid {
  int rows = 1, cols = 1;
};
inline PieceGrid piece_grid(int pieces, std::int64_t m, std::int64_t n, double column_band_s,
                            double row_band_s) {
  pieces = pieces < 1 ? 1 : pieces;
  PieceGrid best{1, pieces};
  if (m <= 0 || n <= 0 || !(column_band_s > 0) || !(row_band_s > 0)) return best;
  auto added = [&](int rows, int cols) {
    return (cols - 1) * column_band_s + (rows - 1) * row_band_s;
  };
  for (int rows = 2; rows <= pieces; ++rows) {
    const int cols = pieces / rows;
    if (pieces % rows != 0 || rows > m || cols > n) continue;
    if (added(rows, cols) < added(best.rows, best.cols)) best = {rows, cols};
  }
  return best;
}

/// The pieces a run with `options` cuts its update into (before the local columns cap it).
inline int run_pieces(const Options& options) {
  return options.pieces > 0 ? options.pieces : default_pieces(options.lookahead);
}

/// The panel broadcasts a SUMMA run took part in (relay_gemm_report_t's panel_bcast_*): what a
/// tuning table for the GEMM must cover (relay tune --for-gemm).
struct PanelBroadcasts {
  int ranks[2] = {0, 0};                ///< op(A)'s (along a process row) and op(B)'s (a column)
  long long largest_bytes[2] = {0, 0};  ///< the largest of each this process took part in
};

/// 2D SUMMA on the whole grid (summa.cpp). Records its panel broadcasts in `panels` if given.
relay_status_t summa(const Problem& p, const relay_grid& grid, const Options& options,
                     relay_gemm_stats_t& stats, std::string& error,
                     PanelBroadcasts* panels = nullptr);

struct LayerView;

/// What the layered algorithms add to relay_gemm_stats_t (relay_gemm_report_t's timings).
struct LayeredStats {
  double replicate_s = 0, reduce_s = 0;
  long long layered_bytes = 0;
  PanelBroadcasts panels;  ///< the layer's SUMMA
};

/// 2.5D (one_step = false: each layer runs SUMMA over its k-slab) or 3D (one_step: each layer
/// gathers its whole slab at once and multiplies in one local call) on `view`'s layers
/// (layered.cpp). The caller checked that the descriptors are distributed (not replicated).
relay_status_t layered(const Problem& p, const relay_grid& grid, const LayerView& view,
                       bool one_step, const Options& options, relay_gemm_stats_t& stats,
                       LayeredStats& extra, std::string& error);

}  // namespace relay::gemm
