// Who serves the p?gemm_ calls of this process, switched at run time, and what they cost: for
// relay bench solve, which runs ScaLAPACK's solvers with ScaLAPACK's own p?gemm_ and with
// relay's in one process, interleaved (the drop-in's entry points are linked into the relay
// command and exported from it, so ScaLAPACK's calls reach them as they reach the preloaded
// library). A program linked with librelay_scalapack never calls these: there the settings
// decide (RELAY_SCALAPACK_FORWARD).
#pragma once

#include <string>

#include "scalapack/prototypes.h"

namespace relay::scalapack {

/// Who serves later calls: what RELAY_SCALAPACK_FORWARD says (the default: relay, except one
/// panel step on one node), relay's GEMM always, or ScaLAPACK's own p?gemm_ always.
enum class Server { settings, relay, scalapack };
void serve_with(Server server);

/// The calls served since reset_call_totals() in this process, and the seconds spent in them.
struct CallTotals {
  long long calls = 0;
  long long by_relay = 0;  ///< of which relay's GEMM served
  double seconds = 0;
  /// The drop-in's configuration for its last call: what relay ran, or why it handed the call
  /// to ScaLAPACK ("" if every call was forwarded by request)
  std::string last_config;
};
void reset_call_totals();
CallTotals call_totals();

/// ScaLAPACK's own p?gemm_ for `symbol` ("pdgemm_" ...): the next definition after relay's in
/// the link order. Aborts the launch (saying why) if there is none.
relay_pgemm_fn scalapack_pgemm(const char* symbol);

}  // namespace relay::scalapack
