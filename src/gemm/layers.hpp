// The 2.5D view of a 2D process grid (mukunoki2017): the user's Px x Py grid seen as c = cx * cy
// layers of (Px / cx) x (Py / cy) processes, without moving anyone. Process (x, y) is at
// place (x mod Qx, y mod Qy) of layer (x div Qx) * cy + (y div Qy), Qx = Px / cx, Qy = Py / cy.
//
// Why this view: a block-cyclic dimension over Px processes, seen modulo Qx (Qx divides Px),
// is the same dimension block-cyclic over Qx processes (block b sits on (src + b) mod Px, whose
// remainder mod Qx is (src mod Qx + b) mod Qx). So every layer holds a whole ScaLAPACK-style
// distribution of the matrices on its own Qx x Qy grid, same blocks, and the c processes at
// one place of every layer (a "fiber") hold between them exactly that place's share: moving
// data between the 2D and the layered layouts only ever happens inside a fiber.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "gemm/grid.hpp"
#include "layout/process_grid.hpp"

namespace relay::gemm {

/// One layered view of a grid, made once and kept with the grid (relay_grid::layer_views).
struct LayerView {
  int cx = 1, cy = 1;              ///< layers along the grid's rows and columns
  relay_grid* layer = nullptr;     ///< my layer: (rows / cx) x (cols / cy), the grid's order
  MPI_Comm fiber = MPI_COMM_NULL;  ///< my place in every layer; rank = layer index
  int my_layer = 0;                ///< (my row div Qx) * cy + (my col div Qy)
  int ranks_on_node = 1;           ///< grid ranks sharing my node's memory
  int layers() const { return cx * cy; }
  ~LayerView();
};

/// The (cx, cy) that make c layers of `grid`: cx divides the rows, cy the columns, and the
/// layers are as square as that allows (ties: more layers along the longer side). False if no
/// split exists (c < 1, or c does not factor over the grid's shape).
bool split_layers(const layout::ProcessGrid& grid, int c, int& cx, int& cy);

/// Every c >= 2 that split_layers accepts, ascending.
std::vector<int> admissible_layers(const layout::ProcessGrid& grid);

/// 3D's c: the admissible c closest to P^(1/3) (ties: the smaller); 0 if none.
int cube_root_layers(const layout::ProcessGrid& grid);

/// 2.5D's default c: the largest admissible c <= min(4, P^(1/3)) (2.5D wants c <= P^(1/3), and
/// mukunoki2017 measured c = 16 slower than c = 4 on 4,096 to 16,384 nodes); 0 if none.
int default_layers(const layout::ProcessGrid& grid);

/// A placement of `grid`'s ranks on nodes for its view of c layers (split_layers): slot[r] is the
/// node slot of grid rank r, each fiber's c members on consecutive slots (layer index inner),
/// the fibers in row-major order of their place. Slots are nodes in the platform's order (in a
/// SimGrid torus the first dimension varies fastest, so a fiber of c <= that dimension's size
/// lies along one ring). Empty when c does not split over the grid. mukunoki2017 names process
/// placement as its future work: fibers several torus hops apart share links when every fiber
/// reduces at once (docs/gemm.md).
std::vector<int> fiber_major_slots(const layout::ProcessGrid& grid, int c);

/// The 2D coordinates of layer z's process at my place (my fiber's member z).
layout::GridCoord fiber_member(const relay_grid& grid, const LayerView& view, int z);

/// The view of `grid` with cx x cy layers: made on first use (collective over the grid: each
/// layer and each fiber is made from a group by its members alone), then reused.
relay_status_t layer_view(relay_grid& grid, int cx, int cy, const LayerView** view,
                          std::string& error);

}  // namespace relay::gemm
