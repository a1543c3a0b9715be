/* relay: collectives on MPI point-to-point, for distributed dense linear algebra.
 *
 * The C interface. Every call is collective over its communicator unless it says otherwise,
 * returns a relay_status_t, and leaves a one-line explanation in relay_last_error() when it
 * fails. Invalid arguments are detected on every rank before any message is sent, so a call
 * made with the same bad argument on all ranks returns the same error everywhere and never
 * hangs; with RELAY_CHECK_COLLECTIVE, ranks also agree on errors that only some of them see.
 */
#ifndef RELAY_RELAY_H
#define RELAY_RELAY_H

/* relay needs only MPI's C interface: keep the deprecated MPI C++ bindings out, so that C++
 * programs using relay link with the C MPI library alone. */
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the shared library; everything else in it is hidden. */
#if defined(__GNUC__)
#define RELAY_API __attribute__((visibility("default")))
#else
#define RELAY_API
#endif

#define RELAY_VERSION_MAJOR 0
#define RELAY_VERSION_MINOR 1
#define RELAY_VERSION_PATCH 0

/** Result of every relay call. */
typedef enum relay_status {
  RELAY_SUCCESS = 0,
  RELAY_ERR_BUFFER = 1,    /**< NULL buffer with count > 0 */
  RELAY_ERR_COUNT = 2,     /**< negative count, or a message too large to address */
  RELAY_ERR_DATATYPE = 3,  /**< null or non-contiguous datatype */
  RELAY_ERR_ROOT = 4,      /**< root outside [0, size of communicator) */
  RELAY_ERR_COMM = 5,      /**< null or inter-communicator */
  RELAY_ERR_ALGORITHM = 6, /**< unknown algorithm (number or name) */
  RELAY_ERR_POLICY = 7,    /**< unknown executor policy */
  RELAY_ERR_SEGMENT = 8,   /**< segment size not a whole number of elements */
  RELAY_ERR_FANOUT = 9,    /**< fanout out of range */
  RELAY_ERR_WINDOW = 10,   /**< max_requests out of range */
  RELAY_ERR_OPTIONS = 11,  /**< malformed options or RELAY_* environment variable */
  RELAY_ERR_MISMATCH = 12, /**< ranks passed different arguments (collective check), have
                                different RELAY_* settings or tuning tables (first call on a
                                communicator), or ran different schedules (a receive shorter
                                than this rank's schedule expects: its data is wrong) */
  RELAY_ERR_REQUEST = 13,  /**< invalid request handle */
  RELAY_ERR_MPI = 14,      /**< an MPI call failed (needs MPI_ERRORS_RETURN to be seen) */
  RELAY_ERR_NOMEM = 15,    /**< out of memory */
  RELAY_ERR_INTERNAL = 16, /**< a bug in relay: please report it */
  RELAY_ERR_ARGUMENT = 17, /**< invalid argument of a matrix operation (PBLAS INFO code) */
  RELAY_ERR_TUNING = 18,   /**< a tuning table that cannot be read or does not validate */
  RELAY_ERR_OP = 19,       /**< null MPI_Op, or a non-commutative op given to an algorithm that
                                reorders operands */
  RELAY_ERR_NDUP = 20      /**< n_dup of an overlapped operation outside 1..RELAY_OVERLAP_MAX_DUP
                                (relay/overlap.h) */
} relay_status_t;

/** Broadcast algorithms. Canonical names (relay_bcast_algorithm_name) are used identically in
 *  the API, the command line, JSON results, tests and logs. */
typedef enum relay_bcast_algorithm {
  RELAY_BCAST_AUTO = 0,              /**< "auto": relay chooses (see docs/bcast.md) */
  RELAY_BCAST_LINEAR = 1,            /**< "linear": root sends to every rank */
  RELAY_BCAST_CHAIN = 2,             /**< "chain": fanout chains hanging off the root */
  RELAY_BCAST_BINARY = 3,            /**< "binary": binary tree */
  RELAY_BCAST_BINOMIAL = 4,          /**< "binomial": binomial tree */
  RELAY_BCAST_PIPELINE = 5,          /**< "pipeline": one segmented chain */
  RELAY_BCAST_SCATTER_ALLGATHER = 6, /**< "scatter_allgather": binomial scatter + ring */
  RELAY_BCAST_KARY = 7,              /**< "kary": k-ary tree, k = fanout */
  RELAY_BCAST_MPI = 8                /**< "mpi": the MPI library's own MPI_Bcast */
} relay_bcast_algorithm_t;

/** How the executor runs a schedule. */
typedef enum relay_policy {
  RELAY_POLICY_DEFAULT = 0,    /**< the algorithm's default (nonblocking) */
  RELAY_POLICY_BLOCKING = 1,   /**< "blocking": one operation at a time per rank */
  RELAY_POLICY_NONBLOCKING = 2 /**< "nonblocking": forward segment j while j+1.. arrive */
} relay_policy_t;

/** How arguments are checked before communicating. */
typedef enum relay_check {
  RELAY_CHECK_DEFAULT = 0,   /**< local, unless RELAY_CHECK=collective is set */
  RELAY_CHECK_LOCAL = 1,     /**< each rank checks its own arguments (no extra messages) */
  RELAY_CHECK_COLLECTIVE = 2 /**< ranks also agree (one small allreduce): catches arguments
                                  that differ between ranks, such as a NULL buffer on one rank */
} relay_check_t;

/** segment_bytes value meaning "the algorithm's default segment size". */
#define RELAY_SEGMENT_DEFAULT (-1LL)

/* ABI stability of the options structs (relay_bcast_options_t, relay_coll_options_t,
 * relay_gemm_options_t): each starts with struct_size, which its _init function sets to the
 * sizeof the caller was compiled with. Fields are only ever added at the end, and a field
 * added later means "as before" when 0. So a program built against an older relay.h runs on a
 * newer library (the fields it lacks take their defaults) and one built against a newer relay.h
 * runs on an older library as long as it leaves the newer fields at 0 (else the call fails with
 * RELAY_ERR_OPTIONS: the older library cannot honour them). Always initialise options with
 * their _init function; a struct_size of 0 or one no version has fails with RELAY_ERR_OPTIONS
 * naming the argument. The output structs (relay_gemm_stats_t, relay_overlap_part_times_t)
 * never change: new figures will come in new structs. Details: docs/abi.md. */

/** Options of relay_bcast / relay_ibcast. Initialise with relay_bcast_options_init; a NULL
 *  pointer means all defaults. The environment variables RELAY_BCAST_ALGORITHM,
 *  RELAY_BCAST_POLICY, RELAY_BCAST_SEGMENT_BYTES, RELAY_BCAST_FANOUT and
 *  RELAY_BCAST_MAX_REQUESTS override these fields when set, so an unchanged application can be
 *  switched between algorithms at launch (docs/environment.md lists every variable). */
typedef struct relay_bcast_options {
  size_t struct_size;                /**< sizeof(relay_bcast_options_t) as the caller was
                                          compiled; set by relay_bcast_options_init */
  relay_bcast_algorithm_t algorithm; /**< default RELAY_BCAST_AUTO */
  relay_policy_t policy;             /**< default RELAY_POLICY_DEFAULT */
  long long segment_bytes;           /**< bytes per segment, a whole number of elements;
                                          0 = unsegmented; RELAY_SEGMENT_DEFAULT = default */
  int fanout;                        /**< chains for "chain", k for "kary"; 0 = default */
  int max_requests;                  /**< receives pre-posted and sends in flight per rank,
                                          each; 0 = default (16) */
  relay_check_t check;               /**< default RELAY_CHECK_DEFAULT */
} relay_bcast_options_t;

/** Opaque handle of a nonblocking operation. */
typedef struct relay_request* relay_request_t;
#define RELAY_REQUEST_NULL ((relay_request_t)0)

/** Fills the first struct_size bytes of *options with the defaults and sets
 *  options->struct_size. Not collective. Call it through relay_bcast_options_init. */
RELAY_API void relay_bcast_options_init_sized(relay_bcast_options_t* options, size_t struct_size);

/** Fills *options with the defaults, recording the size of the struct this program was
 *  compiled with. Not collective. */
static inline void relay_bcast_options_init(relay_bcast_options_t* options) {
  relay_bcast_options_init_sized(options, sizeof *options);
}

/** Broadcasts count elements of datatype from root to every rank of comm. */
RELAY_API relay_status_t relay_bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                                     MPI_Comm comm, const relay_bcast_options_t* options);

/** Starts a broadcast; complete it with relay_wait or relay_test. The buffer must not be
 *  touched until then. The root's first sends leave during this call (nonblocking policy), as
 *  MPI_Ibcast's would. Call relay_progress (or relay_test) while computing so that
 *  intermediate ranks keep forwarding segments. */
RELAY_API relay_status_t relay_ibcast(void* buffer, int count, MPI_Datatype datatype, int root,
                                      MPI_Comm comm, const relay_bcast_options_t* options,
                                      relay_request_t* request);

/** Advances *request without blocking. Sets *flag to 1 and frees the request (setting it to
 *  RELAY_REQUEST_NULL) when the operation is complete. A NULL request is complete. */
RELAY_API relay_status_t relay_test(relay_request_t* request, int* flag);

/** Blocks until *request completes, then frees it and sets it to RELAY_REQUEST_NULL. */
RELAY_API relay_status_t relay_wait(relay_request_t* request);

/** Blocks until every one of requests[0 .. count-1] completes, advancing all of them
 *  together, then frees them and sets them to RELAY_REQUEST_NULL (NULL entries are complete).
 *  Waiting for several operations one after the other with relay_wait does not advance the
 *  others meanwhile: a rank that forwards for another broadcast (a chain's or a tree's inner
 *  rank) holds it up, and two ranks waiting in different orders can each wait for the other.
 *  Blocking-policy and overlapped operations are waited for one after the other, as relay_wait
 *  would; if one is in the list, all are. With RELAY_IDLE_SLEEP_US set, every operation is
 *  advanced in turn and the rank sleeps only when none moved. On an error the requests not yet
 *  complete stay valid; the error names the first. */
RELAY_API relay_status_t relay_waitall(int count, relay_request_t* requests);

/** Advances *request without blocking and without freeing it. */
RELAY_API relay_status_t relay_progress(relay_request_t request);

/** relay_progress of each of requests[0..count) (NULL ones are skipped), with one MPI test for
 *  all of them (MPI_Testsome over their messages in flight) instead of one each: what a rank
 *  computing in slices calls between slices with several operations in flight. An operation
 *  with every send complete and every receive posted is not tested (nothing of it is left to
 *  forward: its wait finds it complete). Blocking-policy, paced (RELAY_IDLE_SLEEP_US), `mpi`
 *  and overlapped operations are advanced by their own relay_progress. Frees nothing; on an
 *  error the first is returned. */
RELAY_API relay_status_t relay_progressall(int count, relay_request_t* requests);

/** Writes the configuration relay would run for these arguments (after defaults, environment
 *  and automatic choice) as one line "algorithm=... policy=... segment_bytes=... fanout=...
 *  max_requests=..." into text (at most size bytes, NUL-terminated). Not collective. */
RELAY_API relay_status_t relay_bcast_describe(int count, MPI_Datatype datatype, int root,
                                              MPI_Comm comm, const relay_bcast_options_t* options,
                                              char* text, size_t size);

/* ---- Reductions, gathers and the rest: reduce, allreduce, allgather, reduce_scatter_block,
 *      gather, scatter, alltoall, barrier ------------------------------------------------- */

/** The collectives, for the functions shared between them. relay_collective_name takes every
 *  one; relay_coll_describe and relay_coll_algorithm_* take those of relay_coll_options_t, all
 *  but RELAY_COLL_BCAST (relay_bcast_describe, relay_bcast_algorithm_*). Values never change
 *  (ABI). */
typedef enum relay_collective {
  RELAY_COLL_REDUCE = 1,
  RELAY_COLL_ALLREDUCE = 2,
  RELAY_COLL_ALLGATHER = 3,
  RELAY_COLL_REDUCE_SCATTER_BLOCK = 4,
  RELAY_COLL_GATHER = 5,
  RELAY_COLL_SCATTER = 6,
  RELAY_COLL_ALLTOALL = 7,
  RELAY_COLL_BARRIER = 8,
  RELAY_COLL_ALLGATHERV = 9,
  RELAY_COLL_BCAST = 10
} relay_collective_t;

/** relay_reduce algorithms (docs/collectives.md). */
typedef enum relay_reduce_algorithm {
  RELAY_REDUCE_AUTO = 0,         /**< "auto" */
  RELAY_REDUCE_LINEAR = 1,       /**< "linear": the root combines every vector (rank order) */
  RELAY_REDUCE_CHAIN = 2,        /**< "chain": fanout chains into the root */
  RELAY_REDUCE_PIPELINE = 3,     /**< "pipeline": one segmented chain */
  RELAY_REDUCE_BINARY = 4,       /**< "binary": binary tree (commutative ops) */
  RELAY_REDUCE_BINOMIAL = 5,     /**< "binomial": binomial tree */
  RELAY_REDUCE_RABENSEIFNER = 6, /**< "rabenseifner": recursive halving + gather (commutative) */
  RELAY_REDUCE_MPI = 7           /**< "mpi": MPI_Reduce */
} relay_reduce_algorithm_t;

/** relay_allreduce algorithms. */
typedef enum relay_allreduce_algorithm {
  RELAY_ALLREDUCE_AUTO = 0,               /**< "auto" */
  RELAY_ALLREDUCE_REDUCE_BCAST = 1,       /**< "reduce_bcast": binomial reduce + broadcast */
  RELAY_ALLREDUCE_RECURSIVE_DOUBLING = 2, /**< "recursive_doubling": whole-vector exchanges */
  RELAY_ALLREDUCE_RING = 3,               /**< "ring": reduce-scatter + allgather rings */
  RELAY_ALLREDUCE_RABENSEIFNER = 4,       /**< "rabenseifner": halving + doubling */
  RELAY_ALLREDUCE_MPI = 5                 /**< "mpi": MPI_Allreduce */
} relay_allreduce_algorithm_t;

/** relay_allgather algorithms. */
typedef enum relay_allgather_algorithm {
  RELAY_ALLGATHER_AUTO = 0,               /**< "auto" */
  RELAY_ALLGATHER_RING = 1,               /**< "ring" */
  RELAY_ALLGATHER_RECURSIVE_DOUBLING = 2, /**< "recursive_doubling" (P a power of two, else
                                               bruck runs, logged) */
  RELAY_ALLGATHER_BRUCK = 3,              /**< "bruck" */
  RELAY_ALLGATHER_GATHER_BCAST = 4,       /**< "gather_bcast": binomial gather + broadcast */
  RELAY_ALLGATHER_MPI = 5                 /**< "mpi": MPI_Allgather */
} relay_allgather_algorithm_t;

/** relay_allgatherv algorithms. */
typedef enum relay_allgatherv_algorithm {
  RELAY_ALLGATHERV_AUTO = 0,         /**< "auto" */
  RELAY_ALLGATHERV_RING = 1,         /**< "ring": each step forwards the block received last */
  RELAY_ALLGATHERV_GATHER_BCAST = 2, /**< "gather_bcast": binomial gather + broadcast */
  RELAY_ALLGATHERV_MPI = 3           /**< "mpi": MPI_Allgatherv */
} relay_allgatherv_algorithm_t;

/** relay_reduce_scatter_block algorithms. */
typedef enum relay_reduce_scatter_algorithm {
  RELAY_REDUCE_SCATTER_AUTO = 0,              /**< "auto" */
  RELAY_REDUCE_SCATTER_RING = 1,              /**< "ring" (commutative ops) */
  RELAY_REDUCE_SCATTER_RECURSIVE_HALVING = 2, /**< "recursive_halving" (commutative ops) */
  RELAY_REDUCE_SCATTER_MPI = 3                /**< "mpi": MPI_Reduce_scatter_block */
} relay_reduce_scatter_algorithm_t;

/** relay_gather algorithms. */
typedef enum relay_gather_algorithm {
  RELAY_GATHER_AUTO = 0,     /**< "auto" */
  RELAY_GATHER_LINEAR = 1,   /**< "linear": every rank sends its block to the root */
  RELAY_GATHER_BINOMIAL = 2, /**< "binomial": subtrees' blocks up a binomial tree */
  RELAY_GATHER_MPI = 3       /**< "mpi": MPI_Gather */
} relay_gather_algorithm_t;

/** relay_scatter algorithms. */
typedef enum relay_scatter_algorithm {
  RELAY_SCATTER_AUTO = 0,     /**< "auto" */
  RELAY_SCATTER_LINEAR = 1,   /**< "linear": the root sends every block */
  RELAY_SCATTER_BINOMIAL = 2, /**< "binomial": subtrees' blocks down a binomial tree */
  RELAY_SCATTER_MPI = 3       /**< "mpi": MPI_Scatter */
} relay_scatter_algorithm_t;

/** relay_alltoall algorithms. */
typedef enum relay_alltoall_algorithm {
  RELAY_ALLTOALL_AUTO = 0,   /**< "auto" */
  RELAY_ALLTOALL_LINEAR = 1, /**< "linear": pairwise exchange, P-1 steps */
  RELAY_ALLTOALL_BRUCK = 2,  /**< "bruck": Bruck's ceil(log2 P) rounds, rotated work buffer */
  RELAY_ALLTOALL_MPI = 3     /**< "mpi": MPI_Alltoall */
} relay_alltoall_algorithm_t;

/** relay_barrier algorithms. */
typedef enum relay_barrier_algorithm {
  RELAY_BARRIER_AUTO = 0,          /**< "auto" */
  RELAY_BARRIER_DISSEMINATION = 1, /**< "dissemination": ceil(log2 P) rounds, any P */
  RELAY_BARRIER_BINOMIAL = 2,      /**< "binomial": binomial gather + broadcast */
  RELAY_BARRIER_MPI = 3            /**< "mpi": MPI_Barrier */
} relay_barrier_algorithm_t;

/** Options of the reductions and gathers. Initialise with relay_coll_options_init; NULL means
 *  all defaults. RELAY_<OP>_ALGORITHM, RELAY_<OP>_POLICY, RELAY_<OP>_SEGMENT_BYTES,
 *  RELAY_<OP>_FANOUT and RELAY_<OP>_MAX_REQUESTS (OP = REDUCE, ALLREDUCE, ALLGATHER,
 *  ALLGATHERV, REDUCE_SCATTER_BLOCK, GATHER, SCATTER, ALLTOALL, BARRIER) override the fields
 *  when set. */
typedef struct relay_coll_options {
  size_t struct_size;      /**< sizeof(relay_coll_options_t) as the caller was compiled; set
                                by relay_coll_options_init */
  int algorithm;           /**< the collective's enum value (RELAY_REDUCE_BINOMIAL, ...);
                                0 = auto */
  relay_policy_t policy;   /**< default RELAY_POLICY_DEFAULT (nonblocking) */
  long long segment_bytes; /**< bytes per message, a whole number of elements; 0 = unsegmented;
                                RELAY_SEGMENT_DEFAULT = the algorithm's default */
  int fanout;              /**< chains of reduce "chain"; 0 = default (1) */
  int max_requests;        /**< receives pre-posted and sends in flight per rank; 0 = 16 */
  relay_check_t check;     /**< default RELAY_CHECK_DEFAULT */
} relay_coll_options_t;

/** Fills the first struct_size bytes of *options with the defaults and sets
 *  options->struct_size. Not collective. Call it through relay_coll_options_init. */
RELAY_API void relay_coll_options_init_sized(relay_coll_options_t* options, size_t struct_size);

/** Fills *options with the defaults, recording the size of the struct this program was
 *  compiled with. Not collective. */
static inline void relay_coll_options_init(relay_coll_options_t* options) {
  relay_coll_options_init_sized(options, sizeof *options);
}

/** Reduces count elements from every rank's sendbuf into recvbuf at root with op (any
 *  predefined or user-defined MPI_Op; non-commutative ones keep rank order with linear, chain,
 *  pipeline, binomial and mpi). sendbuf may be MPI_IN_PLACE at the root; recvbuf is only
 *  significant at the root. */
RELAY_API relay_status_t relay_reduce(const void* sendbuf, void* recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                      const relay_coll_options_t* options);
RELAY_API relay_status_t relay_ireduce(const void* sendbuf, void* recvbuf, int count,
                                       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                       const relay_coll_options_t* options,
                                       relay_request_t* request);
/** Reduces count elements over all ranks; every rank gets the result in recvbuf. sendbuf may
 *  be MPI_IN_PLACE. */
RELAY_API relay_status_t relay_allreduce(const void* sendbuf, void* recvbuf, int count,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                         const relay_coll_options_t* options);
RELAY_API relay_status_t relay_iallreduce(const void* sendbuf, void* recvbuf, int count,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          const relay_coll_options_t* options,
                                          relay_request_t* request);
/** Gathers count elements from every rank into recvbuf (size x count elements, rank order)
 *  on every rank. sendbuf may be MPI_IN_PLACE (this rank's block is already in recvbuf). */
RELAY_API relay_status_t relay_allgather(const void* sendbuf, void* recvbuf, int count,
                                         MPI_Datatype datatype, MPI_Comm comm,
                                         const relay_coll_options_t* options);
RELAY_API relay_status_t relay_iallgather(const void* sendbuf, void* recvbuf, int count,
                                          MPI_Datatype datatype, MPI_Comm comm,
                                          const relay_coll_options_t* options,
                                          relay_request_t* request);
/** MPI_Allgatherv: rank r's sendcount elements of sendtype land on every rank at
 *  recvbuf + displs[r] (in extents of recvtype), recvcounts[r] elements of recvtype. Blocks may
 *  be empty, in any order and with gaps (bytes in the gaps are left untouched), but must not
 *  overlap (RELAY_ERR_BUFFER naming displs). recvcounts must be the same on every rank;
 *  displs may differ. sendbuf may be MPI_IN_PLACE (this rank's block is already at
 *  displs[rank]; sendcount and sendtype are then ignored). relay's schedules (ring,
 *  gather_bcast) need contiguous sendtype and recvtype (RELAY_ERR_DATATYPE otherwise: use mpi)
 *  and sendcount x size(sendtype) == recvcounts[rank] x size(recvtype) (RELAY_ERR_COUNT); the
 *  two types may differ (MPI's type-signature rule is the caller's, as with MPI). mpi passes
 *  everything to MPI_Allgatherv. recvcounts and displs are copied: they may be reused as soon
 *  as relay_iallgatherv returns. */
RELAY_API relay_status_t relay_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, const int recvcounts[], const int displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          const relay_coll_options_t* options);
RELAY_API relay_status_t relay_iallgatherv(const void* sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void* recvbuf,
                                           const int recvcounts[], const int displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm,
                                           const relay_coll_options_t* options,
                                           relay_request_t* request);
/** Reduces size x recvcount elements of sendbuf over all ranks; rank r gets block r
 *  (recvcount elements) in recvbuf. sendbuf may be MPI_IN_PLACE (input in recvbuf, which then
 *  holds size x recvcount elements). */
RELAY_API relay_status_t relay_reduce_scatter_block(const void* sendbuf, void* recvbuf,
                                                    int recvcount, MPI_Datatype datatype, MPI_Op op,
                                                    MPI_Comm comm,
                                                    const relay_coll_options_t* options);
RELAY_API relay_status_t relay_ireduce_scatter_block(const void* sendbuf, void* recvbuf,
                                                     int recvcount, MPI_Datatype datatype,
                                                     MPI_Op op, MPI_Comm comm,
                                                     const relay_coll_options_t* options,
                                                     relay_request_t* request);

/** Gathers count elements from every rank into recvbuf at root (size x count elements, rank
 *  order; significant at the root only). sendbuf may be MPI_IN_PLACE at the root (its block is
 *  already in recvbuf). One count and datatype serve both sides. */
RELAY_API relay_status_t relay_gather(const void* sendbuf, void* recvbuf, int count,
                                      MPI_Datatype datatype, int root, MPI_Comm comm,
                                      const relay_coll_options_t* options);
RELAY_API relay_status_t relay_igather(const void* sendbuf, void* recvbuf, int count,
                                       MPI_Datatype datatype, int root, MPI_Comm comm,
                                       const relay_coll_options_t* options,
                                       relay_request_t* request);
/** Scatters block r (count elements) of the root's sendbuf (size x count elements, significant
 *  at the root only) to rank r's recvbuf. recvbuf may be MPI_IN_PLACE at the root. */
RELAY_API relay_status_t relay_scatter(const void* sendbuf, void* recvbuf, int count,
                                       MPI_Datatype datatype, int root, MPI_Comm comm,
                                       const relay_coll_options_t* options);
RELAY_API relay_status_t relay_iscatter(const void* sendbuf, void* recvbuf, int count,
                                        MPI_Datatype datatype, int root, MPI_Comm comm,
                                        const relay_coll_options_t* options,
                                        relay_request_t* request);
/** Sends block d (count elements) of sendbuf to rank d, which stores it as block `rank` of its
 *  recvbuf (both size x count elements). sendbuf may be MPI_IN_PLACE. */
RELAY_API relay_status_t relay_alltoall(const void* sendbuf, void* recvbuf, int count,
                                        MPI_Datatype datatype, MPI_Comm comm,
                                        const relay_coll_options_t* options);
RELAY_API relay_status_t relay_ialltoall(const void* sendbuf, void* recvbuf, int count,
                                         MPI_Datatype datatype, MPI_Comm comm,
                                         const relay_coll_options_t* options,
                                         relay_request_t* request);
/** Returns once every rank of comm has entered the barrier. */
RELAY_API relay_status_t relay_barrier(MPI_Comm comm, const relay_coll_options_t* options);
RELAY_API relay_status_t relay_ibarrier(MPI_Comm comm, const relay_coll_options_t* options,
                                        relay_request_t* request);

/** Writes the configuration a call would run (after defaults, environment, automatic choice
 *  and restrictions) as one line, like relay_bcast_describe. count as in the call (per rank
 *  for the block collectives; for allgatherv every rank's block is taken to be count elements,
 *  placed one after the other); op is ignored without one, root except for reduce, gather and
 *  scatter. Not collective. */
RELAY_API relay_status_t relay_coll_describe(relay_collective_t collective, int count,
                                             MPI_Datatype datatype, MPI_Op op, int root,
                                             MPI_Comm comm, const relay_coll_options_t* options,
                                             char* text, size_t size);
/** Canonical name of a collective ("reduce", ...) or NULL. */
RELAY_API const char* relay_collective_name(relay_collective_t collective);
/** Canonical name of one of the collective's algorithms ("auto" for 0), or NULL. */
RELAY_API const char* relay_coll_algorithm_name(relay_collective_t collective, int algorithm);
/** Parses an algorithm name of the collective; RELAY_ERR_ALGORITHM if unknown. */
RELAY_API relay_status_t relay_coll_algorithm_from_name(relay_collective_t collective,
                                                        const char* name, int* algorithm);

/** Canonical name of an algorithm, or NULL if it is not one. */
RELAY_API const char* relay_bcast_algorithm_name(relay_bcast_algorithm_t algorithm);
/** Parses a canonical name; RELAY_ERR_ALGORITHM if unknown. */
RELAY_API relay_status_t relay_bcast_algorithm_from_name(const char* name,
                                                         relay_bcast_algorithm_t* algorithm);
/** Canonical name of a policy ("default", "blocking", "nonblocking"), or NULL. */
RELAY_API const char* relay_policy_name(relay_policy_t policy);
/** Parses a policy name; RELAY_ERR_POLICY if unknown. */
RELAY_API relay_status_t relay_policy_from_name(const char* name, relay_policy_t* policy);

/** Loads a decision table written by `relay tune` (JSON, schema relay.tuning/1) and makes it
 *  the one `auto` consults, replacing any loaded before; path NULL unloads it. Not collective:
 *  call it on every rank with the same file. On error (unreadable file, invalid JSON, a field
 *  of the wrong type or range, overlapping rules, unknown algorithm) returns RELAY_ERR_TUNING,
 *  relay_last_error() names the file, rule and field, and the previous table stays active.
 *  The environment variable RELAY_TUNING_FILE loads a table at the first `auto` call; if it
 *  is bad, calls that use `auto` fail with RELAY_ERR_TUNING, or, with
 *  RELAY_TUNING_ON_ERROR=defaults, warn once on stderr and choose by the model instead. */
RELAY_API relay_status_t relay_tuning_load(const char* path);

/** Short description of a status code. */
RELAY_API const char* relay_status_string(relay_status_t status);
/** Details of the last failed call made by this thread ("" if none): which argument, which
 *  value, why. */
RELAY_API const char* relay_last_error(void);
/** Version string "major.minor.patch". */
RELAY_API const char* relay_version(void);
/** What this library was built with and runs on, one item per line: relay's version, the MPI
 *  library it was compiled for and the one this process runs (MPI_Get_library_version's first
 *  line, callable before MPI_Init), and the BLAS it was linked with. A relay built for one MPI
 *  family refuses to run under the other (RELAY_ERR_MPI, naming both, at its first call). */
RELAY_API const char* relay_build_info(void);

#ifdef __cplusplus
}
#endif

/* Overlapped collectives (huang2018's nonblocking overlap); also usable standalone. */
#include "relay/overlap.h"

#endif /* RELAY_RELAY_H */
