// relay's C++ interface: the C API with enums that print, options with defaults, exceptions
// instead of status codes, and a movable request that completes itself.
//
// Errors throw relay::Error on the ranks that see them. Argument errors are seen by every rank
// that passed the bad argument; pass Check::collective to make every rank see (and throw) an
// error that only some ranks' arguments have.
#pragma once

// First: relay.h keeps MPI's deprecated C++ bindings out before <mpi.h> is seen.
#include "relay/relay.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace relay {

class Error : public std::runtime_error {
 public:
  Error(relay_status_t status, const std::string& what)
      : std::runtime_error(what), status_(status) {}
  relay_status_t status() const { return status_; }

 private:
  relay_status_t status_;
};

namespace detail {
inline void check(relay_status_t status) {
  if (status != RELAY_SUCCESS) {
    const std::string detail = relay_last_error();
    throw Error(status, detail.empty() ? relay_status_string(status) : detail);
  }
}
}  // namespace detail

enum class BcastAlgorithm {
  automatic = RELAY_BCAST_AUTO,
  linear = RELAY_BCAST_LINEAR,
  chain = RELAY_BCAST_CHAIN,
  binary = RELAY_BCAST_BINARY,
  binomial = RELAY_BCAST_BINOMIAL,
  pipeline = RELAY_BCAST_PIPELINE,
  scatter_allgather = RELAY_BCAST_SCATTER_ALLGATHER,
  kary = RELAY_BCAST_KARY,
  mpi = RELAY_BCAST_MPI
};

enum class Policy {
  default_policy = RELAY_POLICY_DEFAULT,
  blocking = RELAY_POLICY_BLOCKING,
  nonblocking = RELAY_POLICY_NONBLOCKING
};

enum class Check {
  default_check = RELAY_CHECK_DEFAULT,
  local = RELAY_CHECK_LOCAL,
  collective = RELAY_CHECK_COLLECTIVE
};

/// Canonical name ("binomial", "auto", ...).
inline std::string_view to_string(BcastAlgorithm a) {
  const char* name = relay_bcast_algorithm_name(static_cast<relay_bcast_algorithm_t>(a));
  return name != nullptr ? name : "unknown";
}
inline std::string_view to_string(Policy p) {
  const char* name = relay_policy_name(static_cast<relay_policy_t>(p));
  return name != nullptr ? name : "unknown";
}
/// Parses a canonical algorithm name; nullopt if unknown.
inline std::optional<BcastAlgorithm> bcast_algorithm_from_string(const std::string& name) {
  relay_bcast_algorithm_t a;
  if (relay_bcast_algorithm_from_name(name.c_str(), &a) != RELAY_SUCCESS) return std::nullopt;
  return static_cast<BcastAlgorithm>(a);
}
inline std::optional<Policy> policy_from_string(const std::string& name) {
  relay_policy_t p;
  if (relay_policy_from_name(name.c_str(), &p) != RELAY_SUCCESS) return std::nullopt;
  return static_cast<Policy>(p);
}

/// Options of bcast/ibcast; see relay_bcast_options_t for the meaning of each field.
struct BcastOptions {
  BcastAlgorithm algorithm = BcastAlgorithm::automatic;
  Policy policy = Policy::default_policy;
  std::int64_t segment_bytes = RELAY_SEGMENT_DEFAULT;  ///< 0 = unsegmented, -1 = default
  int fanout = 0;                                      ///< 0 = the algorithm's default
  int max_requests = 0;                                ///< 0 = default (16)
  Check check = Check::default_check;

  relay_bcast_options_t c() const {
    relay_bcast_options_t o;
    relay_bcast_options_init(&o);
    o.algorithm = static_cast<relay_bcast_algorithm_t>(algorithm);
    o.policy = static_cast<relay_policy_t>(policy);
    o.segment_bytes = static_cast<long long>(segment_bytes);
    o.fanout = fanout;
    o.max_requests = max_requests;
    o.check = static_cast<relay_check_t>(check);
    return o;
  }
};

/// A nonblocking operation in flight. Destroying an unfinished request waits for it (an
/// operation cannot be abandoned half-way without leaving peers stuck).
class Request {
 public:
  Request() = default;
  explicit Request(relay_request_t handle) : handle_(handle) {}
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  Request(Request&& other) noexcept : handle_(std::exchange(other.handle_, RELAY_REQUEST_NULL)) {}
  Request& operator=(Request&& other) noexcept {
    if (this != &other) {
      finish_quietly();
      handle_ = std::exchange(other.handle_, RELAY_REQUEST_NULL);
    }
    return *this;
  }
  ~Request() { finish_quietly(); }

  /// True once complete (then the request is empty).
  bool test() {
    int flag = 0;
    detail::check(relay_test(&handle_, &flag));
    return flag != 0;
  }
  void wait() { detail::check(relay_wait(&handle_)); }
  /// Lets the operation move forward (forward segments, post receives) without blocking.
  void progress() { detail::check(relay_progress(handle_)); }
  bool active() const { return handle_ != RELAY_REQUEST_NULL; }

 private:
  void finish_quietly() noexcept {
    if (handle_ != RELAY_REQUEST_NULL) relay_wait(&handle_);
  }
  relay_request_t handle_ = RELAY_REQUEST_NULL;
};

inline void bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  const BcastOptions& options = {}) {
  const relay_bcast_options_t o = options.c();
  detail::check(relay_bcast(buffer, count, datatype, root, comm, &o));
}

[[nodiscard]] inline Request ibcast(void* buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, const BcastOptions& options = {}) {
  const relay_bcast_options_t o = options.c();
  relay_request_t handle = RELAY_REQUEST_NULL;
  detail::check(relay_ibcast(buffer, count, datatype, root, comm, &o, &handle));
  return Request(handle);
}

/// The configuration relay would run for these arguments, as one printable line.
inline std::string describe_bcast(int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                  const BcastOptions& options = {}) {
  const relay_bcast_options_t o = options.c();
  char text[256];
  detail::check(relay_bcast_describe(count, datatype, root, comm, &o, text, sizeof text));
  return text;
}

}  // namespace relay
