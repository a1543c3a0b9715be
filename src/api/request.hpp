// The object behind relay_request_t: a schedule being executed, an MPI request, or an
// overlapped operation (several of those on duplicated communicators).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "exec/executor.hpp"
#include "overlap/overlap.hpp"
#include "relay/relay.h"

struct relay_request {
  enum class Kind { schedule, mpi, overlap };
  Kind kind = Kind::schedule;
  bool blocking = false;  // started by a blocking call: finished in place
  relay::exec::Executor executor;
  MPI_Request mpi_request = MPI_REQUEST_NULL;
  bool mpi_done = false;
  std::unique_ptr<relay::overlap::Overlap> overlap;
  // Reductions: memory the schedule uses (freed with the request), and the local copies to
  // make when the schedule has completed (reduce_scatter_block's and scatter's own block into
  // recvbuf; alltoall bruck's blocks out of its rotated work buffer).
  struct LocalCopy {
    char* to;
    const char* from;
    std::size_t bytes;
  };
  // Kept by a thread's blocking request from call to call (up to kKeptBytes each): fresh
  // memory costs a page fault and the kernel's zeroing on first touch of every page, which
  // for an 8 MiB reduce was 51-137 faults per call at the root on 2 and 4 ranks.
  /// Scratch memory from exec::allocate_scratch (shared between simulated ranks with
  /// RELAY_SIMULATE_COMPUTE=timing, exec/compute.hpp).
  struct Buffer {
    static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;
    char* data = nullptr;
    std::size_t capacity = 0;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(); }
    /// At least `bytes` (uninitialized); new memory only when it needs more than it has.
    char* get(std::size_t bytes);
    char* ptr() const { return data; }
    /// Frees the memory if it is more than kKeptBytes (or always, with `all`).
    void trim(bool all);
    void release() noexcept;
  };
  Buffer scratch;
  Buffer accumulator;
  std::vector<LocalCopy> copies;
  /// Makes the pending local copies, once.
  void finish_locally();
  /// Back to a fresh request for a blocking call, keeping the executor's memory.
  void reset_for_blocking_call();
};

namespace relay::api {

/// The request of a blocking call. Each thread reuses one from call to call, so the executor's
/// bookkeeping keeps its memory: built afresh, its eight small vectors cost about a quarter of
/// an 8-byte broadcast. A blocking call made while the thread's request is in use gets its own.
class BlockingRequest {
 public:
  BlockingRequest();
  ~BlockingRequest();  // lets go of the program and of any scratch memory
  BlockingRequest(const BlockingRequest&) = delete;
  BlockingRequest& operator=(const BlockingRequest&) = delete;
  relay_request* get() { return request_; }

 private:
  std::unique_ptr<relay_request> own_;  // when the thread's request was in use
  relay_request* request_ = nullptr;
};

}  // namespace relay::api

/// Blocks until `request` completes (does not free it).
relay_status_t relay_request_finish(relay_request* request, const char* function);

/// How far a schedule has progressed (Executor::events); 0 for other kinds and NULL.
std::int64_t relay_request_events(const relay_request* request);

namespace relay::api {
/// For a caller that advances several operations itself and reacts to each one's completion
/// (SymmSquareCube forwards a part as soon as it has arrived): blocks until an MPI request of
/// one of `requests` (relay requests) or of `p2p` (MPI point-to-point requests) completes,
/// hands it to its owner (a completed p2p request becomes MPI_REQUEST_NULL) and advances the
/// relay requests it handed completions to without polling, freeing those that completed
/// (*requests[i] == RELAY_REQUEST_NULL after). `waited` is false when it could not block --
/// a blocking-policy, paced (RELAY_IDLE_SLEEP_US) or overlapped operation, one of MPI's
/// nonblocking collectives under SMPI, nothing in flight --: the caller then polls instead.
relay_status_t wait_for_progress(const std::vector<relay_request_t*>& requests,
                                 const std::vector<MPI_Request*>& p2p, bool& waited);
}  // namespace relay::api
