/* The C API, compiled by a C compiler: a broadcast of ints with every algorithm, an error
 * status with its message, a nonblocking broadcast, and the reductions and gathers (an
 * allreduce with every algorithm, a nonblocking reduce, an allgather, a reduce_scatter_block,
 * an op error), a gather, a nonblocking scatter, an alltoall with each schedule, a barrier and
 * a nonblocking barrier, a gather error, overlapped collectives, and options structs of
 * other sizes (struct_size). Exit status 0 on every
 * rank iff all checks passed on every rank. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "relay/relay.h"

int main(int argc, char** argv) {
  int rank, size, failures = 0, total = 0, i;
  int data[257];
  relay_bcast_options_t options;
  relay_request_t request = RELAY_REQUEST_NULL;
  relay_bcast_algorithm_t algorithms[] = {RELAY_BCAST_AUTO,
                                          RELAY_BCAST_LINEAR,
                                          RELAY_BCAST_CHAIN,
                                          RELAY_BCAST_BINARY,
                                          RELAY_BCAST_BINOMIAL,
                                          RELAY_BCAST_PIPELINE,
                                          RELAY_BCAST_SCATTER_ALLGATHER,
                                          RELAY_BCAST_KARY,
                                          RELAY_BCAST_MPI};
  size_t a;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (a = 0; a < sizeof algorithms / sizeof algorithms[0]; ++a) {
    relay_bcast_options_init(&options);
    options.algorithm = algorithms[a];
    options.segment_bytes = 40;
    for (i = 0; i < 257; ++i) data[i] = rank == size - 1 ? i * 3 : -1;
    if (relay_bcast(data, 257, MPI_INT, size - 1, MPI_COMM_WORLD, &options) != RELAY_SUCCESS) {
      fprintf(stderr, "rank %d: %s: %s\n", rank, relay_bcast_algorithm_name(algorithms[a]),
              relay_last_error());
      ++failures;
    }
    for (i = 0; i < 257; ++i) {
      if (data[i] != i * 3) {
        fprintf(stderr, "rank %d: %s: data[%d] = %d\n", rank,
                relay_bcast_algorithm_name(algorithms[a]), i, data[i]);
        ++failures;
        break;
      }
    }
  }
  if (relay_bcast(data, 4, MPI_INT, size, MPI_COMM_WORLD, NULL) != RELAY_ERR_ROOT ||
      strstr(relay_last_error(), "argument 4") == NULL) {
    fprintf(stderr, "rank %d: bad root not reported: %s\n", rank, relay_last_error());
    ++failures;
  }
  for (i = 0; i < 257; ++i) data[i] = rank == 0 ? 9 : 0;
  if (relay_ibcast(data, 257, MPI_INT, 0, MPI_COMM_WORLD, NULL, &request) != RELAY_SUCCESS ||
      relay_wait(&request) != RELAY_SUCCESS || request != RELAY_REQUEST_NULL || data[256] != 9) {
    fprintf(stderr, "rank %d: ibcast failed: %s\n", rank, relay_last_error());
    ++failures;
  }
  {
    relay_coll_options_t copt;
    int allreduce_algorithms[] = {
        RELAY_ALLREDUCE_AUTO, RELAY_ALLREDUCE_REDUCE_BCAST, RELAY_ALLREDUCE_RECURSIVE_DOUBLING,
        RELAY_ALLREDUCE_RING, RELAY_ALLREDUCE_RABENSEIFNER, RELAY_ALLREDUCE_MPI};
    int in[257], out[257], gathered[257 * 8], block[2 * 8], mine[2];
    for (a = 0; a < sizeof allreduce_algorithms / sizeof allreduce_algorithms[0]; ++a) {
      relay_coll_options_init(&copt);
      copt.algorithm = allreduce_algorithms[a];
      copt.segment_bytes = 40;
      for (i = 0; i < 257; ++i) in[i] = rank + i;
      if (relay_allreduce(in, out, 257, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &copt) != RELAY_SUCCESS ||
          out[256] != size * (size - 1) / 2 + 256 * size) {
        fprintf(stderr, "rank %d: allreduce %s: %s\n", rank,
                relay_coll_algorithm_name(RELAY_COLL_ALLREDUCE, allreduce_algorithms[a]),
                relay_last_error());
        ++failures;
      }
    }
    out[0] = -1;
    if (relay_ireduce(in, out, 257, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, NULL, &request) !=
            RELAY_SUCCESS ||
        relay_wait(&request) != RELAY_SUCCESS || (rank == 0 && out[0] != size - 1)) {
      fprintf(stderr, "rank %d: ireduce failed: %s\n", rank, relay_last_error());
      ++failures;
    }
    if (size <= 8) {
      mine[0] = rank;
      mine[1] = -rank;
      for (i = 0; i < 2 * size; ++i) block[i] = i / 2;
      if (relay_allgather(mine, gathered, 2, MPI_INT, MPI_COMM_WORLD, NULL) != RELAY_SUCCESS ||
          gathered[2 * (size - 1) + 1] != -(size - 1) ||
          relay_reduce_scatter_block(block, mine, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) !=
              RELAY_SUCCESS ||
          mine[1] != rank * size) {
        fprintf(stderr, "rank %d: allgather/reduce_scatter_block failed: %s\n", rank,
                relay_last_error());
        ++failures;
      }
    }
    if (relay_allreduce(in, out, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, NULL) != RELAY_ERR_OP ||
        strstr(relay_last_error(), "argument 5 (op)") == NULL) {
      fprintf(stderr, "rank %d: null op not reported: %s\n", rank, relay_last_error());
      ++failures;
    }
  }
  if (size <= 8) {
    relay_coll_options_t copt;
    int mine[3], all[3 * 8], part[3], a2a_in[2 * 8], a2a_out[2 * 8], q, ok = 1;
    int a2a_algorithms[] = {RELAY_ALLTOALL_LINEAR, RELAY_ALLTOALL_BRUCK};
    for (i = 0; i < 3; ++i) mine[i] = rank * 10 + i;
    for (i = 0; i < 3 * size; ++i) all[i] = -1;
    if (relay_gather(mine, all, 3, MPI_INT, size - 1, MPI_COMM_WORLD, NULL) != RELAY_SUCCESS)
      ok = 0;
    for (i = 0; rank == size - 1 && i < 3 * size; ++i) ok = ok && all[i] == (i / 3) * 10 + i % 3;
    for (i = 0; i < 3 * size; ++i) all[i] = 100 + i;
    if (relay_iscatter(all, part, 3, MPI_INT, 0, MPI_COMM_WORLD, NULL, &request) != RELAY_SUCCESS ||
        relay_wait(&request) != RELAY_SUCCESS) {
      ok = 0;
    }
    for (i = 0; i < 3; ++i) ok = ok && part[i] == 100 + rank * 3 + i;
    for (a = 0; a < 2; ++a) {
      relay_coll_options_init(&copt);
      copt.algorithm = a2a_algorithms[a];
      for (q = 0; q < size; ++q) {
        a2a_out[2 * q] = rank;
        a2a_out[2 * q + 1] = q;
        a2a_in[2 * q] = a2a_in[2 * q + 1] = -1;
      }
      if (relay_alltoall(a2a_out, a2a_in, 2, MPI_INT, MPI_COMM_WORLD, &copt) != RELAY_SUCCESS)
        ok = 0;
      for (q = 0; q < size; ++q) ok = ok && a2a_in[2 * q] == q && a2a_in[2 * q + 1] == rank;
    }
    if (relay_barrier(MPI_COMM_WORLD, NULL) != RELAY_SUCCESS ||
        relay_ibarrier(MPI_COMM_WORLD, NULL, &request) != RELAY_SUCCESS ||
        relay_wait(&request) != RELAY_SUCCESS) {
      ok = 0;
    }
    if (!ok) {
      fprintf(stderr, "rank %d: gather/scatter/alltoall/barrier failed: %s\n", rank,
              relay_last_error());
      ++failures;
    }
    if (relay_gather(mine, all, 3, MPI_INT, -1, MPI_COMM_WORLD, NULL) != RELAY_ERR_ROOT ||
        strstr(relay_last_error(), "argument 5 (root = -1)") == NULL) {
      fprintf(stderr, "rank %d: bad gather root not reported: %s\n", rank, relay_last_error());
      ++failures;
    }
  }
  {
    /* Overlapped collectives (relay/overlap.h, included by relay.h). */
    relay_overlap_part_times_t times[3];
    int in[257], out[257];
    for (i = 0; i < 257; ++i) in[i] = rank + i;
    if (relay_overlap_allreduce(in, out, 257, MPI_INT, MPI_SUM, MPI_COMM_WORLD, 3, NULL, times) !=
            RELAY_SUCCESS ||
        out[256] != size * (size - 1) / 2 + 256 * size || times[0].element_count != 86 ||
        times[2].element_count != 85) {
      fprintf(stderr, "rank %d: overlapped allreduce failed: %s\n", rank, relay_last_error());
      ++failures;
    }
    for (i = 0; i < 257; ++i) data[i] = rank == 0 ? 5 : 0;
    if (relay_overlap_ibcast(data, 257, MPI_INT, 0, MPI_COMM_WORLD, 4, NULL, NULL, &request) !=
            RELAY_SUCCESS ||
        relay_wait(&request) != RELAY_SUCCESS || data[256] != 5) {
      fprintf(stderr, "rank %d: overlapped ibcast failed: %s\n", rank, relay_last_error());
      ++failures;
    }
    if (relay_overlap_bcast(data, 257, MPI_INT, 0, MPI_COMM_WORLD, 0, NULL, NULL) !=
            RELAY_ERR_NDUP ||
        strstr(relay_last_error(), "argument 6 (n_dup = 0)") == NULL) {
      fprintf(stderr, "rank %d: n_dup 0 not reported: %s\n", rank, relay_last_error());
      ++failures;
    }
  }
  {
    /* The options structs across versions (relay.h, "ABI stability"): a struct_size never
     * set is refused on every rank, naming the argument; a newer caller's longer struct is
     * used when its unknown tail is 0 and refused otherwise; the init functions fill exactly
     * the caller's struct_size bytes. */
    struct newer_bcast_options {
      relay_bcast_options_t known;
      long long newer_field;
      unsigned char guard;
    } newer;
    relay_coll_options_t copt;
    relay_bcast_options_init(&options);
    options.struct_size = 0;
    if (relay_bcast(data, 4, MPI_INT, 0, MPI_COMM_WORLD, &options) != RELAY_ERR_OPTIONS ||
        strstr(relay_last_error(), "argument 6 (options->struct_size = 0)") == NULL) {
      fprintf(stderr, "rank %d: struct_size 0 not reported: %s\n", rank, relay_last_error());
      ++failures;
    }
    relay_coll_options_init(&copt);
    copt.struct_size = 1u << 20;
    if (relay_barrier(MPI_COMM_WORLD, &copt) != RELAY_ERR_OPTIONS ||
        strstr(relay_last_error(), "argument 2 (options->struct_size = 1048576)") == NULL) {
      fprintf(stderr, "rank %d: implausible struct_size not reported: %s\n", rank,
              relay_last_error());
      ++failures;
    }
    memset(&newer, 0xff, sizeof newer);
    relay_bcast_options_init_sized(&newer.known, offsetof(struct newer_bcast_options, guard));
    if (newer.known.struct_size != offsetof(struct newer_bcast_options, guard) ||
        newer.newer_field != 0 || newer.guard != 0xff ||
        newer.known.segment_bytes != RELAY_SEGMENT_DEFAULT) {
      fprintf(stderr, "rank %d: relay_bcast_options_init_sized did not fill exactly its size\n",
              rank);
      ++failures;
    }
    for (i = 0; i < 4; ++i) data[i] = rank == 0 ? 7 : 0;
    if (relay_bcast(data, 4, MPI_INT, 0, MPI_COMM_WORLD, &newer.known) != RELAY_SUCCESS ||
        data[3] != 7) {
      fprintf(stderr, "rank %d: a newer struct with a zero tail refused: %s\n", rank,
              relay_last_error());
      ++failures;
    }
    newer.newer_field = 1;
    if (relay_bcast(data, 4, MPI_INT, 0, MPI_COMM_WORLD, &newer.known) != RELAY_ERR_OPTIONS ||
        strstr(relay_last_error(), "sets fields past") == NULL) {
      fprintf(stderr, "rank %d: a newer struct's unknown field not refused: %s\n", rank,
              relay_last_error());
      ++failures;
    }
  }
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s: %d failures over %d ranks (relay %s)\n", total ? "FAILED" : "passed", total, size,
           relay_version());
  MPI_Finalize();
  return total != 0;
}
