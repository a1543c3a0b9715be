// The ScaLAPACK C ABI of relay's GEMM: psgemm_, pdgemm_, pcgemm_, pzgemm_ with PBLAS's exact
// argument list, on BLACS contexts. Linked before ScaLAPACK (or preloaded), these replace
// ScaLAPACK's p?gemm in an unchanged application, including the calls ScaLAPACK's own routines
// make, since those go through the dynamic symbol table too.
//
// A BLACS context is mapped to relay's grid through the BLACS C interface: blacs_get with
// what = 10 gives the context's own communicator (ranks row-major over the grid, whatever
// order BLACS_GRIDINIT was given), and the grid with its row and column communicators hangs
// off that communicator as an attribute, so it is built once per context and freed with it.
//
// Errors are reported as PBLAS reports them: INFO = -(argument position) or
// -(100 * position + descriptor entry), then PB_Cabort (message on stderr, Cblacs_abort).
// With RELAY_SCALAPACK_ON_ERROR=return the same message is printed on every process and the
// call returns without touching C instead (the processes agree on the error first, so none
// hangs in a broadcast the others skipped).
//
// RELAY_SCALAPACK_FORWARD=scalapack hands every call to ScaLAPACK's own p?gemm_ (the next
// definition in the link order, dlsym RTLD_NEXT), =relay keeps every call on relay's GEMM, and
// the default (auto) hands ScaLAPACK the calls relay cannot speed up: one panel step on a grid
// within one node (pgemm below). With RELAY_PROFILE_DIR set every call is timed and recorded
// (scalapack/profile.hpp; relay profile).
#include <dlfcn.h>
#include <mpi.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/settings.hpp"
#include "core/status.hpp"
#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"

#include "scalapack/dropin.hpp"
#include "scalapack/prototypes.h"
#include "scalapack/serving.hpp"

namespace {

// Serves one call with relay's GEMM and returns true; or, when `fallback` (ScaLAPACK's own
// p?gemm_, given when the drop-in chooses by shape) is given and the call is one panel step on a
// grid within one node, hands it to ScaLAPACK and returns false. Errors are PBLAS's (report).
bool pgemm(const char* routine, MPI_Datatype type, const char* transa, const char* transb,
           const int* m, const int* n, const int* k, const void* alpha, const void* a,
           const int* ia, const int* ja, const int* desca, const void* b, const int* ib,
           const int* jb, const int* descb, const void* beta, void* c, const int* ic, const int* jc,
           const int* descc, relay_pgemm_fn fallback, std::string* config) {
  const int ctxt = desca[1];
  int nprow = -1, npcol = -1;
  // Not a context of this process: PBLAS's -(100 * DESCA + CTXT_).
  relay_grid* grid = relay::scalapack::context_grid(routine, ctxt, -(1000 + 2), nprow, npcol);
  if (grid == nullptr) return true;
  MPI_Comm comm = grid->comm;
  std::string error;
  relay::gemm::Problem p;
  p.transa = transa[0];
  p.transb = transb[0];
  relay::gemm::parse_op(p.transa, p.opa);
  relay::gemm::parse_op(p.transb, p.opb);
  p.m = *m;
  p.n = *n;
  p.k = *k;
  p.type = type;
  p.alpha = alpha;
  p.beta = beta;
  p.a = a;
  p.ia = *ia - 1;
  p.ja = *ja - 1;
  p.desca = relay::layout::descriptor_from_fortran(desca);
  p.b = b;
  p.ib = *ib - 1;
  p.jb = *jb - 1;
  p.descb = relay::layout::descriptor_from_fortran(descb);
  p.c = c;
  p.ic = *ic - 1;
  p.jc = *jc - 1;
  p.descc = relay::layout::descriptor_from_fortran(descc);
  p.ctxt = ctxt;
  std::string message;
  const int info = relay::gemm::check_arguments(p, *grid, message);
  relay::gemm::Options options;
  if (!relay::scalapack::agree_on_call(routine, ctxt, *grid, info, p, options,
                                       "TRANSA, TRANSB, M, N, K, ALPHA, BETA")) {
    return true;
  }
  // One panel step (k within op(A)'s block along k: the trailing updates of LU, k = NB) on a
  // grid within one node: relay's gain is its panel broadcasts over links (both panels at once,
  // pipelined); on shared memory there are none, and relay bench solve measured its pdgemm_
  // 5-6% slower than ScaLAPACK's in pdgesv there (docs/applications.md). The arguments are
  // agreed above, so every process takes the same path.
  const std::int64_t k_block = p.opa == relay::gemm::Op::none ? p.desca.nb : p.desca.mb;
  if (fallback != nullptr && p.k <= k_block && relay::gemm::grid_nodes(*grid) == 1) {
    fallback(transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc,
             descc);
    if (config != nullptr) *config = "ScaLAPACK's own: one panel step on one node";
    if (relay::core::log_enabled()) {
      relay::core::log_line(fmt::format(
          "relay {}: {}x{}x{} trans={}{} grid {}x{}: k within one block (NB {}) on one node: "
          "ScaLAPACK's own p?gemm_ (RELAY_SCALAPACK_FORWARD=relay: relay's always)",
          routine, *m, *n, *k, p.transa, p.transb, nprow, npcol, k_block));
    }
    return false;
  }
  if (relay::core::log_enabled()) {
    relay::core::log_line(fmt::format("relay {}: {}x{}x{} trans={}{} grid {}x{} (relay's p?gemm)",
                                      routine, *m, *n, *k, p.transa, p.transb, nprow, npcol));
  }
  relay_gemm_stats_t stats;
  relay_gemm_report_t report;
  relay_gemm_report_init(&report);
  options.report = &report;
  if (relay::gemm::multiply(p, *grid, options, stats, error) != RELAY_SUCCESS) {
    std::fprintf(stderr, "relay %s: %s\n", routine, error.c_str());
    MPI_Abort(comm, 1);
  }
  if (config != nullptr) {
    const char* algorithm =
        relay::gemm::algorithm_name(static_cast<relay_gemm_algorithm_t>(report.algorithm));
    const char* bcast = relay_bcast_algorithm_name(options.bcast.algorithm);
    const char* policy = relay_policy_name(options.bcast.policy);
    *config = fmt::format(
        "{}{}, panel broadcasts {}/{}, look-ahead {}", algorithm != nullptr ? algorithm : "?",
        report.layers > 1 ? fmt::format(" c={}", report.layers) : "",
        bcast != nullptr ? bcast : "?", policy != nullptr ? policy : "?", options.lookahead);
  }
  return true;
}

// Serves one call: relay's pgemm, or ScaLAPACK's own when forwarding; timed and recorded when
// relay profile asks (RELAY_PROFILE_DIR).
// `scalapack`: ScaLAPACK's own definition of `symbol` (null if none follows relay's).
void serve(const char* routine, const char* symbol, relay_pgemm_fn scalapack, MPI_Datatype type,
           const char* transa, const char* transb, const int* m, const int* n, const int* k,
           const void* alpha, const void* a, const int* ia, const int* ja, const int* desca,
           const void* b, const int* ib, const int* jb, const int* descb, const void* beta, void* c,
           const int* ic, const int* jc, const int* descc) {
  using relay::scalapack::Path;
  const Path path = relay::scalapack::requested_path();
  // Required when forwarding (stops the launch, saying why, when missing); optional for the
  // automatic path (without it relay serves every call).
  if (path == Path::scalapack && scalapack == nullptr) relay::scalapack::scalapack_pgemm(symbol);
  const double start = MPI_Wtime();
  std::string config;
  bool forward = path == Path::scalapack;
  if (forward) {
    scalapack(transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc,
              descc);
  } else {
    forward =
        !pgemm(routine, type, transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb,
               beta, c, ic, jc, descc, path == Path::automatic ? scalapack : nullptr, &config);
  }
  const char ops[2] = {transa[0], transb[0]};
  relay::scalapack::finish_call(routine, ops, *m, *n, *k,
                                std::toupper(static_cast<unsigned char>(transa[0])) != 'N', desca,
                                descc, MPI_Wtime() - start, !forward, config);
}

}  // namespace

#define RELAY_SCALAPACK_API __attribute__((visibility("default")))

// One definition per precision, PBLAS's argument list (Fortran: every argument by reference;
// the hidden lengths of TRANSA and TRANSB are not read, as in PBLAS's own C code).
#define RELAY_PGEMM_PARAMETERS                                                                  \
  const char *transa, const char *transb, const int *m, const int *n, const int *k,             \
      const void *alpha, const void *a, const int *ia, const int *ja, const int *desca,         \
      const void *b, const int *ib, const int *jb, const int *descb, const void *beta, void *c, \
      const int *ic, const int *jc, const int *descc
#define RELAY_DEFINE_PGEMM(symbol, routine, mpi_type)                                              \
  extern "C" RELAY_SCALAPACK_API void symbol(RELAY_PGEMM_PARAMETERS) {                             \
    static const auto scalapack = reinterpret_cast<relay_pgemm_fn>(dlsym(RTLD_NEXT, #symbol));     \
    serve(routine, #symbol, scalapack, mpi_type, transa, transb, m, n, k, alpha, a, ia, ja, desca, \
          b, ib, jb, descb, beta, c, ic, jc, descc);                                               \
  }

RELAY_DEFINE_PGEMM(psgemm_, "PSGEMM", MPI_FLOAT)
RELAY_DEFINE_PGEMM(pdgemm_, "PDGEMM", MPI_DOUBLE)
RELAY_DEFINE_PGEMM(pcgemm_, "PCGEMM", MPI_C_FLOAT_COMPLEX)
RELAY_DEFINE_PGEMM(pzgemm_, "PZGEMM", MPI_C_DOUBLE_COMPLEX)

// The other Fortran name manglings (as COSMA's drop-in and Intel MKL's ScaLAPACK export them):
// a program compiled for `pdgemm` or `PDGEMM` reaches relay's too. gfortran's (Debian's, Spack's
// netlib ScaLAPACK) is the trailing underscore; with these, preloading the drop-in also serves
// programs and libraries built with the other conventions.
#define RELAY_ALIAS_PGEMM(name, symbol) \
  extern "C" RELAY_SCALAPACK_API void name(RELAY_PGEMM_PARAMETERS) __attribute__((alias(#symbol)));
RELAY_ALIAS_PGEMM(psgemm, psgemm_)
RELAY_ALIAS_PGEMM(PSGEMM, psgemm_)
RELAY_ALIAS_PGEMM(pdgemm, pdgemm_)
RELAY_ALIAS_PGEMM(PDGEMM, pdgemm_)
RELAY_ALIAS_PGEMM(pcgemm, pcgemm_)
RELAY_ALIAS_PGEMM(PCGEMM, pcgemm_)
RELAY_ALIAS_PGEMM(pzgemm, pzgemm_)
RELAY_ALIAS_PGEMM(PZGEMM, pzgemm_)
