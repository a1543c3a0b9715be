#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smpi/smpi.h>
// K round trips of a 1 MiB message from 0 to 1 completed by polling (MPI_Test) or MPI_Wait,
// each followed by a charged computation: host time linear in K unless SimGrid keeps a list
// that grows with the polled completions.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int k = atoi(argv[1]); int poll = strcmp(argv[2], "test") == 0;
  size_t bytes = 1 << 20;
  char* buf = malloc(bytes);
  double t0 = MPI_Wtime();
  for (int i = 0; i < k; ++i) {
    MPI_Request r;
    if (rank == 0) MPI_Isend(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
    else MPI_Irecv(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
    if (poll) { int done = 0; while (!done) { MPI_Test(&r, &done, MPI_STATUS_IGNORE); } }
    else MPI_Wait(&r, MPI_STATUS_IGNORE);
    smpi_execute_flops(1e6);
  }
  if (rank == 0) printf("k=%d %s simulated %.4f s\n", k, argv[2], MPI_Wtime() - t0);
  MPI_Finalize();
  return 0;
}
