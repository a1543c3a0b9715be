#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static char buf[1<<20];
  int sizes[] = {1, 1024, 65536, 1<<20};
  for (int k = 0; k < 4; ++k) { int s = sizes[k];
  double t0 = MPI_Wtime();
  for (int i = 0; i < 10; ++i) {
    if (rank == 0) { MPI_Send(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD); MPI_Recv(buf, s, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
    else { MPI_Recv(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(buf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD); }
  }
  if (rank == 0) printf("%d bytes: half RTT %.2f us\n", s, (MPI_Wtime()-t0)/20*1e6);
  }
  MPI_Finalize();
}
