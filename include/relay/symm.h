/* relay: the square and cube of a symmetric matrix on a p x p x p process mesh (huang2018's
 * SymmSquareCube, the kernel of density-matrix purification: D <- 3 D^2 - 2 D^3).
 *
 * The mesh. p^3 processes of a communicator as P(i, j, k), 0 <= i, j, k < p, rank
 * i + p j + p^2 k (so the k = 0 plane is ranks 0 .. p^2 - 1, and a mesh row P(:, j, k) is p
 * consecutive ranks). Its row (P(:, j, k)), column (P(i, :, k)) and fiber (P(i, j, :))
 * communicators are made once, by relay_mesh_create.
 *
 * The matrices. An n x n matrix is cut into p x p blocks: block index i covers rows (and
 * columns) first(i) .. first(i) + size(i) - 1, sizes n / p plus one for the first n % p
 * (relay_mesh_block). Process P(i, j, 0) holds block (i, j) of D, D^2 and D^3, column-major
 * with its own leading dimension; the other planes hold nothing (their pointers are ignored).
 *
 * The algorithms (docs/symm.md):
 * - RELAY_SYMM_BASELINE: huang2018's Algorithm 4: D broadcast down the fibers and, using its
 *   symmetry, along the rows; one local multiply; D^2 reduced along the columns and
 *   broadcast along the rows; a second multiply; D^3 reduced; D^2 and D^3 sent back to the
 *   k = 0 plane. Blocking collectives, one after the other.
 * - RELAY_SYMM_OVERLAP: Algorithm 5, the same steps with every block cut into n_dup parts,
 *   part c's collectives on duplicate c of the communicator, all in flight at once, and
 *   each forwarding step (the row broadcast of what the fiber broadcast delivered, the
 *   broadcast of a reduced D^2, the return of a reduced D^3) started part by part as soon as
 *   its part arrived.
 * - RELAY_SYMM_CANNON: Algorithm 6, 2.5D with Cannon steps, on a q x q x c mesh
 *   (relay_mesh_create_layered; c divides q): D broadcast down the fibers; on each layer
 *   q / c steps of Cannon's algorithm (local multiply, then A shifted along the mesh column
 *   and B along the mesh row by point-to-point messages) from a starting skew of layer k
 *   times q / c; D^2 allreduced along the fibers and used as the next B; q / c more steps;
 *   D^3 reduced to the k = 0 plane. With n_dup > 1 each of the three fiber collectives is cut
 *   into n_dup parts on duplicated communicators, all in flight at once (huang2018's
 *   nonblocking overlap); n_dup = 1 is its blocking reference.
 * The collectives are relay's with the options given (bcast_options, reduce_options), or,
 * with algorithm "mpi", the MPI library's (MPI_Bcast / MPI_Ibcast, MPI_Reduce / MPI_Ireduce):
 * the paper's reference.
 */
#ifndef RELAY_SYMM_H
#define RELAY_SYMM_H

#include "relay/gemm.h"
#include "relay/relay.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A p x p x p process mesh with its row, column and fiber communicators. Opaque. */
typedef struct relay_mesh* relay_mesh_t;
#define RELAY_MESH_NULL ((relay_mesh_t)0)

/** Creates the mesh over comm, whose size must be p^3 (p = 0: the cube root of the size, which
 *  must then be a cube). Collective over comm; every rank fails alike on a bad size
 *  (RELAY_ERR_COUNT, naming the size). */
RELAY_API relay_status_t relay_mesh_create(MPI_Comm comm, int p, relay_mesh_t* mesh);
/** Creates a q x q x c mesh over comm, whose size must be q^2 c (q >= 1, c >= 1): c layers of
 *  q x q processes, rank i + q j + q^2 k, with the same row, column and fiber communicators;
 *  matrices are cut into q x q blocks held by the k = 0 plane. relay_mesh_create(comm, p) is
 *  relay_mesh_create_layered(comm, p, p). Only RELAY_SYMM_CANNON runs on a mesh that is not a
 *  cube, and it needs c to divide q (huang2018 Algorithm 6: q / c Cannon steps per layer).
 *  Collective over comm; every rank fails alike on a bad size (RELAY_ERR_COUNT). */
RELAY_API relay_status_t relay_mesh_create_layered(MPI_Comm comm, int q, int c, relay_mesh_t* mesh);
/** The number of layers c of the mesh (p for a p x p x p mesh). Not collective. */
RELAY_API relay_status_t relay_mesh_layers(relay_mesh_t mesh, int* c);
/** Frees the mesh and its communicators; sets *mesh to RELAY_MESH_NULL. Collective. */
RELAY_API relay_status_t relay_mesh_free(relay_mesh_t* mesh);
/** This process's place: p, and its coordinates (i, j, k). Not collective. */
RELAY_API relay_status_t relay_mesh_info(relay_mesh_t mesh, int* p, int* i, int* j, int* k);
/** Block `index` (0 <= index < p) of an n x n matrix on a p x p x p mesh: its first row (or
 *  column) and its size. Not collective. */
RELAY_API relay_status_t relay_mesh_block(long long n, int p, int index, long long* first,
                                          long long* size);

typedef enum relay_symm_algorithm {
  RELAY_SYMM_DEFAULT = 0,  /**< "default": RELAY_SYMM_OVERLAP */
  RELAY_SYMM_BASELINE = 1, /**< "baseline": huang2018 Algorithm 4, blocking collectives */
  RELAY_SYMM_OVERLAP = 2,  /**< "overlap": Algorithm 5, n_dup parts pipelined and overlapped */
  RELAY_SYMM_CANNON = 3    /**< "cannon": Algorithm 6, 2.5D with Cannon steps (q x q x c mesh) */
} relay_symm_algorithm_t;

/** Options of relay_symm_square_cube. Initialise with relay_symm_options_init (NULL means the
 *  defaults). Grows as relay.h's options structs do. */
typedef struct relay_symm_options {
  size_t struct_size;                    /**< sizeof(relay_symm_options_t) as compiled */
  int algorithm;                         /**< a relay_symm_algorithm_t */
  int n_dup;                             /**< parts of the overlapped algorithm, 1 ..
                                              RELAY_OVERLAP_MAX_DUP (relay/overlap.h); 0 = 4,
                                              huang2018's choice. Ignored by the baseline */
  const relay_bcast_options_t* bcast;    /**< the broadcasts (NULL: relay's defaults) */
  const relay_coll_options_t* reduce;    /**< the reductions (NULL: relay's defaults) */
  int check_symmetry;                    /**< 1 (the default): D must be symmetric to rounding
                                              (checked on a random projection of every block pair,
                                              O(n^2 / p^2) work) or every process fails with
                                              RELAY_ERR_ARGUMENT and nothing is written; 0: D's
                                              lower triangle of blocks is taken as the matrix */
  int parts_in_flight;                   /**< overlap: how many of a stage's parts a process
                                              sends at once, the next started as one completes
                                              (0 = 2; n_dup or more = all at once, as huang2018
                                              posts them). Parts sharing one link share its
                                              bandwidth and complete together; two in flight
                                              let them complete in order, so that forwarding
                                              part c overlaps part c + 1 (docs/symm.md) */
  const relay_coll_options_t* allreduce; /**< cannon: the allreduce of D^2 down the fibers
                                              (NULL: relay's defaults; an algorithm id is
                                              per collective, so it is not `reduce`) */
} relay_symm_options_t;

/** Where one call's time went on this process (seconds, MPI_Wtime). The three communication
 *  phases are those of both algorithms: distribute (D down the fibers and along the rows),
 *  square (D^2 reduced and broadcast) and cube (D^3 reduced, D^2 and D^3 returned). Never grows. */
typedef struct relay_symm_stats {
  double total_s;        /**< the whole call */
  double check_s;        /**< the argument agreement and the symmetry check */
  double distribute_s;   /**< Algorithm 4 steps 1-2 (5: 1-8) */
  double square_s;       /**< steps 4-5 (5: 10-17) */
  double cube_s;         /**< steps 7-9 (5: 19-27) */
  double compute_s;      /**< the two local multiplications, and packing */
  long long bytes_moved; /**< reserved: always 0 in this version (the collectives' own
                              traffic per member is not counted yet) */
} relay_symm_stats_t;

/** Fills the first struct_size bytes of *options with the defaults. Not collective. */
RELAY_API void relay_symm_options_init_sized(relay_symm_options_t* options, size_t struct_size);
static inline void relay_symm_options_init(relay_symm_options_t* options) {
  relay_symm_options_init_sized(options, sizeof *options);
}

/** Parses an algorithm name ("default", "baseline", "overlap"); RELAY_ERR_ALGORITHM if
 *  unknown. Not collective. */
RELAY_API relay_status_t relay_symm_algorithm_from_name(const char* name,
                                                        relay_symm_algorithm_t* algorithm);

/** D^2 and D^3 of the symmetric n x n matrix D on `mesh`. datatype is MPI_DOUBLE or MPI_FLOAT.
 *  On P(i, j, 0): d holds block (i, j) of D (leading dimension ldd >= max(1, its rows)),
 *  d2 and d3 receive blocks (i, j) of D^2 and D^3 (ldd2, ldd3); on the other planes d, d2
 *  and d3 are not touched. Collective over the mesh. Arguments are checked on every process and
 *  the processes agree (a bad argument anywhere fails the call everywhere, with the position of
 *  the first bad argument in the message); a non-symmetric D fails with RELAY_ERR_ARGUMENT.
 *  d2 and d3 are written only on success. stats may be NULL. */
RELAY_API relay_status_t relay_symm_square_cube(relay_mesh_t mesh, long long n,
                                                MPI_Datatype datatype, const void* d, long long ldd,
                                                void* d2, long long ldd2, void* d3, long long ldd3,
                                                const relay_symm_options_t* options,
                                                relay_symm_stats_t* stats);

/** relay_symm_square_cube on matrices in a ScaLAPACK-style 2D block-cyclic layout: D, D^2 and
 *  D^3 are whole n x n matrices distributed over `grid` (relay/gemm.h: descriptors as
 *  relay_gemm's, any block sizes, each matrix its own), redistributed to the mesh's blocks, D^2
 *  and D^3 computed there, and redistributed back. The grid and the mesh must span the same
 *  processes with the same ranks (both made on one communicator; RELAY_ERR_COMM otherwise).
 *  Arguments are checked and agreed as for relay_symm_square_cube (descriptor entries named:
 *  descd is argument 6, descd2 8, descd3 10); d2 and d3 are written only on success. Memory:
 *  the mesh's blocks of the three matrices beyond what relay_symm_square_cube holds, plus
 *  send and receive buffers of this process's share. Collective over the mesh. */
RELAY_API relay_status_t relay_symm_square_cube_2d(relay_mesh_t mesh, relay_grid_t grid,
                                                   long long n, MPI_Datatype datatype,
                                                   const void* d, const relay_matrix_desc_t* descd,
                                                   void* d2, const relay_matrix_desc_t* descd2,
                                                   void* d3, const relay_matrix_desc_t* descd3,
                                                   const relay_symm_options_t* options,
                                                   relay_symm_stats_t* stats);

/* ---- Density-matrix purification --------------------------------------------------------- */

/** One iteration of relay_purify, as the callback sees it: the state of D at the start of the
 *  iteration (before it is updated), measured on D^2 and D^3 of that D. */
typedef struct relay_purify_iteration {
  int iteration;            /**< 0, 1, ... */
  double idempotency;       /**< ||D^2 - D||_F */
  double trace;             /**< tr D */
  double trace_error;       /**< |tr D - electrons| */
  double c;                 /**< Palser-Manolopoulos' c = tr(D^2 - D^3) / tr(D - D^2) */
  double square_cube_s;     /**< this process's relay_symm_square_cube call */
  double update_s;          /**< this process's traces, norms and update of D */
  relay_symm_stats_t stats; /**< the call's split */
} relay_purify_iteration_t;

/** Called on every process after each iteration's measurements (rank 0 of the mesh may print
 *  progress); user is options->user. */
typedef void (*relay_purify_callback_t)(const relay_purify_iteration_t* iteration, void* user);

/** Options of relay_purify. Initialise with relay_purify_options_init (NULL: the defaults). */
typedef struct relay_purify_options {
  size_t struct_size;               /**< sizeof(relay_purify_options_t) as compiled */
  double tolerance;                 /**< converged when ||D^2 - D||_F < tolerance; 0 = 1e-9 */
  int max_iterations;               /**< 0 = 200 */
  const relay_symm_options_t* symm; /**< how D^2 and D^3 are computed (NULL: defaults;
                                         symmetry is checked on H, not on every iterate) */
  relay_purify_callback_t callback; /**< NULL: none */
  void* user;                       /**< passed to the callback */
} relay_purify_options_t;

RELAY_API void relay_purify_options_init_sized(relay_purify_options_t* options, size_t struct_size);
static inline void relay_purify_options_init(relay_purify_options_t* options) {
  relay_purify_options_init_sized(options, sizeof *options);
}

/** Canonical density-matrix purification (Palser and Manolopoulos, Phys. Rev. B 58, 12704,
 *  1998) of the symmetric n x n Hamiltonian H (double precision) for `electrons` occupied
 *  states (0 < electrons < n; one state per electron, no spin factor): D starts as a linear
 *  map of H with trace `electrons` and eigenvalues in [0, 1] (Gershgorin bounds), and each
 *  iteration computes D^2 and D^3 with relay_symm_square_cube and moves D towards the
 *  projector onto H's `electrons` lowest eigenvectors, keeping its trace. On P(i, j, 0), h
 *  holds block (i, j) of H and d receives block (i, j) of the result (layouts as in
 *  relay_symm_square_cube). *iterations (may be NULL) counts the iterations run. Returns
 *  RELAY_SUCCESS when ||D^2 - D||_F fell below the tolerance; when it did not within
 *  max_iterations, or the iteration stalled (a Fermi level inside a degenerate level: no
 *  idempotent D of that trace exists), RELAY_ERR_ARGUMENT with the reason, d holding the last
 *  iterate. Bad arguments fail every process, naming the argument (electrons is argument 5),
 *  before d is written. Collective over the mesh. */
RELAY_API relay_status_t relay_purify(relay_mesh_t mesh, long long n, const double* h,
                                      long long ldh, double electrons, double* d, long long ldd,
                                      const relay_purify_options_t* options, int* iterations);

#ifdef __cplusplus
}
#endif

#endif /* RELAY_SYMM_H */
