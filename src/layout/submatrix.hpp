// Where a submatrix sub(A) = A(ia : ia+m-1, ja : ja+n-1) of a distributed matrix lives:
// which process holds its first row and column, at which local offsets it starts in each
// process's local array, and how many of its rows and columns each process holds.
//
// These are the quantities PBLAS derives with PB_Cdescribe / PB_Cinfog2l / PB_Cnumroc before
// any communication. The trick (PB_Cdescribe's) is that sub(A) is itself block-cyclic: its
// rows are A's rows from ia on, renumbered from 0, whose first block is the remainder of the
// block holding ia and whose source is the owner of ia (subrange() in block_cyclic.hpp); on
// each process its local rows form a contiguous run of A's local rows starting at II.
// All indices here are 0-based (Fortran IA = ia + 1). Pure index math: no MPI in here.
#pragma once

#include <cstdint>

#include "layout/block_cyclic.hpp"
#include "layout/descriptor.hpp"
#include "layout/process_grid.hpp"

namespace relay::layout {

/// The part of sub(A) held by one process, in that process's local array of A (column-major,
/// leading dimension LLD): local element (row_offset + r, col_offset + c) for r < rows, c < cols.
struct LocalBlock {
  int64_t row_offset = 0;  ///< II: 0-based local row of A where sub(A)'s local rows begin
  int64_t col_offset = 0;  ///< JJ: 0-based local column of A where sub(A)'s local columns begin
  int64_t rows = 0;        ///< local rows of sub(A) on the process (Lr(ia, m))
  int64_t cols = 0;        ///< local columns of sub(A) on the process (Lc(ja, n))
};

inline bool operator==(const LocalBlock& a, const LocalBlock& b) {
  return a.row_offset == b.row_offset && a.col_offset == b.col_offset && a.rows == b.rows &&
         a.cols == b.cols;
}

/// Where one element of sub(A) lives: the owning process and its 0-based place in that
/// process's local array of A (element local_row + local_col * LLD). An owner coordinate is
/// -1 along a replicated dimension (every process there holds the element).
struct ElementPlace {
  GridCoord owner;
  int64_t local_row = 0;
  int64_t local_col = 0;
};

/// The layout of sub(A) = A(ia : ia+m-1, ja : ja+n-1) over a process grid.
struct Submatrix {
  int64_t m = 0;       ///< rows of sub(A)
  int64_t n = 0;       ///< columns of sub(A)
  int64_t ia = 0;      ///< 0-based first row of sub(A) in A
  int64_t ja = 0;      ///< 0-based first column of sub(A) in A
  BlockCyclic a_rows;  ///< A's row distribution
  BlockCyclic a_cols;  ///< A's column distribution
  BlockCyclic rows;    ///< sub(A)'s rows renumbered from 0: subrange(a_rows, ia)
  BlockCyclic cols;    ///< sub(A)'s columns renumbered from 0: subrange(a_cols, ja)
  int64_t lld = 1;     ///< leading dimension of the local arrays of A

  /// Process row holding sub(A)'s first row (PROW of PB_Cinfog2l; -1 if replicated).
  int first_row_owner() const { return rows.source; }
  /// Process column holding sub(A)'s first column (PCOL of PB_Cinfog2l; -1 if replicated).
  int first_col_owner() const { return cols.source; }
};

/// The layout of A(ia : ia+m-1, ja : ja+n-1) (0-based ia, ja; m, n >= 0) for a descriptor that
/// passed check_matrix() on `grid`.
Submatrix describe_submatrix(const Descriptor& desc, const ProcessGrid& grid, int64_t ia,
                             int64_t ja, int64_t m, int64_t n);

/// sub(A)'s part on the process at `p` (offsets as PB_Cinfog2l, extents as PB_Cnumroc).
LocalBlock local_block(const Submatrix& sub, GridCoord p);

/// Where element (i, j) of sub(A) (0-based within sub(A): A's element (ia + i, ja + j)) lives.
ElementPlace locate(const Submatrix& sub, int64_t i, int64_t j);

/// Offset in elements of local element (local_row, local_col) in a column-major local array
/// with leading dimension `lld`.
inline int64_t local_offset(int64_t local_row, int64_t local_col, int64_t lld) {
  return local_row + local_col * lld;
}

}  // namespace relay::layout
