// Local computation: run for real, or charged as simulated time. The one seam between a real
// run and a SimGrid SMPI simulation (issue 25): under SMPI (relay built with RELAY_SMPI=ON) a
// rank's BLAS call need not execute, its cost is charged to the simulated clock instead, so
// thousands of simulated ranks fit in one host's time and the simulated time does not depend
// on how busy the host is. Built from compute_native.cpp or compute_smpi.cpp (src/CMakeLists.txt).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace relay::exec {

/// Whose state "this process's" state is: 0 in a real run, where each rank is a process; under
/// SMPI the simulated rank (its actor). Without SMPI's privatization (relay simulate
/// --privatization no) every simulated rank shares the program's globals, so what must be one
/// rank's own is kept per rank_key (rank_local).
int rank_key();

/// A `T` per rank_key, default-constructed at first use: one in a real run, one per simulated
/// rank under SMPI. References stay valid (the map's nodes never move).
template <class T>
class RankLocal {
 public:
  T& mine() {
    const int key = rank_key();
    std::lock_guard<std::mutex> lock(mutex_);  // the lookup only: never across an MPI call
    return by_rank_[key];
  }

 private:
  std::mutex mutex_;
  std::unordered_map<int, T> by_rank_;
};

/// This rank's `T` of the program (a RankLocal static per type).
template <class T>
T& rank_local() {
  static RankLocal<T> values;
  return values.mine();
}

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
/// every request is null). Point-to-point requests only (SMPI's MPI_Waitany mistakes its own
/// nonblocking collectives for complete ones). Under SMPI, which keeps every communication a
/// test completed in a list it scans at each of the rank's later computations and waits (host
/// time growing as the square of the messages), the requests complete through MPI_Waitany,
/// with a zero-byte message to the rank itself listed last to end the poll: one test cost
/// (smpi/test) charged per MPI_Waitany, one per completion and one for the miss.
int test_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses);

/// MPI_Test of one point-to-point request; under SMPI test_some's, for the same reason.
int test_one(MPI_Request* request, int* flag, MPI_Status* status);

/// MPI_Waitsome: blocks until at least one of `requests` completes. Under SMPI, whose
/// MPI_Waitsome tests every other request once one completes (each test charged as above), one
/// MPI_Waitany: *done is 1, and the caller's next test or wait finds the others.
int wait_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses);

/// The tag a point-to-point message of `bytes` travels with, for relay's protocol tag `tag`
/// (1..30000, exec::CommState::next_tag): `tag` on real MPI. Under SMPI with
/// smpi/async-small-thresh set (relay simulate sets 64 KiB), a message below the threshold goes
/// through a second mailbox, and a send checks the other mailbox for a posted receive before
/// its own: messages from one rank with one tag on both sides of the threshold then match out
/// of order -- a segmented ring allreduce of 1 MiB on 3 ranks, 64 KiB segments and a shorter
/// last one, ended in SMPI's deadlock report. Above the threshold the tag is moved past 2^24
/// (SMPI's MPI_TAG_UB is INT_MAX), so each mailbox only sees its own and keeps MPI's order.
/// Both sides of a message must pass the message's size (receives are posted at it).
int wire_tag(int tag, std::int64_t bytes);

/// Whether wait_some can wait for MPI's own nonblocking collectives (MPI_Ibcast, ...): not
/// under SMPI, whose MPI_Waitany does not see them complete; they must be tested there.
bool waits_see_collectives();

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

/// A growable array of such data (matrices, panels, staging buffers): allocate_data's storage,
/// std::vector's interface where relay uses it. When computations are charged the values are
/// never read, and new or moved elements are left unwritten: zeroing them touched every shared
/// page, which counted the same pages once per rank in the resident set (18 GB for n = 16384 on
/// 1,024 simulated ranks), and std::vector with an allocator that skips each element's
/// construction still ran its loop over the elements: 23% of the host time of a 4,096-rank
/// SymmSquareCube simulation (perf). Otherwise new elements are zero, as std::vector's. Not
/// copyable: a copy of a matrix is always a mistake here; movable (std::swap of two panels).
template <class T>
class DataVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "DataVector holds numbers");

 public:
  DataVector() = default;
  explicit DataVector(std::size_t count) { resize(count); }
  DataVector(const DataVector&) = delete;
  DataVector& operator=(const DataVector&) = delete;
  DataVector(DataVector&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  DataVector& operator=(DataVector&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  ~DataVector() { release(); }

  /// Elements kept; new ones zero unless computations are charged.
  void resize(std::size_t count) {
    if (count > capacity_) grow_to(count);
    if (count > size_ && !compute_is_charged()) {
      std::fill(data_ + size_, data_ + count, T{});
    }
    size_ = count;
  }
  void reserve(std::size_t count) {
    if (count > capacity_) grow_to(count);
  }
  void push_back(const T& value) {
    if (size_ == capacity_) grow_to(std::max<std::size_t>(16, 2 * capacity_));
    data_[size_++] = value;
  }
  /// Keeps the storage, as std::vector::clear.
  void clear() noexcept { size_ = 0; }

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  void grow_to(std::size_t count) {
    T* grown = static_cast<T*>(allocate_data(count * sizeof(T)));
    if (size_ > 0 && !compute_is_charged()) std::copy(data_, data_ + size_, grown);
    release();
    data_ = grown;
    capacity_ = count;
  }
  void release() noexcept {
    if (data_ != nullptr) free_data(data_, capacity_ * sizeof(T));
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace relay::exec
