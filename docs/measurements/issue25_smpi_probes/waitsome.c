#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define N 16
#define S 65536
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* buf = malloc((size_t)N * S);
  double t0 = MPI_Wtime();
  if (rank == 0) {
    for (int i = 0; i < N; ++i) { MPI_Request r; MPI_Isend(buf + (size_t)i*S, S, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); }
    printf("root done %.6f\n", MPI_Wtime() - t0);
  } else {
    MPI_Request r[N]; int idx[N];
    for (int i = 0; i < N; ++i) MPI_Irecv(buf + (size_t)i*S, S, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &r[i]);
    int done = 0;
    while (done < N) { int c; MPI_Waitsome(N, r, &c, idx, MPI_STATUSES_IGNORE); done += c; printf("waitsome %d -> %d at %.6f\n", c, done, MPI_Wtime()-t0); }
  }
  MPI_Finalize();
  return 0;
}
