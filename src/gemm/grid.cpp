#include "gemm/grid.hpp"

#include <algorithm>
#include <vector>

#include "core/status.hpp"
#include "exec/comm_attribute.hpp"
#include "exec/compute.hpp"
#include "gemm/cost.hpp"
#include "gemm/layers.hpp"

namespace relay::gemm {

relay_status_t create_grid(MPI_Comm comm, int rows, int cols, layout::GridOrder order, bool dup,
                           relay_grid** grid, std::string& error) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (static_cast<long long>(rows) * cols != size) {
    error = fmt::format("the grid is {}x{} = {} processes but the communicator has {}", rows, cols,
                        static_cast<long long>(rows) * cols, size);
    return RELAY_ERR_COMM;
  }
  auto* g = new relay_grid;
  g->shape = layout::ProcessGrid{rows, cols, order};
  g->me = g->shape.coord_of(rank);
  int rc = MPI_SUCCESS;
  if (dup) {
    rc = exec::dup_comm(comm, &g->comm);
    g->owns_comm = true;
  } else {
    g->comm = comm;
  }
  // The row's and the column's communicators are made by their members alone, from groups
  // (MPI_Comm_create_group), ranked by column and by row as a split keyed so would rank them.
  // MPI_Comm_split is collective over the whole grid: under SimGrid SMPI two splits of 16,384
  // simulated ranks took 284 s of host time, two group creations 38.7 s (a test program on the
  // 128x128 k_torus_16384 platform, startup included; docs/measurements/issue25_smpi_probes).
  auto create = [&](bool row, int tag, MPI_Comm* out) {
    const int count = row ? cols : rows;
    std::vector<int> members(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      members[i] =
          g->shape.rank_of(row ? layout::GridCoord{g->me.row, i} : layout::GridCoord{i, g->me.col});
    }
    return create_from_group(g->comm, members, tag, out);
  };
  if (rc == MPI_SUCCESS) rc = create(true, 1, &g->row_comm);
  if (rc == MPI_SUCCESS) rc = create(false, 2, &g->col_comm);
  if (rc != MPI_SUCCESS) {
    free_grid(g);
    error = "creating the grid's communicators failed";
    return RELAY_ERR_MPI;
  }
  *grid = g;
  return RELAY_SUCCESS;
}

int create_from_group(MPI_Comm comm, const std::vector<int>& members, int tag, MPI_Comm* out) {
  MPI_Group all = MPI_GROUP_NULL, part = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(comm, &all);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Group_incl(all, static_cast<int>(members.size()), members.data(), &part);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(comm, part, tag, out);
  if (part != MPI_GROUP_NULL) MPI_Group_free(&part);
  if (all != MPI_GROUP_NULL) MPI_Group_free(&all);
  return rc;
}

int grid_nodes(relay_grid& grid) {
  if (grid.nodes > 0) return grid.nodes;
  MPI_Comm node = MPI_COMM_NULL;
  int node_rank = 0, leaders = 1;
  if (exec::node_comm(grid.comm, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    int leader = node_rank == 0 ? 1 : 0;
    exec::allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, grid.comm);
  }
  grid.nodes = std::max(1, leaders);
  return grid.nodes;
}

void free_grid(relay_grid* grid) {
  if (grid == nullptr) return;
  grid->layer_views.clear();  // their communicators are freed before the grid's
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    if (grid->row_comm != MPI_COMM_NULL) MPI_Comm_free(&grid->row_comm);
    if (grid->col_comm != MPI_COMM_NULL) MPI_Comm_free(&grid->col_comm);
    if (grid->owns_comm && grid->comm != MPI_COMM_NULL) MPI_Comm_free(&grid->comm);
  }
  delete grid;
}

namespace {

void release_grid(void* value) { free_grid(static_cast<relay_grid*>(value)); }

exec::CommAttribute& grids() {
  static exec::CommAttribute attribute(release_grid);
  return attribute;
}

}  // namespace

relay_status_t grid_of_comm(MPI_Comm comm, int rows, int cols, relay_grid** grid,
                            std::string& error) {
  void* value = nullptr;
  if (auto st = grids().get(comm, &value, error); st != RELAY_SUCCESS) return st;
  if (value != nullptr) {
    auto* g = static_cast<relay_grid*>(value);
    if (g->shape.rows == rows && g->shape.cols == cols) {
      *grid = g;
      return RELAY_SUCCESS;
    }
    // The shape changed: rebuild. Should the delete fail, set() below still replaces the old
    // grid (MPI_Comm_set_attr deletes the value it overwrites).
    std::string ignored;
    grids().remove(comm, ignored);
  }
  relay_grid* g = nullptr;
  if (auto st = create_grid(comm, rows, cols, layout::GridOrder::row_major, true, &g, error);
      st != RELAY_SUCCESS) {
    return st;
  }
  if (auto st = grids().set(comm, g, error); st != RELAY_SUCCESS) return st;  // g freed
  *grid = g;
  return RELAY_SUCCESS;
}

}  // namespace relay::gemm
