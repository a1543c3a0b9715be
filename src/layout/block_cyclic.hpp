// One dimension of a block-cyclic distribution: which process owns a global index, where it
// sits in that process's local array, and how many indices each process holds.
//
// The dimension is cut into blocks: block 0 holds `first_block` indices (IMB or INB of a PBLAS
// DTYPE-2 descriptor; equal to `block` for DTYPE 1), every later block holds `block` indices
// (MB or NB). Block b belongs to process coordinate (source + b) mod nprocs, and each process
// stores its blocks one after another in increasing global order. These are the maps of
// ScaLAPACK's TOOLS (NUMROC, INDXG2P, INDXG2L, INDXL2G) and of PBLAS's first-block variants
// (PB_Cnumroc, PB_Cindxg2p, the row half of PB_Cinfog2l), written once, in O(1), on 0-based
// indices. `fortran::` at the end gives the 1-based TOOLS signatures for the ScaLAPACK
// boundary and for checking against the Fortran definitions.
//
// source = -1 means "replicated", as PBLAS allows in RSRC/CSRC: every process holds every
// index and local index = global index. Pure index math: no MPI in here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace relay::layout {

/// One block-cyclically distributed dimension (rows or columns of a matrix).
struct BlockCyclic {
  int64_t first_block = 1;  ///< size of block 0 (IMB / INB), >= 1
  int64_t block = 1;        ///< size of every later block (MB / NB), >= 1
  int source = 0;           ///< process coordinate owning block 0 (RSRC / CSRC); -1: replicated
  int nprocs = 1;           ///< processes along this dimension (NPROW / NPCOL), >= 1
};

inline bool operator==(const BlockCyclic& a, const BlockCyclic& b) {
  return a.first_block == b.first_block && a.block == b.block && a.source == b.source &&
         a.nprocs == b.nprocs;
}
inline bool operator!=(const BlockCyclic& a, const BlockCyclic& b) { return !(a == b); }

/// Why `dim` is unusable, naming the field and value (a block size below 1, nprocs below 1,
/// source outside [-1, nprocs)); nullopt if valid. The functions below assume a valid `dim`,
/// global indices >= 0, local indices >= 0 and process coordinates in [0, nprocs).
std::optional<std::string> block_cyclic_error(const BlockCyclic& dim);

/// True if the data is replicated (source = -1) rather than distributed.
inline bool is_replicated(const BlockCyclic& dim) { return dim.source == -1; }

/// Index (0-based) of the block holding 0-based global index `g`: 0 for g < first_block.
int64_t block_of(const BlockCyclic& dim, int64_t g);

/// First 0-based global index after the block that holds `g` (its exclusive end).
int64_t block_end(const BlockCyclic& dim, int64_t g);

/// Process coordinate owning 0-based global index `g`, or -1 when replicated.
/// INDXG2P for first_block = block; PB_Cindxg2p in general.
int owner(const BlockCyclic& dim, int64_t g);

/// 0-based local index of global index `g` on its owner (on every process when replicated).
/// INDXG2L (0-based) for first_block = block.
int64_t to_local(const BlockCyclic& dim, int64_t g);

/// 0-based global index of 0-based local index `l` of process `proc` (`l` in any range: the
/// local array is thought of as unbounded). INDXL2G (0-based) for first_block = block.
int64_t to_global(const BlockCyclic& dim, int proc, int64_t l);

/// How many of the global indices [0, g) process `proc` holds; equivalently the 0-based local
/// index on `proc` of the first index >= g that it holds. This is II / JJ of PB_Cinfog2l: the
/// local offset at which a submatrix starting at global index `g` begins on `proc`.
int64_t local_start(const BlockCyclic& dim, int proc, int64_t g);

/// How many of the global indices [0, n) process `proc` holds. NUMROC(n, ...) for
/// first_block = block.
int64_t local_count(const BlockCyclic& dim, int proc, int64_t n);

/// How many of the global indices [start, start + n) process `proc` holds (n >= 0).
/// PB_Cnumroc(n, start, first_block, block, proc, source, nprocs).
int64_t local_count(const BlockCyclic& dim, int proc, int64_t start, int64_t n);

/// The distribution of the global indices [start, ...) renumbered from 0: index s of the result
/// is global index start + s. Its first block is what is left of the block holding `start`
/// (PB_Cfirstnb without the clip to the range length), its source is owner(start), and local
/// indices shift by local_start(dim, p, start) on every process p:
/// to_local(dim, start + s) == local_start(dim, owner(dim, start + s), start) + to_local(sub, s).
BlockCyclic subrange(const BlockCyclic& dim, int64_t start);

/// The ScaLAPACK TOOLS functions with their Fortran argument lists and 1-based indices, for
/// the ScaLAPACK boundary. Block size `nb` for every block (DTYPE 1). Same preconditions as
/// the Fortran originals (isrcproc in [0, nprocs)); they agree with them on that domain.
namespace fortran {

/// NUMROC: rows/columns of an n-long dimension held by process `iproc`.
int64_t numroc(int64_t n, int64_t nb, int iproc, int isrcproc, int nprocs);
/// INDXG2P: process owning 1-based global index `indxglob`. `iproc` is unused, as in Fortran.
int indxg2p(int64_t indxglob, int64_t nb, int iproc, int isrcproc, int nprocs);
/// INDXG2L: 1-based local index of 1-based global index `indxglob` on its owner. `iproc` and
/// `isrcproc` are unused, as in Fortran.
int64_t indxg2l(int64_t indxglob, int64_t nb, int iproc, int isrcproc, int nprocs);
/// INDXL2G: 1-based global index of 1-based local index `indxloc` on process `iproc`.
int64_t indxl2g(int64_t indxloc, int64_t nb, int iproc, int isrcproc, int nprocs);

}  // namespace fortran

}  // namespace relay::layout
