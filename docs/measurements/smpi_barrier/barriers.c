#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t0 = MPI_Wtime();
  for (int i = 0; i < 5; ++i) MPI_Barrier(MPI_COMM_WORLD);  // the algorithm: smpi/barrier
  if (rank == 0) printf("5 barriers: %.3e s simulated\n", MPI_Wtime() - t0);
  MPI_Finalize();
}
