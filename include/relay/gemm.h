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

/** The distributed algorithms of relay_gemm (docs/gemm.md). All take and leave the matrices in
 *  the caller's 2D block-cyclic layout. */
typedef enum relay_gemm_algorithm {
  RELAY_GEMM_DEFAULT = 0, /**< "default": RELAY_GEMM_AUTO */
  RELAY_GEMM_2D = 1,      /**< "2d": SUMMA on the whole grid */
  RELAY_GEMM_25D = 2,     /**< "2.5d": the grid as c layers, each running SUMMA over 1/c of k,
                               C summed over the layers (mukunoki2017) */
  RELAY_GEMM_3D = 3,      /**< "3d": c ~ P^(1/3) layers, each gathering its whole k-slab of A
                               and B at once and multiplying in one local call */
  RELAY_GEMM_AUTO = 4     /**< "auto": the one relay's model predicts fastest for the call
                               among 2D, 2.5D with each c <= sqrt(P) the grid splits into, and
                               3D, within the memory limit (docs/gemm.md) */
} relay_gemm_algorithm_t;

/** What a relay_gemm call ran and where the time of its layered phases went, written when
 *  options->report is not NULL. Grows as the options structs do: set struct_size (or call
 *  relay_gemm_report_init); relay writes only the fields that fit in it. */
typedef struct relay_gemm_report {
  size_t struct_size;             /**< sizeof(relay_gemm_report_t) as the caller was compiled */
  int algorithm;                  /**< what ran: RELAY_GEMM_2D, _25D or _3D */
  int layers;                     /**< c: 1 for 2D */
  int layer_rows, layer_cols;     /**< the grid of one layer (the whole grid for 2D) */
  double replicate_s;             /**< moving A's and B's k-slabs into the layers (packing, the
                                       all-to-all inside each fiber, unpacking) */
  double reduce_s;                /**< summing C's partial results over the layers (reduce-scatter
                                       inside each fiber) and adding them into C */
  long long layered_bytes;        /**< the layered buffers on this process: A's and B's slabs and
                                       C's partial sums (0 for 2D); panels are in workspace_bytes */
  double predicted_s;             /**< the model's time for what ran, seconds (0 for an empty
                                       product or a configuration the model cannot cost) */
  int panel_bcast_ranks[2];       /**< processes of op(A)'s panel broadcasts [0] (a process row of
                                       the grid, or of a layer) and of op(B)'s [1] (a column) */
  long long panel_bcast_bytes[2]; /**< the largest panel broadcast of op(A) [0] and of op(B)
                                       [1] this process took part in, bytes; 0 when it took
                                       part in none (a redistributed operand moves by
                                       all-to-all): the sizes relay tune --for-gemm tunes */
  int panel_bcast_algorithm;      /**< the panels' broadcast: the relay_bcast_algorithm_t the
                                       caller or the model chose, or RELAY_BCAST_AUTO when
                                       relay_ibcast resolves each (a tuning table's rule; the closed
                                       form: RELAY_LOG=1 shows each) */
  long long panel_bcast_segment_bytes; /**< its segment size as requested (0: unsegmented,
                                            RELAY_SEGMENT_DEFAULT: relay_ibcast's) */
  int panel_bcast_by_model;            /**< 1 when the model chose it: the options left the panels'
                                            broadcast to auto and no tuning table rule covered them */
  int pieces;                          /**< the local update's pieces per panel it was run with
                                            (options->pieces, or auto's; a piece needs a column) */
} relay_gemm_report_t;

/** Sets report->struct_size; the rest is written by relay_gemm. Not collective. */
static inline void relay_gemm_report_init(relay_gemm_report_t* report) {
  report->struct_size = sizeof *report;
}

/** How a panel step's pieces are broadcast. A panel spans several k blocks; in a block-cyclic
 *  layout a process owns every P-th of them. */
typedef enum relay_gemm_panel_broadcasts {
  RELAY_GEMM_PANELS_DEFAULT = 0,   /**< per owner */
  RELAY_GEMM_PANELS_PER_OWNER = 1, /**< one broadcast per owning process, carrying all of its
                                        blocks of the panel: fewer, longer messages, which a
                                        pipeline needs (tan2014: its fill costs P - 1 segments
                                        per broadcast) */
  RELAY_GEMM_PANELS_PER_BLOCK = 2  /**< one broadcast per k block (as before 2026-11-27) */
} relay_gemm_panel_broadcasts_t;

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
                                           pieces, with progress calls between them (a process
                                           passes the next panels' messages on only there); 0 =
                                           auto: 1 without look-ahead; with it the count the
                                           model predicts fastest, at least 4, weighing the
                                           broadcasts' rounds against the BLAS calls' measured
                                           cost of smaller pieces (4 where the model cannot
                                           cost the call). report->pieces says what ran */
  int algorithm;                      /**< a relay_gemm_algorithm_t; RELAY_GEMM_ALGORITHM overrides.
                                           An algorithm the call cannot use (the grid does not
                                           split into the layers, a replicated descriptor) runs
                                           as 2D; report->algorithm says what ran */
  int layers;                         /**< c of 2.5D (RELAY_GEMM_LAYERS overrides); 0 = the
                                           largest c <= min(4, P^(1/3)) the grid splits into.
                                           3D always takes the c closest to P^(1/3) */
  relay_gemm_report_t* report;        /**< written during the call when not NULL */
  long long memory_limit_bytes;       /**< bytes a 2.5D/3D call may hold per process beyond the
                                           matrices (RELAY_GEMM_MEMORY_LIMIT overrides); 0 = the
                                           node's available memory over its ranks. Over it, the
                                           call fails on every process with RELAY_ERR_NOMEM and
                                           C is untouched */
  int panel_broadcasts;               /**< a relay_gemm_panel_broadcasts_t;
                                           RELAY_GEMM_PANEL_BROADCASTS overrides */
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
                                  process, their staging buffers (one broadcast per owner:
                                  at most as large again) and redistribution buffers
                                  (docs/gemm.md) */
} relay_gemm_stats_t;

/** Fills the first struct_size bytes of *options with the defaults and sets
 *  options->struct_size. Not collective. Call it through relay_gemm_options_init. */
RELAY_API void relay_gemm_options_init_sized(relay_gemm_options_t* options, size_t struct_size);

/** Fills *options with the defaults (bcast = NULL: the broadcast defaults), recording the size
 *  of the struct this program was compiled with. Not collective. */
static inline void relay_gemm_options_init(relay_gemm_options_t* options) {
  relay_gemm_options_init_sized(options, sizeof *options);
}

/** What relay_gemm on `grid` with `options` (NULL: defaults; RELAY_GEMM_* variables apply)
 *  would run, without running it: plan->algorithm (RELAY_GEMM_2D when the grid does not split
 *  into the layers asked for; RELAY_GEMM_AUTO, with layers 0, when the choice is the call's:
 *  it depends on the matrices' sizes), ->layers and ->layer_rows x ->layer_cols. A call whose
 * matrices rule the layers out (a replicated descriptor, an empty product) still runs 2D. Timings
 * and bytes are set to 0. Not collective. */
RELAY_API relay_status_t relay_gemm_plan(relay_grid_t grid, const relay_gemm_options_t* options,
                                         relay_gemm_report_t* plan);

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
