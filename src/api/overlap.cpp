// The overlapped collectives of relay/overlap.h: argument checks (every rank, in argument
// order, before any message), the optional collective agreement, then either the plain
// blocking collective (blocking calls with n_dup = 1: exactly the non-overlapped path) or the
// parts as relay nonblocking collectives on the cached duplicates, run by overlap::Overlap.
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <string>

#include "api/checks.hpp"
#include "api/request.hpp"
#include "coll/select.hpp"
#include "core/status.hpp"
#include "overlap/dup_comms.hpp"
#include "overlap/overlap.hpp"
#include "relay/overlap.h"

namespace {

using relay::core::fail;
using relay::overlap::DupComm;
using relay::overlap::PartRange;

enum class Kind { bcast, reduce, allreduce, reduce_bcast };

// One call's arguments. bcast: the buffer is recvbuf, sendbuf is NULL, op MPI_OP_NULL.
// reduce_bcast: root/comm are the reduce's, bcast_root/bcast_comm the broadcast's.
struct Args {
  Kind kind;
  const void* sendbuf;
  void* recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  int bcast_root;
  MPI_Comm bcast_comm;
  int n_dup;
  const relay_coll_options_t* coll_options;
  const relay_bcast_options_t* bcast_options;
  relay_overlap_part_times_t* times;
};

// Argument positions in each C signature (0: no such argument); the buffers are always 1
// (sendbuf, or bcast's buffer) and 2 (recvbuf).
struct Positions {
  int count, datatype, op, root, comm, bcast_root, bcast_comm, n_dup, coll_options, bcast_options;
};
Positions positions(Kind k) {
  switch (k) {
    case Kind::bcast:
      return {2, 3, 0, 0, 0, 4, 5, 6, 0, 7};
    case Kind::reduce:
      return {3, 4, 5, 6, 7, 0, 0, 8, 9, 0};
    case Kind::allreduce:
      return {3, 4, 5, 0, 6, 0, 0, 7, 8, 0};
    case Kind::reduce_bcast:
      return {3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  }
  return {};
}

relay::coll::Collective collective(Kind k) {
  return k == Kind::allreduce ? relay::coll::Collective::allreduce
                              : relay::coll::Collective::reduce;
}

// What the checks learn about a valid call.
struct Layout {
  relay::api::TypeInfo type;
  MPI_Aint extent = 0;
  bool commutative = true;
  int size = 0, rank = 0;              // in comm (reductions)
  int bcast_size = 0, bcast_rank = 0;  // in bcast_comm (broadcasts)
};

relay_status_t check_root(const char* fn, int position, const char* name, int root, int size) {
  if (root >= 0 && root < size) return RELAY_SUCCESS;
  return fail(RELAY_ERR_ROOT,
              "{}: argument {} ({} = {}) is not a rank of the communicator "
              "(size {})",
              fn, position, name, root, size);
}

relay_status_t check_buffers(const char* fn, const Args& a, const Layout& l) {
  const bool has_data = a.count > 0 && l.type.size > 0 && l.type.true_lb == 0;
  if (a.kind != Kind::bcast) {
    const int in_place_root = a.kind == Kind::allreduce ? -1 : a.root;
    return relay::api::check_reduction_buffers(
        fn, {a.sendbuf, a.recvbuf, a.count, has_data, l.rank, in_place_root,
             a.kind != Kind::reduce || l.rank == a.root});
  }
  if (a.recvbuf == nullptr && has_data) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 1 (buffer) is NULL but count = {} > 0", fn,
                a.count);
  }
  return RELAY_SUCCESS;
}

// The options must be valid for every part size (at most two: count / n_dup and one more).
relay_status_t check_options(const char* fn, const Args& a, const Positions& pos, const Layout& l) {
  const std::int64_t elem = std::max<std::int64_t>(1, l.type.size);
  const relay::core::RelayEnvironment env;
  for (int c : {0, a.n_dup - 1}) {
    const std::int64_t bytes = relay::overlap::part_range(a.count, a.n_dup, c).count * elem;
    bool schedule = false;
    if (a.kind != Kind::bcast) {
      relay::coll::Config config;
      const relay::coll::Call call{collective(a.kind), l.size, bytes, elem, l.commutative};
      if (auto st =
              relay::coll::resolve(env, a.coll_options, call, fn, pos.coll_options, pos.op, config);
          st != RELAY_SUCCESS) {
        return st;
      }
      schedule = config.algorithm->build != nullptr;
    }
    if (a.kind == Kind::bcast || a.kind == Kind::reduce_bcast) {
      relay::coll::Config config;
      const relay::coll::Call call{relay::coll::Collective::bcast, l.bcast_size, bytes, elem};
      if (auto st = relay::coll::resolve(env, a.bcast_options, call, fn, pos.bcast_options, config);
          st != RELAY_SUCCESS) {
        return st;
      }
      schedule = schedule || config.algorithm->build != nullptr;
    }
    if (schedule && !l.type.contiguous) {
      return fail(RELAY_ERR_DATATYPE,
                  "{}: argument {} (datatype) is not contiguous; relay's "
                  "schedules move contiguous bytes (use algorithm mpi, or a contiguous type)",
                  fn, pos.datatype);
    }
  }
  return RELAY_SUCCESS;
}

relay_status_t check_arguments(const char* fn, const Args& a, Layout& l) {
  const Positions pos = positions(a.kind);
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  if (a.count < 0) {
    return fail(RELAY_ERR_COUNT, "{}: argument {} (count = {}) is negative", fn, pos.count,
                a.count);
  }
  if (auto st = relay::api::check_datatype(fn, pos.datatype, a.datatype, a.count, l.type);
      st != RELAY_SUCCESS) {
    return st;
  }
  MPI_Aint lb = 0;
  MPI_Type_get_extent(a.datatype, &lb, &l.extent);
  if (a.kind != Kind::bcast) {
    if (auto st = relay::api::check_op(fn, pos.op, a.op, l.commutative); st != RELAY_SUCCESS) {
      return st;
    }
    if (auto st = relay::api::check_comm(fn, pos.comm, a.comm, l.size, l.rank);
        st != RELAY_SUCCESS) {
      return st;
    }
    if (a.kind != Kind::allreduce) {
      const char* name = a.kind == Kind::reduce ? "root" : "reduce_root";
      if (auto st = check_root(fn, pos.root, name, a.root, l.size); st != RELAY_SUCCESS) {
        return st;
      }
    }
  }
  if (a.kind == Kind::bcast || a.kind == Kind::reduce_bcast) {
    if (auto st =
            relay::api::check_comm(fn, pos.bcast_comm, a.bcast_comm, l.bcast_size, l.bcast_rank);
        st != RELAY_SUCCESS) {
      return st;
    }
    const char* name = a.kind == Kind::bcast ? "root" : "bcast_root";
    if (auto st = check_root(fn, pos.bcast_root, name, a.bcast_root, l.bcast_size);
        st != RELAY_SUCCESS) {
      return st;
    }
  }
  if (auto st = check_buffers(fn, a, l); st != RELAY_SUCCESS) return st;
  if (a.kind == Kind::reduce_bcast && l.bcast_rank == a.bcast_root && l.rank != a.root) {
    return fail(RELAY_ERR_ROOT,
                "{}: argument 8 (bcast_root = {}) is this rank, but it is rank "
                "{} of reduce_comm, not reduce_root ({}): it would broadcast data it has not "
                "reduced",
                fn, a.bcast_root, l.rank, a.root);
  }
  if (a.n_dup < 1 || a.n_dup > RELAY_OVERLAP_MAX_DUP) {
    return fail(RELAY_ERR_NDUP, "{}: argument {} (n_dup = {}) is not in 1..{}", fn, pos.n_dup,
                a.n_dup, RELAY_OVERLAP_MAX_DUP);
  }
  return check_options(fn, a, pos, l);
}

bool wants_collective_check(const Args& a) {
  const relay::core::RelayEnvironment env;
  auto check = [&env](const auto* options) {
    return relay::api::wants_collective_check(relay::coll::stored_check(options), env);
  };
  return check(a.coll_options) || check(a.bcast_options);
}

// With RELAY_CHECK_COLLECTIVE: over comm, then bcast_comm (a process grid's rows, then its
// columns: an error seen on one rank reaches every rank of the grid).
relay_status_t agree(const char* fn, const Args& a, relay_status_t st) {
  const long long values[4] = {a.count, a.root, a.bcast_root, a.n_dup};
  static const char* const names[4] = {"count", "root", "bcast_root", "n_dup"};
  if (a.kind != Kind::bcast) st = relay::api::agree(fn, a.comm, st, values, names, 4);
  if (a.kind == Kind::bcast || a.kind == Kind::reduce_bcast) {
    st = relay::api::agree(fn, a.bcast_comm, st, values, names, 4);
  }
  return st;
}

relay_status_t checked(const char* fn, const Args& a, Layout& l) {
  relay_status_t st = check_arguments(fn, a, l);
  // No agreement is possible over a communicator that is itself invalid.
  if (wants_collective_check(a) && st != RELAY_ERR_COMM) st = agree(fn, a, st);
  return st;
}

// Blocking, n_dup = 1: the plain collective with the caller's options, nothing else.
relay_status_t run_plain(const Args& a, double t0) {
  auto now = [t0] { return MPI_Wtime() - t0; };
  relay_overlap_part_times_t t{a.count, now(), 0, 0, -1, -1, 0};
  relay_status_t st = RELAY_SUCCESS;
  switch (a.kind) {
    case Kind::bcast:
      st = relay_bcast(a.recvbuf, a.count, a.datatype, a.bcast_root, a.bcast_comm, a.bcast_options);
      break;
    case Kind::reduce:
    case Kind::reduce_bcast:
      st = relay_reduce(a.sendbuf, a.recvbuf, a.count, a.datatype, a.op, a.root, a.comm,
                        a.coll_options);
      break;
    case Kind::allreduce:
      st = relay_allreduce(a.sendbuf, a.recvbuf, a.count, a.datatype, a.op, a.comm, a.coll_options);
      break;
  }
  t.posted_s = t.first_done_s = t.done_s = now();
  if (st == RELAY_SUCCESS && a.kind == Kind::reduce_bcast) {
    t.second_post_start_s = t.done_s;
    st = relay_bcast(a.recvbuf, a.count, a.datatype, a.bcast_root, a.bcast_comm, a.bcast_options);
    t.second_posted_s = t.done_s = now();
  }
  if (a.times != nullptr) *a.times = t;
  return st;
}

// The parts' options: the caller's, checked locally only (the call agreed already; a part
// must never block in an agreement while other parts wait to be progressed).
template <class Options>
Options part_options(const Options* given) {
  Options o;
  // check_options resolved them already: their struct_size and enum fields are valid here.
  (void)relay::coll::read_options(given, o, "", 0);
  o.check = RELAY_CHECK_LOCAL;
  return o;
}

relay_status_t add_parts(const char* fn, const Args& a, const Layout& l,
                         relay::overlap::Overlap& overlap) {
  std::string error;
  const bool reduces = a.kind != Kind::bcast,
             bcasts = a.kind != Kind::reduce && a.kind != Kind::allreduce;
  if ((reduces && relay::overlap::prepare_dups(a.comm, a.n_dup, error) != RELAY_SUCCESS) ||
      (bcasts && relay::overlap::prepare_dups(a.bcast_comm, a.n_dup, error) != RELAY_SUCCESS)) {
    return fail(RELAY_ERR_MPI, "{}: duplicating the communicator: {}", fn, error);
  }
  const auto co = part_options(a.coll_options);
  const auto bo = part_options(a.bcast_options);
  const MPI_Datatype type = a.datatype;
  const MPI_Op op = a.op;
  const int root = a.root, bcast_root = a.bcast_root;
  for (int c = 0; c < a.n_dup; ++c) {
    const PartRange r = relay::overlap::part_range(a.count, a.n_dup, c);
    const MPI_Aint offset = static_cast<MPI_Aint>(r.first) * l.extent;
    const void* send = a.sendbuf == nullptr || a.sendbuf == MPI_IN_PLACE
                           ? a.sendbuf
                           : static_cast<const char*>(a.sendbuf) + offset;
    void* recv = a.recvbuf == nullptr ? nullptr : static_cast<char*>(a.recvbuf) + offset;
    const int n = r.count;
    DupComm* dup = reduces ? &relay::overlap::dup(a.comm, c) : nullptr;
    DupComm* bcast_dup = bcasts ? &relay::overlap::dup(a.bcast_comm, c) : nullptr;
    auto bcast = [=](MPI_Comm comm, relay_request_t* req) {
      return relay_ibcast(recv, n, type, bcast_root, comm, &bo, req);
    };
    auto reduce = [=](MPI_Comm comm, relay_request_t* req) {
      return relay_ireduce(send, recv, n, type, op, root, comm, &co, req);
    };
    switch (a.kind) {
      case Kind::bcast:
        overlap.add_part(n, bcast_dup, bcast);
        break;
      case Kind::reduce:
        overlap.add_part(n, dup, reduce);
        break;
      case Kind::allreduce:
        overlap.add_part(n, dup, [=](MPI_Comm comm, relay_request_t* req) {
          return relay_iallreduce(send, recv, n, type, op, comm, &co, req);
        });
        break;
      case Kind::reduce_bcast:
        overlap.add_part(n, dup, reduce, bcast_dup, bcast);
        break;
    }
  }
  return RELAY_SUCCESS;
}

relay_status_t run(const char* fn, const Args& a) {
  const double t0 = MPI_Wtime();
  relay::core::clear_last_error();
  Layout l;
  if (auto st = checked(fn, a, l); st != RELAY_SUCCESS) return st;
  if (a.n_dup == 1) return run_plain(a, t0);
  relay::overlap::Overlap overlap(fn, t0, a.times, relay_request_events);
  if (auto st = add_parts(fn, a, l, overlap); st != RELAY_SUCCESS) return st;
  if (auto st = overlap.post(); st != RELAY_SUCCESS) return st;
  return overlap.wait();
}

relay_status_t start(const char* fn, const Args& a, relay_request_t* request, int position) {
  const double t0 = MPI_Wtime();
  relay::core::clear_last_error();
  if (request == nullptr) {
    return fail(RELAY_ERR_REQUEST, "{}: argument {} (request) is NULL", fn, position);
  }
  *request = RELAY_REQUEST_NULL;
  Layout l;
  if (auto st = checked(fn, a, l); st != RELAY_SUCCESS) return st;
  auto r = std::make_unique<relay_request>();
  r->kind = relay_request::Kind::overlap;
  r->overlap = std::make_unique<relay::overlap::Overlap>(fn, t0, a.times, relay_request_events);
  if (auto st = add_parts(fn, a, l, *r->overlap); st != RELAY_SUCCESS) return st;
  if (auto st = r->overlap->post(); st != RELAY_SUCCESS) return st;
  *request = r.release();
  return RELAY_SUCCESS;
}

Args bcast_args(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, int n_dup,
                const relay_bcast_options_t* options, relay_overlap_part_times_t* times) {
  return {Kind::bcast,   nullptr, buffer, count, datatype, MPI_OP_NULL, 0,
          MPI_COMM_NULL, root,    comm,   n_dup, nullptr,  options,     times};
}

Args reduction_args(Kind kind, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, int n_dup,
                    const relay_coll_options_t* options, relay_overlap_part_times_t* times) {
  return {kind, sendbuf, recvbuf,       count, datatype, op,      root,
          comm, 0,       MPI_COMM_NULL, n_dup, options,  nullptr, times};
}

}  // namespace

extern "C" {

relay_status_t relay_overlap_prepare(MPI_Comm comm, int n_dup) {
  constexpr const char* fn = "relay_overlap_prepare";
  relay::core::clear_last_error();
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  int size = 0, rank = 0;
  if (auto st = relay::api::check_comm(fn, 1, comm, size, rank); st != RELAY_SUCCESS) return st;
  if (n_dup < 1 || n_dup > RELAY_OVERLAP_MAX_DUP) {
    return fail(RELAY_ERR_NDUP, "{}: argument 2 (n_dup = {}) is not in 1..{}", fn, n_dup,
                RELAY_OVERLAP_MAX_DUP);
  }
  std::string error;
  if (relay::overlap::prepare_dups(comm, n_dup, error) != RELAY_SUCCESS) {
    return fail(RELAY_ERR_MPI, "{}: {}", fn, error);
  }
  return RELAY_SUCCESS;
}

relay_status_t relay_overlap_bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                                   MPI_Comm comm, int n_dup, const relay_bcast_options_t* options,
                                   relay_overlap_part_times_t* times) {
  return run("relay_overlap_bcast",
             bcast_args(buffer, count, datatype, root, comm, n_dup, options, times));
}

relay_status_t relay_overlap_ibcast(void* buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, int n_dup, const relay_bcast_options_t* options,
                                    relay_overlap_part_times_t* times, relay_request_t* request) {
  return start("relay_overlap_ibcast",
               bcast_args(buffer, count, datatype, root, comm, n_dup, options, times), request, 9);
}

relay_status_t relay_overlap_reduce(const void* sendbuf, void* recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                    int n_dup, const relay_coll_options_t* options,
                                    relay_overlap_part_times_t* times) {
  return run("relay_overlap_reduce", reduction_args(Kind::reduce, sendbuf, recvbuf, count, datatype,
                                                    op, root, comm, n_dup, options, times));
}

relay_status_t relay_overlap_ireduce(const void* sendbuf, void* recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                     int n_dup, const relay_coll_options_t* options,
                                     relay_overlap_part_times_t* times, relay_request_t* request) {
  return start("relay_overlap_ireduce",
               reduction_args(Kind::reduce, sendbuf, recvbuf, count, datatype, op, root, comm,
                              n_dup, options, times),
               request, 11);
}

relay_status_t relay_overlap_allreduce(const void* sendbuf, void* recvbuf, int count,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int n_dup,
                                       const relay_coll_options_t* options,
                                       relay_overlap_part_times_t* times) {
  return run("relay_overlap_allreduce",
             reduction_args(Kind::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, n_dup,
                            options, times));
}

relay_status_t relay_overlap_iallreduce(const void* sendbuf, void* recvbuf, int count,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int n_dup,
                                        const relay_coll_options_t* options,
                                        relay_overlap_part_times_t* times,
                                        relay_request_t* request) {
  return start("relay_overlap_iallreduce",
               reduction_args(Kind::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm,
                              n_dup, options, times),
               request, 10);
}

relay_status_t relay_overlap_reduce_bcast(const void* sendbuf, void* recvbuf, int count,
                                          MPI_Datatype datatype, MPI_Op op, int reduce_root,
                                          MPI_Comm reduce_comm, int bcast_root, MPI_Comm bcast_comm,
                                          int n_dup, const relay_coll_options_t* reduce_options,
                                          const relay_bcast_options_t* bcast_options,
                                          relay_overlap_part_times_t* times) {
  return run(
      "relay_overlap_reduce_bcast",
      Args{Kind::reduce_bcast, sendbuf, recvbuf, count, datatype, op, reduce_root, reduce_comm,
           bcast_root, bcast_comm, n_dup, reduce_options, bcast_options, times});
}

relay_status_t relay_overlap_ireduce_bcast(
    const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
    int reduce_root, MPI_Comm reduce_comm, int bcast_root, MPI_Comm bcast_comm, int n_dup,
    const relay_coll_options_t* reduce_options, const relay_bcast_options_t* bcast_options,
    relay_overlap_part_times_t* times, relay_request_t* request) {
  return start(
      "relay_overlap_ireduce_bcast",
      Args{Kind::reduce_bcast, sendbuf, recvbuf, count, datatype, op, reduce_root, reduce_comm,
           bcast_root, bcast_comm, n_dup, reduce_options, bcast_options, times},
      request, 14);
}

}  // extern "C"
