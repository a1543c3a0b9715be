// Over 500 lines: huang2018's Algorithms 4 and 5 on one mesh, sharing its padded blocks, its
// part split and the InFlight poller that forwards parts (the C entry points: symm/entry.cpp).
#include "symm/square_cube.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "api/request.hpp"
#include "core/status.hpp"
#include "exec/compute.hpp"
#include "exec/executor.hpp"
#include "overlap/dup_comms.hpp"
#include "overlap/overlap.hpp"

namespace relay::symm {

std::int64_t buffer_side(std::int64_t n, int p) { return (n + p - 1) / p; }

namespace {

template <class T>
struct Blas;
template <>
struct Blas<float> {
  static MPI_Datatype type() { return MPI_FLOAT; }
  static void gemm(CBLAS_TRANSPOSE tb, int m, int n, int k, const float* a, int lda, const float* b,
                   int ldb, float* c, int ldc, float beta = 0.0f) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  }
};
template <>
struct Blas<double> {
  static MPI_Datatype type() { return MPI_DOUBLE; }
  static void gemm(CBLAS_TRANSPOSE tb, int m, int n, int k, const double* a, int lda,
                   const double* b, int ldb, double* c, int ldc, double beta = 0.0) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
  }
};

// One operation in flight on this process: a relay collective or an MPI point-to-point
// request, with what to start when it completes (Algorithm 5's forwarding: a part is passed
// on as soon as it has arrived, not when the whole block has).
struct Op;
using Start = std::function<relay_status_t(Op&)>;
struct Op {
  relay_request_t relay = RELAY_REQUEST_NULL;
  MPI_Request mpi = MPI_REQUEST_NULL;
  bool done = false;
  bool queued = false;  ///< started from InFlight's queue (counts against its window)
  Start then;
};

// The operations of one phase, advanced together until all have completed. Every one is
// tested on every pass: relay's schedules move only when tested, and a rank that waited on
// one operation at a time would hold up the broadcasts it forwards for others.
class InFlight {
 public:
  /// window: how many queued operations may run at once (queue()); 0 = no limit.
  explicit InFlight(int window = 0) : window_(window) {}

  /// Starts an operation now.
  relay_status_t add(const Start& start, Start then = nullptr) {
    return launch(start, std::move(then), false);
  }
  /// Starts an operation that sends when fewer than `window` queued ones are running, else
  /// when one of them completes, in the order queued. Sends on one link share its bandwidth:
  /// all of a stage's parts at once complete together, at the end, and nothing is forwarded
  /// before; a few at a time complete in order (the emulated cluster: docs/symm.md). Queued
  /// parts depend only on parts queued before them, so the window cannot deadlock.
  relay_status_t queue(Start start, Start then = nullptr) {
    waiting_.emplace_back(std::move(start), std::move(then));
    return start_queued();
  }

  // Waits for every operation (also after an error, so that none outlives the call) and
  // returns the first error.
  //
  // Between passes the rank blocks until a message of any operation completes
  // (api::wait_for_progress), and the next pass asks MPI nothing: under SMPI each poll is a
  // switch of simulated rank and a message to itself (exec::test_some), and a rank that polled
  // until its parts arrived made one every microsecond of simulated time -- the 512-node
  // simulation of docs/symm.md ran for an hour without finishing. Where it cannot block
  // (RELAY_IDLE_SLEEP_US, a blocking-policy broadcast, MPI's own collectives under SMPI) it polls.
  relay_status_t wait() {
    bool poll = true, can_block = true;
    for (;;) {
      bool moved = false;
      if (!pass(moved, poll)) break;
      bool waited = false;
      if (can_block) {
        if (relay_status_t st = block(waited); st != RELAY_SUCCESS) {
          note(st);
          waited = false;
          can_block = false;  // polls find the operations' own errors from here on
        }
      }
      poll = !waited;
      if (!waited && !moved) exec::idle_pause();
    }
    ops_.clear();
    return status_;
  }

  /// One pass over every operation without blocking (between pieces of a multiplication).
  relay_status_t progress() {
    bool moved = false;
    pass(moved, true);
    return status_;
  }

 private:
  // Blocks until an MPI request of a pending operation completes (see wait()).
  relay_status_t block(bool& waited) {
    std::vector<relay_request_t*> relay;
    std::vector<MPI_Request*> p2p;
    for (Op& op : ops_) {
      if (op.done) continue;
      if (op.relay != RELAY_REQUEST_NULL) {
        relay.push_back(&op.relay);
      } else {
        p2p.push_back(&op.mpi);
      }
    }
    return api::wait_for_progress(relay, p2p, waited);
  }

  // Tests every operation once, starting follow-ups and queued operations as others complete;
  // returns whether any is still pending. Without `poll`, after block(), an operation counts
  // as complete only if block() completed it: MPI is asked nothing.
  bool pass(bool& moved, bool poll) {
    bool pending = false;
    {
      for (std::size_t x = 0; x < ops_.size(); ++x) {
        if (ops_[x].done) continue;
        int flag = 0;
        relay_status_t st = RELAY_SUCCESS;
        if (!poll) {
          flag = ops_[x].relay == RELAY_REQUEST_NULL && ops_[x].mpi == MPI_REQUEST_NULL;
        } else if (ops_[x].relay != RELAY_REQUEST_NULL) {
          st = relay_test(&ops_[x].relay, &flag);
        } else if (exec::test_one(&ops_[x].mpi, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
          st = RELAY_ERR_MPI;
        }
        if (st != RELAY_SUCCESS) {
          ops_[x].done = true;
          note(st);
          continue;
        }
        if (!flag) {
          pending = true;
          continue;
        }
        moved = true;
        ops_[x].done = true;
        if (ops_[x].queued) --running_;
        if (Start then = std::move(ops_[x].then); then && status_ == RELAY_SUCCESS) {
          add(then);  // may grow ops_: ops_[x] is not used past this point
          pending = true;
        }
        if (!waiting_.empty() && status_ == RELAY_SUCCESS) {
          start_queued();
          pending = true;
        }
      }
    }
    return pending;
  }
  relay_status_t note(relay_status_t st) {
    if (status_ == RELAY_SUCCESS) status_ = st;
    return st;
  }
  relay_status_t launch(const Start& start, Start then, bool queued) {
    Op op;
    op.then = std::move(then);
    op.queued = queued;
    const relay_status_t st = start(op);
    if (st != RELAY_SUCCESS) return note(st);
    if (queued) ++running_;
    ops_.push_back(std::move(op));
    return RELAY_SUCCESS;
  }
  relay_status_t start_queued() {
    relay_status_t st = RELAY_SUCCESS;
    while (!waiting_.empty() && (window_ == 0 || running_ < window_) && st == RELAY_SUCCESS) {
      std::pair<Start, Start> next = std::move(waiting_.front());
      waiting_.pop_front();
      st = launch(next.first, std::move(next.second), true);
    }
    return st;
  }
  int window_ = 0, running_ = 0;
  std::deque<std::pair<Start, Start>> waiting_;  ///< queued, not started yet
  std::vector<Op> ops_;
  relay_status_t status_ = RELAY_SUCCESS;
};

Start ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
             const relay_bcast_options_t* options) {
  return [=](Op& op) { return relay_ibcast(buffer, count, type, root, comm, options, &op.relay); };
}
Start ireduce(const void* send, void* recv, int count, MPI_Datatype type, int root, MPI_Comm comm,
              const relay_coll_options_t* options) {
  return [=](Op& op) {
    return relay_ireduce(send, recv, count, type, MPI_SUM, root, comm, options, &op.relay);
  };
}
Start isend(const void* buffer, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm) {
  return [=](Op& op) {
    return MPI_Isend(buffer, count, type, to, tag, comm, &op.mpi) == MPI_SUCCESS ? RELAY_SUCCESS
                                                                                 : RELAY_ERR_MPI;
  };
}
Start iallreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Comm comm,
                 const relay_coll_options_t* options) {
  return [=](Op& op) {
    return relay_iallreduce(send, recv, count, type, MPI_SUM, comm, options, &op.relay);
  };
}
Start irecv(void* buffer, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm) {
  return [=](Op& op) {
    return MPI_Irecv(buffer, count, type, from, tag, comm, &op.mpi) == MPI_SUCCESS ? RELAY_SUCCESS
                                                                                   : RELAY_ERR_MPI;
  };
}

template <class T>
class Runner {
 public:
  Runner(const Call& call, relay_symm_stats_t& stats)
      : call_(call),
        mesh_(*call.mesh),
        stats_(stats),
        p_(mesh_.p),
        i_(mesh_.i),
        j_(mesh_.j),
        k_(mesh_.k),
        side_(buffer_side(call.n, p_)),
        count_(static_cast<int>(side_ * side_)),
        layers_(mesh_.layers),
        n_dup_(call.algorithm == RELAY_SYMM_BASELINE ? 1 : call.n_dup),
        charged_(exec::compute_is_charged()) {}

  relay_status_t run(std::string& error) {
    if (call_.algorithm == RELAY_SYMM_CANNON) return run_cannon(error);
    // A: D(i, j), on every plane. Raw: D(k, j) from the row broadcast (which the row's root
    // sends from A), later D^3(i, k) on the column's reduction root. C: the local products.
    // Square: D^2(i, k) on the column's root of the first reduction (i = j), D^2(j, k) from
    // the row broadcast elsewhere. The plane k = 0 receives D^2 and D^3 into its own two.
    exec::DataVector<T> a(n_elems()), raw(n_elems()), c(n_elems()), square(n_elems());
    exec::DataVector<T> back2(k_ == 0 ? n_elems() : 0), back3(k_ == 0 ? n_elems() : 0);
    double t = MPI_Wtime();
    if (k_ == 0) pack(static_cast<const T*>(call_.d), call_.ldd, a.data());
    stats_.compute_s += MPI_Wtime() - t;

    if (call_.algorithm == RELAY_SYMM_OVERLAP) {  // the parts' duplicates, made once
      for (MPI_Comm comm : {mesh_.row, mesh_.col, mesh_.fiber}) {
        if (auto st = overlap::prepare_dups(comm, n_dup_, error); st != RELAY_SUCCESS) return st;
      }
    }
    const bool diagonal = i_ == j_;   // reduces D^2(i, k), broadcasts it along its row
    const bool row_root = i_ == k_;   // broadcasts D(i, j) = D(j, i)^T along its row
    const bool cube_root = j_ == k_;  // reduces D^3(i, k)

    // Steps 1-2 (Algorithm 5: 1-8): A down the fiber; the row's root forwards each part along
    // the row as it arrives.
    t = MPI_Wtime();
    relay_status_t st = phase(
        [&](InFlight& f, int part, int first, int n) {
          Start forward =
              row_root ? ibcast(a.data() + first, n, type(), k_, row(part), call_.bcast) : nullptr;
          relay_status_t s =
              f.queue(ibcast(a.data() + first, n, type(), 0, fiber(part), call_.bcast), forward);
          if (s == RELAY_SUCCESS && !row_root) {
            s = f.add(ibcast(raw.data() + first, n, type(), k_, row(part), call_.bcast));
          }
          return s;
        },
        [&] {
          relay_status_t s = relay_bcast(a.data(), count_, type(), 0, mesh_.fiber, call_.bcast);
          if (s != RELAY_SUCCESS) return s;
          return relay_bcast(row_root ? a.data() : raw.data(), count_, type(), k_, mesh_.row,
                             call_.bcast);
        });
    stats_.distribute_s = MPI_Wtime() - t;
    if (st != RELAY_SUCCESS) return st;

    // Step 3: C(i, j, k) = D(i, j) D(j, k), with D(j, k) = D(k, j)^T.
    multiply(a.data(), row_root ? a.data() : raw.data(), CblasTrans, c.data());

    // Steps 4-5 (10-17): D^2(i, k) reduced along the column to P(i, i, k), which broadcasts
    // each part along its row as soon as it is reduced.
    t = MPI_Wtime();
    st = phase(
        [&](InFlight& f, int part, int first, int n) {
          Start forward = diagonal
                              ? ibcast(square.data() + first, n, type(), j_, row(part), call_.bcast)
                              : nullptr;
          relay_status_t s =
              f.queue(ireduce(c.data() + first, diagonal ? square.data() + first : nullptr, n,
                              type(), i_, col(part), call_.reduce),
                      forward);
          if (s == RELAY_SUCCESS && !diagonal) {
            s = f.add(ibcast(square.data() + first, n, type(), j_, row(part), call_.bcast));
          }
          return s;
        },
        [&] {
          relay_status_t s = relay_reduce(c.data(), diagonal ? square.data() : nullptr, count_,
                                          type(), MPI_SUM, i_, mesh_.col, call_.reduce);
          if (s != RELAY_SUCCESS) return s;
          return relay_bcast(square.data(), count_, type(), j_, mesh_.row, call_.bcast);
        });
    stats_.square_s = MPI_Wtime() - t;
    if (st != RELAY_SUCCESS) return st;

    // D^2 is final: its return to the plane k = 0 (step 8; Algorithm 5's line 23) needs
    // nothing of what follows, so the overlapped algorithm starts it now and lets it travel
    // during the second multiplication (progressed between the multiplication's pieces)
    // instead of sharing the links with D^3 afterwards. The baseline keeps the paper's order.
    const bool overlapped = call_.algorithm != RELAY_SYMM_BASELINE;
    const int to = mesh_rank(p_, i_, k_, 0);
    auto return_square = [&](InFlight& f, int part, int first, int n) {
      relay_status_t s = RELAY_SUCCESS;
      if (k_ == 0) {
        s = f.add(irecv(back2.data() + first, n, type(), mesh_rank(p_, i_, i_, j_), 2 * part,
                        mesh_.comm));
      }
      if (s == RELAY_SUCCESS && diagonal) {
        s = f.queue(isend(square.data() + first, n, type(), to, 2 * part, mesh_.comm));
      }
      return s;
    };
    auto receive_cube = [&](InFlight& f, int part, int first, int n) {
      if (k_ != 0) return RELAY_SUCCESS;
      return f.add(irecv(back3.data() + first, n, type(), mesh_rank(p_, i_, j_, j_), 2 * part + 1,
                         mesh_.comm));
    };
    InFlight early(window());
    t = MPI_Wtime();
    for (int part = 0; overlapped && part < n_dup_ && st == RELAY_SUCCESS; ++part) {
      const overlap::PartRange r = overlap::part_range(count_, n_dup_, part);
      if (r.count > 0) st = return_square(early, part, static_cast<int>(r.first), r.count);
    }
    double early_s = MPI_Wtime() - t;

    // Step 6: C(i, j, k) = D(i, j) D^2(j, k).
    multiply(a.data(), square.data(), CblasNoTrans, c.data(), overlapped ? &early : nullptr);

    // Steps 7-9 (19-27): D^3(i, k) reduced to P(i, k, k), which returns each part to P(i, k, 0)
    // as soon as it is reduced; P(i, i, k) returns D^2(i, k) (the baseline here).
    t = MPI_Wtime();
    if (st == RELAY_SUCCESS) {
      st = phase(
          [&](InFlight& f, int part, int first, int n) {
            relay_status_t s = receive_cube(f, part, first, n);
            if (s != RELAY_SUCCESS) return s;
            Start forward = cube_root
                                ? isend(raw.data() + first, n, type(), to, 2 * part + 1, mesh_.comm)
                                : nullptr;
            return f.queue(ireduce(c.data() + first, cube_root ? raw.data() + first : nullptr, n,
                                   type(), k_, col(part), call_.reduce),
                           forward);
          },
          [&] {
            relay_status_t s = relay_reduce(c.data(), cube_root ? raw.data() : nullptr, count_,
                                            type(), MPI_SUM, k_, mesh_.col, call_.reduce);
            if (s != RELAY_SUCCESS) return s;
            InFlight f;
            s = return_square(f, 0, 0, count_);
            if (s == RELAY_SUCCESS) s = receive_cube(f, 0, 0, count_);
            if (s == RELAY_SUCCESS && cube_root) {
              s = f.add(isend(raw.data(), count_, type(), to, 1, mesh_.comm));
            }
            relay_status_t w = f.wait();
            return s != RELAY_SUCCESS ? s : w;
          });
    }
    const relay_status_t w = early.wait();  // always: no request outlives the call
    if (st == RELAY_SUCCESS) st = w;
    stats_.cube_s = early_s + (MPI_Wtime() - t);
    if (st != RELAY_SUCCESS) return st;

    deliver(back2.data(), back3.data());
    return RELAY_SUCCESS;
  }

 private:
  std::size_t n_elems() const { return static_cast<std::size_t>(count_); }
  static MPI_Datatype type() { return Blas<T>::type(); }
  std::int64_t block(int index) const { return block_range(call_.n, p_, index).size; }
  int window() const { return call_.parts_in_flight >= n_dup_ ? 0 : call_.parts_in_flight; }
  MPI_Comm row(int part) const { return overlap::dup(mesh_.row, part).comm; }
  MPI_Comm col(int part) const { return overlap::dup(mesh_.col, part).comm; }
  MPI_Comm fiber(int part) const { return overlap::dup(mesh_.fiber, part).comm; }

  // One communication phase: the baseline's blocking calls, or Algorithm 5's parts (each on
  // its own duplicates) all posted, then advanced together. Every process posts the same
  // parts in the same order; an empty part (count < n_dup) is posted by nobody.
  template <class Parts, class Blocking>
  relay_status_t phase(Parts parts, Blocking blocking) {
    if (call_.algorithm == RELAY_SYMM_BASELINE ||
        (call_.algorithm == RELAY_SYMM_CANNON && n_dup_ == 1)) {
      return blocking();
    }
    InFlight f(window());
    relay_status_t st = RELAY_SUCCESS;
    for (int part = 0; part < n_dup_ && st == RELAY_SUCCESS; ++part) {
      const overlap::PartRange r = overlap::part_range(count_, n_dup_, part);
      if (r.count > 0) st = parts(f, part, static_cast<int>(r.first), r.count);
    }
    const relay_status_t w = f.wait();
    return st != RELAY_SUCCESS ? st : w;
  }

  // huang2018 Algorithm 6 on a q x q x c mesh (q = p_, c = layers_, c divides q): layer k runs
  // Cannon's steps t = 0 .. q/c - 1 on l = (i + j + k q/c + t) mod q, so that the layers
  // together cover every l once; the fibers sum what the layers computed. A and B move by
  // point-to-point messages in the mesh column and row; each shift travels while the current
  // blocks multiply (the multiply reads the blocks being sent, and receives into spares).
  relay_status_t run_cannon(std::string& error) {
    const int q = p_, steps = q / layers_, offset = k_ * steps;
    exec::DataVector<T> d(n_elems()), a(n_elems()), a0(n_elems()), b(n_elems());
    exec::DataVector<T> a_next(n_elems()), b_next(n_elems()), c(n_elems()), square(n_elems());
    exec::DataVector<T> cube(k_ == 0 ? n_elems() : 0);
    double t = MPI_Wtime();
    if (k_ == 0) pack(static_cast<const T*>(call_.d), call_.ldd, d.data());
    stats_.compute_s += MPI_Wtime() - t;
    if (n_dup_ > 1) {
      if (auto st = overlap::prepare_dups(mesh_.fiber, n_dup_, error); st != RELAY_SUCCESS) {
        return st;
      }
    }
    const int l0 = (i_ + j_ + offset) % q;  // the first l of this layer's steps
    auto mod = [q](int x) { return ((x % q) + q) % q; };
    // Step 1: D down the fibers (n_dup parts on duplicated fibers, or one blocking call).
    t = MPI_Wtime();
    relay_status_t st = phase(
        [&](InFlight& f, int part, int first, int n) {
          return f.add(ibcast(d.data() + first, n, type(), 0, fiber(part), call_.bcast));
        },
        [&] { return relay_bcast(d.data(), count_, type(), 0, mesh_.fiber, call_.bcast); });
    // The skew: A = D(i, l0) from P(i, l0, k) in the mesh column; B = D(l0, j) from
    // P(l0, j, k) in the mesh row.
    if (st == RELAY_SUCCESS) st = skew(d.data(), a.data(), mesh_.col, mod(j_ - i_ - offset), l0);
    if (st == RELAY_SUCCESS) st = skew(d.data(), b.data(), mesh_.row, mod(i_ - j_ - offset), l0);
    if (st == RELAY_SUCCESS && steps > 1) std::copy(a.begin(), a.end(), a0.begin());
    stats_.distribute_s = MPI_Wtime() - t;
    if (st != RELAY_SUCCESS) return st;

    // Step 2: C = sum over this layer's l of D(i, l) D(l, j).
    const double comm0 = stats_.compute_s;
    t = MPI_Wtime();
    st = cannon(a, b, a_next, b_next, c, steps, l0);
    // Step 3: D^2(i, j) on every layer, the next B.
    if (st == RELAY_SUCCESS) {
      st = phase(
          [&](InFlight& f, int part, int first, int n) {
            return f.add(iallreduce(c.data() + first, square.data() + first, n, type(), fiber(part),
                                    call_.allreduce));
          },
          [&] {
            return relay_allreduce(c.data(), square.data(), count_, type(), MPI_SUM, mesh_.fiber,
                                   call_.allreduce);
          });
    }
    stats_.square_s = MPI_Wtime() - t - (stats_.compute_s - comm0);
    if (st != RELAY_SUCCESS) return st;

    // Step 4: C = sum over this layer's l of D(i, l) D^2(l, j), from the same skew of A.
    const double comm1 = stats_.compute_s;
    t = MPI_Wtime();
    if (steps > 1) std::copy(a0.begin(), a0.end(), a.begin());
    // (steps == 1: A was not shifted and still holds the skewed D.)
    st = skew(square.data(), b.data(), mesh_.row, mod(i_ - j_ - offset), l0);
    if (st == RELAY_SUCCESS) st = cannon(a, b, a_next, b_next, c, steps, l0);
    // Step 5: D^3(i, j) on the k = 0 plane.
    if (st == RELAY_SUCCESS) {
      st = phase(
          [&](InFlight& f, int part, int first, int n) {
            return f.add(ireduce(c.data() + first, k_ == 0 ? cube.data() + first : nullptr, n,
                                 type(), 0, fiber(part), call_.reduce));
          },
          [&] {
            return relay_reduce(c.data(), k_ == 0 ? cube.data() : nullptr, count_, type(), MPI_SUM,
                                0, mesh_.fiber, call_.reduce);
          });
    }
    stats_.cube_s = MPI_Wtime() - t - (stats_.compute_s - comm1);
    if (st != RELAY_SUCCESS) return st;

    deliver(square.data(), cube.data());
    return RELAY_SUCCESS;
  }

  // D^2 and D^3 into the caller's blocks on the plane k = 0.
  void deliver(const T* square, const T* cube) {
    const double t = MPI_Wtime();
    if (k_ == 0) {
      unpack(square, static_cast<T*>(call_.d2), call_.ldd2);
      unpack(cube, static_cast<T*>(call_.d3), call_.ldd3);
    }
    stats_.compute_s += MPI_Wtime() - t;
  }

  // This process's block `from` goes to rank `to` of comm; block `from_rank` arrives in `into`.
  relay_status_t skew(const T* from, T* into, MPI_Comm comm, int to, int from_rank) {
    if (MPI_Sendrecv(from, count_, type(), to, kSkewTag, into, count_, type(), from_rank, kSkewTag,
                     comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      return core::fail(RELAY_ERR_MPI, "relay_symm_square_cube: MPI_Sendrecv of the skew failed");
    }
    return RELAY_SUCCESS;
  }

  // `steps` Cannon steps: c = sum over t of a b, with l = l0 + t; between steps A moves one
  // process left in the mesh column and B one up in the mesh row, while the step multiplies.
  relay_status_t cannon(exec::DataVector<T>& a, exec::DataVector<T>& b, exec::DataVector<T>& a_next,
                        exec::DataVector<T>& b_next, exec::DataVector<T>& c, int steps, int l0) {
    const int q = p_;
    for (int t = 0; t < steps; ++t) {
      const int l = (l0 + t) % q;
      InFlight shift;
      relay_status_t st = RELAY_SUCCESS;
      const bool more = t + 1 < steps;
      if (more) {
        st = shift.add(irecv(a_next.data(), count_, type(), (j_ + 1) % q, kShiftTag, mesh_.col));
        if (st == RELAY_SUCCESS) {
          st = shift.add(irecv(b_next.data(), count_, type(), (i_ + 1) % q, kShiftTag, mesh_.row));
        }
        if (st == RELAY_SUCCESS) {
          st = shift.add(isend(a.data(), count_, type(), (j_ + q - 1) % q, kShiftTag, mesh_.col));
        }
        if (st == RELAY_SUCCESS) {
          st = shift.add(isend(b.data(), count_, type(), (i_ + q - 1) % q, kShiftTag, mesh_.row));
        }
      }
      if (st == RELAY_SUCCESS) {
        multiply_block(a.data(), b.data(), c.data(), block(l), t == 0, more ? &shift : nullptr);
      }
      const relay_status_t w = shift.wait();  // always: no request outlives the call
      if (st == RELAY_SUCCESS) st = w;
      if (st != RELAY_SUCCESS) {
        return core::fail(st, "relay_symm_square_cube: a Cannon shift failed: {}",
                          std::string(relay_last_error()));
      }
      if (more) {
        std::swap(a, a_next);
        std::swap(b, b_next);
      }
    }
    return RELAY_SUCCESS;
  }

  // c (+)= a b: a is block (i, l), b block (l, j) of inner size `inner`; `first` overwrites c.
  void multiply_block(const T* a, const T* b, T* c, std::int64_t inner, bool first,
                      InFlight* during) {
    const std::int64_t m = block(i_), n = block(j_);
    const int pieces = during != nullptr ? kPieces : 1;
    for (int piece = 0; piece < pieces; ++piece) {
      const std::int64_t j0 = n * piece / pieces, j1 = n * (piece + 1) / pieces;
      const double t = MPI_Wtime();
      if (charged_) {
        if (m > 0 && j1 > j0 && inner > 0) {
          exec::charge_flops(2.0 * static_cast<double>(m) * static_cast<double>(j1 - j0) *
                             static_cast<double>(inner));
        }
      } else if (m > 0 && j1 > j0) {
        const int ld = static_cast<int>(side_);
        if (inner > 0) {
          Blas<T>::gemm(CblasNoTrans, static_cast<int>(m), static_cast<int>(j1 - j0),
                        static_cast<int>(inner), a, ld, b + j0 * side_, ld, c + j0 * side_, ld,
                        first ? T(0) : T(1));
        } else if (first) {  // an empty block (n < q): nothing to add, but c starts at zero
          for (std::int64_t col = j0; col < j1; ++col) {
            std::fill(c + col * side_, c + col * side_ + m, T(0));
          }
        }
      }
      stats_.compute_s += MPI_Wtime() - t;
      if (during != nullptr) during->progress();
    }
  }

  // c = a op(b): a is block (i, j), op(b) block (j, k); all with leading dimension side_.
  // With `during`, the multiplication is cut into column pieces and its operations advance
  // between them (MPI moves a message only inside MPI calls on most transports).
  void multiply(const T* a, const T* b, CBLAS_TRANSPOSE tb, T* c, InFlight* during = nullptr) {
    const std::int64_t m = block(i_), n = block(k_), k = block(j_);
    const int pieces = during != nullptr ? kPieces : 1;
    for (int piece = 0; piece < pieces; ++piece) {
      const std::int64_t j0 = n * piece / pieces, j1 = n * (piece + 1) / pieces;
      const double t = MPI_Wtime();
      if (m > 0 && j1 > j0 && k > 0) {
        if (charged_) {
          exec::charge_flops(2.0 * static_cast<double>(m) * static_cast<double>(j1 - j0) *
                             static_cast<double>(k));
        } else {
          const int ld = static_cast<int>(side_);
          // Columns j0.. of op(b): columns of b, or rows of b when it is transposed.
          const T* b_piece = tb == CblasNoTrans ? b + j0 * side_ : b + j0;
          Blas<T>::gemm(tb, static_cast<int>(m), static_cast<int>(j1 - j0), static_cast<int>(k), a,
                        ld, b_piece, ld, c + j0 * side_, ld);
        }
      }
      stats_.compute_s += MPI_Wtime() - t;
      if (during != nullptr) during->progress();
    }
  }

  // Block (i, j) between the caller's layout (leading dimension ld) and a buffer (side_).
  void pack(const T* from, std::int64_t ld, T* to) const {
    if (charged_) return;  // values nobody reads (exec/compute.hpp)
    const std::int64_t m = block(i_), n = block(j_);
    for (std::int64_t col = 0; col < n; ++col) {
      std::copy(from + col * ld, from + col * ld + m, to + col * side_);
    }
  }
  void unpack(const T* from, T* to, std::int64_t ld) const {
    if (charged_) return;
    const std::int64_t m = block(i_), n = block(j_);
    for (std::int64_t col = 0; col < n; ++col) {
      std::copy(from + col * side_, from + col * side_ + m, to + col * ld);
    }
  }

  // Pieces of a multiplication that communication progresses between (as SUMMA's default).
  static constexpr int kPieces = 8;
  // Tags of Algorithm 6's point-to-point messages (on the mesh's own row and column
  // communicators, where no other message of relay's travels with a tag).
  static constexpr int kSkewTag = 61, kShiftTag = 62;

  const Call& call_;
  const relay_mesh& mesh_;
  relay_symm_stats_t& stats_;
  int p_, i_, j_, k_;
  std::int64_t side_;
  int count_;
  int layers_;
  int n_dup_;
  bool charged_;
};

// A fixed pseudo-random weight in [0.5, 1.5) for global index g (the same on every process).
double weight(std::int64_t g) {
  std::uint64_t x = static_cast<std::uint64_t>(g) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return 0.5 + static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
}

// On P(i, j, 0): u = D(i, j) x_j and w = D(i, j)^T x_i (x the weights of the global indices),
// each with the rounding bound sum |D| |x| * the inner dimension * eps.
template <class T>
void projections(const Call& call, std::vector<double>& u, std::vector<double>& u_bound,
                 std::vector<double>& w, std::vector<double>& w_bound) {
  const relay_mesh& m = *call.mesh;
  const BlockRange r = block_range(call.n, m.p, m.i), c = block_range(call.n, m.p, m.j);
  const T* d = static_cast<const T*>(call.d);
  u.assign(static_cast<std::size_t>(r.size), 0.0);
  u_bound.assign(u.size(), 0.0);
  w.assign(static_cast<std::size_t>(c.size), 0.0);
  w_bound.assign(w.size(), 0.0);
  for (std::int64_t col = 0; col < c.size; ++col) {
    const double xc = weight(c.first + col);
    for (std::int64_t row = 0; row < r.size; ++row) {
      const double v = static_cast<double>(d[col * call.ldd + row]);
      const double xr = weight(r.first + row);
      u[static_cast<std::size_t>(row)] += v * xc;
      u_bound[static_cast<std::size_t>(row)] += std::fabs(v) * xc;
      w[static_cast<std::size_t>(col)] += v * xr;
      w_bound[static_cast<std::size_t>(col)] += std::fabs(v) * xr;
    }
  }
}

}  // namespace

relay_status_t symmetry_error(const Call& call, double* ratio, int* where_i, int* where_j,
                              std::string& error) {
  const relay_mesh& m = *call.mesh;
  // (ratio, where) of the worst block pair seen by this process, as MPI_DOUBLE_INT.
  struct {
    double ratio;
    int where;
  } mine{0.0, 0}, worst{0.0, 0};
  if (m.k == 0 && !exec::compute_is_charged()) {
    std::vector<double> u, u_bound, w, w_bound;
    if (call.single) {
      projections<float>(call, u, u_bound, w, w_bound);
    } else {
      projections<double>(call, u, u_bound, w, w_bound);
    }
    // P(j, i, 0) holds D(j, i): its w is D(j, i)^T x_j, which symmetry makes this u.
    std::vector<double> theirs(u.size() * 2);
    std::vector<double> sent(w.size() * 2);
    std::copy(w.begin(), w.end(), sent.begin());
    std::copy(w_bound.begin(), w_bound.end(), sent.begin() + static_cast<std::ptrdiff_t>(w.size()));
    const int partner = mesh_rank(m.p, m.j, m.i, 0);
    if (MPI_Sendrecv(sent.data(), static_cast<int>(sent.size()), MPI_DOUBLE, partner, 0,
                     theirs.data(), static_cast<int>(theirs.size()), MPI_DOUBLE, partner, 0, m.comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      error = "MPI_Sendrecv of the symmetry check failed";
      return RELAY_ERR_MPI;
    }
    const double eps = call.single ? std::numeric_limits<float>::epsilon()
                                   : std::numeric_limits<double>::epsilon();
    const double inner =
        static_cast<double>(std::max<std::int64_t>(1, block_range(call.n, m.p, m.j).size));
    for (std::size_t r = 0; r < u.size(); ++r) {
      const double bound = 4.0 * inner * eps * (u_bound[r] + theirs[u.size() + r]) +
                           std::numeric_limits<double>::min();
      mine.ratio = std::max(mine.ratio, std::fabs(u[r] - theirs[r]) / bound);
    }
    mine.where = m.i + m.p * m.j;
  }
  if (MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, m.comm) != MPI_SUCCESS) {
    error = "MPI_Allreduce of the symmetry check failed";
    return RELAY_ERR_MPI;
  }
  *ratio = worst.ratio;
  *where_i = worst.where % m.p;
  *where_j = worst.where / m.p;
  return RELAY_SUCCESS;
}

relay_status_t square_cube(const Call& call, relay_symm_stats_t& stats, std::string& error) {
  if (call.single) return Runner<float>(call, stats).run(error);
  return Runner<double>(call, stats).run(error);
}

}  // namespace relay::symm
