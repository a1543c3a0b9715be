/* Prototypes of the Debian ScaLAPACK (libscalapack-<mpi>, LP64) symbols relay calls: the BLACS
 * C interface and PBLAS's p?gemm_. Used by the drop-in library, by relay bench gemm (the
 * ScaLAPACK baseline) and by the tests that compare with ScaLAPACK. */
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

#ifdef __cplusplus
}
#endif

#endif /* RELAY_SCALAPACK_PROTOTYPES_H */
