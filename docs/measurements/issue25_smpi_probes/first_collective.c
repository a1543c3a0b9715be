/* Issue 25: the first blocking collective on a communicator under SMPI 3.32. With the ompi or
   mpich selector SMPI first builds its SMP view of the communicator (Comm::init_smp: a ring
   allgather over all ranks, P^2 messages), which grows faster than P^2 in host time; with an
   algorithm named for each collective (relay simulate --coll-selector flat) it does not.
   Usage: first_collective OP   (allreduce bcast reduce allgather allgatherv alltoall
   reduce_scatter gather scatter barrier); prints the simulated seconds of the call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* op = argc > 1 ? argv[1] : "allreduce";
  double* in = calloc((size_t)size, sizeof(double));
  double* out = calloc((size_t)size, sizeof(double));
  int* counts = malloc((size_t)size * sizeof(int));
  int* displs = malloc((size_t)size * sizeof(int));
  for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i;
  const double t0 = MPI_Wtime();
  if (!strcmp(op, "allreduce")) MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  else if (!strcmp(op, "bcast")) MPI_Bcast(in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  else if (!strcmp(op, "reduce")) MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  else if (!strcmp(op, "allgather")) MPI_Allgather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  else if (!strcmp(op, "allgatherv")) MPI_Allgatherv(in, 1, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  else if (!strcmp(op, "alltoall")) MPI_Alltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  else if (!strcmp(op, "reduce_scatter")) MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(op, "gather")) MPI_Gather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  else if (!strcmp(op, "scatter")) MPI_Scatter(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  else if (!strcmp(op, "barrier")) MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%-15s %.6f s simulated\n", op, MPI_Wtime() - t0);
  free(in), free(out), free(counts), free(displs);
  MPI_Finalize();
  return 0;
}
