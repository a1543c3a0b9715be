#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <smpi/smpi.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int k = atoi(argv[1]);
  char b = 0;
  if (rank == 0) {
    MPI_Request r; MPI_Irecv(&b, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
    double t0 = MPI_Wtime(); int idx, flag = 0;
    for (int i = 0; i < k; ++i) MPI_Testany(1, &r, &idx, &flag, MPI_STATUS_IGNORE);
    double t1 = MPI_Wtime();
    for (int i = 0; i < k; ++i) { int f; MPI_Test(&r, &f, MPI_STATUS_IGNORE); }
    printf("%d testany: %.3e s; %d test: %.3e s (flag %d)\n", k, t1 - t0, k, MPI_Wtime() - t1, flag);
    MPI_Send(&b, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&b, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&b, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
}
