/* relay: overlapping communications with communications (huang2018, "nonblocking overlap").
 *
 * An overlapped collective splits its buffer of count elements into n_dup contiguous parts
 * (whole elements; part c has count / n_dup elements, plus one for c < count % n_dup, so parts
 * differ by at most one element and counts below n_dup leave some parts empty) and runs part
 * c's collective on duplicate c of the communicator, all n_dup of them in flight at once, so
 * that one part's data transfer overlaps another's synchronisation and reduction work.
 *
 * - Duplicate c of a communicator is made once, by the first overlapped call that needs it
 *   (collective, like MPI_Comm_dup), cached on the communicator as an MPI attribute and freed
 *   with it. relay_overlap_prepare makes them up front.
 * - The parts are relay's nonblocking collectives with the options given: relay's schedules
 *   (any algorithm, or auto) or, with algorithm `mpi`, the MPI library's MPI_Ibcast /
 *   MPI_Ireduce / MPI_Iallreduce.
 * - The chained form relay_overlap_reduce_bcast is huang2018's Algorithm 2: part c is reduced
 *   to the root of its reduce communicator (a process-grid row) and broadcast down a second
 *   communicator (a column) as soon as its reduction completes, while part c+1 still reduces.
 * - n_dup = 1 in a blocking call is exactly the non-overlapped code path: one blocking call of
 *   the underlying collective (relay_bcast, relay_reduce, relay_allreduce, or relay_reduce
 *   followed by relay_bcast) on the caller's communicators. Nonblocking calls always run
 *   their parts on the duplicates, n_dup = 1 included.
 * - Nonblocking forms return a relay_request_t completed by relay_test / relay_wait /
 *   relay_progress like any other. Overlapped operations on the same communicators may be in
 *   flight at once: every operation started on a duplicate is started in the order the calls
 *   were made, on every rank, whichever part completes first.
 * - Invalid arguments (negative count, n_dup outside 1..RELAY_OVERLAP_MAX_DUP, a root outside
 *   the communicator, a NULL buffer, bad options) are found on every rank before any message
 *   is sent; with RELAY_CHECK_COLLECTIVE (or RELAY_CHECK=collective) ranks also agree on
 *   errors only some of them see, and on count, roots and n_dup.
 *
 * docs/overlap.md has the details, the benchmark and the matrix-vector example.
 */
#ifndef RELAY_OVERLAP_H
#define RELAY_OVERLAP_H

#include "relay/relay.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The largest n_dup accepted: each duplicate is an MPI communicator (two, with relay's own
 *  private copy), and MPI has a limited number of them. */
#define RELAY_OVERLAP_MAX_DUP 64

/** When one part of an overlapped operation ran, on the calling rank: seconds since the call
 *  began (MPI_Wtime differences), like huang2018's Fig. 6. A part's first operation was posted
 *  between post_start_s and posted_s and seen complete at first_done_s; chained forms post the
 *  second between second_post_start_s and second_posted_s (-1 for single operations); done_s
 *  is when the whole part was seen complete. A blocking n_dup = 1 call is one blocking call:
 *  "posting" lasts until it returns. Empty parts (element_count 0) are never posted: all times 0.
 */
typedef struct relay_overlap_part_times {
  int element_count;          /**< elements in the part */
  double post_start_s;        /**< first operation: posting began */
  double posted_s;            /**< first operation: posting returned */
  double first_done_s;        /**< first operation seen complete */
  double second_post_start_s; /**< chained forms: second operation's posting began, else -1 */
  double second_posted_s;     /**< chained forms: second operation's posting returned, else -1 */
  double done_s;              /**< the part seen complete */
} relay_overlap_part_times_t;

/** Creates duplicates 0..n_dup-1 of comm if they do not exist yet (collective over comm when
 *  it creates any). Optional: the first overlapped call does it otherwise. */
RELAY_API relay_status_t relay_overlap_prepare(MPI_Comm comm, int n_dup);

/** Broadcasts count elements from root in n_dup overlapped parts. options as for relay_bcast
 *  (NULL = defaults) apply to every part; times is NULL or n_dup entries, filled on return. */
RELAY_API relay_status_t relay_overlap_bcast(void* buffer, int count, MPI_Datatype datatype,
                                             int root, MPI_Comm comm, int n_dup,
                                             const relay_bcast_options_t* options,
                                             relay_overlap_part_times_t* times);
/** Starts relay_overlap_bcast; times (if not NULL) is filled when the request completes and
 *  must stay valid until then. */
RELAY_API relay_status_t relay_overlap_ibcast(void* buffer, int count, MPI_Datatype datatype,
                                              int root, MPI_Comm comm, int n_dup,
                                              const relay_bcast_options_t* options,
                                              relay_overlap_part_times_t* times,
                                              relay_request_t* request);

/** Reduces count elements to root in n_dup overlapped parts; arguments as for relay_reduce
 *  (sendbuf may be MPI_IN_PLACE at the root). */
RELAY_API relay_status_t relay_overlap_reduce(const void* sendbuf, void* recvbuf, int count,
                                              MPI_Datatype datatype, MPI_Op op, int root,
                                              MPI_Comm comm, int n_dup,
                                              const relay_coll_options_t* options,
                                              relay_overlap_part_times_t* times);
RELAY_API relay_status_t relay_overlap_ireduce(const void* sendbuf, void* recvbuf, int count,
                                               MPI_Datatype datatype, MPI_Op op, int root,
                                               MPI_Comm comm, int n_dup,
                                               const relay_coll_options_t* options,
                                               relay_overlap_part_times_t* times,
                                               relay_request_t* request);

/** Allreduce of count elements in n_dup overlapped parts; arguments as for relay_allreduce. */
RELAY_API relay_status_t relay_overlap_allreduce(const void* sendbuf, void* recvbuf, int count,
                                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                                 int n_dup, const relay_coll_options_t* options,
                                                 relay_overlap_part_times_t* times);
RELAY_API relay_status_t relay_overlap_iallreduce(const void* sendbuf, void* recvbuf, int count,
                                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                                  int n_dup, const relay_coll_options_t* options,
                                                  relay_overlap_part_times_t* times,
                                                  relay_request_t* request);

/** huang2018 Algorithm 2, chained part by part: reduces sendbuf over reduce_comm into recvbuf
 *  at reduce_root, then broadcasts recvbuf from bcast_root over bcast_comm; part c's broadcast
 *  starts as soon as part c's reduction has completed on bcast_root. Every rank receives the
 *  result in recvbuf. The rank that is bcast_root of its bcast_comm must be reduce_root of its
 *  reduce_comm (it broadcasts what it reduced): for y = A x on a p x p grid, rank (i, j) calls
 *  it with reduce_comm = row i, reduce_root = i, bcast_comm = column j, bcast_root = j, and
 *  gets y_j. sendbuf may be MPI_IN_PLACE at reduce roots (input in recvbuf). */
RELAY_API relay_status_t relay_overlap_reduce_bcast(const void* sendbuf, void* recvbuf, int count,
                                                    MPI_Datatype datatype, MPI_Op op,
                                                    int reduce_root, MPI_Comm reduce_comm,
                                                    int bcast_root, MPI_Comm bcast_comm, int n_dup,
                                                    const relay_coll_options_t* reduce_options,
                                                    const relay_bcast_options_t* bcast_options,
                                                    relay_overlap_part_times_t* times);
RELAY_API relay_status_t relay_overlap_ireduce_bcast(
    const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
    int reduce_root, MPI_Comm reduce_comm, int bcast_root, MPI_Comm bcast_comm, int n_dup,
    const relay_coll_options_t* reduce_options, const relay_bcast_options_t* bcast_options,
    relay_overlap_part_times_t* times, relay_request_t* request);

#ifdef __cplusplus
}
#endif

#endif /* RELAY_OVERLAP_H */
