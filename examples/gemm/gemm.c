/* C = A B with relay_gemm on ScaLAPACK-style block-cyclic matrices.
 *
 *   mpirun -np 4 relay_example_gemm [n] [block]
 *
 * Makes a process grid as square as the ranks allow (relay_grid_create), fills the local parts
 * of n x n matrices A and B from formulas of their global indices (no data is scattered), runs
 * relay_gemm (relay chooses 2D, 2.5D or 3D and the panel broadcasts; RELAY_LOG=1 prints what it
 * chose) and checks every local entry of C against the exact product, which the formulas give
 * in closed form. Exit status 0 iff every entry is right. */
#include <math.h>
#include <relay/gemm.h>
#include <stdio.h>
#include <stdlib.h>

/* A(i, k) = (i + 1) / n and B(k, j) = (j + 1) / (k + 1) (0-based global indices), so that
 * C(i, j) = sum_k (i + 1) (j + 1) / (n (k + 1)) = (i + 1) (j + 1) H_n / n, H_n the n-th harmonic
 * number: every entry can be checked without gathering anything. */
static double a_elem(long long i, long long n) { return (double)(i + 1) / (double)n; }
static double b_elem(long long k, long long j) { return (double)(j + 1) / (double)(k + 1); }

/* The global index of local index l of a dimension cut into blocks nb over np processes, held
 * by process p (source 0). */
static long long global_index(long long l, long long nb, int p, int np) {
  return (l / nb * np + p) * nb + l % nb;
}
/* How many indices of n that process holds (NUMROC, source 0). */
static long long local_count(long long n, long long nb, int p, int np) {
  const long long blocks = n / nb, extra = n % nb;
  long long c = blocks / np * nb;
  if (p < blocks % np)
    c += nb;
  else if (p == blocks % np)
    c += extra;
  return c;
}

int main(int argc, char** argv) {
  int rank = 0, size = 1, rows = 1, cols, myrow, mycol, info = 0, bad = 0, any_bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long long n = argc > 1 ? atoll(argv[1]) : 2048, nb = argc > 2 ? atoll(argv[2]) : 64;
  if (n < 1 || nb < 1) {
    if (rank == 0) fprintf(stderr, "relay_example_gemm: n and block must be positive\n");
    MPI_Finalize();
    return 2;
  }
  for (int r = 1; r * r <= size; ++r) {
    if (size % r == 0) rows = r;
  }
  cols = size / rows;

  relay_grid_t grid;
  if (relay_grid_create(MPI_COMM_WORLD, rows, cols, 'R', &grid) != RELAY_SUCCESS) {
    fprintf(stderr, "rank %d: %s\n", rank, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  relay_grid_info(grid, NULL, NULL, &myrow, &mycol);
  const long long mloc = local_count(n, nb, myrow, rows), nloc = local_count(n, nb, mycol, cols);
  const long long lld = mloc > 1 ? mloc : 1;
  const relay_matrix_desc_t desc = {n, n, nb, nb, 0, 0, 0, 0, lld};
  const size_t elems = (size_t)(lld * (nloc > 1 ? nloc : 1));
  double *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
         *c = calloc(elems, sizeof *c);
  if (!a || !b || !c) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long long jl = 0; jl < nloc; ++jl) {
    const long long j = global_index(jl, nb, mycol, cols);
    for (long long il = 0; il < mloc; ++il) {
      const long long i = global_index(il, nb, myrow, rows);
      a[il + jl * lld] = a_elem(i, n);
      b[il + jl * lld] = b_elem(i, j);
    }
  }

  const double alpha = 1.0, beta = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  /* Offsets are 0-based (ScaLAPACK's IA = 1 is ia = 0); NULL options: relay's defaults. */
  const relay_status_t st = relay_gemm('N', 'N', n, n, n, MPI_DOUBLE, &alpha, a, 0, 0, &desc, b, 0,
                                       0, &desc, &beta, c, 0, 0, &desc, grid, NULL, &info, NULL);
  const double seconds = MPI_Wtime() - start;
  if (st != RELAY_SUCCESS) {
    fprintf(stderr, "rank %d: relay_gemm: %s (info %d)\n", rank, relay_last_error(), info);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double harmonic = 0;
  for (long long k = n; k >= 1; --k) harmonic += 1.0 / (double)k;
  for (long long jl = 0; jl < nloc; ++jl) {
    const long long j = global_index(jl, nb, mycol, cols);
    for (long long il = 0; il < mloc; ++il) {
      const long long i = global_index(il, nb, myrow, rows);
      const double want = (double)(i + 1) * (double)(j + 1) * harmonic / (double)n;
      bad += fabs(c[il + jl * lld] - want) > 1e-12 * fabs(want) * (double)n;
    }
  }
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("relay_gemm n=%lld block=%lld on a %dx%d grid: %.3f s, %.1f GFLOP/s; %s\n", n, nb, rows,
           cols, seconds, 2.0 * (double)n * (double)n * (double)n / seconds / 1e9,
           any_bad ? "WRONG ENTRIES" : "every entry of C is right");
  }
  relay_grid_free(&grid);
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return any_bad ? 1 : 0;
}
