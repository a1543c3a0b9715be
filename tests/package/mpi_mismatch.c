/* Built with one MPI family's compiler against a relay built for the other: relay's first call
 * must fail on every rank with RELAY_ERR_MPI, naming both libraries, instead of crashing inside
 * MPI. Exits 0 when it did. */
#include <relay/relay.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0, value = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const relay_status_t st = relay_bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL);
  printf("rank %d: status %d: %s\n", rank, (int)st,
         st != RELAY_SUCCESS ? relay_last_error() : "ok");
  fflush(stdout);
  MPI_Finalize();
  return st == RELAY_ERR_MPI ? 0 : 1;
}
