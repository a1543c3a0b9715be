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

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/settings.hpp"
#include "core/status.hpp"
#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"

#include "scalapack/profile.hpp"
#include "scalapack/prototypes.h"
#include "scalapack/serving.hpp"

namespace {

constexpr int kBlacsGetContextComm = 10;  // SGET_BLACSCONTXT: the context's communicator

bool return_on_error() {
  const char* v = relay::core::read_setting(relay::core::Knob::scalapack_on_error);
  return v != nullptr && std::strcmp(v, "return") == 0;
}

// PB_Cabort's message, printed by this process.
void print_error(int ctxt, const char* routine, int info) {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  const int pnum = nprow != -1 ? Cblacs_pnum(ctxt, myrow, mycol) : -1;
  std::string what = -info < 100
                         ? fmt::format("Parameter number {} had an illegal value", -info)
                         : fmt::format("Parameter number {}, entry number {} had an illegal value",
                                       -info / 100, -info % 100);
  std::fprintf(stderr, "PBLAS ERROR '%s'\nfrom {%d,%d}, pnum=%d, Contxt=%d, in routine '%s'.\n\n",
               what.c_str(), myrow, mycol, pnum, ctxt, routine);
}

void report(int ctxt, const char* routine, int info) {
  if (return_on_error()) {
    print_error(ctxt, routine, info);
    return;
  }
  std::string name(routine);
  PB_Cabort(ctxt, name.data(), info);
}

// Serves one call with relay's GEMM and returns true; or, when `fallback` (ScaLAPACK's own
// p?gemm_, given when the drop-in chooses by shape) is given and the call is one panel step on a
// grid within one node, hands it to ScaLAPACK and returns false. Errors are PBLAS's (report).
bool pgemm(const char* routine, MPI_Datatype type, const char* transa, const char* transb,
           const int* m, const int* n, const int* k, const void* alpha, const void* a,
           const int* ia, const int* ja, const int* desca, const void* b, const int* ib,
           const int* jb, const int* descb, const void* beta, void* c, const int* ic, const int* jc,
           const int* descc, relay_pgemm_fn fallback, std::string* config) {
  const int ctxt = desca[1];
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (nprow == -1) {  // not a context of this process: PBLAS's -(100 * DESCA + CTXT_)
    report(ctxt, routine, -(1000 + 2));
    return true;
  }
  int handle = 0;
  Cblacs_get(ctxt, kBlacsGetContextComm, &handle);
  MPI_Comm comm = Cblacs2sys_handle(handle);
  relay_grid* grid = nullptr;
  std::string error;
  if (relay::gemm::grid_of_comm(comm, nprow, npcol, &grid, error) != RELAY_SUCCESS ||
      grid->me.row != myrow || grid->me.col != mycol) {
    std::fprintf(stderr, "relay %s: cannot map BLACS context %d to a grid: %s\n", routine, ctxt,
                 error.empty() ? "grid coordinates differ from BLACS's" : error.c_str());
    MPI_Abort(comm, 1);
    return true;
  }
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
  int info = relay::gemm::check_arguments(p, *grid, message);
  info = relay::gemm::agree_on_info(info, *grid);
  if (info != 0) {
    report(ctxt, routine, info);
    return true;
  }
  relay::gemm::Options options;
  if (relay::gemm::resolve_options(nullptr, options, error) != RELAY_SUCCESS) {
    std::fprintf(stderr, "relay %s: %s\n", routine, error.c_str());
    MPI_Abort(comm, 1);
    return true;
  }
  // PBLAS's INFO agreement cannot see arguments that are valid on each process but differ
  // between them (TRANSA, a descriptor): ScaLAPACK's own pdgemm_ then hangs; relay stops.
  if (!relay::gemm::agree_on_fingerprint(relay::gemm::problem_fingerprint(p, options), *grid)) {
    std::fprintf(stderr,
                 "relay %s: the processes of the grid passed different arguments "
                 "(TRANSA, TRANSB, M, N, K, ALPHA, BETA, offsets or a descriptor other than "
                 "LLD_), each valid on its own\n",
                 routine);
    if (return_on_error()) return true;
    MPI_Abort(comm, 1);
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

// relay bench solve switches between calls, on one thread; atomics all the same, since an
// application may call p?gemm_ from several threads (MPI_THREAD_MULTIPLE).
std::atomic<int> g_server{static_cast<int>(relay::scalapack::Server::settings)};
std::mutex g_totals_mutex;
relay::scalapack::CallTotals g_totals;

// Who serves a call: relay bench solve's switch, else RELAY_SCALAPACK_FORWARD: relay (always
// relay's GEMM), scalapack (always ScaLAPACK's own), auto or unset (relay's, except one panel
// step on one node: pgemm above).
enum class Path { relay, scalapack, automatic };
Path requested_path() {
  static const Path from_settings = [] {
    const char* v = relay::core::read_setting(relay::core::Knob::scalapack_forward);
    if (v != nullptr && std::strcmp(v, "scalapack") == 0) return Path::scalapack;
    if (v != nullptr && std::strcmp(v, "relay") == 0) return Path::relay;
    return Path::automatic;
  }();
  switch (static_cast<relay::scalapack::Server>(g_server.load(std::memory_order_relaxed))) {
    case relay::scalapack::Server::relay:
      return Path::relay;
    case relay::scalapack::Server::scalapack:
      return Path::scalapack;
    case relay::scalapack::Server::settings:
      break;
  }
  return from_settings;
}

// Serves one call: relay's pgemm, or ScaLAPACK's own when forwarding; timed and recorded when
// relay profile asks (RELAY_PROFILE_DIR).
// `scalapack`: ScaLAPACK's own definition of `symbol` (null if none follows relay's).
void serve(const char* routine, const char* symbol, relay_pgemm_fn scalapack, MPI_Datatype type,
           const char* transa, const char* transb, const int* m, const int* n, const int* k,
           const void* alpha, const void* a, const int* ia, const int* ja, const int* desca,
           const void* b, const int* ib, const int* jb, const int* descb, const void* beta, void* c,
           const int* ic, const int* jc, const int* descc) {
  const Path path = requested_path();
  // Required when forwarding (stops the launch, saying why, when missing); optional for the
  // automatic path (without it relay serves every call).
  if (path == Path::scalapack && scalapack == nullptr) relay::scalapack::scalapack_pgemm(symbol);
  const bool profile = relay::scalapack::profiling();
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
  const double seconds = MPI_Wtime() - start;
  {
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    ++g_totals.calls;
    g_totals.seconds += seconds;
    if (!forward) ++g_totals.by_relay;
    if (!config.empty()) g_totals.last_config = config;
  }
  if (!profile) return;
  relay::scalapack::CallShape shape;
  shape.routine = routine;
  shape.transa = static_cast<char>(std::toupper(static_cast<unsigned char>(transa[0])));
  shape.transb = static_cast<char>(std::toupper(static_cast<unsigned char>(transb[0])));
  shape.m = *m;
  shape.n = *n;
  shape.k = *k;
  shape.mb = descc[4];  // DTYPE-1 layout: MB_ and NB_ are entries 5 and 6
  shape.nb = descc[5];
  shape.kb = shape.transa == 'N' ? desca[5] : desca[4];
  int myrow = -1, mycol = -1;
  Cblacs_gridinfo(desca[1], &shape.nprow, &shape.npcol, &myrow, &mycol);
  relay::scalapack::record_call(shape, seconds, !forward, config);
}

}  // namespace

namespace relay::scalapack {

void serve_with(Server server) { g_server.store(static_cast<int>(server)); }

void reset_call_totals() {
  std::lock_guard<std::mutex> lock(g_totals_mutex);
  g_totals = CallTotals{};
}

CallTotals call_totals() {
  std::lock_guard<std::mutex> lock(g_totals_mutex);
  return g_totals;
}

relay_pgemm_fn scalapack_pgemm(const char* symbol) {
  auto f = reinterpret_cast<relay_pgemm_fn>(dlsym(RTLD_NEXT, symbol));
  if (f == nullptr) {
    std::fprintf(stderr,
                 "relay: ScaLAPACK's own %s is wanted (RELAY_SCALAPACK_FORWARD=scalapack, or "
                 "relay bench solve), but none follows relay's in the link order (link ScaLAPACK "
                 "after librelay_scalapack, or preload it)\n",
                 symbol);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return f;
}

}  // namespace relay::scalapack

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
