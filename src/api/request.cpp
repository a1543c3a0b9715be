// Completing nonblocking operations, names of enums, status strings, loading a tuning table.
#include "api/request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "coll/active_table.hpp"
#include "coll/registry.hpp"
#include "core/mpi_library.hpp"
#include "core/status.hpp"
#include "exec/compute.hpp"

using relay::core::fail;

void relay_request::finish_locally() {
  for (const LocalCopy& c : copies) {
    if (c.bytes > 0 && c.to != c.from) std::memmove(c.to, c.from, c.bytes);
  }
  copies.clear();
}

char* relay_request::Buffer::get(std::size_t bytes) {
  if (bytes > capacity || data == nullptr) {
    release();  // before the new one: no moment with both
    const std::size_t want = std::max<std::size_t>(1, bytes);
    data = static_cast<char*>(relay::exec::allocate_scratch(want));
    capacity = want;
  }
  return data;
}

void relay_request::Buffer::release() noexcept {
  if (data != nullptr) relay::exec::free_scratch(data, capacity);
  data = nullptr;
  capacity = 0;
}

void relay_request::Buffer::trim(bool all) {
  if (all || capacity > kKeptBytes) release();
}

void relay_request::reset_for_blocking_call() {
  kind = Kind::schedule;
  blocking = true;
  executor.release();
  mpi_request = MPI_REQUEST_NULL;
  mpi_done = false;
  overlap.reset();
  scratch.trim(false);  // kept for the thread's next call
  accumulator.trim(false);
  copies.clear();
}

namespace relay::api {
namespace {
thread_local relay_request t_blocking_request;
thread_local bool t_blocking_request_busy = false;
}  // namespace

BlockingRequest::BlockingRequest() {
  if (t_blocking_request_busy) {
    own_ = std::make_unique<relay_request>();
    request_ = own_.get();
  } else {
    t_blocking_request_busy = true;
    request_ = &t_blocking_request;  // reset when the previous call ended
  }
  request_->blocking = true;
}

BlockingRequest::~BlockingRequest() {
  if (own_ != nullptr) return;
  t_blocking_request.reset_for_blocking_call();
  if (relay::exec::scratch_is_shared()) {
    // Shared pages are the simulation's: freed by the rank while it runs, never by the
    // thread-local's destructor at exit (glibc then saw a double free).
    t_blocking_request.scratch.release();
    t_blocking_request.accumulator.release();
  }
  t_blocking_request_busy = false;
}

}  // namespace relay::api

relay_status_t relay_request_finish(relay_request* request, const char* fn) {
  if (request->kind == relay_request::Kind::overlap) return request->overlap->wait();
  if (request->kind == relay_request::Kind::mpi) {
    if (!request->mpi_done && MPI_Wait(&request->mpi_request, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      return fail(RELAY_ERR_MPI, "{}: MPI_Wait failed", fn);
    }
    request->mpi_done = true;
    return RELAY_SUCCESS;
  }
  if (const relay_status_t st = request->executor.wait(); st != RELAY_SUCCESS) {
    return fail(st, "{}: {}", fn, request->executor.error());
  }
  request->finish_locally();
  return RELAY_SUCCESS;
}

std::int64_t relay_request_events(const relay_request* request) {
  if (request == nullptr || request->kind != relay_request::Kind::schedule) return 0;
  return request->executor.events();
}

namespace {

// Without `poll`, a schedule advances only as far as completions already delivered to it
// allow, and an MPI request only if a wait already completed it.
relay_status_t advance(relay_request* request, bool& done, const char* fn, bool poll = true) {
  if (request->kind == relay_request::Kind::overlap) return request->overlap->progress(done);
  if (request->kind == relay_request::Kind::mpi) {
    int flag = 0;
    if (!request->mpi_done && poll &&
        MPI_Test(&request->mpi_request, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      return fail(RELAY_ERR_MPI, "{}: MPI_Test failed", fn);
    }
    request->mpi_done = request->mpi_done || flag != 0;
    done = request->mpi_done;
    return RELAY_SUCCESS;
  }
  if (const relay_status_t st = request->executor.progress(done, poll); st != RELAY_SUCCESS) {
    return fail(st, "{}: {}", fn, request->executor.error());
  }
  if (done) request->finish_locally();
  return RELAY_SUCCESS;
}

// relay_test's work: advances *request and frees it once complete (*flag = 1).
relay_status_t test_request(relay_request_t* request, int* flag, const char* fn, bool poll) {
  *flag = 0;
  if (*request == RELAY_REQUEST_NULL) {
    *flag = 1;
    return RELAY_SUCCESS;
  }
  bool done = false;
  const relay_status_t st = advance(*request, done, fn, poll);
  if (st == RELAY_ERR_MISMATCH) {  // complete, with wrong data: nothing left to wait for
    delete *request;
    *request = RELAY_REQUEST_NULL;
    *flag = 1;
  }
  if (st != RELAY_SUCCESS) return st;
  if (done) {
    delete *request;
    *request = RELAY_REQUEST_NULL;
    *flag = 1;
  }
  return RELAY_SUCCESS;
}

}  // namespace

extern "C" {

relay_status_t relay_test(relay_request_t* request, int* flag) {
  if (request == nullptr || flag == nullptr) {
    return fail(RELAY_ERR_REQUEST, "relay_test: argument {} is NULL", request == nullptr ? 1 : 2);
  }
  return test_request(request, flag, "relay_test", true);
}

relay_status_t relay_wait(relay_request_t* request) {
  if (request == nullptr) return fail(RELAY_ERR_REQUEST, "relay_wait: argument 1 is NULL");
  if (*request == RELAY_REQUEST_NULL) return RELAY_SUCCESS;
  const relay_status_t st = relay_request_finish(*request, "relay_wait");
  if (st != RELAY_SUCCESS && st != RELAY_ERR_MISMATCH) return st;
  delete *request;  // a mismatch completed the operation: the request is spent either way
  *request = RELAY_REQUEST_NULL;
  return st;
}

relay_status_t relay_waitall(int count, relay_request_t* requests) {
  if (count < 0) return fail(RELAY_ERR_REQUEST, "relay_waitall: argument 1 (count) is {}", count);
  if (count > 0 && requests == nullptr) {
    return fail(RELAY_ERR_REQUEST, "relay_waitall: argument 2 is NULL");
  }
  std::vector<MPI_Request> in_flight;
  std::vector<int> slots, owners;
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
  // Blocking-policy and overlapped operations are waited for alone, in order, as relay_wait
  // would; if one is in the list, all are. (Advancing a blocking-policy broadcast between the
  // others' messages made SUMMA's blocking pipeline 1.28x slower in simulation: its sends
  // then start while the others' hold the links.) When RELAY_IDLE_SLEEP_US asks for polling,
  // every operation is advanced in turn and the rank sleeps only when none moved: waiting for
  // them one by one, a rank would not forward the others meanwhile.
  bool in_order = false, paced = false;
  for (int i = 0; i < count; ++i) {
    const relay_request* r = requests[i];
    if (r == RELAY_REQUEST_NULL) continue;
    if (r->kind == relay_request::Kind::overlap ||
        (r->kind == relay_request::Kind::schedule && r->executor.in_program_order())) {
      in_order = true;
    } else if (r->kind == relay_request::Kind::schedule && !r->executor.waits_with_others()) {
      paced = true;
    }
  }
  if (in_order) {
    relay_status_t first = RELAY_SUCCESS;
    for (int k = 0; k < count; ++k) {
      const relay_status_t st = relay_wait(&requests[k]);
      if (first == RELAY_SUCCESS) first = st;
    }
    return first;
  }
  if (paced) {
    for (;;) {
      bool all_done = true, moved = false;
      for (int i = 0; i < count; ++i) {
        if (requests[i] == RELAY_REQUEST_NULL) continue;
        const std::int64_t before = relay_request_events(requests[i]);
        int flag = 0;
        if (const relay_status_t st = test_request(&requests[i], &flag, "relay_test", true);
            st != RELAY_SUCCESS) {
          return st;
        }
        moved = moved || flag != 0 || relay_request_events(requests[i]) != before;
        all_done = all_done && flag != 0;
      }
      if (all_done) return RELAY_SUCCESS;
      if (!moved) relay::exec::idle_pause();
    }
  }
  // The first pass advances every request and asks MPI what has completed; after that, only
  // the requests that the wait below delivered completions to, without asking MPI again: the
  // others' requests are still in that wait. (Under SMPI each MPI test is a switch of simulated
  // rank, and asking every request after every completion multiplied them.)
  std::vector<char> touched(static_cast<std::size_t>(count), 1);
  bool poll = true;
  for (;;) {
    // Advance the requests; those that are complete are freed.
    bool all_done = true;
    for (int i = 0; i < count; ++i) {
      int flag = requests[i] == RELAY_REQUEST_NULL ? 1 : 0;
      if (touched[static_cast<std::size_t>(i)] != 0) {
        if (const relay_status_t st = test_request(&requests[i], &flag, "relay_test", poll);
            st != RELAY_SUCCESS) {
          return st;
        }
      }
      all_done = all_done && flag != 0;
    }
    if (all_done) return RELAY_SUCCESS;
    poll = false;
    std::fill(touched.begin(), touched.end(), 0);
    // Block until one MPI request of any of them completes, and give it to its owner.
    in_flight.clear();
    slots.clear();
    owners.clear();
    for (int i = 0; i < count; ++i) {
      relay_request* r = requests[i];
      if (r == RELAY_REQUEST_NULL) continue;
      if (r->kind == relay_request::Kind::schedule) {
        r->executor.in_flight(in_flight, slots);
      } else if (!r->mpi_done) {
        in_flight.push_back(r->mpi_request);
        slots.push_back(-1);
      }
      owners.resize(in_flight.size(), i);
    }
    if (in_flight.empty()) {  // progress ran every local step: only messages can be awaited
      return fail(RELAY_ERR_INTERNAL,
                  "relay_waitall: nothing in flight but an operation is not complete");
    }
    indices.resize(in_flight.size());
    statuses.resize(in_flight.size());
    int done = 0;
    if (relay::exec::wait_some(static_cast<int>(in_flight.size()), in_flight.data(), &done,
                               indices.data(), statuses.data()) != MPI_SUCCESS) {
      return fail(RELAY_ERR_MPI, "relay_waitall: MPI_Waitsome failed");
    }
    if (done == MPI_UNDEFINED || done == 0) {
      // Nothing MPI's wait could complete (SMPI's nonblocking collectives are invisible to its
      // MPI_Waitany): every request is asked again, as MPI_Test completes them.
      poll = true;
      std::fill(touched.begin(), touched.end(), 1);
    }
    for (int k = 0; k < done && done != MPI_UNDEFINED; ++k) {
      relay_request* r = requests[owners[indices[k]]];
      touched[static_cast<std::size_t>(owners[indices[k]])] = 1;
      if (slots[indices[k]] >= 0) {
        r->executor.completed_elsewhere(slots[indices[k]], statuses[k]);
      } else {
        r->mpi_request = MPI_REQUEST_NULL;
        r->mpi_done = true;
      }
    }
  }
}

relay_status_t relay_progress(relay_request_t request) {
  if (request == RELAY_REQUEST_NULL) return RELAY_SUCCESS;
  bool done = false;
  return advance(request, done, "relay_progress");
}

const char* relay_bcast_algorithm_name(relay_bcast_algorithm_t algorithm) {
  if (algorithm == RELAY_BCAST_AUTO) return "auto";
  const auto* a = relay::coll::find_algorithm(relay::coll::Collective::bcast, algorithm);
  return a != nullptr ? a->name.data() : nullptr;
}

relay_status_t relay_bcast_algorithm_from_name(const char* name,
                                               relay_bcast_algorithm_t* algorithm) {
  if (name == nullptr || algorithm == nullptr) {
    return fail(RELAY_ERR_ALGORITHM, "relay_bcast_algorithm_from_name: NULL argument");
  }
  if (std::strcmp(name, "auto") == 0) {
    *algorithm = RELAY_BCAST_AUTO;
    return RELAY_SUCCESS;
  }
  const auto* a =
      relay::coll::find_algorithm(relay::coll::Collective::bcast, std::string_view(name));
  if (a == nullptr) return fail(RELAY_ERR_ALGORITHM, "'{}' is not a broadcast algorithm", name);
  *algorithm = static_cast<relay_bcast_algorithm_t>(a->id);
  return RELAY_SUCCESS;
}

const char* relay_policy_name(relay_policy_t policy) {
  switch (policy) {
    case RELAY_POLICY_DEFAULT:
      return "default";
    case RELAY_POLICY_BLOCKING:
      return "blocking";
    case RELAY_POLICY_NONBLOCKING:
      return "nonblocking";
  }
  return nullptr;
}

relay_status_t relay_policy_from_name(const char* name, relay_policy_t* policy) {
  if (name == nullptr || policy == nullptr) {
    return fail(RELAY_ERR_POLICY, "relay_policy_from_name: NULL argument");
  }
  for (relay_policy_t p : {RELAY_POLICY_DEFAULT, RELAY_POLICY_BLOCKING, RELAY_POLICY_NONBLOCKING}) {
    if (std::strcmp(name, relay_policy_name(p)) == 0) {
      *policy = p;
      return RELAY_SUCCESS;
    }
  }
  return fail(RELAY_ERR_POLICY, "'{}' is not a policy (blocking, nonblocking, default)", name);
}

// Here, not in coll: the internals' archive (relay_internal) holds coll's objects too, and a
// program linking both it and librelay (the command line, test_gemm) bound this symbol to the
// archive's copy of the table while librelay's relay_gemm read its own. The C API lives only in
// librelay, so every caller loads the table librelay's calls consult.
relay_status_t relay_tuning_load(const char* path) { return relay::coll::load_table(path); }

const char* relay_status_string(relay_status_t status) {
  switch (status) {
    case RELAY_SUCCESS:
      return "success";
    case RELAY_ERR_BUFFER:
      return "invalid buffer";
    case RELAY_ERR_COUNT:
      return "invalid count";
    case RELAY_ERR_DATATYPE:
      return "invalid datatype";
    case RELAY_ERR_ROOT:
      return "invalid root";
    case RELAY_ERR_COMM:
      return "invalid communicator";
    case RELAY_ERR_ALGORITHM:
      return "unknown algorithm";
    case RELAY_ERR_POLICY:
      return "unknown policy";
    case RELAY_ERR_SEGMENT:
      return "invalid segment size";
    case RELAY_ERR_FANOUT:
      return "invalid fanout";
    case RELAY_ERR_WINDOW:
      return "invalid max_requests";
    case RELAY_ERR_OPTIONS:
      return "invalid options or environment";
    case RELAY_ERR_MISMATCH:
      return "ranks passed different arguments";
    case RELAY_ERR_REQUEST:
      return "invalid request";
    case RELAY_ERR_MPI:
      return "MPI error";
    case RELAY_ERR_NOMEM:
      return "out of memory";
    case RELAY_ERR_INTERNAL:
      return "internal error";
    case RELAY_ERR_ARGUMENT:
      return "invalid argument (PBLAS INFO)";
    case RELAY_ERR_TUNING:
      return "tuning table cannot be used";
    case RELAY_ERR_OP:
      return "invalid or unsupported reduction operation";
    case RELAY_ERR_NDUP:
      return "invalid n_dup (number of overlapped parts)";
  }
  return "unknown status";
}

const char* relay_last_error(void) { return relay::core::last_error(); }

const char* relay_version(void) { return RELAY_VERSION_STRING; }

const char* relay_build_info(void) {
  static const std::string text = [] {
    std::string running = relay::core::running_mpi_library();
    if (running.empty()) running = "unknown";
    const std::string built = relay::core::built_for_mpi_library();
    return fmt::format("relay {}\nMPI (built for): {}\nMPI (running): {}\nBLAS: {}",
                       RELAY_VERSION_STRING, built.empty() ? "SimGrid SMPI" : built, running,
                       RELAY_BLAS_LIBRARIES);
  }();
  return text.c_str();
}

relay_status_t relay_progressall(int count, relay_request_t* requests) {
  if (count < 0) {
    return fail(RELAY_ERR_REQUEST, "relay_progressall: argument 1 (count) is {}", count);
  }
  if (count > 0 && requests == nullptr) {
    return fail(RELAY_ERR_REQUEST, "relay_progressall: argument 2 is NULL");
  }
  // Under SMPI each MPI test is a switch of simulated rank and a message the rank sends itself
  // (exec::test_some): SUMMA with look-ahead tested each panel broadcast on its own between
  // pieces of its multiplication.
  std::vector<MPI_Request> in_flight;
  std::vector<int> slots, owners;
  for (int i = 0; i < count; ++i) {
    relay_request* r = requests[i];
    if (r == RELAY_REQUEST_NULL) continue;
    if (r->kind == relay_request::Kind::schedule && r->executor.waits_with_others()) {
      // A leaf of a broadcast tree, once its receives are posted, has nothing a poll could
      // move for the others: its completion is found by its wait. (Half the ranks of a
      // binomial tree are leaves; under SMPI each poll is a simulated event.)
      if (r->executor.polls_help_others()) r->executor.in_flight(in_flight, slots);
      owners.resize(in_flight.size(), i);
    } else {
      bool done = false;
      if (const relay_status_t st = advance(r, done, "relay_progressall"); st != RELAY_SUCCESS) {
        return st;
      }
    }
  }
  if (in_flight.empty()) return RELAY_SUCCESS;
  std::vector<int> indices(in_flight.size());
  std::vector<MPI_Status> statuses(in_flight.size());
  int done = 0;
  if (relay::exec::test_some(static_cast<int>(in_flight.size()), in_flight.data(), &done,
                             indices.data(), statuses.data()) != MPI_SUCCESS) {
    return fail(RELAY_ERR_MPI, "relay_progressall: MPI_Testsome failed");
  }
  if (done == MPI_UNDEFINED) return RELAY_SUCCESS;
  std::vector<char> touched(static_cast<std::size_t>(count), 0);
  for (int d = 0; d < done; ++d) {
    const auto x = static_cast<std::size_t>(indices[static_cast<std::size_t>(d)]);
    const int owner = owners[x];
    touched[static_cast<std::size_t>(owner)] = 1;
    requests[owner]->executor.completed_elsewhere(slots[x], statuses[static_cast<std::size_t>(d)]);
  }
  for (int i = 0; i < count; ++i) {
    if (touched[static_cast<std::size_t>(i)] == 0) continue;
    bool finished = false;
    if (const relay_status_t st = advance(requests[i], finished, "relay_progressall", false);
        st != RELAY_SUCCESS) {
      return st;
    }
  }
  return RELAY_SUCCESS;
}

}  // extern "C"

namespace relay::api {

relay_status_t wait_for_progress(const std::vector<relay_request_t*>& requests,
                                 const std::vector<MPI_Request*>& p2p, bool& waited) {
  waited = false;
  if (exec::idle_is_paced()) return RELAY_SUCCESS;
  std::vector<MPI_Request> in_flight;
  std::vector<int> slots, owners;  // owner: index into requests, or -1 - index into p2p
  for (std::size_t i = 0; i < requests.size(); ++i) {
    relay_request* r = *requests[i];
    if (r == RELAY_REQUEST_NULL) continue;
    if (r->kind == relay_request::Kind::overlap) return RELAY_SUCCESS;
    if (r->kind == relay_request::Kind::mpi) {
      if (r->mpi_done) continue;
      if (!exec::waits_see_collectives()) return RELAY_SUCCESS;
      in_flight.push_back(r->mpi_request);
      slots.push_back(-1);
    } else {
      if (r->executor.in_program_order() || !r->executor.waits_with_others()) {
        return RELAY_SUCCESS;
      }
      r->executor.in_flight(in_flight, slots);
    }
    owners.resize(in_flight.size(), static_cast<int>(i));
  }
  for (std::size_t k = 0; k < p2p.size(); ++k) {
    if (*p2p[k] == MPI_REQUEST_NULL) continue;
    in_flight.push_back(*p2p[k]);
    slots.push_back(-1);
    owners.push_back(-1 - static_cast<int>(k));
  }
  if (in_flight.empty()) return RELAY_SUCCESS;
  std::vector<int> indices(in_flight.size());
  std::vector<MPI_Status> statuses(in_flight.size());
  int done = 0;
  if (exec::wait_some(static_cast<int>(in_flight.size()), in_flight.data(), &done, indices.data(),
                      statuses.data()) != MPI_SUCCESS) {
    return fail(RELAY_ERR_MPI, "relay: MPI_Waitsome failed");
  }
  if (done == MPI_UNDEFINED) return RELAY_SUCCESS;
  waited = true;
  std::vector<char> touched(requests.size(), 0);
  for (int d = 0; d < done; ++d) {
    const auto x = static_cast<std::size_t>(indices[static_cast<std::size_t>(d)]);
    const int owner = owners[x];
    if (owner < 0) {
      *p2p[static_cast<std::size_t>(-1 - owner)] = MPI_REQUEST_NULL;
      continue;
    }
    relay_request* r = *requests[static_cast<std::size_t>(owner)];
    touched[static_cast<std::size_t>(owner)] = 1;
    if (slots[x] >= 0) {
      r->executor.completed_elsewhere(slots[x], statuses[static_cast<std::size_t>(d)]);
    } else {
      r->mpi_request = MPI_REQUEST_NULL;
      r->mpi_done = true;
    }
  }
  relay_status_t first = RELAY_SUCCESS;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (touched[i] == 0) continue;
    int flag = 0;
    const relay_status_t st = test_request(requests[i], &flag, "relay_test", false);
    if (first == RELAY_SUCCESS) first = st;
  }
  return first;
}

}  // namespace relay::api
