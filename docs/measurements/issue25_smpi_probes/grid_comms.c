#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  int q = 1; while ((q + 1) * (q + 1) <= size) ++q;
  int row = rank / q, col = rank % q;
  MPI_Comm dup, r, c;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (argc > 1 && strcmp(argv[1], "split") == 0) {
    MPI_Comm_split(dup, row, col, &r);
    MPI_Comm_split(dup, col, row, &c);
  } else {
    MPI_Group world, gr, gc;
    MPI_Comm_group(dup, &world);
    int* m = malloc(sizeof(int) * q);
    for (int j = 0; j < q; ++j) m[j] = row * q + j;
    MPI_Group_incl(world, q, m, &gr);
    for (int i = 0; i < q; ++i) m[i] = i * q + col;
    MPI_Group_incl(world, q, m, &gc);
    MPI_Comm_create_group(dup, gr, 1, &r);
    MPI_Comm_create_group(dup, gc, 2, &c);
  }
  int rs, cs; MPI_Comm_size(r, &rs); MPI_Comm_size(c, &cs);
  if (rank == 0) printf("q=%d row %d col %d\n", q, rs, cs);
  MPI_Finalize();
  return 0;
}
