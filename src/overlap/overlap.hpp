// The engine of huang2018's nonblocking overlap: an operation made of parts, each part one or
// two nonblocking collectives ("stages") on duplicated communicators, the second started when
// the first has completed (their Algorithm 2: reduce part c, then broadcast part c while part
// c+1 still reduces).
//
// Ordering. MPI requires the collectives on one communicator to be started in the same order
// on every rank, and relay's schedules take their tags from that order. A chained part's
// second stage starts when its first completes, which happens at different times on different
// ranks, so with several operations in flight "start when ready" could start operation A's
// broadcast before B's on one rank and after it on another. Therefore every stage is started
// through its duplicate's queue: stages are queued in the order the operations were posted
// (the same on every rank), and only the head of a queue may start, once the stage it depends
// on has completed. A stage can only wait for stages posted before it, so the queues cannot
// deadlock; a rank waiting for a stage stuck behind another operation's head advances that
// operation's pending stage itself, so completing one request never depends on the caller
// also progressing another.
//
// Layering: entry (api/overlap.cpp: checks, split, what each stage starts) -> Overlap (queues,
// progress, per-part times) -> relay's nonblocking collectives on the duplicates.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "overlap/dup_comms.hpp"
#include "relay/relay.h"

namespace relay::overlap {

/// Part c of count elements split into n parts: count / n elements, plus one for the first
/// count % n parts, starting at element `first`.
struct PartRange {
  std::int64_t first = 0;
  int count = 0;
};
PartRange part_range(int count, int n, int c);

/// How far a request has progressed (a count that grows with every completed step): the api's
/// relay_request_events, passed in so that this engine, which the api builds on, does not
/// include the api's request type.
using EventsFn = std::int64_t (*)(const relay_request* request);

/// Starts one stage's collective on `comm` (a duplicate); sets *request.
using StartFn = std::function<relay_status_t(MPI_Comm comm, relay_request_t* request)>;

class Overlap;

enum class StageState { queued, running, done };

struct Stage {
  Overlap* owner = nullptr;
  int part = 0;
  DupComm* dup = nullptr;
  StartFn start;
  Stage* after = nullptr;  ///< must have completed before this starts
  Stage* next = nullptr;   ///< the stage that waits for this one
  StageState state = StageState::queued;
  relay_request_t request = RELAY_REQUEST_NULL;
  double post_start_s = -1, posted_s = -1, done_s = -1;
};

class Overlap {
 public:
  /// `function` names the API call in errors; t0 is its MPI_Wtime at entry; times is NULL or
  /// one entry per part, filled at completion; `events` tells a stage that moved from one that
  /// did not (the wait sleeps only when none moved).
  Overlap(const char* function, double t0, relay_overlap_part_times_t* times, EventsFn events);
  ~Overlap();
  Overlap(const Overlap&) = delete;
  Overlap& operator=(const Overlap&) = delete;

  /// Adds a part of `count` elements: `first` on `first_dup`, then, when `second` is given,
  /// `second` on `second_dup` once `first` has completed. Empty parts take no stage.
  void add_part(int count, DupComm* first_dup, StartFn first, DupComm* second_dup = nullptr,
                StartFn second = nullptr);
  /// Queues every stage (all first stages, then all second stages) and starts what may start.
  relay_status_t post();
  /// Advances every stage without blocking; done when all have completed.
  relay_status_t progress(bool& done);
  /// Blocks until every stage has completed (sleeping between polls with RELAY_IDLE_SLEEP_US).
  relay_status_t wait();

  // For the queues (overlap.cpp).
  void start_stage(Stage& stage);
  void test_stage(Stage& stage, bool& moved);

 private:
  struct PartStages {
    int count = 0;
    Stage* first = nullptr;
    Stage* second = nullptr;
  };
  relay_status_t step(bool& done, bool& moved);  // one pass over every stage
  void failed(Stage& stage, relay_status_t status);
  void finish();
  double now() const { return MPI_Wtime() - t0_; }

  const char* function_;
  double t0_;
  relay_overlap_part_times_t* times_;
  EventsFn events_;
  std::vector<PartStages> parts_;
  std::vector<std::unique_ptr<Stage>> stages_;
  relay_status_t status_ = RELAY_SUCCESS;
  std::string error_;
  bool finished_ = false;
};

}  // namespace relay::overlap
