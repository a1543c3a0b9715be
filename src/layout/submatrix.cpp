// Submatrix layout (see submatrix.hpp).
#include "layout/submatrix.hpp"

namespace relay::layout {

Submatrix describe_submatrix(const Descriptor& desc, const ProcessGrid& grid, int64_t ia,
                             int64_t ja, int64_t m, int64_t n) {
  Submatrix s;
  s.m = m;
  s.n = n;
  s.ia = ia;
  s.ja = ja;
  s.a_rows = row_distribution(desc, grid);
  s.a_cols = col_distribution(desc, grid);
  s.rows = subrange(s.a_rows, ia);
  s.cols = subrange(s.a_cols, ja);
  s.lld = desc.lld;
  return s;
}

LocalBlock local_block(const Submatrix& sub, GridCoord p) {
  LocalBlock b;
  b.row_offset = local_start(sub.a_rows, p.row, sub.ia);
  b.col_offset = local_start(sub.a_cols, p.col, sub.ja);
  b.rows = local_count(sub.rows, p.row, sub.m);
  b.cols = local_count(sub.cols, p.col, sub.n);
  return b;
}

ElementPlace locate(const Submatrix& sub, int64_t i, int64_t j) {
  ElementPlace e;
  e.owner = GridCoord{owner(sub.rows, i), owner(sub.cols, j)};
  e.local_row = to_local(sub.a_rows, sub.ia + i);
  e.local_col = to_local(sub.a_cols, sub.ja + j);
  return e;
}

}  // namespace relay::layout
