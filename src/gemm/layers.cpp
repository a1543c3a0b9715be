#include "gemm/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/status.hpp"
#include "exec/compute.hpp"

namespace relay::gemm {

LayerView::~LayerView() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && fiber != MPI_COMM_NULL) MPI_Comm_free(&fiber);
  free_grid(layer);
}

bool split_layers(const layout::ProcessGrid& grid, int c, int& cx, int& cy) {
  bool found = false;
  double best = 0;
  for (int x = 1; x <= c; ++x) {
    if (c % x != 0 || grid.rows % x != 0 || grid.cols % (c / x) != 0) continue;
    const double qx = grid.rows / x, qy = grid.cols / (c / x);
    const double aspect = std::max(qx, qy) / std::min(qx, qy);
    // Squarer layers first (a layer's SUMMA moves (m + n) / sqrt(P / c) per process at best);
    // among equals, the one with more layers along the longer grid side.
    const bool better = !found || aspect < best - 1e-12 ||
                        (std::abs(aspect - best) <= 1e-12 && (grid.rows >= grid.cols) == (x > cx));
    if (better) {
      found = true;
      best = aspect;
      cx = x;
      cy = c / x;
    }
  }
  return found;
}

std::vector<int> fiber_major_slots(const layout::ProcessGrid& grid, int c) {
  int cx = 0, cy = 0;
  if (!split_layers(grid, c, cx, cy)) return {};
  const int qx = grid.rows / cx, qy = grid.cols / cy;
  std::vector<int> slot(static_cast<std::size_t>(grid.size()));
  for (int r = 0; r < grid.size(); ++r) {
    const layout::GridCoord at = grid.coord_of(r);
    const int layer = (at.row / qx) * cy + at.col / qy;  // as LayerView::my_layer
    const int place = (at.row % qx) * qy + at.col % qy;
    slot[static_cast<std::size_t>(r)] = place * c + layer;
  }
  return slot;
}

std::vector<int> admissible_layers(const layout::ProcessGrid& grid) {
  // c = cx * cy with cx dividing the rows and cy the columns: from the divisors, not by trying
  // every c up to P with split_layers (O(P^2), and every 2.5D/3D call asks).
  std::vector<int> out;
  for (int cx = 1; cx <= grid.rows; ++cx) {
    if (grid.rows % cx != 0) continue;
    for (int cy = 1; cy <= grid.cols; ++cy) {
      if (grid.cols % cy == 0 && cx * cy >= 2) out.push_back(cx * cy);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int cube_root_layers(const layout::ProcessGrid& grid) {
  const double root = std::cbrt(static_cast<double>(grid.size()));
  int best = 0;
  for (int c : admissible_layers(grid)) {
    if (best == 0 || std::abs(c - root) < std::abs(best - root) - 1e-12) best = c;
  }
  return best;
}

int default_layers(const layout::ProcessGrid& grid) {
  const double limit = std::min(4.0, std::cbrt(static_cast<double>(grid.size())) + 1e-9);
  int best = 0;
  for (int c : admissible_layers(grid)) {
    if (c <= limit) best = c;
  }
  return best;
}

layout::GridCoord fiber_member(const relay_grid& grid, const LayerView& view, int z) {
  const int qx = grid.shape.rows / view.cx, qy = grid.shape.cols / view.cy;
  return layout::GridCoord{grid.me.row % qx + (z / view.cy) * qx,
                           grid.me.col % qy + (z % view.cy) * qy};
}

relay_status_t layer_view(relay_grid& grid, int cx, int cy, const LayerView** view,
                          std::string& error) {
  for (const auto& v : grid.layer_views) {
    if (v->cx == cx && v->cy == cy) {
      *view = v.get();
      return RELAY_SUCCESS;
    }
  }
  const layout::ProcessGrid& shape = grid.shape;
  if (cx < 1 || cy < 1 || shape.rows % cx != 0 || shape.cols % cy != 0) {
    error =
        fmt::format("{}x{} layers do not divide the {}x{} grid", cx, cy, shape.rows, shape.cols);
    return RELAY_ERR_INTERNAL;
  }
  const int qx = shape.rows / cx, qy = shape.cols / cy;
  auto v = std::make_unique<LayerView>();
  v->cx = cx;
  v->cy = cy;
  const int a = grid.me.row / qx, b = grid.me.col / qy;
  v->my_layer = a * cy + b;
  // My layer, ranked as a qx x qy grid of the 2D grid's order would rank it.
  const layout::ProcessGrid layer_shape{qx, qy, shape.order};
  std::vector<int> members(static_cast<std::size_t>(qx * qy));
  for (int r = 0; r < layer_shape.size(); ++r) {
    const layout::GridCoord at = layer_shape.coord_of(r);
    members[static_cast<std::size_t>(r)] =
        shape.rank_of(layout::GridCoord{a * qx + at.row, b * qy + at.col});
  }
  // Tags apart from the grid's own row (1) and column (2) communicators.
  MPI_Comm layer_comm = MPI_COMM_NULL;
  int rc = create_from_group(grid.comm, members, 3, &layer_comm);
  if (rc == MPI_SUCCESS) {
    relay_status_t st = create_grid(layer_comm, qx, qy, shape.order, false, &v->layer, error);
    if (st != RELAY_SUCCESS) {
      MPI_Comm_free(&layer_comm);
      return st;
    }
    v->layer->owns_comm = true;
    std::vector<int> fiber(static_cast<std::size_t>(cx * cy));
    for (int z = 0; z < cx * cy; ++z) {
      fiber[static_cast<std::size_t>(z)] = shape.rank_of(fiber_member(grid, *v, z));
    }
    rc = create_from_group(grid.comm, fiber, 4, &v->fiber);
  }
  if (rc == MPI_SUCCESS && !exec::compute_is_charged()) {  // simulated ranks share pages
    // For the default memory limit: the node's available memory is shared by its ranks.
    MPI_Comm node = MPI_COMM_NULL;
    rc = exec::node_comm(grid.comm, &node);
    if (rc == MPI_SUCCESS) {
      MPI_Comm_size(node, &v->ranks_on_node);
      MPI_Comm_free(&node);
    }
  }
  if (rc != MPI_SUCCESS) {
    error = "creating the layers' communicators failed";
    return RELAY_ERR_MPI;
  }
  *view = v.get();
  grid.layer_views.push_back(std::move(v));
  return RELAY_SUCCESS;
}

}  // namespace relay::gemm
