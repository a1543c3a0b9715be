// SimGrid SMPI: computations are charged to the simulated clock unless the run asks for real
// ones (exec/compute.hpp). Read on every call: cheap next to the multiplication it replaces.
#include <smpi/smpi.h>

#include <cstdlib>
#include <cstring>

#include "core/settings.hpp"
#include "exec/compute.hpp"

namespace relay::exec {

bool compute_is_charged() {
  const char* mode = core::read_setting(core::Knob::simulate_compute);
  return mode == nullptr || std::strcmp(mode, "real") != 0;
}

void charge_flops(double flops) {
  if (!compute_is_charged() || flops <= 0) return;
  const char* rate = core::read_setting(core::Knob::simulate_gflops);
  const double gflops = rate != nullptr ? std::atof(rate) : 0.0;
  if (gflops > 0) {
    smpi_execute(flops / (gflops * 1e9));
  } else {
    smpi_execute_flops(flops);  // at the speed the platform gives this rank's host
  }
}

}  // namespace relay::exec
