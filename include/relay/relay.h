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
  RELAY_ERR_MISMATCH = 12, /**< ranks passed different arguments (collective check) */
  RELAY_ERR_REQUEST = 13,  /**< invalid request handle */
  RELAY_ERR_MPI = 14,      /**< an MPI call failed (needs MPI_ERRORS_RETURN to be seen) */
  RELAY_ERR_NOMEM = 15,    /**< out of memory */
  RELAY_ERR_INTERNAL = 16, /**< a bug in relay: please report it */
  RELAY_ERR_ARGUMENT = 17, /**< invalid argument of a matrix operation (PBLAS INFO code) */
  RELAY_ERR_TUNING = 18    /**< a tuning table that cannot be read or does not validate */
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

/** Options of relay_bcast / relay_ibcast. Initialise with relay_bcast_options_init; a NULL
 *  pointer means all defaults. The environment variables RELAY_BCAST_ALGORITHM,
 *  RELAY_BCAST_POLICY, RELAY_BCAST_SEGMENT_BYTES, RELAY_BCAST_FANOUT and
 *  RELAY_BCAST_MAX_REQUESTS override these fields when set, so an unchanged application can be
 *  switched between algorithms at launch. */
typedef struct relay_bcast_options {
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

/** Fills *options with the defaults. Not collective. */
RELAY_API void relay_bcast_options_init(relay_bcast_options_t* options);

/** Broadcasts count elements of datatype from root to every rank of comm. */
RELAY_API relay_status_t relay_bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, const relay_bcast_options_t* options);

/** Starts a broadcast; complete it with relay_wait or relay_test. The buffer must not be
 *  touched until then. Call relay_progress (or relay_test) while computing so that
 *  intermediate ranks keep forwarding segments. */
RELAY_API relay_status_t relay_ibcast(void* buffer, int count, MPI_Datatype datatype, int root,
                            MPI_Comm comm, const relay_bcast_options_t* options,
                            relay_request_t* request);

/** Advances *request without blocking. Sets *flag to 1 and frees the request (setting it to
 *  RELAY_REQUEST_NULL) when the operation is complete. A NULL request is complete. */
RELAY_API relay_status_t relay_test(relay_request_t* request, int* flag);

/** Blocks until *request completes, then frees it and sets it to RELAY_REQUEST_NULL. */
RELAY_API relay_status_t relay_wait(relay_request_t* request);

/** Advances *request without blocking and without freeing it. */
RELAY_API relay_status_t relay_progress(relay_request_t request);

/** Writes the configuration relay would run for these arguments (after defaults, environment
 *  and automatic choice) as one line "algorithm=... policy=... segment_bytes=... fanout=...
 *  max_requests=..." into text (at most size bytes, NUL-terminated). Not collective. */
RELAY_API relay_status_t relay_bcast_describe(int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                    const relay_bcast_options_t* options, char* text,
                                    size_t size);

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

#ifdef __cplusplus
}
#endif

#endif /* RELAY_RELAY_H */
