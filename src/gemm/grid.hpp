// The process grid a GEMM runs on: the grid's shape, this process's place in it, and the
// communicators of its process row and process column, created once per grid (never per
// call) because SUMMA broadcasts every panel along them.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "layout/process_grid.hpp"
#include "relay/gemm.h"

namespace relay::gemm {
struct LayerView;
struct CostInputs;
struct PanelChoices;
}  // namespace relay::gemm

struct relay_grid {
  MPI_Comm comm = MPI_COMM_NULL;      ///< the whole grid; rank = grid rank
  MPI_Comm row_comm = MPI_COMM_NULL;  ///< my process row; rank = my column
  MPI_Comm col_comm = MPI_COMM_NULL;  ///< my process column; rank = my row
  relay::layout::ProcessGrid shape;
  relay::layout::GridCoord me;
  bool owns_comm = false;  ///< comm is relay's duplicate (freed with the grid)
  /// The 2.5D/3D views of this grid made so far (gemm/layers.hpp), kept for later calls:
  /// mukunoki2017 lost up to 40% of its time to creating them per call.
  std::vector<std::unique_ptr<relay::gemm::LayerView>> layer_views;
  /// What the automatic choice costs calls with (gemm/cost.hpp), measured or read once.
  std::unique_ptr<relay::gemm::CostInputs> cost_inputs;
  /// The panel broadcasts the model chose for earlier calls (gemm/cost.hpp), made on first use.
  std::unique_ptr<relay::gemm::PanelChoices> panel_choices;
  /// The nodes (MPI_COMM_TYPE_SHARED) the grid spans, counted on first need (grid_nodes).
  int nodes = 0;
};

namespace relay::gemm {

/// Builds a grid over `comm` (size rows * cols; rank order given by `order`). With `dup`,
/// the grid works on a private duplicate of `comm`. Collective over `comm`.
relay_status_t create_grid(MPI_Comm comm, int rows, int cols, layout::GridOrder order, bool dup,
                           relay_grid** grid, std::string& error);

/// A communicator of `members` (ranks of `comm`, in the new communicator's rank order), made
/// by its members alone (MPI_Comm_create_group with `tag`): MPI_Comm_split would be collective
/// over all of `comm`. Collective over the members.
int create_from_group(MPI_Comm comm, const std::vector<int>& members, int tag, MPI_Comm* out);

/// The nodes the grid's processes run on (shared-memory domains), counted once and kept.
/// Collective over the grid on its first call.
int grid_nodes(relay_grid& grid);

/// Frees the grid's communicators and the grid. Collective.
void free_grid(relay_grid* grid);

/// The grid attached to `comm` as an attribute (row-major, rows x cols), created on first use,
/// rebuilt when asked for another shape, and freed when `comm` is freed or at MPI_Finalize: how
/// a BLACS context keeps its relay grid without a table that could outlive the context.
/// Collective on first use and on a change of shape.
relay_status_t grid_of_comm(MPI_Comm comm, int rows, int cols, relay_grid** grid,
                            std::string& error);

}  // namespace relay::gemm
