#include "gemm/grid.hpp"

#include <mutex>

#include "core/status.hpp"

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
    rc = MPI_Comm_dup(comm, &g->comm);
    g->owns_comm = true;
  } else {
    g->comm = comm;
  }
  if (rc == MPI_SUCCESS) rc = MPI_Comm_split(g->comm, g->me.row, g->me.col, &g->row_comm);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_split(g->comm, g->me.col, g->me.row, &g->col_comm);
  if (rc != MPI_SUCCESS) {
    free_grid(g);
    error = "creating the grid's communicators failed";
    return RELAY_ERR_MPI;
  }
  *grid = g;
  return RELAY_SUCCESS;
}

void free_grid(relay_grid* grid) {
  if (grid == nullptr) return;
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

int g_grid_keyval = MPI_KEYVAL_INVALID;

int delete_grid(MPI_Comm, int, void* value, void*) {
  free_grid(static_cast<relay_grid*>(value));
  return MPI_SUCCESS;
}

}  // namespace

relay_status_t grid_of_comm(MPI_Comm comm, int rows, int cols, relay_grid** grid,
                            std::string& error) {
  static std::once_flag once;
  static int rc = MPI_SUCCESS;
  std::call_once(once, [] {
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_grid, &g_grid_keyval, nullptr);
  });
  if (rc != MPI_SUCCESS) {
    error = "could not create relay's grid attribute";
    return RELAY_ERR_MPI;
  }
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, g_grid_keyval, &value, &found);
  if (found) {
    auto* g = static_cast<relay_grid*>(value);
    if (g->shape.rows == rows && g->shape.cols == cols) {
      *grid = g;
      return RELAY_SUCCESS;
    }
    MPI_Comm_delete_attr(comm, g_grid_keyval);  // the shape changed: rebuild
  }
  relay_grid* g = nullptr;
  if (auto st = create_grid(comm, rows, cols, layout::GridOrder::row_major, true, &g, error);
      st != RELAY_SUCCESS) {
    return st;
  }
  if (MPI_Comm_set_attr(comm, g_grid_keyval, g) != MPI_SUCCESS) {
    free_grid(g);
    error = "MPI_Comm_set_attr failed";
    return RELAY_ERR_MPI;
  }
  *grid = g;
  return RELAY_SUCCESS;
}

}  // namespace relay::gemm
