// Process grid maps and validation (see process_grid.hpp).
#include "layout/process_grid.hpp"

#include <limits>

namespace relay::layout {

std::string_view to_string(GridOrder order) {
  switch (order) {
    case GridOrder::row_major:
      return "row_major";
    case GridOrder::column_major:
      return "column_major";
  }
  return "unknown";
}

std::optional<GridOrder> grid_order_from_string(std::string_view text) {
  if (text == "row_major") return GridOrder::row_major;
  if (text == "column_major") return GridOrder::column_major;
  return std::nullopt;
}

GridOrder grid_order_from_blacs(char order) {
  return (order == 'C' || order == 'c') ? GridOrder::column_major : GridOrder::row_major;
}

int ProcessGrid::rank_of(GridCoord c) const {
  return order == GridOrder::row_major ? c.row * cols + c.col : c.col * rows + c.row;
}

GridCoord ProcessGrid::coord_of(int rank) const {
  if (order == GridOrder::row_major) return GridCoord{rank / cols, rank % cols};
  return GridCoord{rank % rows, rank / rows};
}

std::optional<std::string> grid_error(const ProcessGrid& grid) {
  if (grid.rows < 1) return "grid rows = " + std::to_string(grid.rows) + ", must be at least 1";
  if (grid.cols < 1) return "grid cols = " + std::to_string(grid.cols) + ", must be at least 1";
  if (grid.rows > std::numeric_limits<int>::max() / grid.cols) {
    return "grid " + std::to_string(grid.rows) + "x" + std::to_string(grid.cols) +
           " has more processes than an int can count";
  }
  return std::nullopt;
}

std::string to_string(const ProcessGrid& grid) {
  return std::to_string(grid.rows) + "x" + std::to_string(grid.cols) + " " +
         std::string(to_string(grid.order));
}

}  // namespace relay::layout
