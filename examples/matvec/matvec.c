/* y = A x on a p x p process grid: huang2018's Algorithms 1 and 2, with relay's overlap helper.
 *
 * Rank (i, j) = i p + j holds block A_ij (nb x nb, nb = n / p) and x_j. After the local
 * product y_i^(j) = A_ij x_j, the blocks are summed over grid row i onto the diagonal rank
 * (i, i) and broadcast down column i, so that rank (i, j) ends with y_j -- y distributed like
 * x. With n_dup = 1 that is one relay_reduce and one relay_bcast (Algorithm 1); with n_dup > 1
 * relay_overlap_reduce_bcast splits y into n_dup parts and broadcasts part c down the column
 * as soon as its reduction has completed, while part c + 1 is still being reduced
 * (Algorithm 2). The result is checked against a serial computation of the same rows.
 *
 * usage: relay_matvec [--n N] [--reps R] [--n-dup 1,2,4] [--parts mpi|relay]
 *   run with a square number of ranks, e.g. mpirun -np 4 relay_matvec --n 8192
 * Prints, per n_dup, the median over R repetitions of the slowest rank's times: local product,
 * communication (reduce + broadcast; a barrier separates the two phases, so that this is the
 * communication alone, not waiting for a slower rank's product), and their sum. Exit status 0
 * iff every check passed. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/overlap.h"

#define MAX_DUPS 16

/* The matrix and vector, as functions of the global indices: any rank can compute any
 * element, so the serial check needs no gathering. */
static double a_elem(long r, long c) {
  const long d = r > c ? r - c : c - r;
  return 1.0 / (1.0 + (double)d) + (double)((r * 7 + c * 3) % 11) * 1e-3;
}
static double x_elem(long c) { return 1.0 + (double)(c % 17) * 0.1; }

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int usage(int rank, const char* why) {
  if (rank == 0) {
    fprintf(stderr,
            "relay_matvec: %s\nusage: relay_matvec [--n N] [--reps R] [--n-dup 1,2,4] "
            "[--parts mpi|relay]\n",
            why);
  }
  return 2;
}

int main(int argc, char** argv) {
  long n = 4096;
  int reps = 10, dups[MAX_DUPS] = {1, 2, 4}, n_dups = 3, mpi_parts = 1;
  int rank, size, p = 1, i, j, k, a, failed = 0;
  MPI_Comm row, col;
  relay_coll_options_t reduce_options;
  relay_bcast_options_t bcast_options;
  long nb, e, c;
  double *block, *x, *part, *y, *t_local, *t_comm, *t_total;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (a = 1; a < argc; ++a) {
    const char* v = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(argv[a], "--n") == 0 && v) {
      n = atol(v);
    } else if (strcmp(argv[a], "--reps") == 0 && v) {
      reps = atoi(v);
    } else if (strcmp(argv[a], "--parts") == 0 && v) {
      mpi_parts = strcmp(v, "mpi") == 0;
      if (!mpi_parts && strcmp(v, "relay") != 0) {
        failed = usage(rank, "--parts must be mpi or relay");
      }
    } else if (strcmp(argv[a], "--n-dup") == 0 && v) {
      const char* s = v;
      char* end = NULL;
      for (n_dups = 0; *s != '\0' && n_dups < MAX_DUPS; s = *end == ',' ? end + 1 : end) {
        const long d = strtol(s, &end, 10);
        if (end == s || d < 1 || d > RELAY_OVERLAP_MAX_DUP) {
          n_dups = 0;
          break;
        }
        dups[n_dups++] = (int)d;
      }
      if (n_dups == 0) failed = usage(rank, "--n-dup needs a list like 1,2,4 (each 1..64)");
    } else {
      failed = usage(rank, "unknown or incomplete option");
    }
    if (v) ++a;
  }
  while (p * p < size) ++p;
  if (!failed && p * p != size) {
    if (rank == 0) {
      fprintf(stderr, "relay_matvec: needs a square number of ranks (a p x p grid), got %d\n",
              size);
    }
    failed = 2;
  }
  if (!failed && (n < p || n % p != 0 || reps < 1)) {
    failed = usage(rank, "n must be a positive multiple of p (the grid side), reps >= 1");
  }
  if (failed) {
    MPI_Finalize();
    return failed;
  }
  i = rank / p;
  j = rank % p;
  nb = n / p;
  MPI_Comm_split(MPI_COMM_WORLD, i, j, &row); /* row i: ranks (i, 0..p-1), rank j in it */
  MPI_Comm_split(MPI_COMM_WORLD, j, i, &col); /* column j: ranks (0..p-1, j), rank i in it */

  block = malloc((size_t)(nb * nb) * sizeof *block);
  x = malloc((size_t)nb * sizeof *x);
  part = malloc((size_t)nb * sizeof *part);
  y = malloc((size_t)nb * sizeof *y);
  t_local = malloc((size_t)reps * sizeof *t_local);
  t_comm = malloc((size_t)reps * sizeof *t_comm);
  t_total = malloc((size_t)reps * sizeof *t_total);
  for (e = 0; e < nb; ++e) {
    for (c = 0; c < nb; ++c) block[e * nb + c] = a_elem(i * nb + e, j * nb + c);
    x[e] = x_elem(j * nb + e);
  }
  relay_coll_options_init(&reduce_options);
  relay_bcast_options_init(&bcast_options);
  if (mpi_parts) {
    reduce_options.algorithm = RELAY_REDUCE_MPI;
    bcast_options.algorithm = RELAY_BCAST_MPI;
  }
  for (k = 0; k < n_dups; ++k) {
    /* Duplicates made before timing (the first overlapped call would make them). */
    if (dups[k] > 1 && (relay_overlap_prepare(row, dups[k]) != RELAY_SUCCESS ||
                        relay_overlap_prepare(col, dups[k]) != RELAY_SUCCESS)) {
      fprintf(stderr, "rank %d: %s\n", rank, relay_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  if (rank == 0) {
    printf(
        "# y = A x, n = %ld on a %d x %d grid (%d ranks), parts: %s, median of %d repetitions "
        "of the slowest rank\n",
        n, p, p, size, mpi_parts ? "mpi" : "relay", reps);
    printf("%-6s %12s %12s %12s %14s  %s\n", "n_dup", "matvec(ms)", "comm(ms)", "total(ms)",
           "comm vs first", "check");
  }
  double first_comm = 0;
  for (k = 0; k < n_dups; ++k) {
    double error = 0, bound = 0, worst = 0;
    relay_status_t st = RELAY_SUCCESS;
    for (a = 0; a < reps && st == RELAY_SUCCESS; ++a) {
      double t[4], slowest[3];
      MPI_Barrier(MPI_COMM_WORLD);
      t[0] = MPI_Wtime();
      for (e = 0; e < nb; ++e) { /* line 1: y_i^(j) = A_ij x_j */
        double s = 0;
        const double* arow = block + e * nb;
        for (c = 0; c < nb; ++c) s += arow[c] * x[c];
        part[e] = s;
      }
      t[1] = MPI_Wtime();
      /* The phases are timed apart: the communication starts when every rank has its part. */
      MPI_Barrier(MPI_COMM_WORLD);
      t[2] = MPI_Wtime();
      /* lines 2-3 (Algorithm 1, n_dup = 1) or 2-11 (Algorithm 2): reduce y_i over row i onto
       * (i, i), broadcast it down column i; this rank receives y_j. */
      st = relay_overlap_reduce_bcast(part, y, (int)nb, MPI_DOUBLE, MPI_SUM, i, row, j, col,
                                      dups[k], &reduce_options, &bcast_options, NULL);
      t[3] = MPI_Wtime();
      t[1] -= t[0];
      t[2] = t[3] - t[2];
      t[0] = t[1] + t[2];
      MPI_Allreduce(t, slowest, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      t_total[a] = slowest[0];
      t_local[a] = slowest[1];
      t_comm[a] = slowest[2];
    }
    if (st != RELAY_SUCCESS) {
      fprintf(stderr, "rank %d: n_dup %d: %s\n", rank, dups[k], relay_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The check: y_j against the serial sum over all n columns, within n u sum |a||x|. */
    for (e = 0; e < nb; ++e) {
      double s = 0, abs_sum = 0, r;
      for (c = 0; c < n; ++c) {
        const double v = a_elem(j * nb + e, c) * x_elem(c);
        s += v;
        abs_sum += fabs(v);
      }
      r = fabs(y[e] - s) / (2.0 * (double)n * ldexp(1.0, -53) * abs_sum);
      if (r > worst) {
        worst = r;
        error = fabs(y[e] - s);
        bound = 2.0 * (double)n * ldexp(1.0, -53) * abs_sum;
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (worst > 1.0) {
      fprintf(stderr, "rank %d: n_dup %d: |y - y_serial| = %g above the bound %g\n", rank, dups[k],
              error, bound);
      failed = 1;
    }
    if (rank == 0) {
      const double local_ms = median(t_local, reps) * 1e3, comm_ms = median(t_comm, reps) * 1e3,
                   total_ms = median(t_total, reps) * 1e3;
      if (k == 0) first_comm = comm_ms;
      printf("%-6d %12.3f %12.3f %12.3f %13.2fx  %s (error/bound %.2g)\n", dups[k], local_ms,
             comm_ms, total_ms, first_comm / comm_ms, worst <= 1.0 ? "ok" : "FAILED", worst);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(block);
  free(x);
  free(part);
  free(y);
  free(t_local);
  free(t_comm);
  free(t_total);
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  MPI_Finalize();
  return failed;
}
