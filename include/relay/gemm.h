/* relay: distributed matrix multiplication (the C interface).
 *
 * C = alpha op(A) op(B) + beta C on submatrices of block-cyclically distributed matrices, the
 * operation of ScaLAPACK's p?gemm, with SUMMA-style panel broadcasts run by relay's broadcast
 * family (any algorithm, policy and segment size) and an optional look-ahead that overlaps the
 * broadcast of later panels with the local update of the current one. See docs/gemm.md.
 *
 * Included by relay.h; every call is collective over the grid unless it says otherwise.
 */
#ifndef RELAY_GEMM_H
#define RELAY_GEMM_H

#include "relay/relay.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A process grid: rows x cols processes of an MPI communicator, with its row and column
 *  communicators created once (never per call). Opaque. */
typedef struct relay_grid* relay_grid_t;
#define RELAY_GRID_NULL ((relay_grid_t)0)

/** Creates a rows x cols grid over comm, whose size must be rows * cols. order 'R' (row-major,
 *  BLACS's default: rank r * cols + c sits at (r, c)) or 'C' (column-major). Collective. */
RELAY_API relay_status_t relay_grid_create(MPI_Comm comm, int rows, int cols, char order,
                                           relay_grid_t* grid);
/** Frees a grid and its communicators and sets *grid to RELAY_GRID_NULL. Collective. */
RELAY_API relay_status_t relay_grid_free(relay_grid_t* grid);
/** This process's place in the grid. Not collective. */
RELAY_API relay_status_t relay_grid_info(relay_grid_t grid, int* rows, int* cols, int* my_row,
                                         int* my_col);

/** Layout of a distributed matrix: a ScaLAPACK descriptor without the BLACS context. The local
 *  array of each process is column-major with leading dimension lld. */
typedef struct relay_matrix_desc {
  long long m, n;     /**< global rows and columns */
  long long mb, nb;   /**< row and column block sizes */
  long long imb, inb; /**< first row / column block sizes (PBLAS DTYPE 2); 0 = mb / nb */
  int rsrc, csrc;     /**< process row / column of the first block (-1: replicated) */
  long long lld;      /**< leading dimension of the local array, >= local rows */
} relay_matrix_desc_t;

/** Options of relay_gemm. Initialise with relay_gemm_options_init; NULL means defaults.
 *  RELAY_GEMM_PANEL_WIDTH, RELAY_GEMM_LOOKAHEAD and RELAY_GEMM_PIECES override the fields
 *  below when set; the panel broadcasts also honour the RELAY_BCAST_* variables. Grows as
 *  relay.h's options structs do (see there); the broadcast options are pointed to, not
 *  embedded, so that either struct can grow. */
typedef struct relay_gemm_options {
  size_t struct_size;                 /**< sizeof(relay_gemm_options_t) as the caller was
                                           compiled; set by relay_gemm_options_init */
  const relay_bcast_options_t* bcast; /**< how panels are broadcast (algorithm, policy,
                                           segments); NULL = defaults. Read during the call
                                           only */
  long long panel_width;              /**< k indices per panel step (the local update's depth);
                                           0 = the smallest multiple of the k block size >= 256 */
  int lookahead;                      /**< panels broadcast ahead of the current update; 0 = none */
  int pieces;                         /**< the local update of each panel is cut into this many
                                           pieces, with progress calls between them; 0 = 1 without
                                           look-ahead, 4 with it */
} relay_gemm_options_t;

/** Where the time of one relay_gemm call went on this process, for benchmarks. Never grows
 *  (relay.h: ABI stability). */
typedef struct relay_gemm_stats {
  double total_s;            /**< the whole call */
  double bcast_s;            /**< starting and progressing panel broadcasts, packing panels */
  double compute_s;          /**< local BLAS updates (and the beta scaling) */
  double wait_s;             /**< waiting for panels that had not arrived */
  long long panel_count;     /**< panel steps */
  long long panel_bytes;     /**< panel bytes this process received or sent as a root */
  int aligned_a;             /**< 1 if op(A)'s panels were broadcast from A in place (SUMMA); 0 if
                                  they were redistributed (transposed or misaligned A) */
  int aligned_b;             /**< the same for op(B) */
  long long workspace_bytes; /**< buffers allocated beyond the matrices: (lookahead + 1)
                                  panels of op(A) rows and op(B) columns local to this
                                  process, plus redistribution buffers (docs/gemm.md) */
} relay_gemm_stats_t;

/** Fills the first struct_size bytes of *options with the defaults and sets
 *  options->struct_size. Not collective. Call it through relay_gemm_options_init. */
RELAY_API void relay_gemm_options_init_sized(relay_gemm_options_t* options, size_t struct_size);

/** Fills *options with the defaults (bcast = NULL: the broadcast defaults), recording the size
 *  of the struct this program was compiled with. Not collective. */
static inline void relay_gemm_options_init(relay_gemm_options_t* options) {
  relay_gemm_options_init_sized(options, sizeof *options);
}

/** C = alpha op(A) op(B) + beta C, where op(X) is X ('N'), X^T ('T') or X^H ('C'),
 *  sub(C) = C(ic : ic+m-1, jc : jc+n-1) is m x n, op(sub(A)) is m x k and op(sub(B)) k x n.
 *  Indices ia, ja, ib, jb, ic, jc are 0-based (ScaLAPACK's minus one). datatype is MPI_FLOAT,
 *  MPI_DOUBLE, MPI_C_FLOAT_COMPLEX or MPI_C_DOUBLE_COMPLEX; alpha and beta point to one value
 *  of that type. beta = 0 never reads C; m, n or k = 0 follow BLAS. Arguments are checked as
 *  PBLAS checks them and the ranks agree on the outcome (one small allreduce), so an argument
 *  that is wrong on any rank fails the call on every rank with RELAY_ERR_ARGUMENT; the PBLAS
 *  INFO code (-position, or -(100 * position + descriptor entry), positions of PDGEMM's
 *  argument list) is in *info when info is not NULL. stats may be NULL. */
RELAY_API relay_status_t relay_gemm(char transa, char transb, long long m, long long n, long long k,
                                    MPI_Datatype datatype, const void* alpha, const void* a,
                                    long long ia, long long ja, const relay_matrix_desc_t* desca,
                                    const void* b, long long ib, long long jb,
                                    const relay_matrix_desc_t* descb, const void* beta, void* c,
                                    long long ic, long long jc, const relay_matrix_desc_t* descc,
                                    relay_grid_t grid, const relay_gemm_options_t* options,
                                    int* info, relay_gemm_stats_t* stats);

#ifdef __cplusplus
}
#endif

#endif /* RELAY_GEMM_H */
