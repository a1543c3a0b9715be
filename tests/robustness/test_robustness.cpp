// The robustness suite: every public entry point x a catalogue of bad inputs, each expected to
// end in a clear error on the ranks that must see it -- never a hang (ctest's timeout turns one
// into a failure, and the case in progress is printed before it runs), a crash or a success
// over wrong data. Four kinds of input:
//   same      the same bad argument on every rank: the same error everywhere, default check;
//   differs   arguments valid on each rank but different between them: an error everywhere
//             with RELAY_CHECK_COLLECTIVE (the GEMM always agrees on its arguments);
//   by rank   the same argument on every rank, valid on some ranks only (MPI_IN_PLACE where
//             only the root may pass it; a recvbuf only the root reads): an error everywhere
//             with RELAY_CHECK_COLLECTIVE;
//   setting   a RELAY_* variable or a tuning table that differs between ranks: an error
//             everywhere, default check (the first call on a communicator compares them);
//   schedule  per-call options that make ranks run different schedules, default check: the
//             ranks that receive a short message report it (docs/robustness.md says why the
//             others cannot know without RELAY_CHECK_COLLECTIVE).
// Without RELAY_CHECK_COLLECTIVE, "differs" and "by rank" inputs may hang: that is the documented
// limitation (docs/robustness.md), so they are run with the collective check only.
// At the end rank 0 prints the table of every case (entry point, input, kind, expected,
// observed), and writes it as Markdown to $RELAY_ROBUSTNESS_TABLE when that is set;
// RELAY_ROBUSTNESS_CASE=text runs only the cases whose entry point or input contains text.
#include <gtest/gtest.h>
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "relay/gemm.h"
#include "relay/overlap.h"
#include "relay/relay.h"

namespace {

using relay::test::world_rank;
using relay::test::world_size;

// What a case runs with: a fresh duplicate of MPI_COMM_WORLD (so "setting" cases meet relay's
// first-call check, and nothing a failed case left behind meets the next one).
struct Ctx {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::vector<double> send, recv;  // generously sized buffers
  std::vector<int> counts, displs;
};

// Which ranks must report an error.
enum class Where { every_rank, ranks_that_receive };

struct Case {
  const char* entry;
  const char* input;
  const char* kind;  // same, differs, by rank, setting, schedule
  relay_status_t expected;
  Where where;
  int min_ranks;  // the case needs at least this many ranks (a root-only input needs 2)
  std::function<relay_status_t(Ctx&)> run;
};

struct Row {
  std::string entry, input, kind, expected, observed;
  bool pass;
};

relay_bcast_options_t bopt(relay_bcast_algorithm_t a = RELAY_BCAST_BINOMIAL,
                           relay_check_t check = RELAY_CHECK_DEFAULT) {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  o.algorithm = a;
  o.check = check;
  return o;
}

relay_coll_options_t copt(int algorithm = 0, relay_check_t check = RELAY_CHECK_DEFAULT) {
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  o.algorithm = algorithm;
  o.check = check;
  return o;
}

// Stores a raw int into an enum field, as a C caller can (C++ may not convert it directly).
template <class Enum>
void set_raw(Enum& field, int value) {
  static_assert(sizeof(Enum) == sizeof(int), "relay's enums are int-sized");
  std::memcpy(&field, &value, sizeof value);
}

constexpr int kCount = 64;

std::string status_name(relay_status_t s) {
  return s == RELAY_SUCCESS ? "success" : relay_status_string(s);
}  // elements per block of every case
constexpr relay_check_t kColl = RELAY_CHECK_COLLECTIVE;

relay_status_t ibcast_wait(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm,
                           const relay_bcast_options_t* o) {
  relay_request_t r = RELAY_REQUEST_NULL;
  const relay_status_t st = relay_ibcast(buf, count, t, root, comm, o, &r);
  if (st != RELAY_SUCCESS) return st;
  return relay_wait(&r);
}

// A tuning table file whose one bcast rule picks `algorithm` for every size.
std::string table_file(const char* algorithm) {
  const std::string path = std::string("/tmp/relay_robustness_") + algorithm + "_" +
                           std::to_string(world_rank()) + ".json";
  std::ofstream f(path);
  f << R"({"schema": "relay.tuning/1", "rules": [{"operation": "bcast", "comm_size": [1, 4096],)"
    << R"( "bytes": [0, 1073741824], "algorithm": ")" << algorithm
    << R"(", "policy": "nonblocking", "segment_bytes": 0, "fanout": 0}]})";
  return path;
}

// The GEMM's cases share a 1 x P grid over the case's communicator and n x n matrices with
// 4 x 4 blocks; `change` edits this rank's arguments before the call.
struct GemmArgs {
  char transa = 'N', transb = 'N';
  long long n = 16;
  MPI_Datatype type = MPI_DOUBLE;
  relay_matrix_desc_t desc{16, 16, 4, 4, 0, 0, 0, 0, 16};
  bool null_a = false;
};

relay_status_t gemm(Ctx& c, const std::function<void(GemmArgs&)>& change) {
  relay_grid_t grid = RELAY_GRID_NULL;
  if (auto st = relay_grid_create(c.comm, 1, c.size, 'R', &grid); st != RELAY_SUCCESS) return st;
  GemmArgs g;
  change(g);
  const double alpha = 1, beta = 0;
  std::vector<double> a(16 * 16, 1.0), b(16 * 16, 1.0), cm(16 * 16, 0.0);
  relay_matrix_desc_t desca = g.desc, descb = g.desc, descc = g.desc;
  int info = 0;
  const relay_status_t st =
      relay_gemm(g.transa, g.transb, g.n, g.n, g.n, g.type, &alpha, g.null_a ? nullptr : a.data(),
                 0, 0, &desca, b.data(), 0, 0, &descb, &beta, cm.data(), 0, 0, &descc, grid,
                 nullptr, &info, nullptr);
  relay_grid_free(&grid);
  return st;
}

std::vector<Case> catalogue() {
  std::vector<Case> cases;
  auto add = [&](const char* entry, const char* input, const char* kind, relay_status_t expected,
                 std::function<relay_status_t(Ctx&)> run, int min_ranks = 1,
                 Where where = Where::every_rank) {
    cases.push_back({entry, input, kind, expected, where, min_ranks, std::move(run)});
  };

  // --- broadcast (blocking and nonblocking take the same checks; both are run) ---
  for (const bool nonblocking : {false, true}) {
    const char* entry = nonblocking ? "relay_ibcast" : "relay_bcast";
    auto bc = [nonblocking](void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm,
                            const relay_bcast_options_t* o) {
      return nonblocking ? ibcast_wait(buf, count, t, root, comm, o)
                         : relay_bcast(buf, count, t, root, comm, o);
    };
    add(entry, "count = -1", "same", RELAY_ERR_COUNT, [bc](Ctx& c) {
      auto o = bopt();
      return bc(c.recv.data(), -1, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "buffer = NULL, count > 0", "same", RELAY_ERR_BUFFER, [bc](Ctx& c) {
      auto o = bopt();
      return bc(nullptr, kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "buffer = MPI_IN_PLACE", "same", RELAY_ERR_BUFFER, [bc](Ctx& c) {
      auto o = bopt();
      return bc(MPI_IN_PLACE, kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "datatype = MPI_DATATYPE_NULL", "same", RELAY_ERR_DATATYPE, [bc](Ctx& c) {
      auto o = bopt();
      return bc(c.recv.data(), kCount, MPI_DATATYPE_NULL, 0, c.comm, &o);
    });
    add(entry, "root = size", "same", RELAY_ERR_ROOT, [bc](Ctx& c) {
      auto o = bopt();
      return bc(c.recv.data(), kCount, MPI_DOUBLE, c.size, c.comm, &o);
    });
    add(entry, "root = -1", "same", RELAY_ERR_ROOT, [bc](Ctx& c) {
      auto o = bopt();
      return bc(c.recv.data(), kCount, MPI_DOUBLE, -1, c.comm, &o);
    });
    add(entry, "comm = MPI_COMM_NULL", "same", RELAY_ERR_COMM, [bc](Ctx& c) {
      auto o = bopt();
      return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, MPI_COMM_NULL, &o);
    });
    add(entry, "algorithm = 99", "same", RELAY_ERR_ALGORITHM, [bc](Ctx& c) {
      auto o = bopt();
      set_raw(o.algorithm, 99);
      return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "policy = 7", "same", RELAY_ERR_POLICY, [bc](Ctx& c) {
      auto o = bopt();
      set_raw(o.policy, 7);
      return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "segment_bytes = 3 (not whole doubles)", "same", RELAY_ERR_SEGMENT, [bc](Ctx& c) {
      auto o = bopt(RELAY_BCAST_PIPELINE);
      o.segment_bytes = 3;
      return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "fanout = INT_MAX", "same", RELAY_ERR_FANOUT, [bc](Ctx& c) {
      auto o = bopt(RELAY_BCAST_KARY);
      o.fanout = INT_MAX;
      return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(entry, "max_requests = -1", "same", RELAY_ERR_WINDOW, [bc](Ctx& c) {
      auto o = bopt();
      o.max_requests = -1;
      return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
    });
    add(
        entry, "count differs between ranks", "differs", RELAY_ERR_MISMATCH,
        [bc](Ctx& c) {
          auto o = bopt(RELAY_BCAST_BINOMIAL, kColl);
          return bc(c.recv.data(), kCount + c.rank, MPI_DOUBLE, 0, c.comm, &o);
        },
        2);
    add(
        entry, "root differs between ranks", "differs", RELAY_ERR_MISMATCH,
        [bc](Ctx& c) {
          auto o = bopt(RELAY_BCAST_BINOMIAL, kColl);
          return bc(c.recv.data(), kCount, MPI_DOUBLE, c.rank == 0 ? 0 : 1, c.comm, &o);
        },
        2);
    add(
        entry, "segment_bytes differs between ranks", "differs", RELAY_ERR_MISMATCH,
        [bc](Ctx& c) {
          auto o = bopt(RELAY_BCAST_PIPELINE, kColl);
          o.segment_bytes = c.rank == 0 ? 64 : 128;
          return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
        },
        2);
    add(
        entry, "algorithm differs between ranks", "differs", RELAY_ERR_MISMATCH,
        [bc](Ctx& c) {
          auto o = bopt(c.rank == 0 ? RELAY_BCAST_BINOMIAL : RELAY_BCAST_CHAIN, kColl);
          return bc(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
        },
        2);
  }
  // Per-call options that differ, default check: rank 1 posts 128-byte receives, the root
  // sends 64-byte segments (all eager, so the root completes); rank 1 sees short receives.
  // Blocking and nonblocking policies, and a relay_ibcast completed by relay_test.
  for (const int mode : {0, 1, 2}) {
    static const char* const kInputs[3] = {
        "segment_bytes differs, 2 ranks, default check",
        "segment_bytes differs, 2 ranks, blocking policy",
        "segment_bytes differs, 2 ranks, relay_ibcast + relay_test"};
    add(
        "relay_bcast", kInputs[mode], "schedule", RELAY_ERR_MISMATCH,
        [mode](Ctx& c) {
          MPI_Comm pair = MPI_COMM_NULL;
          MPI_Comm_split(c.comm, c.rank < 2 ? 0 : MPI_UNDEFINED, c.rank, &pair);
          if (pair == MPI_COMM_NULL) return RELAY_SUCCESS;  // not in the pair: nothing to see
          auto o = bopt(RELAY_BCAST_PIPELINE);
          o.segment_bytes = c.rank == 0 ? 64 : 128;
          if (mode == 1) o.policy = RELAY_POLICY_BLOCKING;
          relay_status_t st = RELAY_SUCCESS;
          if (mode < 2) {
            st = relay_bcast(c.recv.data(), 32, MPI_DOUBLE, 0, pair, &o);
          } else {
            relay_request_t r = RELAY_REQUEST_NULL;
            st = relay_ibcast(c.recv.data(), 32, MPI_DOUBLE, 0, pair, &o, &r);
            int done = 0;
            while (st == RELAY_SUCCESS && !done) st = relay_test(&r, &done);
            if (r != RELAY_REQUEST_NULL) st = RELAY_ERR_INTERNAL;  // a spent request must be freed
          }
          MPI_Comm_free(&pair);
          return st;
        },
        2, Where::ranks_that_receive);
  }
  add("relay_bcast", "segment_bytes = 1 for 8 MiB (8 Mi segments)", "same", RELAY_ERR_SEGMENT,
      [](Ctx& c) {
        auto o = bopt(RELAY_BCAST_PIPELINE);
        o.segment_bytes = 1;  // refused before any byte of the (small) buffer is touched
        return relay_bcast(c.recv.data(), 8 << 20, MPI_BYTE, 0, c.comm, &o);
      });
  add("relay_allreduce", "segment_bytes = 8 for 8 MiB", "same", RELAY_ERR_SEGMENT, [](Ctx& c) {
    auto o = copt();
    o.segment_bytes = 8;
    return relay_allreduce(c.send.data(), c.recv.data(), 1 << 20, MPI_DOUBLE, MPI_SUM, c.comm, &o);
  });
  add(
      "relay_bcast", "RELAY_BCAST_SEGMENT_BYTES set on rank 1 only", "setting", RELAY_ERR_MISMATCH,
      [](Ctx& c) {
        if (c.rank == 1) setenv("RELAY_BCAST_SEGMENT_BYTES", "128", 1);
        auto o = bopt(RELAY_BCAST_PIPELINE);
        const relay_status_t st = relay_bcast(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
        unsetenv("RELAY_BCAST_SEGMENT_BYTES");
        return st;
      },
      2);
  add(
      "relay_bcast", "a different tuning table on rank 0", "setting", RELAY_ERR_MISMATCH,
      [](Ctx& c) {
        const std::string path = table_file(c.rank == 0 ? "binomial" : "pipeline");
        if (relay_tuning_load(path.c_str()) != RELAY_SUCCESS) return RELAY_ERR_INTERNAL;
        auto o = bopt(RELAY_BCAST_AUTO);
        const relay_status_t st = relay_bcast(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
        relay_tuning_load(nullptr);
        std::remove(path.c_str());
        return st;
      },
      2);
  add("relay_tuning_load", "a file that does not exist", "same", RELAY_ERR_TUNING,
      [](Ctx&) { return relay_tuning_load("/nonexistent/relay-table.json"); });
  add("relay_tuning_load", "a directory", "same", RELAY_ERR_TUNING,
      [](Ctx&) { return relay_tuning_load("/tmp"); });

  // --- reductions and gathers ---
  add("relay_reduce", "sendbuf = NULL, count > 0", "same", RELAY_ERR_BUFFER, [](Ctx& c) {
    auto o = copt();
    return relay_reduce(nullptr, c.recv.data(), kCount, MPI_DOUBLE, MPI_SUM, 0, c.comm, &o);
  });
  // recvbuf is significant only at the root (MPI's rule), so only the root can object.
  add("relay_reduce", "recvbuf = MPI_IN_PLACE on every rank", "by rank", RELAY_ERR_BUFFER,
      [](Ctx& c) {
        auto o = copt(0, kColl);
        return relay_reduce(c.send.data(), MPI_IN_PLACE, kCount, MPI_DOUBLE, MPI_SUM, 0, c.comm,
                            &o);
      });
  add("relay_reduce", "op = MPI_OP_NULL", "same", RELAY_ERR_OP, [](Ctx& c) {
    auto o = copt();
    return relay_reduce(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_OP_NULL, 0, c.comm,
                        &o);
  });
  add("relay_reduce", "root = size", "same", RELAY_ERR_ROOT, [](Ctx& c) {
    auto o = copt();
    return relay_reduce(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_SUM, c.size, c.comm,
                        &o);
  });
  add("relay_reduce", "algorithm = 99", "same", RELAY_ERR_ALGORITHM, [](Ctx& c) {
    auto o = copt(99);
    return relay_reduce(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_SUM, 0, c.comm, &o);
  });
  add(
      "relay_reduce", "sendbuf = MPI_IN_PLACE on every rank", "by rank", RELAY_ERR_BUFFER,
      [](Ctx& c) {
        auto o = copt(0, kColl);
        return relay_reduce(MPI_IN_PLACE, c.recv.data(), kCount, MPI_DOUBLE, MPI_SUM, 0, c.comm,
                            &o);
      },
      2);
  add(
      "relay_reduce", "root differs between ranks", "differs", RELAY_ERR_MISMATCH,
      [](Ctx& c) {
        auto o = copt(0, kColl);
        return relay_reduce(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_SUM,
                            c.rank == 0 ? 0 : 1, c.comm, &o);
      },
      2);
  add("relay_allreduce", "count = -1", "same", RELAY_ERR_COUNT, [](Ctx& c) {
    auto o = copt();
    return relay_allreduce(c.send.data(), c.recv.data(), -1, MPI_DOUBLE, MPI_SUM, c.comm, &o);
  });
  add("relay_allreduce", "recvbuf = NULL, count > 0", "same", RELAY_ERR_BUFFER, [](Ctx& c) {
    auto o = copt();
    return relay_allreduce(c.send.data(), nullptr, kCount, MPI_DOUBLE, MPI_SUM, c.comm, &o);
  });
  add(
      "relay_allreduce", "count differs between ranks", "differs", RELAY_ERR_MISMATCH,
      [](Ctx& c) {
        auto o = copt(0, kColl);
        return relay_allreduce(c.send.data(), c.recv.data(), kCount + c.rank, MPI_DOUBLE, MPI_SUM,
                               c.comm, &o);
      },
      2);
  add("relay_allgather", "comm = MPI_COMM_NULL", "same", RELAY_ERR_COMM, [](Ctx& c) {
    auto o = copt();
    return relay_allgather(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_COMM_NULL, &o);
  });
  add("relay_allgather", "datatype = MPI_DATATYPE_NULL", "same", RELAY_ERR_DATATYPE, [](Ctx& c) {
    auto o = copt();
    return relay_allgather(c.send.data(), c.recv.data(), kCount, MPI_DATATYPE_NULL, c.comm, &o);
  });
  add("relay_allgatherv", "a negative count in recvcounts", "same", RELAY_ERR_COUNT, [](Ctx& c) {
    auto o = copt();
    std::vector<int> counts(c.counts);
    counts.back() = -1;
    return relay_allgatherv(c.send.data(), kCount, MPI_DOUBLE, c.recv.data(), counts.data(),
                            c.displs.data(), MPI_DOUBLE, c.comm, &o);
  });
  add("relay_allgatherv", "recvcounts = NULL", "same", RELAY_ERR_COUNT, [](Ctx& c) {
    auto o = copt();
    return relay_allgatherv(c.send.data(), kCount, MPI_DOUBLE, c.recv.data(), nullptr,
                            c.displs.data(), MPI_DOUBLE, c.comm, &o);
  });
  add("relay_reduce_scatter_block", "op = MPI_OP_NULL", "same", RELAY_ERR_OP, [](Ctx& c) {
    auto o = copt();
    return relay_reduce_scatter_block(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_OP_NULL,
                                      c.comm, &o);
  });
  add("relay_gather", "root = -1", "same", RELAY_ERR_ROOT, [](Ctx& c) {
    auto o = copt();
    return relay_gather(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, -1, c.comm, &o);
  });
  add(
      "relay_gather", "sendbuf = MPI_IN_PLACE on every rank", "by rank", RELAY_ERR_BUFFER,
      [](Ctx& c) {
        auto o = copt(0, kColl);
        return relay_gather(MPI_IN_PLACE, c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
      },
      2);
  add(
      "relay_scatter", "recvbuf = MPI_IN_PLACE on every rank", "by rank", RELAY_ERR_BUFFER,
      [](Ctx& c) {
        auto o = copt(0, kColl);
        return relay_scatter(c.send.data(), MPI_IN_PLACE, kCount, MPI_DOUBLE, 0, c.comm, &o);
      },
      2);
  add("relay_scatter", "segment_bytes = 3", "same", RELAY_ERR_SEGMENT, [](Ctx& c) {
    auto o = copt();
    o.segment_bytes = 3;
    return relay_scatter(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, &o);
  });
  add("relay_alltoall", "sendbuf = NULL, count > 0", "same", RELAY_ERR_BUFFER, [](Ctx& c) {
    auto o = copt();
    return relay_alltoall(nullptr, c.recv.data(), kCount, MPI_DOUBLE, c.comm, &o);
  });
  add("relay_barrier", "comm = MPI_COMM_NULL", "same", RELAY_ERR_COMM, [](Ctx&) {
    auto o = copt();
    return relay_barrier(MPI_COMM_NULL, &o);
  });
  add("relay_barrier", "check = 9", "same", RELAY_ERR_OPTIONS, [](Ctx& c) {
    auto o = copt();
    set_raw(o.check, 9);
    return relay_barrier(c.comm, &o);
  });

  // --- overlap (huang2018's N_DUP) ---
  add("relay_overlap_bcast", "n_dup = 0", "same", RELAY_ERR_NDUP, [](Ctx& c) {
    return relay_overlap_bcast(c.recv.data(), kCount, MPI_DOUBLE, 0, c.comm, 0, nullptr, nullptr);
  });
  add("relay_overlap_reduce", "count = -1", "same", RELAY_ERR_COUNT, [](Ctx& c) {
    return relay_overlap_reduce(c.send.data(), c.recv.data(), -1, MPI_DOUBLE, MPI_SUM, 0, c.comm, 2,
                                nullptr, nullptr);
  });
  add("relay_overlap_allreduce", "op = MPI_OP_NULL", "same", RELAY_ERR_OP, [](Ctx& c) {
    return relay_overlap_allreduce(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_OP_NULL,
                                   c.comm, 2, nullptr, nullptr);
  });
  add(
      "relay_overlap_reduce_bcast", "reduce_root differs between ranks", "differs",
      RELAY_ERR_MISMATCH,
      [](Ctx& c) {
        auto co = copt(0, kColl);
        auto bo = bopt(RELAY_BCAST_AUTO, kColl);
        return relay_overlap_reduce_bcast(c.send.data(), c.recv.data(), kCount, MPI_DOUBLE, MPI_SUM,
                                          c.rank == 0 ? 0 : 1, c.comm, 0, c.comm, 2, &co, &bo,
                                          nullptr);
      },
      2);

  // --- GEMM (always agrees on its arguments: no collective check needed) ---
  add("relay_gemm", "transa = 'X'", "same", RELAY_ERR_ARGUMENT,
      [](Ctx& c) { return gemm(c, [](GemmArgs& g) { g.transa = 'X'; }); });
  add("relay_gemm", "datatype = MPI_INT", "same", RELAY_ERR_DATATYPE,
      [](Ctx& c) { return gemm(c, [](GemmArgs& g) { g.type = MPI_INT; }); });
  add("relay_gemm", "a = NULL", "same", RELAY_ERR_BUFFER,
      [](Ctx& c) { return gemm(c, [](GemmArgs& g) { g.null_a = true; }); });
  add(
      "relay_gemm", "transa differs between ranks", "differs", RELAY_ERR_MISMATCH,
      [](Ctx& c) { return gemm(c, [&](GemmArgs& g) { g.transa = c.rank == 0 ? 'N' : 'T'; }); }, 2);
  add(
      "relay_gemm", "descriptor's MB differs between ranks", "differs", RELAY_ERR_MISMATCH,
      [](Ctx& c) { return gemm(c, [&](GemmArgs& g) { g.desc.mb = c.rank == 0 ? 4 : 8; }); }, 2);
  add("relay_gemm", "grid = NULL", "same", RELAY_ERR_COMM, [](Ctx&) {
    const double one = 1;
    double x = 0;
    relay_matrix_desc_t d{1, 1, 1, 1, 0, 0, 0, 0, 1};
    return relay_gemm('N', 'N', 1, 1, 1, MPI_DOUBLE, &one, &x, 0, 0, &d, &x, 0, 0, &d, &one, &x, 0,
                      0, &d, RELAY_GRID_NULL, nullptr, nullptr, nullptr);
  });
  return cases;
}

bool pacing_variables_set() {
  for (const char* name : {"RELAY_IDLE_SLEEP_US", "RELAY_PEER_BYTES_IN_FLIGHT"}) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return true;
  }
  return false;
}

// Run by ctest with a garbage RELAY_IDLE_SLEEP_US or RELAY_PEER_BYTES_IN_FLIGHT (they used to
// be ignored): every call that runs a schedule fails on every rank, naming the variable.
TEST(Robustness, GarbagePacingVariablesFailEveryRank) {
  if (!pacing_variables_set()) GTEST_SKIP() << "run by ctest with a pacing variable set";
  std::vector<double> v(kCount, 1.0);
  const auto o = bopt(RELAY_BCAST_PIPELINE);
  const relay_status_t st = relay_bcast(v.data(), kCount, MPI_DOUBLE, 0, MPI_COMM_WORLD, &o);
  const std::string message = relay_last_error();
  EXPECT_TRUE(relay::test::all_ranks(st == RELAY_ERR_OPTIONS))
      << status_name(st) << ": " << message;
  EXPECT_NE(message.find("RELAY_"), std::string::npos) << message;
}

// A contiguous type of 2 GiB has no int size: it was refused as "not contiguous".
TEST(Robustness, ATwoGibContiguousTypeIsContiguous) {
  MPI_Datatype mib16 = MPI_DATATYPE_NULL, gib2 = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(1 << 21, MPI_DOUBLE, &mib16);
  MPI_Type_contiguous(128, mib16, &gib2);
  MPI_Type_commit(&gib2);
  auto o = bopt(RELAY_BCAST_PIPELINE);
  char text[256] = {};
  const relay_status_t st = relay_bcast_describe(1, gib2, 0, MPI_COMM_WORLD, &o, text, sizeof text);
  EXPECT_EQ(st, RELAY_SUCCESS) << relay_last_error();
  EXPECT_NE(std::string(text).find("algorithm=pipeline"), std::string::npos) << text;
  MPI_Type_free(&gib2);
  MPI_Type_free(&mib16);
}

TEST(Robustness, EveryEntryPointFailsCleanlyOnEveryBadInput) {
  if (pacing_variables_set()) GTEST_SKIP() << "every case would fail on the pacing variable";
  const int rank = world_rank(), size = world_size();
  std::vector<Row> rows;
  int failures = 0;
  // RELAY_ROBUSTNESS_CASE=text runs only the cases whose entry point or input contains it.
  const char* only = std::getenv("RELAY_ROBUSTNESS_CASE");
  for (const Case& k : catalogue()) {
    if (size < k.min_ranks) continue;
    if (only != nullptr && *only != '\0' && std::string(k.entry).find(only) == std::string::npos &&
        std::string(k.input).find(only) == std::string::npos) {
      continue;
    }
    if (rank == 0) {  // before the call: if it hangs, ctest's output shows which case it was
      std::fprintf(stderr, "robustness: %s, %s\n", k.entry, k.input);
      std::fflush(stderr);
    }
    Ctx c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c.comm);
    c.rank = rank;
    c.size = size;
    c.send.assign(static_cast<std::size_t>(kCount * size * 2), 1.0);
    c.recv.assign(static_cast<std::size_t>(kCount * size * 2), 0.0);
    c.counts.assign(static_cast<std::size_t>(size), kCount);
    for (int i = 0; i < size; ++i) c.displs.push_back(i * kCount);
    const relay_status_t st = k.run(c);
    MPI_Comm_free(&c.comm);
    // Gather every rank's outcome: how many met the expectation, how many succeeded.
    const bool must_fail = k.where == Where::every_rank || rank == 1;
    const int mine[2] = {must_fail && st != k.expected ? 1 : 0, st == RELAY_SUCCESS ? 1 : 0};
    int all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const int wrong = all[0], successes = all[1];
    const bool pass = wrong == 0;
    if (!pass) {
      ++failures;
      ADD_FAILURE() << "[rank " << rank << "] " << k.entry << ", " << k.input << ": expected "
                    << status_name(k.expected) << ", got " << status_name(st) << " ("
                    << relay_last_error() << ")";
    }
    const std::string where = k.where == Where::every_rank ? "every rank" : "the receiving rank";
    rows.push_back({k.entry, k.input, k.kind, status_name(k.expected) + " on " + where,
                    pass ? (successes == 0 ? "as expected, on " + std::to_string(size) + " ranks"
                                           : "as expected; " + std::to_string(successes) +
                                                 " rank(s) that received nothing short "
                                                 "succeeded")
                         : std::to_string(wrong) + " rank(s) differed: e.g. " + status_name(st),
                    pass});
  }
  if (rank == 0) {
    std::string table =
        "| entry point | input | kind | expected | observed |\n|---|---|---|---|---|\n";
    for (const Row& r : rows) {
      table += "| `" + r.entry + "` | " + r.input + " | " + r.kind + " | " + r.expected + " | " +
               (r.pass ? "" : "**FAIL** ") + r.observed + " |\n";
    }
    std::printf("%s%zu cases on %d ranks, %d failed\n", table.c_str(), rows.size(), size, failures);
    if (const char* path = std::getenv("RELAY_ROBUSTNESS_TABLE"); path != nullptr && *path) {
      std::ofstream(path) << table;
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
