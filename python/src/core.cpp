// relay._core: relay's C API for Python. The collectives on buffers (numpy arrays, anything with
// the buffer protocol) and mpi4py communicators, their nonblocking forms as requests, the N_DUP
// overlap helper, decision tables and the tuner. The typed, documented functions users call are
// in python/relay/ and call these; everything here checks its arguments before relay sends
// anything and raises relay.Error with relay's status and message.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "binding.hpp"
#include "coll/registry.hpp"
#include "coll/table.hpp"
#include "core/mpi_library.hpp"
#include "model/params.hpp"
#include "tune/session.hpp"

namespace relay::python {
namespace {

// ---- options ---------------------------------------------------------------------------------

relay_collective_t collective_named(const std::string& name) {
  if (name == "bcast") return RELAY_COLL_BCAST;
  for (int c = RELAY_COLL_REDUCE; c <= RELAY_COLL_ALLGATHERV; ++c) {
    const char* n = relay_collective_name(static_cast<relay_collective_t>(c));
    if (n != nullptr && name == n) return static_cast<relay_collective_t>(c);
  }
  throw StatusError(RELAY_ERR_OPTIONS, "unknown collective '" + name + "'");
}

// An algorithm given by name or by the C enum's value.
int algorithm_of(relay_collective_t collective, nb::handle algorithm) {
  const std::string what = std::string("algorithm of ") + relay_collective_name(collective);
  if (nb::isinstance<nb::str>(algorithm)) {
    const std::string name = nb::cast<std::string>(algorithm);
    if (collective == RELAY_COLL_BCAST) {
      relay_bcast_algorithm_t a{};
      check_status(relay_bcast_algorithm_from_name(name.c_str(), &a), what.c_str());
      return a;
    }
    int a = 0;
    check_status(relay_coll_algorithm_from_name(collective, name.c_str(), &a), what.c_str());
    return a;
  }
  if (nb::isinstance<nb::int_>(algorithm)) {
    const long long value = nb::cast<long long>(algorithm);
    const char* name = value < 0 || value > std::numeric_limits<int>::max() ? nullptr
                       : collective == RELAY_COLL_BCAST
                           ? relay_bcast_algorithm_name(static_cast<relay_bcast_algorithm_t>(value))
                           : relay_coll_algorithm_name(collective, static_cast<int>(value));
    if (name == nullptr)
      throw StatusError(RELAY_ERR_ALGORITHM,
                        what + ": no algorithm number " + std::to_string(value));
    return static_cast<int>(value);
  }
  throw StatusError(RELAY_ERR_ALGORITHM, what + ": a name (str) or a number (int)");
}

Options make_options(const std::string& collective, nb::handle algorithm, const std::string& policy,
                     std::optional<long long> segment_bytes, int fanout, int max_requests,
                     const std::string& check) {
  Options o;
  o.collective = collective_named(collective);
  relay_policy_t p{};
  check_status(relay_policy_from_name(policy.c_str(), &p), "policy");
  relay_check_t c{};
  if (check == "default") {
    c = RELAY_CHECK_DEFAULT;
  } else if (check == "local") {
    c = RELAY_CHECK_LOCAL;
  } else if (check == "collective") {
    c = RELAY_CHECK_COLLECTIVE;
  } else {
    throw StatusError(RELAY_ERR_OPTIONS,
                      "check: '" + check + "' is not one of default, local, collective");
  }
  const long long segment = segment_bytes.value_or(RELAY_SEGMENT_DEFAULT);
  const int a = algorithm_of(o.collective, algorithm);
  if (o.collective == RELAY_COLL_BCAST) {
    relay_bcast_options_init(&o.bcast);
    o.bcast.algorithm = static_cast<relay_bcast_algorithm_t>(a);
    o.bcast.policy = p;
    o.bcast.segment_bytes = segment;
    o.bcast.fanout = fanout;
    o.bcast.max_requests = max_requests;
    o.bcast.check = c;
  } else {
    relay_coll_options_init(&o.coll);
    o.coll.algorithm = a;
    o.coll.policy = p;
    o.coll.segment_bytes = segment;
    o.coll.fanout = fanout;
    o.coll.max_requests = max_requests;
    o.coll.check = c;
  }
  return o;
}

void expect_collective(const Options& o, relay_collective_t collective) {
  if (o.collective != collective) {
    throw StatusError(RELAY_ERR_OPTIONS, std::string("options made for ") +
                                             relay_collective_name(o.collective) + ", given to " +
                                             relay_collective_name(collective));
  }
}

// ---- requests --------------------------------------------------------------------------------

using PartTimes = std::vector<relay_overlap_part_times_t>;

/// A nonblocking operation: relay's request and everything it reads or writes, held until it
/// completes (the buffers stay valid and their owners alive).
class Request {
 public:
  Request(relay_request_t handle, std::vector<Buffer> buffers, std::unique_ptr<PartTimes> times)
      : handle_(handle), buffers_(std::move(buffers)), times_(std::move(times)) {}
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request() {
    if (handle_ == RELAY_REQUEST_NULL) return;
    // Still running: relay may still write into the buffers, so they are never released
    // (leaked on purpose) rather than freed under it.
    PyErr_WarnEx(PyExc_ResourceWarning,
                 "relay.Request destroyed before it completed: its buffers are kept (leaked) "
                 "because relay may still write into them; call wait()",
                 1);
    new std::vector<Buffer>(std::move(buffers_));
    (void)times_.release();
  }

  bool done() const { return handle_ == RELAY_REQUEST_NULL; }

  bool test() {
    if (done()) return true;
    int flag = 0;
    check_status(relay_test(&handle_, &flag), "relay.Request.test");
    if (flag) complete();
    return flag != 0;
  }

  void wait() {
    if (done()) return;
    relay_status_t status;
    {
      nb::gil_scoped_release release;
      status = relay_wait(&handle_);
    }
    check_status(status, "relay.Request.wait");
    complete();
  }

  void progress() {
    if (done()) return;
    check_status(relay_progress(handle_), "relay.Request.progress");
  }

  relay_request_t* handle() { return &handle_; }
  void complete() { buffers_.clear(); }
  const PartTimes* times() const { return times_.get(); }

 private:
  relay_request_t handle_;
  std::vector<Buffer> buffers_;
  std::unique_ptr<PartTimes> times_;
};

void wait_all(const std::vector<Request*>& requests) {
  std::vector<relay_request_t> handles;
  for (Request* r : requests) handles.push_back(*r->handle());
  relay_status_t status;
  {
    nb::gil_scoped_release release;
    status = relay_waitall(static_cast<int>(handles.size()), handles.data());
  }
  // relay_waitall leaves the requests it did not complete valid, and sets the others to NULL.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    *requests[i]->handle() = handles[i];
    if (handles[i] == RELAY_REQUEST_NULL) requests[i]->complete();
  }
  check_status(status, "relay.waitall");
}

void progress_all(const std::vector<Request*>& requests) {
  std::vector<relay_request_t> handles;
  for (Request* r : requests) {
    if (!r->done()) handles.push_back(*r->handle());
  }
  relay_status_t status;
  {
    nb::gil_scoped_release release;
    status = relay_progressall(static_cast<int>(handles.size()), handles.data());
  }
  check_status(status, "relay.progressall");  // frees nothing: the handles stay as they were
}

nb::list part_times_list(const PartTimes& times) {
  nb::list parts;
  for (const auto& t : times) {
    nb::dict d;
    d["elements"] = t.element_count;
    d["post_start_s"] = t.post_start_s;
    d["posted_s"] = t.posted_s;
    d["first_done_s"] = t.first_done_s;
    d["second_post_start_s"] = t.second_post_start_s;
    d["second_posted_s"] = t.second_posted_s;
    d["done_s"] = t.done_s;
    parts.append(d);
  }
  return parts;
}

// ---- calls -----------------------------------------------------------------------------------

/// The checked arguments of one call: buffers held, pointers and counts as relay takes them.
struct Call {
  std::vector<Buffer> buffers;
  const void* send = nullptr;  // MPI_IN_PLACE or a buffer's data
  void* recv = nullptr;
  int count = 0;
  MPI_Datatype datatype = MPI_BYTE;
  MPI_Op op = MPI_OP_NULL;
  std::vector<int> counts, displs;  // allgatherv
};

/// Runs `prepare` (the binding's checks), agrees on its outcome over `comms` when the check is
/// collective, then starts relay's call: blocking (nullptr request) with the GIL released, or
/// nonblocking, returning the Request that holds the buffers.
template <class Prepare, class Start>
nb::object run(const std::vector<MPI_Comm>& comms, bool collective, bool nonblocking,
               const char* function, Prepare&& prepare, Start&& start,
               std::unique_ptr<PartTimes> times = nullptr) {
  std::optional<Call> call;
  std::optional<StatusError> error;
  try {
    call.emplace(prepare());
  } catch (const StatusError& e) {
    error.emplace(StatusError(e.status(), std::string(function) + ": " + e.what()));
  }
  agree_on_arguments(comms, collective, error ? &*error : nullptr);
  if (!nonblocking) {
    relay_status_t status;
    {
      nb::gil_scoped_release release;
      status = start(*call, times.get(), nullptr);
    }
    check_status(status, function);
    if (times) return part_times_list(*times);
    return nb::none();
  }
  relay_request_t handle = RELAY_REQUEST_NULL;
  check_status(start(*call, times.get(), &handle), function);
  return nb::cast(new Request(handle, std::move(call->buffers), std::move(times)),
                  nb::rv_policy::take_ownership);
}

MPI_Op op_of(nb::handle op) {
  if (nb::isinstance<nb::str>(op)) {
    const std::string name = nb::cast<std::string>(op);
    const std::pair<const char*, MPI_Op> ops[] = {
        {"sum", MPI_SUM},   {"prod", MPI_PROD}, {"max", MPI_MAX},   {"min", MPI_MIN},
        {"land", MPI_LAND}, {"lor", MPI_LOR},   {"lxor", MPI_LXOR}, {"band", MPI_BAND},
        {"bor", MPI_BOR},   {"bxor", MPI_BXOR}};
    for (const auto& [n, o] : ops) {
      if (name == n) return o;
    }
    throw StatusError(RELAY_ERR_OP, "op: '" + name +
                                        "' is not one of sum, prod, max, min, land, lor, lxor, "
                                        "band, bor, bxor (or pass an mpi4py MPI.Op)");
  }
  return op_handle(op);
}

int comm_size(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}
int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

void same_type(const Buffer& a, const char* a_name, const Buffer& b, const char* b_name) {
  if (!a.empty() && !b.empty() && a.datatype() != b.datatype()) {
    throw StatusError(RELAY_ERR_DATATYPE, std::string(a_name) + " holds " + a.type_name() + ", " +
                                              b_name + " " + b.type_name() + ": they must match");
  }
}

void require_elements(const Buffer& b, const char* name, long long needed, const char* why) {
  if (b.count() < needed) {
    throw StatusError(RELAY_ERR_COUNT, std::string("argument ") + name + ": holds " +
                                           std::to_string(b.count()) + " elements, " + why +
                                           " needs " + std::to_string(needed));
  }
}

int whole_blocks(const Buffer& b, const char* name, int ranks) {
  if (b.count() % ranks != 0) {
    throw StatusError(RELAY_ERR_COUNT,
                      std::string("argument ") + name + ": " + std::to_string(b.count()) +
                          " elements are not one block per rank of " + std::to_string(ranks));
  }
  return static_cast<int>(b.count() / ranks);
}

void check_root(int root, MPI_Comm comm) {
  if (root < 0 || root >= comm_size(comm)) {
    throw StatusError(RELAY_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of a " +
                                          std::to_string(comm_size(comm)) +
                                          "-process communicator");
  }
}

// A (send, recv) pair: send None means MPI_IN_PLACE; recv may be None where it is not significant.
void take(Call& c, nb::handle send, bool send_in_place, nb::handle recv) {
  if (!send_in_place) c.buffers.emplace_back(send, "sendbuf", false);
  if (!recv.is_none()) c.buffers.emplace_back(recv, "recvbuf", true);
}

const Buffer* send_of(const Call& c, bool in_place) { return in_place ? nullptr : &c.buffers[0]; }
const Buffer* recv_of(const Call& c, bool in_place) {
  const std::size_t i = in_place ? 0 : 1;
  return c.buffers.size() > i ? &c.buffers[i] : nullptr;
}

void set_pointers(Call& c, bool in_place) {
  const Buffer* s = send_of(c, in_place);
  const Buffer* r = recv_of(c, in_place);
  c.send = s != nullptr ? s->data() : MPI_IN_PLACE;
  c.recv = r != nullptr ? r->data() : nullptr;
  if (s != nullptr && r != nullptr) same_type(*s, "sendbuf", *r, "recvbuf");
  c.datatype = s != nullptr ? s->datatype() : r != nullptr ? r->datatype() : MPI_BYTE;
}

Call prepare_bcast(nb::handle buf, int root, MPI_Comm comm) {
  Call c;
  check_root(root, comm);
  c.buffers.emplace_back(buf, "buf", true);
  c.recv = c.buffers[0].data();
  c.count = c.buffers[0].mpi_count("buf");
  c.datatype = c.buffers[0].datatype();
  return c;
}

Call prepare_reduce(nb::handle send, nb::handle recv, nb::handle op, int root, MPI_Comm comm) {
  Call c;
  check_root(root, comm);
  c.op = op_of(op);
  const bool in_place = send.is_none();
  take(c, send, in_place, recv);
  set_pointers(c, in_place);
  const bool is_root = comm_rank(comm) == root;
  if (in_place && !is_root)
    throw StatusError(RELAY_ERR_BUFFER, "sendbuf: IN_PLACE is for the root only");
  const Buffer* s = send_of(c, in_place);
  const Buffer* r = recv_of(c, in_place);
  if (is_root && r == nullptr) throw StatusError(RELAY_ERR_BUFFER, "recvbuf: the root needs one");
  c.count = s != nullptr ? s->mpi_count("sendbuf") : r->mpi_count("recvbuf");
  if (is_root) require_elements(*r, "recvbuf", c.count, "the reduction");
  return c;
}

Call prepare_allreduce(nb::handle send, nb::handle recv, nb::handle op) {
  Call c;
  c.op = op_of(op);
  const bool in_place = send.is_none();
  take(c, send, in_place, recv);
  set_pointers(c, in_place);
  const Buffer* s = send_of(c, in_place);
  const Buffer& r = *recv_of(c, in_place);
  c.count = s != nullptr ? s->mpi_count("sendbuf") : r.mpi_count("recvbuf");
  require_elements(r, "recvbuf", c.count, "the reduction");
  return c;
}

nb::object bcast(nb::handle buf, int root, nb::handle comm_obj, const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_BCAST);
  MPI_Comm comm = comm_handle(comm_obj);
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.bcast",
      [&] { return prepare_bcast(buf, root, comm); },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_ibcast(c.recv, c.count, c.datatype, root, comm, &o.bcast, r)
                 : relay_bcast(c.recv, c.count, c.datatype, root, comm, &o.bcast);
      });
}

nb::object reduce(nb::handle send, nb::handle recv, nb::handle op, int root, nb::handle comm_obj,
                  const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_REDUCE);
  MPI_Comm comm = comm_handle(comm_obj);
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.reduce",
      [&] { return prepare_reduce(send, recv, op, root, comm); },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_ireduce(c.send, c.recv, c.count, c.datatype, c.op, root, comm, &o.coll, r)
                 : relay_reduce(c.send, c.recv, c.count, c.datatype, c.op, root, comm, &o.coll);
      });
}

nb::object allreduce(nb::handle send, nb::handle recv, nb::handle op, nb::handle comm_obj,
                     const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_ALLREDUCE);
  MPI_Comm comm = comm_handle(comm_obj);
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.allreduce",
      [&] { return prepare_allreduce(send, recv, op); },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_iallreduce(c.send, c.recv, c.count, c.datatype, c.op, comm, &o.coll, r)
                 : relay_allreduce(c.send, c.recv, c.count, c.datatype, c.op, comm, &o.coll);
      });
}

nb::object allgather(nb::handle send, nb::handle recv, nb::handle comm_obj, const Options& o,
                     bool nb_) {
  expect_collective(o, RELAY_COLL_ALLGATHER);
  MPI_Comm comm = comm_handle(comm_obj);
  const bool in_place = send.is_none();
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.allgather",
      [&] {
        Call c;
        take(c, send, in_place, recv);
        set_pointers(c, in_place);
        const Buffer* s = send_of(c, in_place);
        const Buffer& r = *recv_of(c, in_place);
        const int p = comm_size(comm);
        c.count = s != nullptr ? s->mpi_count("sendbuf") : whole_blocks(r, "recvbuf", p);
        require_elements(r, "recvbuf", static_cast<long long>(c.count) * p, "one block per rank");
        return c;
      },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_iallgather(c.send, c.recv, c.count, c.datatype, comm, &o.coll, r)
                 : relay_allgather(c.send, c.recv, c.count, c.datatype, comm, &o.coll);
      });
}

nb::object allgatherv(nb::handle send, nb::handle recv, const std::vector<long long>& counts,
                      std::optional<std::vector<long long>> displs, nb::handle comm_obj,
                      const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_ALLGATHERV);
  MPI_Comm comm = comm_handle(comm_obj);
  const bool in_place = send.is_none();
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.allgatherv",
      [&] {
        Call c;
        take(c, send, in_place, recv);
        set_pointers(c, in_place);
        const int p = comm_size(comm);
        const int rank = comm_rank(comm);
        if (static_cast<int>(counts.size()) != p)
          throw StatusError(RELAY_ERR_COUNT, "counts: " + std::to_string(counts.size()) +
                                                 " entries for " + std::to_string(p) + " ranks");
        if (displs && static_cast<int>(displs->size()) != p)
          throw StatusError(RELAY_ERR_COUNT, "displs: " + std::to_string(displs->size()) +
                                                 " entries for " + std::to_string(p) + " ranks");
        long long end = 0, next = 0;
        for (int i = 0; i < p; ++i) {
          const long long d = displs ? (*displs)[i] : next;
          if (counts[i] < 0 || counts[i] > INT32_MAX || d < 0 || d > INT32_MAX)
            throw StatusError(RELAY_ERR_COUNT,
                              "counts/displs: entry " + std::to_string(i) + " is out of range");
          c.counts.push_back(static_cast<int>(counts[i]));
          c.displs.push_back(static_cast<int>(d));
          next = d + counts[i];
          end = std::max(end, next);
        }
        const Buffer& r = *recv_of(c, in_place);
        require_elements(r, "recvbuf", end, "counts and displs");
        const Buffer* s = send_of(c, in_place);
        c.count = s != nullptr ? s->mpi_count("sendbuf") : c.counts[rank];
        if (s != nullptr && c.count != c.counts[rank])
          throw StatusError(RELAY_ERR_COUNT, "sendbuf: " + std::to_string(c.count) +
                                                 " elements, counts[" + std::to_string(rank) +
                                                 "] says " + std::to_string(c.counts[rank]));
        return c;
      },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_iallgatherv(c.send, c.count, c.datatype, c.recv, c.counts.data(),
                                     c.displs.data(), c.datatype, comm, &o.coll, r)
                 : relay_allgatherv(c.send, c.count, c.datatype, c.recv, c.counts.data(),
                                    c.displs.data(), c.datatype, comm, &o.coll);
      });
}

nb::object reduce_scatter_block(nb::handle send, nb::handle recv, nb::handle op,
                                nb::handle comm_obj, const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_REDUCE_SCATTER_BLOCK);
  MPI_Comm comm = comm_handle(comm_obj);
  const bool in_place = send.is_none();
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.reduce_scatter_block",
      [&] {
        Call c;
        c.op = op_of(op);
        take(c, send, in_place, recv);
        set_pointers(c, in_place);
        const int p = comm_size(comm);
        const Buffer* s = send_of(c, in_place);
        const Buffer& r = *recv_of(c, in_place);
        // In place, recvbuf holds every rank's block on input; else sendbuf does.
        c.count = whole_blocks(s != nullptr ? *s : r, s != nullptr ? "sendbuf" : "recvbuf", p);
        require_elements(r, "recvbuf", c.count, "this rank's block");
        return c;
      },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_ireduce_scatter_block(c.send, c.recv, c.count, c.datatype, c.op, comm,
                                               &o.coll, r)
                 : relay_reduce_scatter_block(c.send, c.recv, c.count, c.datatype, c.op, comm,
                                              &o.coll);
      });
}

nb::object gather(nb::handle send, nb::handle recv, int root, nb::handle comm_obj, const Options& o,
                  bool nb_) {
  expect_collective(o, RELAY_COLL_GATHER);
  MPI_Comm comm = comm_handle(comm_obj);
  const bool in_place = send.is_none();
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.gather",
      [&] {
        Call c;
        check_root(root, comm);
        take(c, send, in_place, recv);
        set_pointers(c, in_place);
        const int p = comm_size(comm);
        const bool is_root = comm_rank(comm) == root;
        if (in_place && !is_root)
          throw StatusError(RELAY_ERR_BUFFER, "sendbuf: IN_PLACE is for the root only");
        const Buffer* s = send_of(c, in_place);
        const Buffer* r = recv_of(c, in_place);
        if (is_root && r == nullptr)
          throw StatusError(RELAY_ERR_BUFFER, "recvbuf: the root needs one");
        c.count = s != nullptr ? s->mpi_count("sendbuf") : whole_blocks(*r, "recvbuf", p);
        if (is_root)
          require_elements(*r, "recvbuf", static_cast<long long>(c.count) * p,
                           "one block per rank");
        return c;
      },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_igather(c.send, c.recv, c.count, c.datatype, root, comm, &o.coll, r)
                 : relay_gather(c.send, c.recv, c.count, c.datatype, root, comm, &o.coll);
      });
}

nb::object scatter(nb::handle send, nb::handle recv, int root, nb::handle comm_obj,
                   const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_SCATTER);
  MPI_Comm comm = comm_handle(comm_obj);
  // Here recvbuf may be IN_PLACE (None) at the root, and sendbuf is significant there only.
  const bool in_place = recv.is_none();
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.scatter",
      [&] {
        Call c;
        check_root(root, comm);
        const int p = comm_size(comm);
        const bool is_root = comm_rank(comm) == root;
        if (in_place && !is_root)
          throw StatusError(RELAY_ERR_BUFFER, "recvbuf: IN_PLACE is for the root only");
        if (is_root && send.is_none())
          throw StatusError(RELAY_ERR_BUFFER, "sendbuf: the root needs one");
        if (!send.is_none()) c.buffers.emplace_back(send, "sendbuf", false);
        if (!in_place) c.buffers.emplace_back(recv, "recvbuf", true);
        const Buffer* s = send.is_none() ? nullptr : &c.buffers[0];
        const Buffer* r = in_place ? nullptr : &c.buffers.back();
        if (s != nullptr && r != nullptr) same_type(*s, "sendbuf", *r, "recvbuf");
        c.send = s != nullptr ? s->data() : nullptr;
        c.recv = r != nullptr ? r->data() : MPI_IN_PLACE;
        c.datatype = r != nullptr ? r->datatype() : s->datatype();
        c.count = r != nullptr ? r->mpi_count("recvbuf") : whole_blocks(*s, "sendbuf", p);
        if (is_root)
          require_elements(*s, "sendbuf", static_cast<long long>(c.count) * p,
                           "one block per rank");
        return c;
      },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_iscatter(c.send, c.recv, c.count, c.datatype, root, comm, &o.coll, r)
                 : relay_scatter(c.send, c.recv, c.count, c.datatype, root, comm, &o.coll);
      });
}

nb::object alltoall(nb::handle send, nb::handle recv, nb::handle comm_obj, const Options& o,
                    bool nb_) {
  expect_collective(o, RELAY_COLL_ALLTOALL);
  MPI_Comm comm = comm_handle(comm_obj);
  const bool in_place = send.is_none();
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.alltoall",
      [&] {
        Call c;
        take(c, send, in_place, recv);
        set_pointers(c, in_place);
        const int p = comm_size(comm);
        const Buffer* s = send_of(c, in_place);
        const Buffer& r = *recv_of(c, in_place);
        c.count = whole_blocks(s != nullptr ? *s : r, s != nullptr ? "sendbuf" : "recvbuf", p);
        require_elements(r, "recvbuf", static_cast<long long>(c.count) * p, "one block per rank");
        return c;
      },
      [&](Call& c, PartTimes*, relay_request_t* r) {
        return r ? relay_ialltoall(c.send, c.recv, c.count, c.datatype, comm, &o.coll, r)
                 : relay_alltoall(c.send, c.recv, c.count, c.datatype, comm, &o.coll);
      });
}

nb::object barrier(nb::handle comm_obj, const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_BARRIER);
  MPI_Comm comm = comm_handle(comm_obj);
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.barrier", [] { return Call{}; },
      [&](Call&, PartTimes*, relay_request_t* r) {
        return r ? relay_ibarrier(comm, &o.coll, r) : relay_barrier(comm, &o.coll);
      });
}

// ---- the N_DUP overlap helper ----------------------------------------------------------------

void check_n_dup(int n_dup) {
  if (n_dup < 1 || n_dup > RELAY_OVERLAP_MAX_DUP) {
    throw StatusError(RELAY_ERR_NDUP, "n_dup " + std::to_string(n_dup) + " is outside 1.." +
                                          std::to_string(RELAY_OVERLAP_MAX_DUP));
  }
}

nb::object overlap_bcast(nb::handle buf, int root, nb::handle comm_obj, int n_dup, const Options& o,
                         bool nb_) {
  expect_collective(o, RELAY_COLL_BCAST);
  MPI_Comm comm = comm_handle(comm_obj);
  auto times = std::make_unique<PartTimes>(static_cast<std::size_t>(std::max(n_dup, 0)));
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.overlap_bcast",
      [&] {
        check_n_dup(n_dup);
        return prepare_bcast(buf, root, comm);
      },
      [&](Call& c, PartTimes* t, relay_request_t* r) {
        return r ? relay_overlap_ibcast(c.recv, c.count, c.datatype, root, comm, n_dup, &o.bcast,
                                        t->data(), r)
                 : relay_overlap_bcast(c.recv, c.count, c.datatype, root, comm, n_dup, &o.bcast,
                                       t->data());
      },
      std::move(times));
}

nb::object overlap_reduce(nb::handle send, nb::handle recv, nb::handle op, int root,
                          nb::handle comm_obj, int n_dup, const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_REDUCE);
  MPI_Comm comm = comm_handle(comm_obj);
  auto times = std::make_unique<PartTimes>(static_cast<std::size_t>(std::max(n_dup, 0)));
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.overlap_reduce",
      [&] {
        check_n_dup(n_dup);
        return prepare_reduce(send, recv, op, root, comm);
      },
      [&](Call& c, PartTimes* t, relay_request_t* r) {
        return r ? relay_overlap_ireduce(c.send, c.recv, c.count, c.datatype, c.op, root, comm,
                                         n_dup, &o.coll, t->data(), r)
                 : relay_overlap_reduce(c.send, c.recv, c.count, c.datatype, c.op, root, comm,
                                        n_dup, &o.coll, t->data());
      },
      std::move(times));
}

nb::object overlap_allreduce(nb::handle send, nb::handle recv, nb::handle op, nb::handle comm_obj,
                             int n_dup, const Options& o, bool nb_) {
  expect_collective(o, RELAY_COLL_ALLREDUCE);
  MPI_Comm comm = comm_handle(comm_obj);
  auto times = std::make_unique<PartTimes>(static_cast<std::size_t>(std::max(n_dup, 0)));
  return run(
      {comm}, check_is_collective(o.check()), nb_, "relay.overlap_allreduce",
      [&] {
        check_n_dup(n_dup);
        return prepare_allreduce(send, recv, op);
      },
      [&](Call& c, PartTimes* t, relay_request_t* r) {
        return r ? relay_overlap_iallreduce(c.send, c.recv, c.count, c.datatype, c.op, comm, n_dup,
                                            &o.coll, t->data(), r)
                 : relay_overlap_allreduce(c.send, c.recv, c.count, c.datatype, c.op, comm, n_dup,
                                           &o.coll, t->data());
      },
      std::move(times));
}

/// huang2018's Algorithm 2: reduce over reduce_comm to reduce_root, then broadcast over
/// bcast_comm from bcast_root, part by part. Every rank receives the result in recvbuf. The
/// ranks agree over both communicators (a process grid's row, then its column: every rank).
nb::object overlap_reduce_bcast(nb::handle send, nb::handle recv, nb::handle op, int reduce_root,
                                nb::handle reduce_comm_obj, int bcast_root,
                                nb::handle bcast_comm_obj, int n_dup, const Options& reduce_o,
                                const Options& bcast_o, bool nb_) {
  expect_collective(reduce_o, RELAY_COLL_REDUCE);
  expect_collective(bcast_o, RELAY_COLL_BCAST);
  MPI_Comm reduce_comm = comm_handle(reduce_comm_obj);
  MPI_Comm bcast_comm = comm_handle(bcast_comm_obj);
  auto times = std::make_unique<PartTimes>(static_cast<std::size_t>(std::max(n_dup, 0)));
  const bool collective =
      check_is_collective(reduce_o.check()) || check_is_collective(bcast_o.check());
  return run(
      {reduce_comm, bcast_comm}, collective, nb_, "relay.overlap_reduce_bcast",
      [&] {
        check_n_dup(n_dup);
        check_root(reduce_root, reduce_comm);
        check_root(bcast_root, bcast_comm);
        if (recv.is_none()) throw StatusError(RELAY_ERR_BUFFER, "recvbuf: every rank needs one");
        return prepare_allreduce(send, recv, op);  // the same buffer rules
      },
      [&](Call& c, PartTimes* t, relay_request_t* r) {
        return r ? relay_overlap_ireduce_bcast(c.send, c.recv, c.count, c.datatype, c.op,
                                               reduce_root, reduce_comm, bcast_root, bcast_comm,
                                               n_dup, &reduce_o.coll, &bcast_o.bcast, t->data(), r)
                 : relay_overlap_reduce_bcast(c.send, c.recv, c.count, c.datatype, c.op,
                                              reduce_root, reduce_comm, bcast_root, bcast_comm,
                                              n_dup, &reduce_o.coll, &bcast_o.bcast, t->data());
      },
      std::move(times));
}

// ---- descriptions, tables, the tuner ---------------------------------------------------------

std::string describe(const Options& o, nb::handle buf, int root, nb::handle op,
                     nb::handle comm_obj) {
  MPI_Comm comm = comm_handle(comm_obj);
  Buffer b(buf, "buf", false);
  MPI_Op mpi_op = op.is_none() ? MPI_OP_NULL : op_of(op);
  char text[512] = {};
  if (o.collective == RELAY_COLL_BCAST) {
    check_status(relay_bcast_describe(b.mpi_count("buf"), b.datatype(), root, comm, &o.bcast, text,
                                      sizeof text),
                 "relay.describe");
  } else {
    check_status(relay_coll_describe(o.collective, b.mpi_count("buf"), b.datatype(), mpi_op, root,
                                     comm, &o.coll, text, sizeof text),
                 "relay.describe");
  }
  return text;
}

nb::dict algorithms() {
  nb::dict all;
  nb::list bcast_names;
  for (int a = 0;; ++a) {
    const char* n = relay_bcast_algorithm_name(static_cast<relay_bcast_algorithm_t>(a));
    if (n == nullptr) break;
    bcast_names.append(n);
  }
  all["bcast"] = bcast_names;
  for (int c = RELAY_COLL_REDUCE; c <= RELAY_COLL_ALLGATHERV; ++c) {
    const auto collective = static_cast<relay_collective_t>(c);
    nb::list names;
    for (int a = 0;; ++a) {
      const char* n = relay_coll_algorithm_name(collective, a);
      if (n == nullptr) break;
      names.append(n);
    }
    all[relay_collective_name(collective)] = names;
  }
  return all;
}

void load_table(std::optional<std::string> path) {
  check_status(relay_tuning_load(path ? path->c_str() : nullptr), "relay.load_table");
}

/// tune::run_session with the options of `relay tune`; returns (table, results) as JSON text.
std::pair<std::string, std::string> tune_session(
    nb::handle comm_obj, const std::string& operation, const std::vector<long long>& sizes,
    const std::vector<std::string>& algorithms_, const std::vector<std::string>& policies,
    const std::vector<long long>& segments, const std::vector<std::string>& methods,
    const std::string& table_method, double min_time_s, int max_requests, int root, int confirm,
    int confirm_rounds, std::optional<std::string> params, const std::string& machine,
    bool verbose) {
  MPI_Comm comm = comm_handle(comm_obj);
  tune::SessionOptions o;
  try {
    if (operation != "bcast") {
      o.collective = coll::find_collective(operation);
      if (!o.collective) throw std::invalid_argument("operation: unknown '" + operation + "'");
    }
    const std::vector<std::string> known = coll::table_algorithms(operation);
    o.algorithms = algorithms_.empty() ? known : algorithms_;
    for (const auto& a : o.algorithms) {
      if (std::find(known.begin(), known.end(), a) == known.end())
        throw std::invalid_argument("algorithms: '" + a + "' is not an algorithm of " + operation);
    }
    o.policies = policies;
    o.sizes.assign(sizes.begin(), sizes.end());
    o.segments.assign(segments.begin(), segments.end());
    o.methods = methods;
    o.table_method = table_method;
    o.min_time_s = min_time_s;
    o.max_requests = max_requests;
    o.root = root;
    o.confirm = confirm;
    o.confirm_rounds = confirm_rounds;
    o.quiet = !verbose;
    o.machine_description = nlohmann::json::parse(machine);
    if (params && tune::needs_model(o, comm_size(comm))) {
      o.machine = model::machine_from_json(model::read_params_file(*params), true);
      o.machine_source = *params;
    }
    tune::SessionResult result;
    {
      nb::gil_scoped_release release;
      result = tune::run_session(comm, o);
    }
    return {result.table.to_json().dump(2), result.results.dump()};
  } catch (const std::invalid_argument& e) {
    throw StatusError(RELAY_ERR_OPTIONS, std::string("relay.tune: ") + e.what());
  }
}

nb::dict statuses() {
  nb::dict d;
  for (int s = RELAY_SUCCESS; s <= RELAY_ERR_NDUP; ++s)
    d[nb::int_(s)] = relay_status_string(static_cast<relay_status_t>(s));
  return d;
}

}  // namespace
}  // namespace relay::python

NB_MODULE(_core, m) {
  using namespace relay::python;
  m.doc() = "relay's C API on Python buffers and mpi4py communicators (use the relay package)";

  // relay.Error (python/relay/_errors.py) carries relay's status; looked up when first raised so
  // that the module also imports on its own (the stub generator does).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      nb::object error = nb::module_::import_("relay._errors").attr("Error");
      nb::object instance = error(e.what(), static_cast<int>(e.status()));
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  nb::class_<Options>(m, "Options", "A call's options, checked and in relay's C structs")
      .def(nb::new_([](const std::string& collective, nb::handle algorithm,
                       const std::string& policy, std::optional<long long> segment_bytes,
                       int fanout, int max_requests, const std::string& check) {
             return make_options(collective, algorithm, policy, segment_bytes, fanout, max_requests,
                                 check);
           }),
           nb::arg("collective"), nb::arg("algorithm"), nb::arg("policy"),
           nb::arg("segment_bytes").none(), nb::arg("fanout"), nb::arg("max_requests"),
           nb::arg("check"));

  nb::class_<Request>(m, "Request",
                      "A nonblocking relay operation; its buffers are held until it completes")
      .def("test", &Request::test, "Advances the operation; True once it has completed")
      .def("wait", &Request::wait, "Blocks until the operation completes")
      .def("progress", &Request::progress, "Advances the operation without blocking")
      .def_prop_ro("done", &Request::done, "Whether the operation has completed")
      .def_prop_ro(
          "part_times",
          [](const Request& r) -> nb::object {
            if (r.times() == nullptr || !r.done()) return nb::none();
            return part_times_list(*r.times());
          },
          "Overlapped operations: each part's times once complete, else None");
  m.def("waitall", &wait_all, nb::arg("requests"));
  m.def("progressall", &progress_all, nb::arg("requests"));

  m.def("bcast", &bcast, nb::arg("buf"), nb::arg("root"), nb::arg("comm"), nb::arg("options"),
        nb::arg("nonblocking"));
  m.def("reduce", &reduce, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(), nb::arg("op"),
        nb::arg("root"), nb::arg("comm"), nb::arg("options"), nb::arg("nonblocking"));
  m.def("allreduce", &allreduce, nb::arg("sendbuf").none(), nb::arg("recvbuf"), nb::arg("op"),
        nb::arg("comm"), nb::arg("options"), nb::arg("nonblocking"));
  m.def("allgather", &allgather, nb::arg("sendbuf").none(), nb::arg("recvbuf"), nb::arg("comm"),
        nb::arg("options"), nb::arg("nonblocking"));
  m.def("allgatherv", &allgatherv, nb::arg("sendbuf").none(), nb::arg("recvbuf"), nb::arg("counts"),
        nb::arg("displs").none(), nb::arg("comm"), nb::arg("options"), nb::arg("nonblocking"));
  m.def("reduce_scatter_block", &reduce_scatter_block, nb::arg("sendbuf").none(),
        nb::arg("recvbuf"), nb::arg("op"), nb::arg("comm"), nb::arg("options"),
        nb::arg("nonblocking"));
  m.def("gather", &gather, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(), nb::arg("root"),
        nb::arg("comm"), nb::arg("options"), nb::arg("nonblocking"));
  m.def("scatter", &scatter, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(), nb::arg("root"),
        nb::arg("comm"), nb::arg("options"), nb::arg("nonblocking"));
  m.def("alltoall", &alltoall, nb::arg("sendbuf").none(), nb::arg("recvbuf"), nb::arg("comm"),
        nb::arg("options"), nb::arg("nonblocking"));
  m.def("barrier", &barrier, nb::arg("comm"), nb::arg("options"), nb::arg("nonblocking"));

  m.def(
      "overlap_prepare",
      [](nb::handle comm, int n_dup) {
        check_n_dup(n_dup);
        check_status(relay_overlap_prepare(comm_handle(comm), n_dup), "relay.overlap_prepare");
      },
      nb::arg("comm"), nb::arg("n_dup"));
  m.def("overlap_bcast", &overlap_bcast, nb::arg("buf"), nb::arg("root"), nb::arg("comm"),
        nb::arg("n_dup"), nb::arg("options"), nb::arg("nonblocking"));
  m.def("overlap_reduce", &overlap_reduce, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(),
        nb::arg("op"), nb::arg("root"), nb::arg("comm"), nb::arg("n_dup"), nb::arg("options"),
        nb::arg("nonblocking"));
  m.def("overlap_allreduce", &overlap_allreduce, nb::arg("sendbuf").none(), nb::arg("recvbuf"),
        nb::arg("op"), nb::arg("comm"), nb::arg("n_dup"), nb::arg("options"),
        nb::arg("nonblocking"));

  m.def("overlap_reduce_bcast", &overlap_reduce_bcast, nb::arg("sendbuf").none(),
        nb::arg("recvbuf").none(), nb::arg("op"), nb::arg("reduce_root"), nb::arg("reduce_comm"),
        nb::arg("bcast_root"), nb::arg("bcast_comm"), nb::arg("n_dup"), nb::arg("reduce_options"),
        nb::arg("bcast_options"), nb::arg("nonblocking"));

  m.def("describe", &describe, nb::arg("options"), nb::arg("buf"), nb::arg("root"),
        nb::arg("op").none(), nb::arg("comm"));
  m.def("algorithms", &algorithms);
  m.def("load_table", &load_table, nb::arg("path").none());
  m.def("tune", &tune_session, nb::arg("comm"), nb::arg("operation"), nb::arg("sizes"),
        nb::arg("algorithms"), nb::arg("policies"), nb::arg("segments"), nb::arg("methods"),
        nb::arg("table_method"), nb::arg("min_time_s"), nb::arg("max_requests"), nb::arg("root"),
        nb::arg("confirm"), nb::arg("confirm_rounds"), nb::arg("params").none(), nb::arg("machine"),
        nb::arg("verbose"));
  m.def("statuses", &statuses);
  m.def("version", [] { return std::string(relay_version()); });
  m.def("build_info", [] { return std::string(relay_build_info()); });
  m.def("built_for", [] { return relay::core::built_for_mpi_library(); });

  bind_matrix(m);
}
