/* Built with `mpicc $(pkg-config --cflags --libs relay)`, with the plain C compiler (relay.pc
 * requires its MPI's module) and as a C-only CMake project: the package is usable from C. */
#include <relay/relay.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, value;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  value = rank == 0 ? 42 : 0;
  if (relay_bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL) != RELAY_SUCCESS || value != 42) {
    fprintf(stderr, "rank %d: %s\n", rank, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("pkg-config consumer: ok\n");
  MPI_Finalize();
  return 0;
}
