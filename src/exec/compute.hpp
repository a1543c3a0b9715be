// Local computation: run for real, or charged as simulated time. The one seam between a real
// run and a SimGrid SMPI simulation (issue 25): under SMPI (relay built with RELAY_SMPI=ON) a
// rank's BLAS call need not execute, its cost is charged to the simulated clock instead, so
// thousands of simulated ranks fit in one host's time and the simulated time does not depend
// on how busy the host is. Built from compute_native.cpp or compute_smpi.cpp (src/CMakeLists.txt).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace relay::exec {

/// True when local computations are charged instead of executed: under SMPI unless
/// RELAY_SIMULATE_COMPUTE=real (the correctness runs, with real data); never on real MPI.
bool compute_is_charged();

/// False only under SMPI with RELAY_SIMULATE_COMPUTE=real: computations then run, but the
/// simulated clock does not see them (SMPI's simulate-computation is off), so no rate of them
/// can be timed. True on real MPI and when computations are charged.
bool compute_is_timed();

/// True under SMPI with RELAY_SIMULATE_COMPUTE=timing: relay's own scratch memory (the
/// operands a reduction receives, a gather's staging) may be shared between simulated ranks
/// like the data (allocate_scratch), and the executor's combines and the collectives' local
/// copies are skipped (their values are not read; writing shared pages sent SMPI's /tmp file
/// back to disk). A 512-rank SymmSquareCube of 29 MiB blocks held 47 MiB of private scratch
/// per rank and filled this host's 24 GiB; shared, results are not real.
bool scratch_is_shared();

/// Scratch memory: allocate_data's shared pages when scratch_is_shared(), else operator new.
void* allocate_scratch(std::size_t bytes);
/// Frees what allocate_scratch(bytes) returned.
void free_scratch(void* data, std::size_t bytes) noexcept;

/// Charges `flops` floating-point operations of this rank to the simulated clock: at
/// RELAY_SIMULATE_GFLOPS GFLOP/s if set, else at the platform host's speed. Does nothing when
/// computations are not charged.
void charge_flops(double flops);

/// The rate charge_flops charges at, GFLOP/s per rank (0 when computations are not charged):
/// what a benchmark reports as the peak of a simulated core.
double charged_gflops();

/// Cores of the host this rank runs on: the simulated host's under SMPI.
int host_cores();

/// This machine's CPU time since boot, in clock ticks summed over all its CPUs (/proc/stat):
/// `busy` everything but idle and I/O wait (every process, the kernel's interrupts and network
/// processing, time a hypervisor took), `total` that plus idle. False where there is nothing to
/// read: a simulation (a simulated host has no such counter), a system without /proc.
bool machine_cpu_ticks(unsigned long long& busy, unsigned long long& total);

/// Names the machine whose cores this rank shares: equal on two ranks exactly when they
/// compete for the same host_cores(). RELAY_MACHINE_ID, else the kernel's boot id; not MPI's
/// node, since the emulated cluster's nodes are distinct nodes to MPI (and have boot ids of
/// their own, for UCX) that share this machine's cores: relay cluster run sets the variable.
/// Under SMPI, the simulated host's name.
std::string machine_id();

/// The ranks of comm on this rank's node, in comm's order (MPI_Comm_split_type with
/// MPI_COMM_TYPE_SHARED), as a new communicator in *node that the caller frees; an MPI error
/// code. Collective over comm. Under SMPI the members come from the simulated host's own
/// ranks, with no split over comm: SMPI gathers a split's colors to one rank and matches each
/// message by a linear scan of that rank's queue, so a split of 16,384 ranks cost minutes of
/// host time and a 64-byte-per-rank allgather 16 GiB of host memory.
int node_comm(MPI_Comm comm, MPI_Comm* node);

/// A communicator with comm's ranks in comm's order and a context of its own (MPI_Comm_dup,
/// without copying attributes); an MPI error code. Collective over comm. Under SMPI, which
/// copies the whole group into every rank's duplicate (P^2 entries over P ranks: gigabytes at
/// 16,384 simulated ranks), the new communicator shares comm's group (MPI_Comm_create).
int dup_comm(MPI_Comm comm, MPI_Comm* copy);

/// The ranks of comm that share this rank's machine (machine_id(): one kernel, whatever MPI
/// calls a node), in comm's order; MPI_COMM_NULL if MPI failed. Collective over comm; the
/// caller frees it. Under SMPI a machine is a simulated host: node_comm's.
MPI_Comm machine_comm(MPI_Comm comm);

/// MPI_Testsome: the completed requests among `requests`, *done of them (MPI_UNDEFINED when
/// every request is null). Under SMPI, whose MPI_Testsome charges the test cost (and a switch
/// of simulated rank) once per request tested, MPI_Testany is asked until it finds nothing:
/// one charge per completion and one for the miss; what MPI_Testany cannot see (a detached
/// small send, already complete) MPI_Testsome then finishes.
int test_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses);

/// MPI_Waitsome: blocks until at least one of `requests` completes. Under SMPI, whose
/// MPI_Waitsome tests every other request once one completes (each test charged as above), one
/// MPI_Waitany: *done is 1, and the caller's next test or wait finds the others.
int wait_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses);

/// MPI_Allreduce for relay's own bookkeeping outside any measured call (set-up, memory checks,
/// statistics: a few bytes), not for a collective being measured (the `mpi` algorithms call
/// MPI themselves) nor inside a call whose time is measured (relay_gemm's agreement, argument
/// checks: MPI's own, whose ranks leave together, where this one's leave log2 P hops apart). Under
/// SMPI 3.32 a reduction to rank 0 and a broadcast: SMPI sends every message under 64 KiB detached,
/// and each detached message that finishes is removed from a list of all those in flight by a
/// linear scan, so recursive doubling's P log2 P messages, P of them at a time, cost host time
/// growing as P^2 log P; a reduction and a broadcast move 2 (P - 1), few at a time
/// (docs/simulate.md).
int allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/// Whether every rank of `comm` holds the same `value`: one allreduce of (h, -h) per 32-bit
/// half with MPI_MAX. Sets `rc` to the allreduce's return code (false when it failed).
inline bool same_on_every_rank(std::uint64_t value, MPI_Comm comm, int& rc) {
  const long long hi = static_cast<long long>(value >> 32);
  const long long lo = static_cast<long long>(value & 0xffffffffu);
  const long long in[4] = {hi, lo, -hi, -lo};
  long long out[4] = {};
  rc = allreduce(in, out, 4, MPI_LONG_LONG, MPI_MAX, comm);
  return rc == MPI_SUCCESS && out[0] == -out[2] && out[1] == -out[3];
}

/// Bytes per second, each direction, of the route from this rank's node to another node: the
/// platform's under SMPI (its slowest link); 0 in a real run (not known here).
double link_bytes_per_s();

/// Storage for data whose values matter only when computations are real: matrices and
/// panels. Under SMPI with computations charged, SMPI_SHARED_MALLOC (every simulated rank maps
/// the same pages: 16,384 ranks' matrices fit in one host, and SMPI copies no message whose
/// buffers are shared) from 64 KiB up; otherwise operator new. Throws std::bad_alloc.
void* allocate_data(std::size_t bytes);
/// Frees what allocate_data(bytes) returned (the same bytes).
void free_data(void* data, std::size_t bytes) noexcept;

/// std::vector's allocator for such data (DataVector below). When computations are charged
/// the values are never read, and it leaves the elements unwritten: zeroing them touched every
/// shared page, which counted the same pages once per rank in the resident set (18 GB for
/// n = 16384 on 1,024 simulated ranks) and spent the host's time in page faults.
template <class T>
struct DataAllocator {
  using value_type = T;
  DataAllocator() : values_unused(compute_is_charged()) {}
  template <class U>
  DataAllocator(const DataAllocator<U>& other) noexcept : values_unused(other.values_unused) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_data(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { free_data(p, n * sizeof(T)); }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_destructible_v<U>) {
      if (values_unused) return;  // implicit-lifetime data whose value nobody reads
    }
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const DataAllocator&, const DataAllocator&) { return true; }
  friend bool operator!=(const DataAllocator&, const DataAllocator&) { return false; }
  bool values_unused = false;
};
template <class T>
using DataVector = std::vector<T, DataAllocator<T>>;

}  // namespace relay::exec
