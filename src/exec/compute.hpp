// Local computation: run for real, or charged as simulated time. The one seam between a real
// run and a SimGrid SMPI simulation (issue 25): under SMPI (relay built with RELAY_SMPI=ON) a
// rank's BLAS call need not execute, its cost is charged to the simulated clock instead, so
// thousands of simulated ranks fit in one host's time and the simulated time does not depend
// on how busy the host is. Built from compute_native.cpp or compute_smpi.cpp (src/CMakeLists.txt).
#pragma once

namespace relay::exec {

/// True when local computations are charged instead of executed: under SMPI unless
/// RELAY_SIMULATE_COMPUTE=real (the correctness runs, with real data); never on real MPI.
bool compute_is_charged();

/// Charges `flops` floating-point operations of this rank to the simulated clock: at
/// RELAY_SIMULATE_GFLOPS GFLOP/s if set, else at the platform host's speed. Does nothing when
/// computations are not charged.
void charge_flops(double flops);

}  // namespace relay::exec
