// The PBLAS argument check of one matrix operand: M, N, IA, JA and the descriptor of sub(A),
// with ScaLAPACK's INFO encoding, so the p?gemm entry points can answer exactly as PBLAS does.
//
// This is PB_Cchkmat's contract (PBLAS/SRC/PTOOLS/PB_Cchkmat.c), rewritten on Descriptor:
// - INFO = -i when the i-th argument (a scalar: M, N, IA or JA) is bad, and
//   INFO = -(100 * i + e) when entry e of the i-th argument (a descriptor) is bad, with e
//   numbered in the DTYPE-2 layout (DescEntry). When several things are wrong, the smallest
//   such code (scalar i counting as 100 * i) wins, across operands too: pass the INFO of the
//   previous operand's check in, as PDGEMM chains A, B and C.
// - A bad DTYPE or a CTXT other than the operation's stops the check of that descriptor.
// - For an empty sub(A) (M = 0 or N = 0) only M_ >= 0, N_ >= 0 and LLD_ >= 1 are required;
//   otherwise M_, N_ >= 1, IA + M <= M_, JA + N <= N_ (reported against IA and JA), and, when
//   nothing else is wrong so far, LLD_ >= MAX(1, local rows) on this process if it holds any
//   column (a local check, made from this process's grid coordinates).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "layout/descriptor.hpp"
#include "layout/process_grid.hpp"

namespace relay::layout {

/// One matrix operand of a PBLAS call and where its arguments sit in the call's Fortran
/// argument list (1-based positions, e.g. PDGEMM's A: M at 3, K at 5, DESCA at 10).
struct MatrixOperand {
  std::string_view name = "A";  ///< operand name for messages ("A" gives "IA", "DESCA")
  int64_t m = 0;                ///< rows of sub(A)
  int m_pos = 0;                ///< position of the argument giving m
  int64_t n = 0;                ///< columns of sub(A)
  int n_pos = 0;                ///< position of the argument giving n
  int64_t ia = 0;               ///< 0-based first row of sub(A) in A (Fortran IA - 1)
  int64_t ja = 0;               ///< 0-based first column of sub(A) in A (Fortran JA - 1)
  Descriptor desc;              ///< DESCA, normalised (descriptor_from_fortran)
  int desc_pos = 0;             ///< position of DESCA; IA and JA are at desc_pos - 2, - 1
};

/// Outcome of a check: ScaLAPACK INFO and, if this operand set it, why.
struct ArgCheck {
  int info = 0;         ///< 0 (nothing wrong) or negative, encoded as above
  std::string message;  ///< one line naming the argument and value; empty if info came in
  bool ok() const { return info == 0; }
};

/// What an INFO value points at.
struct InfoTarget {
  int argument = 0;                ///< 1-based argument position, 0 for INFO >= 0
  std::optional<DescEntry> entry;  ///< the descriptor entry, for -(100 * i + e) codes
};

/// Splits a negative INFO into argument position and descriptor entry (codes -1 .. -99 are
/// scalar arguments; -(100 * i + e) with 1 <= e <= 11 descriptor entries).
InfoTarget decode_info(int info);

/// Checks `a` as PB_Cchkmat does on the process at `me` of `grid`, the grid of the operation's
/// context `ctxt`. `prior_info` is the INFO so far (0 if none); the result is the combined
/// INFO (the smallest code of all errors found, see the file comment).
ArgCheck check_matrix(const MatrixOperand& a, int64_t ctxt, const ProcessGrid& grid, GridCoord me,
                      int prior_info = 0);

}  // namespace relay::layout
