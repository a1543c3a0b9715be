// Submatrix layouts against a brute-force deal of the whole matrix: for every row range and
// every column range of small matrices (paired with probes of the other dimension) on several
// grids, with first blocks different from the blocks, every source (including replicated) and
// LLD larger than the local rows: the owner of the first row and column, the local offsets and
// extents on every process, and the place of every element.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "layout/submatrix.hpp"
#include "reference.hpp"

namespace relay::layout {
namespace {

using test::brute_map;

TEST(Submatrix, HandWorkedExample) {
  // 9 x 4, MB = 2 from process row 1 of 2: rows [0,2) p1, [2,4) p0, [4,6) p1, [6,8) p0,
  // [8,9) p1. sub(A) = rows 5..8 (Fortran IA = 6), columns 1..2.
  const ProcessGrid grid{2, 2, GridOrder::row_major};
  const Descriptor d = make_descriptor(9, 4, 2, 1, 1, 0, 0, 7);
  const Submatrix sub = describe_submatrix(d, grid, 5, 1, 4, 2);
  EXPECT_EQ(sub.first_row_owner(), 1);
  EXPECT_EQ(sub.first_col_owner(), 1);
  EXPECT_EQ(sub.rows, (BlockCyclic{1, 2, 1, 2}));  // what is left of block [4,6) is row 5
  // p1 holds rows 0, 1, 4, 5, 8: row 5 is its local row 3. p0 holds 2, 3, 6, 7: it starts
  // at its local row 2. Columns 1, 2 are on p1 (local 0) and p0 (local 1).
  EXPECT_EQ(local_block(sub, {1, 1}), (LocalBlock{3, 0, 2, 1}));
  EXPECT_EQ(local_block(sub, {0, 0}), (LocalBlock{2, 1, 2, 1}));
  EXPECT_EQ(local_block(sub, {0, 1}), (LocalBlock{2, 0, 2, 1}));
  const ElementPlace e = locate(sub, 3, 1);  // A(8, 2): row block [8,9) on p1, column 2 on p0
  EXPECT_EQ(e.owner, (GridCoord{1, 0}));
  EXPECT_EQ(e.local_row, 4);
  EXPECT_EQ(e.local_col, 1);
  EXPECT_EQ(local_offset(e.local_row, e.local_col, d.lld), 4 + 1 * 7);
}

struct Case {
  ProcessGrid grid;
  Descriptor desc;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::vector<std::pair<int, int>> grids{{1, 1}, {2, 3}, {3, 2}, {1, 4}, {4, 1}};
  const std::vector<std::pair<int64_t, int64_t>> row_blocks{{1, 1}, {2, 3}, {3, 2}, {5, 2}};
  const std::vector<std::pair<int64_t, int64_t>> col_blocks{{2, 2}, {1, 3}, {5, 2}};
  const int64_t m = 6;
  const int64_t n = 5;
  for (auto [rows, cols] : grids) {
    const ProcessGrid grid{rows, cols, GridOrder::row_major};
    for (auto [imb, mb] : row_blocks) {
      for (auto [inb, nb] : col_blocks) {
        for (int rsrc = -1; rsrc < rows; ++rsrc) {
          for (int csrc = -1; csrc < cols; ++csrc) {
            // LLD two more than the largest local row count: larger than needed everywhere.
            Descriptor d = make_descriptor_inb(m, n, imb, inb, mb, nb, rsrc, csrc, 0, 1);
            int64_t most = 0;
            for (int r = 0; r < rows; ++r) most = std::max(most, local_rows(d, grid, r));
            d.lld = most + 2;
            out.push_back({grid, d});
          }
        }
      }
    }
  }
  return out;
}

std::string describe(const Case& c, int64_t ia, int64_t ja, int64_t m, int64_t n) {
  const Descriptor& d = c.desc;
  return to_string(c.grid) + " imb=" + std::to_string(d.imb) + " mb=" + std::to_string(d.mb) +
         " inb=" + std::to_string(d.inb) + " nb=" + std::to_string(d.nb) +
         " rsrc=" + std::to_string(d.rsrc) + " csrc=" + std::to_string(d.csrc) + " sub=(" +
         std::to_string(ia) + "," + std::to_string(ja) + ")+" + std::to_string(m) + "x" +
         std::to_string(n);
}

struct Range {
  int64_t start;
  int64_t length;
};

// Every range [start, start + length) of [0, extent), and a few probes that cover empty, whole,
// inner and tail ranges.
std::vector<Range> all_ranges(int64_t extent) {
  std::vector<Range> out;
  for (int64_t start = 0; start <= extent; ++start) {
    for (int64_t length = 0; start + length <= extent; ++length) out.push_back({start, length});
  }
  return out;
}
std::vector<Range> probe_ranges(int64_t extent) {
  return {{0, extent}, {1, extent - 2}, {extent - 1, 1}, {2, 0}, {extent, 0}};
}

// Every row range with a few column ranges, every column range with a few row ranges, and the
// whole tail A(ia:, ja:) of every start (on which every element's place is checked).
std::vector<std::pair<Range, Range>> submatrices(int64_t m, int64_t n) {
  std::vector<std::pair<Range, Range>> out;
  for (const Range& r : all_ranges(m)) {
    for (const Range& c : probe_ranges(n)) out.push_back({r, c});
  }
  for (const Range& c : all_ranges(n)) {
    for (const Range& r : probe_ranges(m)) out.push_back({r, c});
  }
  for (int64_t ia = 0; ia <= m; ++ia) {
    for (int64_t ja = 0; ja <= n; ++ja) out.push_back({{ia, m - ia}, {ja, n - ja}});
  }
  return out;
}

TEST(Submatrix, EverySubmatrixMatchesBruteForce) {
  for (const Case& c : cases()) {
    const Descriptor& d = c.desc;
    const auto rref = brute_map(row_distribution(d, c.grid), d.m + 1);
    const auto cref = brute_map(col_distribution(d, c.grid), d.n + 1);
    for (const auto& [rows, cols] : submatrices(d.m, d.n)) {
      const int64_t ia = rows.start;
      const int64_t m = rows.length;
      const int64_t ja = cols.start;
      const int64_t n = cols.length;
      const Submatrix sub = describe_submatrix(d, c.grid, ia, ja, m, n);
      ASSERT_EQ(sub.first_row_owner(), rref.owner[ia]) << describe(c, ia, ja, m, n);
      ASSERT_EQ(sub.first_col_owner(), cref.owner[ja]) << describe(c, ia, ja, m, n);
      int64_t elements = 0;
      std::vector<LocalBlock> blocks;  // by process, row-major over the grid
      for (int r = 0; r < c.grid.rows; ++r) {
        for (int q = 0; q < c.grid.cols; ++q) {
          const LocalBlock b = local_block(sub, {r, q});
          blocks.push_back(b);
          const LocalBlock want{rref.count(r, 0, ia), cref.count(q, 0, ja), rref.count(r, ia, m),
                                cref.count(q, ja, n)};
          ASSERT_EQ(b, want) << describe(c, ia, ja, m, n) << " on " << r << "," << q;
          // PB_Cinfog2l: on the owner of the first row, II is that row's local index.
          if (rref.holds(r, ia)) {
            ASSERT_EQ(b.row_offset, rref.local[ia]);
          }
          if (cref.holds(q, ja)) {
            ASSERT_EQ(b.col_offset, cref.local[ja]);
          }
          elements += b.rows * b.cols;
        }
      }
      const int64_t copies = (d.rsrc == -1 ? c.grid.rows : 1) * (d.csrc == -1 ? c.grid.cols : 1);
      ASSERT_EQ(elements, m * n * copies) << describe(c, ia, ja, m, n);
      // Element places depend on the start, not the extent: check them on the tails.
      if (ia + m < d.m || ja + n < d.n) continue;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const ElementPlace e = locate(sub, i, j);
          ASSERT_EQ(e.owner, (GridCoord{rref.owner[ia + i], cref.owner[ja + j]}));
          ASSERT_EQ(e.local_row, rref.local[ia + i]) << describe(c, ia, ja, m, n);
          ASSERT_EQ(e.local_col, cref.local[ja + j]) << describe(c, ia, ja, m, n);
          ASSERT_LT(e.local_row, d.lld);
          // The element is inside its owner's local block of sub(A).
          const int r = e.owner.row == -1 ? 0 : e.owner.row;
          const int q = e.owner.col == -1 ? 0 : e.owner.col;
          const LocalBlock& b = blocks[static_cast<size_t>(r * c.grid.cols + q)];
          ASSERT_GE(e.local_row, b.row_offset);
          ASSERT_LT(e.local_row, b.row_offset + b.rows);
          ASSERT_GE(e.local_col, b.col_offset);
          ASSERT_LT(e.local_col, b.col_offset + b.cols);
        }
      }
    }
  }
}

}  // namespace
}  // namespace relay::layout
