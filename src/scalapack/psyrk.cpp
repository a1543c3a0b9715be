// The ScaLAPACK C ABI of relay's symmetric rank-k update: pssyrk_, pdsyrk_, pcsyrk_, pzsyrk_
// with PBLAS's argument list. sub(C) := alpha op(A) op(A)^T + beta sub(C) on one triangle of
// sub(C) (UPLO), op(A) = A (TRANS = 'N') or A^T ('T'; 'C' too for the real ones): ScaLAPACK's
// Cholesky (p?potrf) makes its trailing updates with it, not with p?gemm_, so without it an
// unchanged pdposv never reaches relay.
//
// relay runs it as its 2D GEMM with B = A and the other transpose, the local updates and the
// scaling restricted to the triangle (gemm::Problem::triangle): the same panel broadcasts as
// p?gemm_, half the multiplications. The other triangle is neither read nor written. Arguments
// are checked as the GEMM's and their INFO given PBLAS's p?syrk positions; forwarding and
// profiling as pgemm.cpp's, but the automatic path (the default) hands every call to
// ScaLAPACK's own: relay's was measured no faster (serve below).
#include <dlfcn.h>
#include <mpi.h>

#include <cctype>
#include <cstdio>
#include <string>

#include "core/settings.hpp"
#include "core/status.hpp"
#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"
#include "scalapack/dropin.hpp"
#include "scalapack/prototypes.h"

namespace {

using psyrk_fn = relay_psyrk_fn;  // scalapack/prototypes.h

// The GEMM check's INFO (p?gemm_'s argument positions) at p?syrk_'s positions: B is A, M and N
// are both N. Positions: p?gemm_ TRANSA 1, TRANSB 2, M 3, N 4, K 5, ALPHA 6, A 7, IA 8, JA 9,
// DESCA 10, B 11, IB 12, JB 13, DESCB 14, BETA 15, C 16, IC 17, JC 18, DESCC 19; p?syrk_ UPLO 1,
// TRANS 2, N 3, K 4, ALPHA 5, A 6, IA 7, JA 8, DESCA 9, BETA 10, C 11, IC 12, JC 13, DESCC 14.
int syrk_info(int gemm_info) {
  if (gemm_info == 0) return 0;
  static const int position[20] = {0, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  const int code = -gemm_info;
  const int argument = code < 100 ? code : code / 100;
  if (argument < 1 || argument > 19) return gemm_info;
  return code < 100 ? -position[argument] : -(100 * position[argument] + code % 100);
}

// Serves one call with relay's 2D GEMM on the triangle. Errors are PBLAS's (report_error).
void psyrk(const char* routine, MPI_Datatype type, bool complex, const char* uplo,
           const char* trans, const int* n, const int* k, const void* alpha, const void* a,
           const int* ia, const int* ja, const int* desca, const void* beta, void* c, const int* ic,
           const int* jc, const int* descc, std::string* config) {
  const int ctxt = desca[1];
  int nprow = -1, npcol = -1;
  // Not a context of this process: PBLAS's -(100 * DESCA + CTXT_).
  relay_grid* grid = relay::scalapack::context_grid(routine, ctxt, -(900 + 2), nprow, npcol);
  if (grid == nullptr) return;
  const char triangle = static_cast<char>(std::toupper(static_cast<unsigned char>(uplo[0])));
  char op = static_cast<char>(std::toupper(static_cast<unsigned char>(trans[0])));
  if (op == 'C' && !complex) op = 'T';  // real: 'C' is 'T' (PBLAS)
  relay::gemm::Problem p;
  p.triangle = triangle;
  p.transa = op;
  p.transb = op == 'N' ? 'T' : 'N';
  p.m = *n;
  p.n = *n;
  p.k = *k;
  p.type = type;
  p.alpha = alpha;
  p.beta = beta;
  p.a = a;
  p.ia = *ia - 1;
  p.ja = *ja - 1;
  p.desca = relay::layout::descriptor_from_fortran(desca);
  p.b = a;
  p.ib = p.ia;
  p.jb = p.ja;
  p.descb = p.desca;
  p.c = c;
  p.ic = *ic - 1;
  p.jc = *jc - 1;
  p.descc = relay::layout::descriptor_from_fortran(descc);
  p.ctxt = ctxt;
  int info = 0;
  std::string message;
  if (triangle != 'L' && triangle != 'U') {
    info = -1;
  } else if (op != 'N' && op != 'T') {
    info = -2;
  } else {
    relay::gemm::parse_op(p.transa, p.opa);
    relay::gemm::parse_op(p.transb, p.opb);
    info = syrk_info(relay::gemm::check_arguments(p, *grid, message));
  }
  relay::gemm::Options options;
  if (!relay::scalapack::agree_on_call(routine, ctxt, *grid, info, p, options,
                                       "UPLO, TRANS, N, K, ALPHA, BETA")) {
    return;
  }
  std::string error;
  relay_gemm_stats_t stats;
  relay_gemm_report_t report;
  relay_gemm_report_init(&report);
  options.report = &report;
  const double start = MPI_Wtime();
  if (relay::gemm::multiply(p, *grid, options, stats, error) != RELAY_SUCCESS) {
    std::fprintf(stderr, "relay %s: %s\n", routine, error.c_str());
    MPI_Abort(grid->comm, 1);
  }
  if (relay::core::log_enabled()) {
    relay::core::log_line(fmt::format(
        "relay {}: n {} k {} uplo={} trans={} grid {}x{} (relay's): {:.3g} s, of which SUMMA "
        "{:.3g} s (panels started {:.3g} s, waited for {:.3g} s, multiplied {:.3g} s)",
        routine, *n, *k, triangle, op, nprow, npcol, MPI_Wtime() - start, stats.total_s,
        stats.bcast_s, stats.wait_s, stats.compute_s));
  }
  if (config != nullptr) {
    const char* bcast = relay_bcast_algorithm_name(options.bcast.algorithm);
    const char* policy = relay_policy_name(options.bcast.policy);
    *config = fmt::format("2d triangle {}, panel broadcasts {}/{}, look-ahead {}", triangle,
                          bcast != nullptr ? bcast : "?", policy != nullptr ? policy : "?",
                          options.lookahead);
  }
}

void serve(const char* routine, const char* symbol, psyrk_fn scalapack, MPI_Datatype type,
           bool complex, const char* uplo, const char* trans, const int* n, const int* k,
           const void* alpha, const void* a, const int* ia, const int* ja, const int* desca,
           const void* beta, void* c, const int* ic, const int* jc, const int* descc) {
  using relay::scalapack::Path;
  const Path path = relay::scalapack::requested_path();
  if (path == Path::scalapack && scalapack == nullptr) {
    relay::scalapack::required_next_definition(symbol);  // stops the launch, saying why
  }
  const double start = MPI_Wtime();
  std::string config;
  // The automatic path hands every call to ScaLAPACK's own where there is one: relay's was
  // not faster in pdpotrf's updates anywhere it was measured (0.98-0.99x on 4 emulated nodes,
  // 0.93-0.97x on 9; docs/gemm.md), its mirrored panel crossing two links one after the other
  // as PBLAS's does. RELAY_SCALAPACK_FORWARD=relay serves them with relay's.
  bool forward = path == Path::scalapack || (path == Path::automatic && scalapack != nullptr);
  if (forward) {
    if (path == Path::automatic) config = "ScaLAPACK's own: relay's p?syrk_ is not faster";
    if (path == Path::automatic && relay::core::log_enabled()) {
      relay::core::log_line(
          fmt::format("relay {}: n {} k {}: ScaLAPACK's own p?syrk_ (relay's was not faster; "
                      "RELAY_SCALAPACK_FORWARD=relay: relay's always)",
                      routine, *n, *k));
    }
    scalapack(uplo, trans, n, k, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
  } else {
    psyrk(routine, type, complex, uplo, trans, n, k, alpha, a, ia, ja, desca, beta, c, ic, jc,
          descc, &config);
  }
  const char ops[2] = {trans[0], uplo[0]};
  relay::scalapack::finish_call(routine, ops, *n, *n, *k,
                                std::toupper(static_cast<unsigned char>(trans[0])) != 'N', desca,
                                descc, MPI_Wtime() - start, !forward, config);
}

}  // namespace

#define RELAY_SCALAPACK_API __attribute__((visibility("default")))

#define RELAY_PSYRK_PARAMETERS                                                                  \
  const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,           \
      const void *a, const int *ia, const int *ja, const int *desca, const void *beta, void *c, \
      const int *ic, const int *jc, const int *descc
#define RELAY_DEFINE_PSYRK(symbol, routine, mpi_type, complex)                                 \
  extern "C" RELAY_SCALAPACK_API void symbol(RELAY_PSYRK_PARAMETERS) {                         \
    static const auto scalapack =                                                              \
        reinterpret_cast<psyrk_fn>(relay::scalapack::next_definition(#symbol));                \
    serve(routine, #symbol, scalapack, mpi_type, complex, uplo, trans, n, k, alpha, a, ia, ja, \
          desca, beta, c, ic, jc, descc);                                                      \
  }

RELAY_DEFINE_PSYRK(pssyrk_, "PSSYRK", MPI_FLOAT, false)
RELAY_DEFINE_PSYRK(pdsyrk_, "PDSYRK", MPI_DOUBLE, false)
RELAY_DEFINE_PSYRK(pcsyrk_, "PCSYRK", MPI_C_FLOAT_COMPLEX, true)
RELAY_DEFINE_PSYRK(pzsyrk_, "PZSYRK", MPI_C_DOUBLE_COMPLEX, true)

// The other Fortran name manglings, as for p?gemm_.
#define RELAY_ALIAS_PSYRK(name, symbol) \
  extern "C" RELAY_SCALAPACK_API void name(RELAY_PSYRK_PARAMETERS) __attribute__((alias(#symbol)));
RELAY_ALIAS_PSYRK(pssyrk, pssyrk_)
RELAY_ALIAS_PSYRK(PSSYRK, pssyrk_)
RELAY_ALIAS_PSYRK(pdsyrk, pdsyrk_)
RELAY_ALIAS_PSYRK(PDSYRK, pdsyrk_)
RELAY_ALIAS_PSYRK(pcsyrk, pcsyrk_)
RELAY_ALIAS_PSYRK(PCSYRK, pcsyrk_)
RELAY_ALIAS_PSYRK(pzsyrk, pzsyrk_)
RELAY_ALIAS_PSYRK(PZSYRK, pzsyrk_)
