/* The C API, compiled by a C compiler: a broadcast of ints with every algorithm, an error
 * status with its message, and a nonblocking broadcast. Exit status 0 on every rank iff all
 * checks passed on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "relay/relay.h"

int main(int argc, char** argv) {
  int rank, size, failures = 0, total = 0, i;
  int data[257];
  relay_bcast_options_t options;
  relay_request_t request = RELAY_REQUEST_NULL;
  relay_bcast_algorithm_t algorithms[] = {RELAY_BCAST_AUTO, RELAY_BCAST_LINEAR, RELAY_BCAST_CHAIN,
                                          RELAY_BCAST_BINARY, RELAY_BCAST_BINOMIAL,
                                          RELAY_BCAST_PIPELINE, RELAY_BCAST_SCATTER_ALLGATHER,
                                          RELAY_BCAST_KARY, RELAY_BCAST_MPI};
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
      fprintf(stderr, "rank %d: %s: %s\n", rank, relay_bcast_algorithm_name(algorithms[a]), relay_last_error());
      ++failures;
    }
    for (i = 0; i < 257; ++i) {
      if (data[i] != i * 3) {
        fprintf(stderr, "rank %d: %s: data[%d] = %d\n", rank, relay_bcast_algorithm_name(algorithms[a]), i, data[i]);
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
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures over %d ranks (relay %s)\n", total ? "FAILED" : "passed", total, size, relay_version());
  MPI_Finalize();
  return total != 0;
}
