// The drop-in's shared parts (dropin.hpp) and the switch and totals of serving.hpp.
#include "scalapack/dropin.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "core/settings.hpp"
#include "gemm/grid.hpp"
#include "scalapack/profile.hpp"
#include "scalapack/prototypes.h"
#include "scalapack/serving.hpp"

// relay bench solve switches between calls, on one thread; atomics all the same, since an
// application may call p?gemm_ from several threads (MPI_THREAD_MULTIPLE).
namespace {

std::atomic<int> g_server{static_cast<int>(relay::scalapack::Server::settings)};
std::mutex g_totals_mutex;
relay::scalapack::CallTotals g_totals;

// PB_Cabort's message, printed by this process. PB_Cabort means INFO = -(100 * position + entry)
// to read "parameter number P, entry number E", but its test (INFO < DESCMULT) holds for every
// negative INFO, so ScaLAPACK prints "Parameter number 1005" for DESCA's MB_: so does relay.
void print_error(int ctxt, const char* routine, int info) {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  const int pnum = nprow != -1 ? Cblacs_pnum(ctxt, myrow, mycol) : -1;
  std::fprintf(stderr,
               "PBLAS ERROR 'Parameter number %d had an illegal value'\nfrom {%d,%d}, pnum=%d, "
               "Contxt=%d, in routine '%s'.\n\n",
               -info, myrow, mycol, pnum, ctxt, routine);
}

}  // namespace

namespace relay::scalapack {

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

bool return_on_error() {
  const char* v = relay::core::read_setting(relay::core::Knob::scalapack_on_error);
  return v != nullptr && std::strcmp(v, "return") == 0;
}

void report_error(int ctxt, const char* routine, int info) {
  if (return_on_error()) {
    print_error(ctxt, routine, info);
    return;
  }
  std::string name(routine);
  PB_Cabort(ctxt, name.data(), info);
}

bool agree_on_call(const char* routine, int ctxt, relay_grid& grid, int info,
                   const gemm::Problem& p, gemm::Options& options, const char* compared) {
  // Options come from this process's environment: resolved before the one agreement.
  std::string error;
  const bool options_valid = gemm::resolve_options(nullptr, options, error) == RELAY_SUCCESS;
  const gemm::CallAgreement agreed = gemm::agree_on_call(
      info, {options_valid ? 0 : 1, 0, 0},
      info == 0 && options_valid ? gemm::problem_fingerprint(p, options) : 0, grid);
  if (agreed.info != 0) {
    report_error(ctxt, routine, agreed.info);
    return false;
  }
  if (agreed.any_flags[0] != 0) {
    if (!options_valid) std::fprintf(stderr, "relay %s: %s\n", routine, error.c_str());
    MPI_Abort(grid.comm, 1);
    return false;
  }
  if (!agreed.same_problem) {
    std::fprintf(stderr,
                 "relay %s: the processes of the grid passed different arguments (%s, offsets or "
                 "a descriptor other than LLD_), each valid on its own\n",
                 routine, compared);
    if (!return_on_error()) MPI_Abort(grid.comm, 1);
    return false;
  }
  return true;
}

void serve_with(Server server) { g_server.store(static_cast<int>(server)); }

void reset_call_totals() {
  std::lock_guard<std::mutex> lock(g_totals_mutex);
  g_totals = CallTotals{};
}

CallTotals call_totals() {
  std::lock_guard<std::mutex> lock(g_totals_mutex);
  return g_totals;
}

void* next_definition(const char* symbol) { return dlsym(RTLD_NEXT, symbol); }

void* required_next_definition(const char* symbol) {
  void* f = next_definition(symbol);
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

relay_pgemm_fn scalapack_pgemm(const char* symbol) {
  return reinterpret_cast<relay_pgemm_fn>(required_next_definition(symbol));
}

void finish_call(const char* routine, const char ops[2], long long m, long long n, long long k,
                 bool a_transposed, const int* desca, const int* descc, double seconds,
                 bool by_relay, const std::string& config) {
  {
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    ++g_totals.calls;
    g_totals.seconds += seconds;
    if (by_relay) ++g_totals.by_relay;
    if (!config.empty()) g_totals.last_config = config;
  }
  if (!profiling()) return;
  CallShape shape;
  shape.routine = routine;
  shape.transa = static_cast<char>(std::toupper(static_cast<unsigned char>(ops[0])));
  shape.transb = static_cast<char>(std::toupper(static_cast<unsigned char>(ops[1])));
  shape.m = m;
  shape.n = n;
  shape.k = k;
  shape.mb = descc[4];  // DTYPE-1 layout: MB_ and NB_ are entries 5 and 6
  shape.nb = descc[5];
  shape.kb = a_transposed ? desca[4] : desca[5];
  int myrow = -1, mycol = -1;
  Cblacs_gridinfo(desca[1], &shape.nprow, &shape.npcol, &myrow, &mycol);
  record_call(shape, seconds, by_relay, config);
}

relay_grid* context_grid(const char* routine, int ctxt, int info_if_not_a_context, int& nprow,
                         int& npcol) {
  int myrow = -1, mycol = -1;
  nprow = -1;
  npcol = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (nprow == -1) {
    report_error(ctxt, routine, info_if_not_a_context);
    return nullptr;
  }
  // blacs_get with what = 10 (SGET_BLACSCONTXT) gives the context's own communicator.
  int handle = 0;
  Cblacs_get(ctxt, 10, &handle);
  MPI_Comm comm = Cblacs2sys_handle(handle);
  relay_grid* grid = nullptr;
  std::string error;
  if (gemm::grid_of_comm(comm, nprow, npcol, &grid, error) != RELAY_SUCCESS ||
      grid->me.row != myrow || grid->me.col != mycol) {
    std::fprintf(stderr, "relay %s: cannot map BLACS context %d to a grid: %s\n", routine, ctxt,
                 error.empty() ? "grid coordinates differ from BLACS's" : error.c_str());
    MPI_Abort(comm, 1);
    return nullptr;
  }
  return grid;
}

}  // namespace relay::scalapack
