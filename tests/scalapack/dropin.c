/* An ordinary ScaLAPACK program, written against Debian's ScaLAPACK and nothing else: it
 * multiplies distributed matrices with pdgemm_ and checks the product against a serial one,
 * solves a linear system with pdgesv_ (whose LU factorisation calls pdgemm_ inside ScaLAPACK)
 * and checks the residual, does the same with pdposv_ (Cholesky: its updates call pdsyrk_),
 * and, when asked ("bad"), calls pdgemm_ with MB_A = 0 and pdsyrk_ with UPLO = 'X' and with
 * MB_A = 0.
 * tests/scalapack/run_dropin_test.sh runs it with and without relay's librelay_scalapack
 * preloaded and checks which p?gemm ran. With "gemm N NB" it only multiplies two N x N
 * matrices of ones (blocks NB) with pdgemm_, checks that every entry of C is N and prints the
 * time: a large call, as an application makes.
 * With "syrk-bad CASE" it makes one invalid pdsyrk_ call (CASE 1..7: UPLO, TRANS, N, K, IA,
 * MB_A, MB_C) for the test to compare the INFO relay reports with ScaLAPACK's own.
 * Usage: dropin NPROW NPCOL [bad | gemm N NB | syrk-bad CASE] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ctxt, const int* lld, int* info);
void pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja,
             const int* desca, int* ipiv, double* b, const int* ib, const int* jb, const int* descb,
             int* info);
void pdposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* ia,
             const int* ja, const int* desca, double* b, const int* ib, const int* jb,
             const int* descb, int* info);
void pdsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);

static double value(int i, int j, int seed) { /* deterministic global entries */
  unsigned h = (unsigned)(i * 73856093u) ^ (unsigned)(j * 19349663u) ^ (unsigned)(seed * 83492791u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)(h % 2001u) / 1000.0 - 1.0;
}

/* Local array of an m x n matrix, blocks nb x nb, source (0, 0). */
static double* distribute(int m, int n, int nb, int myrow, int mycol, int nprow, int npcol,
                          int seed, double diag, int* lld_out) {
  int zero = 0;
  int mloc = numroc_(&m, &nb, &myrow, &zero, &nprow),
      nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  int lld = mloc > 1 ? mloc : 1;
  double* x = calloc((size_t)lld * (size_t)(nloc > 0 ? nloc : 1), sizeof(double));
  for (int lj = 0; lj < nloc; ++lj) {
    int j = ((lj / nb) * npcol + mycol) * nb + lj % nb;
    for (int li = 0; li < mloc; ++li) {
      int i = ((li / nb) * nprow + myrow) * nb + li % nb;
      x[li + (size_t)lj * lld] = value(i, j, seed) + (i == j ? diag : 0.0);
    }
  }
  *lld_out = lld;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int nprow = argc > 1 ? atoi(argv[1]) : 2, npcol = argc > 2 ? atoi(argv[2]) : 2;
  const int big = argc > 5 && argv[3][0] == 'g';
  const int syrk_case = argc > 4 && argv[3][0] == 's' ? atoi(argv[4]) : 0;
  int bad = argc > 3 && !big && syrk_case == 0;
  int me, np, ctxt, myrow, mycol, info, one = 1, zero = 0;
  Cblacs_pinfo(&me, &np);
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  int failures = 0;
  if (syrk_case > 0 && myrow >= 0) { /* C (40 x 40) := A A^T, A 40 x 8, blocks 4 */
    int n = 40, k = 8, nb = 4, lda, ldc, desca[9], descc[9];
    double* a = distribute(n, k, nb, myrow, mycol, nprow, npcol, 1, 0.0, &lda);
    double* c = distribute(n, n, nb, myrow, mycol, nprow, npcol, 2, 0.0, &ldc);
    descinit_(desca, &n, &k, &nb, &nb, &zero, &zero, &ctxt, &lda, &info);
    descinit_(descc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &ldc, &info);
    const char* uplo = syrk_case == 1 ? "X" : "L";
    const char* trans = syrk_case == 2 ? "Q" : "N";
    int nn = syrk_case == 3 ? -1 : n, kk = syrk_case == 4 ? -2 : k, ia = syrk_case == 5 ? 2 : 1;
    if (syrk_case == 6) desca[4] = 0;
    if (syrk_case == 7) descc[4] = 0;
    double alpha = 1.0, beta = 0.5;
    pdsyrk_(uplo, trans, &nn, &kk, &alpha, a, &ia, &one, desca, &beta, c, &one, &one, descc);
    printf("rank %d: returned from the invalid pdsyrk_ call\n", me);
    free(a);
    free(c);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return 0;
  }
  if (big && myrow >= 0) {
    int n = atoi(argv[4]), nb = atoi(argv[5]), ld;
    int mloc = numroc_(&n, &nb, &myrow, &zero, &nprow),
        nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    ld = mloc > 1 ? mloc : 1;
    size_t count = (size_t)ld * (size_t)(nloc > 0 ? nloc : 1);
    double *a = malloc(count * sizeof(double)), *b = malloc(count * sizeof(double)),
           *c = calloc(count, sizeof(double));
    for (size_t i = 0; i < count; ++i) a[i] = b[i] = 1.0;
    int desc[9];
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &ld, &info);
    double alpha = 1.0, beta = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one,
            &one, desc);
    double t = MPI_Wtime() - t0;
    for (int lj = 0; lj < nloc; ++lj)
      for (int li = 0; li < mloc; ++li)
        if (c[li + (size_t)lj * ld] != (double)n) ++failures;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("pdgemm n=%d nb=%d on %dx%d: %.3f s\n", n, nb, nprow, npcol, t);
    free(a);
    free(b);
    free(c);
    Cblacs_gridexit(ctxt);
  } else if (myrow >= 0) {
    /* 1. C = A B with pdgemm_, checked entry by entry against a serial product. */
    int m = 57, n = 43, k = 61, nb = 8, lda, ldb, ldc;
    double* a = distribute(m, k, nb, myrow, mycol, nprow, npcol, 1, 0.0, &lda);
    double* b = distribute(k, n, nb, myrow, mycol, nprow, npcol, 2, 0.0, &ldb);
    double* c = distribute(m, n, nb, myrow, mycol, nprow, npcol, 3, 0.0, &ldc);
    int desca[9], descb[9], descc[9];
    descinit_(desca, &m, &k, &nb, &nb, &zero, &zero, &ctxt, &lda, &info);
    descinit_(descb, &k, &n, &nb, &nb, &zero, &zero, &ctxt, &ldb, &info);
    descinit_(descc, &m, &n, &nb, &nb, &zero, &zero, &ctxt, &ldc, &info);
    double alpha = 1.5, beta = -0.5, worst = 0.0;
    pdgemm_("N", "N", &m, &n, &k, &alpha, a, &one, &one, desca, b, &one, &one, descb, &beta, c,
            &one, &one, descc);
    int mloc = numroc_(&m, &nb, &myrow, &zero, &nprow),
        nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    for (int lj = 0; lj < nloc; ++lj) {
      int j = ((lj / nb) * npcol + mycol) * nb + lj % nb;
      for (int li = 0; li < mloc; ++li) {
        int i = ((li / nb) * nprow + myrow) * nb + li % nb;
        double ref = beta * value(i, j, 3);
        for (int l = 0; l < k; ++l) ref += alpha * value(i, l, 1) * value(l, j, 2);
        double err = fabs(c[li + (size_t)lj * ldc] - ref);
        if (err > worst) worst = err;
      }
    }
    if (worst > 1e-12) ++failures;
    printf("rank %d: pdgemm max error %.3g\n", me, worst);
    fflush(stdout);

    /* 2. Solve A x = b with pdgesv_ (LU: pdgemm_ is called from inside ScaLAPACK). */
    int ns = 96, nbs = 4, ldas, ldbs, nrhs = 1;
    double* as = distribute(ns, ns, nbs, myrow, mycol, nprow, npcol, 4, (double)ns, &ldas);
    double* bs = distribute(ns, 1, nbs, myrow, mycol, nprow, npcol, 5, 0.0, &ldbs);
    int descas[9], descbs[9];
    descinit_(descas, &ns, &ns, &nbs, &nbs, &zero, &zero, &ctxt, &ldas, &info);
    descinit_(descbs, &ns, &nrhs, &nbs, &nbs, &zero, &zero, &ctxt, &ldbs, &info);
    int* ipiv = calloc((size_t)(ldas + nbs), sizeof(int));
    /* Every process marks where pdgesv_ starts in its own log (the test reads them apart). */
    fprintf(stderr, "== pdgesv ==\n");
    fflush(stderr);
    MPI_Barrier(MPI_COMM_WORLD);
    pdgesv_(&ns, &nrhs, as, &one, &one, descas, ipiv, bs, &one, &one, descbs, &info);
    /* residual: the solution x is in bs; gather it and check A x = b serially */
    double* x = calloc((size_t)ns, sizeof(double));
    int mloc_s = numroc_(&ns, &nbs, &myrow, &zero, &nprow);
    if (mycol == 0) {
      for (int li = 0; li < mloc_s; ++li) {
        int i = ((li / nbs) * nprow + myrow) * nbs + li % nbs;
        x[i] = bs[li];
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, x, ns, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double residual = 0.0;
    for (int i = 0; i < ns; ++i) {
      double r = -value(i, 0, 5);
      for (int j = 0; j < ns; ++j) r += (value(i, j, 4) + (i == j ? ns : 0.0)) * x[j];
      if (fabs(r) > residual) residual = fabs(r);
    }
    if (info != 0 || residual > 1e-10) ++failures;
    printf("rank %d: pdgesv info %d residual %.3g\n", me, info, residual);
    fflush(stdout);

    /* 2b. Solve S x = b with pdposv_, S symmetric positive definite (Cholesky: pdpotrf's
     * trailing updates are pdsyrk_ calls, again from inside ScaLAPACK). */
    double* ss = distribute(ns, ns, nbs, myrow, mycol, nprow, npcol, 4, (double)ns, &ldas);
    int mloc_ss = numroc_(&ns, &nbs, &myrow, &zero, &nprow),
        nloc_ss = numroc_(&ns, &nbs, &mycol, &zero, &npcol);
    for (int lj = 0; lj < nloc_ss; ++lj) { /* S(i, j) = value(min, max) + n on the diagonal */
      int j = ((lj / nbs) * npcol + mycol) * nbs + lj % nbs;
      for (int li = 0; li < mloc_ss; ++li) {
        int i = ((li / nbs) * nprow + myrow) * nbs + li % nbs;
        ss[li + (size_t)lj * ldas] = value(i < j ? i : j, i < j ? j : i, 4) + (i == j ? ns : 0.0);
      }
    }
    free(bs);
    bs = distribute(ns, 1, nbs, myrow, mycol, nprow, npcol, 5, 0.0, &ldbs);
    fprintf(stderr, "== pdposv ==\n");
    fflush(stderr);
    MPI_Barrier(MPI_COMM_WORLD);
    pdposv_("L", &ns, &nrhs, ss, &one, &one, descas, bs, &one, &one, descbs, &info);
    for (int i = 0; i < ns; ++i) x[i] = 0.0;
    if (mycol == 0) {
      for (int li = 0; li < mloc_s; ++li) {
        int i = ((li / nbs) * nprow + myrow) * nbs + li % nbs;
        x[i] = bs[li];
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, x, ns, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    residual = 0.0;
    for (int i = 0; i < ns; ++i) {
      double r = -value(i, 0, 5);
      for (int j = 0; j < ns; ++j) {
        r += (value(i < j ? i : j, i < j ? j : i, 4) + (i == j ? ns : 0.0)) * x[j];
      }
      if (fabs(r) > residual) residual = fabs(r);
    }
    if (info != 0 || residual > 1e-10) ++failures;
    printf("rank %d: pdposv info %d residual %.3g\n", me, info, residual);
    fflush(stdout);
    free(ss);

    /* 3. An invalid argument: MB_A = 0. */
    if (bad) {
      desca[4] = 0;
      pdgemm_("N", "N", &m, &n, &k, &alpha, a, &one, &one, desca, b, &one, &one, descb, &beta, c,
              &one, &one, descc);
      printf("rank %d: returned from the invalid call\n", me);
      fflush(stdout);
      /* pdsyrk_: C = A A^T on C's lower triangle, first with UPLO = 'X', then with MB_A = 0. */
      int ksy = 8;
      desca[4] = nb;
      pdsyrk_("X", "N", &m, &ksy, &alpha, a, &one, &one, desca, &beta, as, &one, &one, descas);
      desca[4] = 0;
      pdsyrk_("L", "N", &m, &ksy, &alpha, a, &one, &one, desca, &beta, as, &one, &one, descas);
      printf("rank %d: returned from the invalid pdsyrk_ calls\n", me);
      fflush(stdout);
    }
    free(a);
    free(b);
    free(c);
    free(as);
    free(bs);
    free(ipiv);
    free(x);
    Cblacs_gridexit(ctxt);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("%s\n", all == 0 ? "dropin: results correct" : "dropin: WRONG RESULTS");
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
