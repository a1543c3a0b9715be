// What relay profile reads: every p?gemm_ call the drop-in serves, grouped by shape, with its
// time and who served it (relay, or ScaLAPACK's own p?gemm_ when RELAY_SCALAPACK_FORWARD says
// so), written by each process when it exits to RELAY_PROFILE_DIR/calls.<rank>.json
// (schema relay.profile.calls/1). Without RELAY_PROFILE_DIR nothing is recorded.
#pragma once

#include <string>

namespace relay::scalapack {

/// One call's shape: what relay profile groups calls by.
struct CallShape {
  std::string routine;  ///< "PDGEMM", ...
  char transa = 'N', transb = 'N';
  long long m = 0, n = 0, k = 0;
  long long mb = 0, nb = 0;  ///< C's block sizes (MB_, NB_ of DESCC)
  long long kb = 0;          ///< op(A)'s block size along k
  int nprow = 0, npcol = 0;
};

/// Whether calls are recorded (RELAY_PROFILE_DIR is set; read once).
bool profiling();

/// Adds one call of `seconds` served by relay (or by ScaLAPACK when !by_relay). `config` is the
/// configuration relay ran ("2d, panels pipeline/nonblocking ...", empty when forwarded).
void record_call(const CallShape& shape, double seconds, bool by_relay, const std::string& config);

}  // namespace relay::scalapack
