/* A broadcast with relay: the same call as MPI_Bcast, plus options.
 *
 *   mpirun -np 4 relay_example_bcast [algorithm] [bytes]
 *
 * Broadcasts `bytes` (default 8 MiB) from rank 0 with relay_bcast -- with the named algorithm
 * ("pipeline", "binomial", ... as `relay algorithms` lists them; default "auto": a tuning table
 * given by RELAY_TUNING_FILE, else relay's closed-form choice) -- prints the configuration relay
 * resolved (relay_bcast_describe), checks that every rank received every byte, and times 10
 * calls. Errors are checked as an application should: every relay call returns a status, and
 * relay_last_error() says why. Exit status 0 iff the data arrived everywhere. */
#include <relay/relay.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    const relay_status_t st_ = (call);                                       \
    if (st_ != RELAY_SUCCESS) {                                              \
      fprintf(stderr, "rank %d: %s: %s\n", rank, #call, relay_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                          \
    }                                                                        \
  } while (0)

int main(int argc, char** argv) {
  int rank = 0, size = 1, bad = 0, any_bad = 0;
  long i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* name = argc > 1 ? argv[1] : "auto";
  const long bytes = argc > 2 ? atol(argv[2]) : 8L << 20;
  if (bytes <= 0 || bytes > 1L << 30) {
    if (rank == 0) fprintf(stderr, "relay_example_bcast: bytes must be in 1..2^30\n");
    MPI_Finalize();
    return 2;
  }

  relay_bcast_options_t options;
  relay_bcast_options_init(&options);
  if (relay_bcast_algorithm_from_name(name, &options.algorithm) != RELAY_SUCCESS) {
    if (rank == 0) fprintf(stderr, "relay_example_bcast: %s\n", relay_last_error());
    MPI_Finalize();
    return 2;
  }

  char* buffer = malloc((size_t)bytes);
  if (buffer == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (i = 0; i < bytes; ++i) buffer[i] = rank == 0 ? (char)(i * 7 + 1) : 0;

  char text[256];
  CHECK(relay_bcast_describe((int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &options, text, sizeof text));
  if (rank == 0) printf("relay_bcast of %ld bytes on %d ranks runs: %s\n", bytes, size, text);

  CHECK(relay_bcast(buffer, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &options));
  for (i = 0; i < bytes; ++i) bad += buffer[i] != (char)(i * 7 + 1);
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (i = 0; i < 10; ++i)
    CHECK(relay_bcast(buffer, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &options));
  double mine = (MPI_Wtime() - start) / 10, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s: %.1f us per broadcast (slowest rank, mean of 10)\n",
           any_bad ? "WRONG DATA" : "every rank received every byte", slowest * 1e6);
  }
  free(buffer);
  MPI_Finalize();
  return any_bad ? 1 : 0;
}
