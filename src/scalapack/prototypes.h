/* Prototypes of the Debian ScaLAPACK (libscalapack-<mpi>, LP64) symbols relay calls: the BLACS
 * C interface, PBLAS's p?gemm_ and p?syrk_ and the solvers relay bench solve runs. Used by the
 * drop-in library, by relay bench gemm and bench solve, and by the tests that compare with
 * ScaLAPACK. */
#ifndef RELAY_SCALAPACK_PROTOTYPES_H
#define RELAY_SCALAPACK_PROTOTYPES_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
int Cblacs_pnum(int ctxt, int prow, int pcol);
MPI_Comm Cblacs2sys_handle(int handle);
void PB_Cabort(int ctxt, char* rout, int info);

/* PBLAS p?gemm_: every argument by reference; scalars and arrays of the routine's type. */
typedef void (*relay_pgemm_fn)(const char* transa, const char* transb, const int* m, const int* n,
                               const int* k, const void* alpha, const void* a, const int* ia,
                               const int* ja, const int* desca, const void* b, const int* ib,
                               const int* jb, const int* descb, const void* beta, void* c,
                               const int* ic, const int* jc, const int* descc);
#define RELAY_DECLARE_PGEMM(name)                                                             \
  void name(const char* transa, const char* transb, const int* m, const int* n, const int* k, \
            const void* alpha, const void* a, const int* ia, const int* ja, const int* desca, \
            const void* b, const int* ib, const int* jb, const int* descb, const void* beta,  \
            void* c, const int* ic, const int* jc, const int* descc);
RELAY_DECLARE_PGEMM(psgemm_)
RELAY_DECLARE_PGEMM(pdgemm_)
RELAY_DECLARE_PGEMM(pcgemm_)
RELAY_DECLARE_PGEMM(pzgemm_)
#undef RELAY_DECLARE_PGEMM

/* PBLAS p?syrk_ (ScaLAPACK's Cholesky updates with it): every argument by reference. */
typedef void (*relay_psyrk_fn)(const char* uplo, const char* trans, const int* n, const int* k,
                               const void* alpha, const void* a, const int* ia, const int* ja,
                               const int* desca, const void* beta, void* c, const int* ic,
                               const int* jc, const int* descc);
#define RELAY_DECLARE_PSYRK(name)                                                               \
  void name(const char* uplo, const char* trans, const int* n, const int* k, const void* alpha, \
            const void* a, const int* ia, const int* ja, const int* desca, const void* beta,    \
            void* c, const int* ic, const int* jc, const int* descc);
RELAY_DECLARE_PSYRK(pssyrk_)
RELAY_DECLARE_PSYRK(pdsyrk_)
RELAY_DECLARE_PSYRK(pcsyrk_)
RELAY_DECLARE_PSYRK(pzsyrk_)
#undef RELAY_DECLARE_PSYRK

/* Descriptors and the solvers of relay bench solve (Fortran: every argument by reference). */
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja,
             const int* desca, int* ipiv, double* b, const int* ib, const int* jb, const int* descb,
             int* info);
void pdposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* ia,
             const int* ja, const int* desca, double* b, const int* ib, const int* jb,
             const int* descb, int* info);
void pdgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a,
             const int* ia, const int* ja, const int* desca, double* b, const int* ib,
             const int* jb, const int* descb, double* work, const int* lwork, int* info);
double pdlange_(const char* norm, const int* m, const int* n, const double* a, const int* ia,
                const int* ja, const int* desca, double* work);

#ifdef __cplusplus
}
#endif

#endif /* RELAY_SCALAPACK_PROTOTYPES_H */
