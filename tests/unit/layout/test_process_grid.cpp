// Process grids: both BLACS orderings are bijections between ranks and coordinates laid out as
// Cblacs_gridinit lays them out; validation names the bad field.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <utility>

#include "layout/process_grid.hpp"

namespace relay::layout {
namespace {

TEST(ProcessGrid, RankAndCoordinatesAreInverseBijections) {
  for (GridOrder order : {GridOrder::row_major, GridOrder::column_major}) {
    for (int rows = 1; rows <= 8; ++rows) {
      for (int cols = 1; cols <= 8; ++cols) {
        const ProcessGrid grid{rows, cols, order};
        ASSERT_FALSE(grid_error(grid).has_value());
        ASSERT_EQ(grid.size(), rows * cols);
        std::set<std::pair<int, int>> seen;
        for (int rank = 0; rank < grid.size(); ++rank) {
          const GridCoord c = grid.coord_of(rank);
          ASSERT_TRUE(grid.contains(c)) << to_string(grid) << " rank " << rank;
          ASSERT_EQ(grid.rank_of(c), rank) << to_string(grid);
          seen.insert({c.row, c.col});
        }
        ASSERT_EQ(static_cast<int>(seen.size()), grid.size()) << to_string(grid);
      }
    }
  }
}

TEST(ProcessGrid, OrderingsFollowBlacs) {
  // Cblacs_gridinit: row-major puts rank r * npcol + c at (r, c); column-major puts
  // c * nprow + r there.
  const ProcessGrid row{2, 3, GridOrder::row_major};
  const ProcessGrid col{2, 3, GridOrder::column_major};
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(row.rank_of({r, c}), r * 3 + c);
      EXPECT_EQ(col.rank_of({r, c}), c * 2 + r);
    }
  }
  EXPECT_EQ(row.coord_of(4), (GridCoord{1, 1}));
  EXPECT_EQ(row.coord_of(2), (GridCoord{0, 2}));
  EXPECT_EQ(col.coord_of(2), (GridCoord{0, 1}));
  EXPECT_EQ(col.coord_of(5), (GridCoord{1, 2}));
}

TEST(ProcessGrid, ContainsRejectsOutsideCoordinates) {
  const ProcessGrid grid{3, 2, GridOrder::row_major};
  EXPECT_TRUE(grid.contains({0, 0}));
  EXPECT_TRUE(grid.contains({2, 1}));
  EXPECT_FALSE(grid.contains({3, 0}));
  EXPECT_FALSE(grid.contains({0, 2}));
  EXPECT_FALSE(grid.contains({-1, 0}));
  EXPECT_FALSE(grid.contains({0, -1}));
}

TEST(ProcessGrid, ValidationNamesTheField) {
  const auto rows = grid_error(ProcessGrid{0, 3, GridOrder::row_major});
  ASSERT_TRUE(rows.has_value());
  EXPECT_NE(rows->find("rows = 0"), std::string::npos) << *rows;
  const auto cols = grid_error(ProcessGrid{2, -1, GridOrder::column_major});
  ASSERT_TRUE(cols.has_value());
  EXPECT_NE(cols->find("cols = -1"), std::string::npos) << *cols;
  const int big = std::numeric_limits<int>::max() / 2 + 1;
  const auto overflow = grid_error(ProcessGrid{big, 2, GridOrder::row_major});
  ASSERT_TRUE(overflow.has_value());
  EXPECT_NE(overflow->find("more processes"), std::string::npos) << *overflow;
  EXPECT_FALSE(grid_error(ProcessGrid{big - 1, 2, GridOrder::row_major}).has_value());
}

TEST(ProcessGrid, OrderNamesRoundTrip) {
  for (GridOrder order : {GridOrder::row_major, GridOrder::column_major}) {
    EXPECT_EQ(grid_order_from_string(to_string(order)), order);
  }
  EXPECT_FALSE(grid_order_from_string("Row").has_value());
  EXPECT_EQ(grid_order_from_blacs('C'), GridOrder::column_major);
  EXPECT_EQ(grid_order_from_blacs('c'), GridOrder::column_major);
  EXPECT_EQ(grid_order_from_blacs('R'), GridOrder::row_major);
  EXPECT_EQ(grid_order_from_blacs('x'), GridOrder::row_major);  // BLACS's default
  EXPECT_EQ(to_string(ProcessGrid{2, 3, GridOrder::column_major}), "2x3 column_major");
}

}  // namespace
}  // namespace relay::layout
