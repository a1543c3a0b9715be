// Two-dimensional process grids as BLACS lays them out.
//
// A grid of `rows` x `cols` processes numbers its members 0 .. rows*cols-1 ("grid ranks") in
// one of the two natural orders of BLACS_GRIDINIT: row-major (ORDER = 'R', the BLACS default)
// puts grid rank r*cols + c at (r, c); column-major (ORDER = 'C') puts c*rows + r there. The
// ScaLAPACK boundary turns a BLACS context into one of these values; everything above it asks
// the grid, never the order, where a process sits. Pure index math: no MPI in here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace relay::layout {

/// How grid ranks are laid over the grid (BLACS_GRIDINIT's ORDER argument).
enum class GridOrder {
  row_major,    ///< rank = row * cols + col (ORDER = 'R'; BLACS's default)
  column_major  ///< rank = col * rows + row (ORDER = 'C')
};

/// "row_major" or "column_major".
std::string_view to_string(GridOrder order);
/// Inverse of to_string; nullopt for any other text.
std::optional<GridOrder> grid_order_from_string(std::string_view text);
/// BLACS's reading of an ORDER character: 'C' or 'c' is column-major, anything else row-major
/// (as in Cblacs_gridinit).
GridOrder grid_order_from_blacs(char order);

/// A process's place in a grid: 0-based row and column coordinates.
struct GridCoord {
  int row = 0;
  int col = 0;
};

inline bool operator==(GridCoord a, GridCoord b) { return a.row == b.row && a.col == b.col; }
inline bool operator!=(GridCoord a, GridCoord b) { return !(a == b); }

/// A `rows` x `cols` grid of processes. A plain value: check it with grid_error() before use;
/// the maps below assume a valid grid and in-range arguments.
struct ProcessGrid {
  int rows = 1;  ///< process rows (NPROW), >= 1
  int cols = 1;  ///< process columns (NPCOL), >= 1
  GridOrder order = GridOrder::row_major;

  /// Number of processes, rows * cols.
  int size() const { return rows * cols; }
  /// True if `c` lies in the grid (0 <= row < rows, 0 <= col < cols).
  bool contains(GridCoord c) const {
    return c.row >= 0 && c.row < rows && c.col >= 0 && c.col < cols;
  }
  /// Grid rank (0-based) of the process at `c`; requires contains(c).
  int rank_of(GridCoord c) const;
  /// Coordinates of grid rank `rank`; requires 0 <= rank < size().
  GridCoord coord_of(int rank) const;
};

inline bool operator==(const ProcessGrid& a, const ProcessGrid& b) {
  return a.rows == b.rows && a.cols == b.cols && a.order == b.order;
}
inline bool operator!=(const ProcessGrid& a, const ProcessGrid& b) { return !(a == b); }

/// Why `grid` is unusable, naming the field and its value (rows or cols below 1, or
/// rows * cols beyond the range of int); nullopt if it is valid.
std::optional<std::string> grid_error(const ProcessGrid& grid);

/// "2x3 row_major": for logs and test names.
std::string to_string(const ProcessGrid& grid);

}  // namespace relay::layout
