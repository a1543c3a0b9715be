// ScaLAPACK array descriptors, both kinds PBLAS accepts, normalised into one C++ type.
//
// DTYPE 1 (BLOCK_CYCLIC_2D, 9 integers, what DESCINIT writes):
//   DTYPE CTXT M N MB NB RSRC CSRC LLD
// DTYPE 2 (BLOCK_CYCLIC_2D_INB, 11 integers, PBLAS's internal form with first block sizes):
//   DTYPE CTXT M N IMB INB MB NB RSRC CSRC LLD
// PBLAS turns every descriptor into the DTYPE-2 form on entry (PB_CargFtoC: IMB = MB and
// INB = NB for DTYPE 1; for an unknown DTYPE only DTYPE and CTXT are kept), checks that form
// and numbers its entries in that form. `Descriptor` is that normalised form; `dtype` keeps the
// type the caller gave so that the reply can be written in the caller's terms.
// Pure data and conversions; the argument checks live in matrix_check.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "layout/block_cyclic.hpp"
#include "layout/process_grid.hpp"

namespace relay::layout {

inline constexpr int64_t dtype_block_cyclic_2d = 1;      ///< DTYPE of a 9-entry descriptor
inline constexpr int64_t dtype_block_cyclic_2d_inb = 2;  ///< DTYPE of an 11-entry descriptor
inline constexpr int dtype1_length = 9;                  ///< DLEN of DTYPE 1
inline constexpr int dtype2_length = 11;                 ///< DLEN of DTYPE 2

/// Descriptor entries, valued by the 1-based position PBLAS reports for them: the position in
/// the 11-entry DTYPE-2 layout, whatever type the caller passed (so an RSRC error in a DTYPE-1
/// descriptor is entry 9, and an MB error in one is entry 5, IMB, which PBLAS finds first).
/// A bad entry e of the descriptor argument at position p gives INFO = -(100 * p + e).
enum class DescEntry : int {
  dtype = 1,
  ctxt = 2,
  m = 3,
  n = 4,
  imb = 5,
  inb = 6,
  mb = 7,
  nb = 8,
  rsrc = 9,
  csrc = 10,
  lld = 11
};

/// PBLAS's C name of the entry: "DTYPE_", "CTXT_", "M_", "N_", "IMB_", "INB_", "MB_", "NB_",
/// "RSRC_", "CSRC_", "LLD_".
std::string_view to_string(DescEntry entry);

/// 1-based position of `entry` in the 9-entry DTYPE-1 layout (the numbering of ScaLAPACK's
/// Fortran checks such as CHK1MAT): IMB and INB map to MB (5) and NB (6), which they mirror.
int dtype1_position(DescEntry entry);

/// A descriptor in PBLAS's normalised (DTYPE-2) form. Values are stored as the caller gave them,
/// unchecked: see check_matrix(). Global sizes are counts; RSRC/CSRC are 0-based process
/// coordinates or -1 (replicated); LLD is the local leading dimension in elements.
struct Descriptor {
  int64_t dtype = dtype_block_cyclic_2d_inb;  ///< type given by the caller (1 or 2; else bad)
  int64_t ctxt = 0;                           ///< BLACS context handle
  int64_t m = 0;                              ///< global rows (M_)
  int64_t n = 0;                              ///< global columns (N_)
  int64_t imb = 1;                            ///< rows of the first row block (IMB_)
  int64_t inb = 1;                            ///< columns of the first column block (INB_)
  int64_t mb = 1;                             ///< rows of every later row block (MB_)
  int64_t nb = 1;                             ///< columns of every later column block (NB_)
  int64_t rsrc = 0;                           ///< process row holding the first row (RSRC_)
  int64_t csrc = 0;                           ///< process column holding the first column
  int64_t lld = 1;                            ///< local leading dimension (LLD_)
};

bool operator==(const Descriptor& a, const Descriptor& b);
inline bool operator!=(const Descriptor& a, const Descriptor& b) { return !(a == b); }

/// A DTYPE-1 descriptor, arguments in DESCINIT's order (no checks; IMB = MB, INB = NB).
Descriptor make_descriptor(int64_t m, int64_t n, int64_t mb, int64_t nb, int64_t rsrc, int64_t csrc,
                           int64_t ctxt, int64_t lld);

/// A DTYPE-2 descriptor, arguments in PB_Cdescset's order (no checks).
Descriptor make_descriptor_inb(int64_t m, int64_t n, int64_t imb, int64_t inb, int64_t mb,
                               int64_t nb, int64_t rsrc, int64_t csrc, int64_t ctxt, int64_t lld);

/// Reads a Fortran descriptor array the way PB_CargFtoC does: 9 entries if desc[0] is 1,
/// 11 if it is 2, and only desc[0] and desc[1] otherwise (the rest then take the defaults
/// M = N = 0, block sizes 1, sources 0, LLD = 1, and check_matrix() reports entry 1).
/// Overloads for 32-bit (LP64) and 64-bit (ILP64) ScaLAPACK integers.
Descriptor descriptor_from_fortran(const int32_t* desc);
Descriptor descriptor_from_fortran(const int64_t* desc);

/// The 11 entries of the DTYPE-2 layout (DTYPE written as 2), as PBLAS holds them internally.
std::array<int64_t, dtype2_length> to_dtype2_array(const Descriptor& desc);

/// The 9 entries of the DTYPE-1 layout, or nullopt if the descriptor has first blocks that
/// differ from MB/NB and so cannot be written as DTYPE 1.
std::optional<std::array<int64_t, dtype1_length>> to_dtype1_array(const Descriptor& desc);

/// Row distribution of the matrix over `grid`'s process rows. Requires a checked descriptor.
BlockCyclic row_distribution(const Descriptor& desc, const ProcessGrid& grid);
/// Column distribution of the matrix over `grid`'s process columns. Requires a checked one.
BlockCyclic col_distribution(const Descriptor& desc, const ProcessGrid& grid);

/// Rows (Lr(1, M_)) of the local array on process row `prow`.
int64_t local_rows(const Descriptor& desc, const ProcessGrid& grid, int prow);
/// Columns (Lc(1, N_)) of the local array on process column `pcol`.
int64_t local_cols(const Descriptor& desc, const ProcessGrid& grid, int pcol);

/// Smallest legal LLD on the process at `me`, PBLAS's rule: MAX(1, local rows) where the
/// process holds at least one column of the matrix, 1 where it holds none.
int64_t required_lld(const Descriptor& desc, const ProcessGrid& grid, GridCoord me);

}  // namespace relay::layout
