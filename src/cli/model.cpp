// relay model measure: point-to-point parameters of this machine (ping-pong, os, or, g, L,
// eager/rendezvous switch, Hockney fit, link sharing), repeated until stable, as JSON.
// relay model predict: the replay's time for broadcast configurations, from such a file.
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <new>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "measure/timing.hpp"
#include "coll/bcast/bcast.hpp"
#include "coll/options.hpp"
#include "coll/reduction/reduction.hpp"
#include "core/units.hpp"
#include "measure/stats.hpp"
#include "model/params.hpp"
#include "model/replay.hpp"

namespace relay::cli {
namespace {

constexpr int kTag = 911;
// relay model predict: process counts as relay tune --predict-ranks takes them, and element
// sizes up to 1 MiB (a derived datatype's).
constexpr int kMaxPredictRanks = 1 << 20;
constexpr int kMaxElemBytes = 1 << 20;
// Paired samples of link sharing (duplex) after a warm-up pair.
constexpr int kDuplexSamples = 11;

// Every timing is collective over the pair (rank 0 and peer); other ranks wait at barriers.
// They spin there on purpose: during a collective the ranks not transferring spin in MPI's
// waits, and the parameters should describe that machine. With idle ranks asleep instead
// (tried: a nonblocking barrier tested every 100 us), 8 ranks on 2 cores gave steadier pair
// figures (alpha 0.4-0.55 us against 3.8-5.3 us), but the lone pair ran faster than any pair
// does in a broadcast: 4 ranks then measured a 1.50x concurrent slowdown (1.11x with
// spinners), the model limited transfer slots there, its curves went flat, and it picked
// 4 MiB segments that measured up to 1.22x the best (the worst curve was 1.084 before).
// Each sample is one exchange; the Sampler (median, interquartile spread) decides when to
// stop, on rank 0, and tells the peer. Concurrent: every rank is in a pair that measures at
// the same time (a rank left over idles), and rank 0 tells all of them.
class PairMeter {
 public:
  PairMeter(MPI_Comm comm, int partner, bool concurrent, measure::StopRule rule)
      : comm_(comm), partner_(partner), concurrent_(concurrent), rule_(rule) {
    MPI_Comm_rank(comm, &rank_);
  }
  // Whether this rank calls run() (every rank does when concurrent).
  bool active() const { return concurrent_ || partner_ >= 0; }

  // fn(sample) runs one exchange on both ranks of a pair and returns the leader's reading
  // (seconds); ranks without a partner do not call it.
  template <class F>
  measure::Summary run(F fn) {
    measure::Sampler sampler(rule_);
    int more = 1;
    while (more) {
      const double s = partner_ >= 0 ? fn() : 0.0;
      if (rank_ == 0) {
        sampler.add(s);
        more = sampler.done() ? 0 : 1;
      }
      if (concurrent_) {
        MPI_Bcast(&more, 1, MPI_INT, 0, comm_);
      } else if (rank_ == 0) {
        MPI_Send(&more, 1, MPI_INT, partner_, kTag + 1, comm_);
      } else {
        MPI_Recv(&more, 1, MPI_INT, 0, kTag + 1, comm_, MPI_STATUS_IGNORE);
      }
    }
    return sampler.summary();
  }

  int rank_ = 0;
  MPI_Comm comm_;
  int partner_;
  bool concurrent_;
  measure::StopRule rule_;
};

// Whether every rank measures at once (in pairs) or rank 0 and its peer alone, and why.
struct PairsChoice {
  bool concurrent = false;
  std::string reason;
};

// "auto" measures concurrently when some host runs more ranks than it has cores online.
// There a lone pair with idle ranks (which yield to it in MPI's waits) gets the cores nearly to
// itself, and how nearly varies from run to run, while in a pipelined broadcast every rank is
// busy at once. On 8 ranks of this 2-core machine lone pairs gave Hockney beta 0.09-0.51 ns/B
// in four runs, transfer slots 1.0-1.7, and picks of 2-4 MiB segments for 8 MiB broadcasts
// whose best was 512 KiB-2 MiB; all pairs at once gave 0.42-0.61 ns/B in three runs and picks
// of 512 KiB-1 MiB (docs/tuning.md has the confirmed figures, at 4 ranks too). Where every
// rank has a core (a cluster node per rank, or ranks <= cores) the lone pair is
// vadhiyar2004's measurement and stays the default. Collective over `comm`.
PairsChoice choose_pairs(const std::string& pairs, MPI_Comm comm) {
  if (pairs != "auto" && pairs != "lone" && pairs != "concurrent") {
    throw std::invalid_argument("--pairs must be auto, lone or concurrent, not '" + pairs + "'");
  }
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_host = 1;
  MPI_Comm_size(node, &on_host);
  MPI_Comm_free(&node);
  const int cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  struct {
    int excess;
    int rank;
  } mine{on_host - cores, 0}, most{0, 0};
  MPI_Comm_rank(comm, &mine.rank);
  MPI_Allreduce(&mine, &most, 1, MPI_2INT, MPI_MAXLOC, comm);
  int host[2] = {on_host, cores};  // of the most oversubscribed host
  MPI_Bcast(host, 2, MPI_INT, most.rank, comm);
  const std::string load = fmt::format("{} ranks on a host with {} cores", host[0], host[1]);
  if (pairs == "lone") return {false, "--pairs lone"};
  if (pairs == "concurrent") return {true, "--pairs concurrent"};
  if (most.excess > 0) return {true, "auto: " + load + " (more ranks than cores)"};
  return {false, "auto: " + load + " (a core per rank)"};
}

// --cycle: hands out successive parts of a buffer, wrapping around, so that back-to-back
// messages and repeated samples touch new memory (IMB's -off_cache). Reusing one buffer, the
// default, serves every size that fits from the caches: on a 2-core machine with 1 MiB of L2
// per core, g(m) per byte was lowest at 512 KiB-1 MiB and jumped at 2 MiB. Cycling through
// 64 MiB there (4 ranks) doubled beta (0.19 against 0.085 ns/B) and made the model pick
// 256 KiB segments for every 8 MiB broadcast, no closer to the measured best than the cached
// figures' 512 KiB-1 MiB (the broadcast's own 8 MiB buffers partly stay in the 32 MiB L3), so
// it is an option, for machines whose collectives stream from memory. Without cycling, two
// buffers alternate (a combine's operands must not alias).
class BufferCycle {
 public:
  BufferCycle(std::int64_t region, std::int64_t largest)
      : bytes_(std::max(region, 2 * largest)), cycling_(region > 0), half_(largest),
        buf_(static_cast<std::size_t>(bytes_), 1) {}
  char* next(std::int64_t m) {
    if (!cycling_) {
      flip_ = !flip_;
      return buf_.data() + (flip_ ? half_ : 0);
    }
    if (at_ + m > bytes_) at_ = 0;
    char* p = buf_.data() + at_;
    at_ += (m + 63) / 64 * 64;  // the next part starts on its own cache line
    return p;
  }
  std::int64_t bytes() const { return bytes_; }

 private:
  std::int64_t bytes_;
  bool cycling_;
  std::int64_t half_;
  std::vector<char> buf_;
  std::int64_t at_ = 0;
  bool flip_ = false;
};

}  // namespace

nlohmann::json measure_params(const P2pMeasureArgs& a, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) throw std::invalid_argument("relay model measure needs at least 2 ranks (mpirun -np 2)");
  if (a.peer < 1 || a.peer >= size) {
    throw std::invalid_argument(fmt::format("--peer {} is not a rank other than 0 (1..{})", a.peer, size - 1));
  }
  auto sizes = parse_size_list(a.sizes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.erase(std::remove(sizes.begin(), sizes.end(), 0), sizes.end());
  if (sizes.empty()) throw std::invalid_argument("--sizes: no size above 0 bytes to measure");
  if (sizes.back() > std::numeric_limits<int>::max()) {  // MPI counts (of bytes) are ints
    throw std::invalid_argument(fmt::format("--sizes: {} is more bytes than an MPI count holds (at most {})",
                                            core::format_bytes(sizes.back()), std::numeric_limits<int>::max()));
  }
  measure::StopRule rule;
  rule.max_spread = a.spread;
  rule.max_seconds = a.max_seconds;
  rule.max_samples = static_cast<std::size_t>(a.max_samples);
  const int peer = a.peer;
  const PairsChoice who = choose_pairs(a.pairs, comm);
  // This rank's partner (-1: none) and whether it leads (times) its pair.
  int partner = rank == 0 ? peer : rank == peer ? 0 : -1;
  if (who.concurrent && partner < 0) {
    std::vector<int> others;
    for (int r = 1; r < size; ++r) {
      if (r != peer) others.push_back(r);
    }
    const auto at = static_cast<std::size_t>(std::find(others.begin(), others.end(), rank) - others.begin());
    if ((at ^ 1U) < others.size()) partner = others[at ^ 1U];
  }
  const bool leader = partner >= 0 && (rank == 0 || (rank != peer && rank < partner));
  PairMeter pm(comm, partner, who.concurrent, rule);
  const auto cycle_bytes = core::parse_bytes(a.cycle);
  if (!cycle_bytes || *cycle_bytes < 0) {
    throw std::invalid_argument("--cycle '" + a.cycle + "' is not a size (0 = reuse one buffer)");
  }
  // The buffers below: the cycle (at least twice the largest size) and twice the largest.
  const double largest = static_cast<double>(sizes.back());
  require_memory(comm, std::max(static_cast<double>(*cycle_bytes), 2 * largest) + 2 * largest,
                 fmt::format("relay model measure (sizes up to {}{})", core::format_bytes(sizes.back()),
                             *cycle_bytes > 0 ? ", --cycle " + core::format_bytes(*cycle_bytes) : std::string()));
  BufferCycle cyc(*cycle_bytes, sizes.back());
  std::vector<char> buf(static_cast<std::size_t>(sizes.back()) * 2, 1);  // link sharing, slots
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::int64_t> fit_x;
  std::vector<double> fit_y;
  std::int64_t eager_limit = -1;
  const double start = MPI_Wtime();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t m = sizes[i];
    const int n = static_cast<int>(m);
    nlohmann::json row = {{"bytes", m}};
    if (pm.active()) {
      // Ping-pong round trip.
      const auto rtt = pm.run([&] {
        char* out = cyc.next(m);
        char* in = cyc.next(m);
        const double t0 = MPI_Wtime();
        if (leader) {
          MPI_Send(out, n, MPI_BYTE, partner, kTag, comm);
          MPI_Recv(in, n, MPI_BYTE, partner, kTag, comm, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(in, n, MPI_BYTE, partner, kTag, comm, MPI_STATUS_IGNORE);
          MPI_Send(out, n, MPI_BYTE, partner, kTag, comm);
        }
        return MPI_Wtime() - t0;
      });
      // os: the cost of issuing a send whose receive is posted (MPI_Isend's call time).
      const auto os = pm.run([&] {
        double t = 0;
        if (leader) {
          MPI_Recv(nullptr, 0, MPI_BYTE, partner, kTag + 2, comm, MPI_STATUS_IGNORE);  // posted
          MPI_Request r;
          const double t0 = MPI_Wtime();
          MPI_Isend(cyc.next(m), n, MPI_BYTE, partner, kTag, comm, &r);
          t = MPI_Wtime() - t0;
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
          MPI_Request r;
          MPI_Irecv(cyc.next(m), n, MPI_BYTE, partner, kTag, comm, &r);
          MPI_Send(nullptr, 0, MPI_BYTE, partner, kTag + 2, comm);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        return t;
      });
      // or: completing a receive whose message has arrived (probe first, then time MPI_Recv;
      // above the eager limit this includes the copy, as it does for the executor).
      const auto orr = pm.run([&] {
        double t = 0;
        if (leader) {
          MPI_Send(cyc.next(m), n, MPI_BYTE, partner, kTag, comm);
          MPI_Recv(&t, 1, MPI_DOUBLE, partner, kTag + 3, comm, MPI_STATUS_IGNORE);
        } else {
          MPI_Probe(partner, kTag, comm, MPI_STATUS_IGNORE);
          char* in = cyc.next(m);
          const double t0 = MPI_Wtime();
          MPI_Recv(in, n, MPI_BYTE, partner, kTag, comm, MPI_STATUS_IGNORE);
          t = MPI_Wtime() - t0;
          MPI_Send(&t, 1, MPI_DOUBLE, partner, kTag + 3, comm);
        }
        return t;
      });
      // g: back-to-back sends of pre-posted receives, per message. A burst carries about 4 MiB
      // so that buffers on the way (a shaped link's token bucket, socket buffers) cannot hold
      // it and the sustained gap is measured: with 64 messages of 1 KiB, the emulated cluster's
      // 250 Mbit/s links showed a gap that made 1 KiB segments look best for a pipelined
      // broadcast of 8 MiB, which were 1.19x slower than its real best.
      const int burst = static_cast<int>(std::clamp<std::int64_t>((1 << 22) / m, 4, 4096));
      const auto gap = pm.run([&] {
        double t = 0;
        std::vector<MPI_Request> r(burst);
        if (leader) {
          std::vector<char*> parts(static_cast<std::size_t>(burst));
          for (auto& part : parts) part = cyc.next(m);
          MPI_Recv(nullptr, 0, MPI_BYTE, partner, kTag + 2, comm, MPI_STATUS_IGNORE);
          const double t0 = MPI_Wtime();
          for (char* part : parts) MPI_Send(part, n, MPI_BYTE, partner, kTag, comm);
          MPI_Recv(nullptr, 0, MPI_BYTE, partner, kTag + 4, comm, MPI_STATUS_IGNORE);
          t = (MPI_Wtime() - t0) / burst;
        } else {
          for (int k = 0; k < burst; ++k) MPI_Irecv(cyc.next(m), n, MPI_BYTE, partner, kTag, comm, &r[k]);
          MPI_Send(nullptr, 0, MPI_BYTE, partner, kTag + 2, comm);
          MPI_Waitall(burst, r.data(), MPI_STATUSES_IGNORE);
          MPI_Send(nullptr, 0, MPI_BYTE, partner, kTag + 4, comm);
        }
        return t;
      });
      // Eager or rendezvous: does MPI_Send return before a receive that is 2 ms late? The
      // fastest of three tries, so that one descheduled sender does not decide.
      double send_s = 1;
      for (int trial = 0; trial < 3 && partner >= 0; ++trial) {
        if (leader) {
          MPI_Recv(nullptr, 0, MPI_BYTE, partner, kTag + 5, comm, MPI_STATUS_IGNORE);
          const double t0 = MPI_Wtime();
          MPI_Send(buf.data(), n, MPI_BYTE, partner, kTag, comm);
          send_s = std::min(send_s, MPI_Wtime() - t0);
        } else {
          MPI_Send(nullptr, 0, MPI_BYTE, partner, kTag + 5, comm);
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          MPI_Recv(buf.data(), n, MPI_BYTE, partner, kTag, comm, MPI_STATUS_IGNORE);
        }
      }
      const bool eager = send_s < 1e-3;
      if (rank == 0 && !eager && eager_limit < 0) eager_limit = i > 0 ? sizes[i - 1] : 0;
      // At least 0: where os + g + or exceed RTT/2 (a rendezvous message's data moves while the
      // receive runs, so g and or both contain the transfer: the receiver's copy on shared
      // memory, the stream on TCP) the model costs one message more than the ping-pong
      // measured; the row says so ("over_rtt").
      const double parts = os.median_s + gap.median_s + orr.median_s;
      const double latency = std::max(0.0, rtt.median_s / 2 - parts);
      if (rtt.median_s > 0 && parts > rtt.median_s / 2) row["over_rtt"] = parts / (rtt.median_s / 2);
      row.update({{"rtt_s", rtt.median_s}, {"rtt_spread", rtt.spread}, {"rtt_samples", rtt.samples},
                  {"os_s", os.median_s}, {"or_s", orr.median_s}, {"g_s", gap.median_s},
                  {"g_spread", gap.spread}, {"latency_s", latency}, {"eager", eager},
                  {"stable", rtt.stable && gap.stable}});
      fit_x.push_back(m);
      fit_y.push_back(rtt.median_s / 2);
    }
    if (rank == 0) {
      rows.push_back(row);
      if (!a.quiet) {
        const double elapsed = MPI_Wtime() - start;
        std::fprintf(stderr, "\r[%zu/%zu] %s: rtt %.2f us (spread %.1f%%), %.0f s elapsed, about %.0f s left   ",
                     i + 1, sizes.size(), core::format_bytes(m).c_str(), row["rtt_s"].get<double>() * 1e6,
                     row["rtt_spread"].get<double>() * 100, elapsed,
                     elapsed / static_cast<double>(i + 1) * static_cast<double>(sizes.size() - i - 1));
      }
    }
  }
  if (rank == 0 && !a.quiet) std::fprintf(stderr, "\n");
  // Link sharing, as a schedule meets it: a rank that forwards -- receives m from one rank
  // while it sends m to another (a pipeline's middle) -- against one transfer alone. With 3 or
  // more ranks, 0 -> peer -> third; with 2, a bidirectional exchange between the pair. (The
  // exchange alone misled: on the emulated cluster, whose links are shaped in each direction
  // separately, Open MPI's TCP exchange took twice one direction, yet a forwarding rank
  // receives and sends at full rate, and chains ran 1.5x faster than a model of one shared
  // link predicted.)
  // Both patterns are timed here, alternately, under the same conditions (the same ranks
  // waiting in the same calls), and compared sample by sample: against the ping-pong's RTT/2,
  // measured earlier and with other pairs active or not, the estimate swung between 0 and 1
  // from one run to the next with 4 ranks on 2 cores.
  double duplex = 1, duplex_spread = 0;
  {
    const int n = static_cast<int>(sizes.back());
    int third = -1;
    for (int r = 1; r < size && third < 0; ++r) {
      if (r != peer) third = r;
    }
    auto once = [&](bool forward) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
      if (!forward) {  // one transfer alone: 0 -> peer
        if (rank == 0) MPI_Send(buf.data(), n, MPI_BYTE, peer, kTag, comm);
        if (rank == peer) MPI_Recv(buf.data() + n, n, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
      } else if (third >= 0) {
        if (rank == 0) MPI_Send(buf.data(), n, MPI_BYTE, peer, kTag, comm);
        if (rank == peer) {
          MPI_Irecv(buf.data() + n, n, MPI_BYTE, 0, kTag, comm, &r[0]);
          MPI_Isend(buf.data(), n, MPI_BYTE, third, kTag, comm, &r[1]);
        }
        if (rank == third) MPI_Recv(buf.data(), n, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
      } else if (rank == 0 || rank == peer) {
        const int other = rank == 0 ? peer : 0;
        MPI_Irecv(buf.data() + n, n, MPI_BYTE, other, kTag, comm, &r[0]);
        MPI_Isend(buf.data(), n, MPI_BYTE, other, kTag, comm, &r[1]);
      }
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      return MPI_Wtime() - t0;  // the peer's reading decides: it receives in both patterns
    };
    std::vector<double> ratios;
    for (int k = 0; k <= kDuplexSamples; ++k) {  // the first pair is a warm-up
      const double one = once(false);
      const double both = once(true);
      // Both transfers moved 2 m in `both`; alone, m took `one`. Rate ratio - 1.
      if (k > 0 && both > 0) ratios.push_back(2 * one / both - 1);
    }
    double at_peer[2] = {measure::median(ratios), 0};
    if (!ratios.empty()) {
      at_peer[1] = measure::quantile(ratios, 0.75) - measure::quantile(ratios, 0.25);
    }
    MPI_Bcast(at_peer, 2, MPI_DOUBLE, peer, comm);
    duplex = std::clamp(at_peer[0], 0.0, 1.0);
    duplex_spread = at_peer[1];
  }
  // Concurrent transfers: every rank in a pair (0-1, 2-3, ...), all moving the largest size at
  // once, against pair 0-1 alone. On shared memory a transfer is a CPU copy, so with more ranks
  // than cores the pairs slow each other down; the slots are the pairs over the slowdown. Below
  // a 15% slowdown (separate links, or cores to spare) the model sets no limit.
  double transfer_slots = 0, slowdown = 1;
  if (size >= 4) {
    const int pairs = size / 2;
    const int n = static_cast<int>(sizes.back());
    auto one_way = [&](bool all) {
      std::vector<double> samples;
      for (int k = 0; k < 6; ++k) {  // the first is a warm-up
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        if (rank < 2 * pairs && (all || rank < 2)) {
          if (rank % 2 == 0) {
            MPI_Send(buf.data(), n, MPI_BYTE, rank + 1, kTag, comm);
          } else {
            MPI_Recv(buf.data(), n, MPI_BYTE, rank - 1, kTag, comm, MPI_STATUS_IGNORE);
          }
        }
        double t = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (k > 0) samples.push_back(slowest);
      }
      return measure::median(samples);
    };
    const double alone = one_way(false);
    const double together = one_way(true);
    slowdown = alone > 0 ? together / alone : 1;
    if (slowdown > 1.15) transfer_slots = std::max(1.0, pairs / slowdown);
  }
  // Combine cost (reductions): MPI_Reduce_local of doubles with MPI_SUM, as the executor's
  // combine steps call it, per size. With all pairs measuring at once, every rank times it at
  // once too (in a reduction the ranks combine at the same time); otherwise rank 0 alone.
  // Small sizes repeat the call within a sample so that the clock can see it.
  nlohmann::json combine_rows = nlohmann::json::array();
  {
    // Operands cycle through the same region as the messages (two parts per call).
    const bool timing = who.concurrent || rank == 0;
    for (const std::int64_t m : sizes) {
      const int count = static_cast<int>(m / 8);
      if (count < 1 || !timing) continue;
      const int reps = static_cast<int>(std::clamp<std::int64_t>((1 << 16) / m, 1, 1 << 10));
      measure::Sampler sampler(rule);
      const std::int64_t bytes = static_cast<std::int64_t>(count) * 8;
      auto operand = [&] { return reinterpret_cast<double*>(cyc.next(bytes)); };
      MPI_Reduce_local(operand(), operand(), count, MPI_DOUBLE, MPI_SUM);  // warm-up
      int more = 1;
      std::vector<std::pair<double*, double*>> parts(static_cast<std::size_t>(reps));
      while (more) {
        for (auto& part : parts) part = {operand(), operand()};
        const double t0 = MPI_Wtime();
        for (const auto& part : parts) MPI_Reduce_local(part.first, part.second, count, MPI_DOUBLE, MPI_SUM);
        const double s = (MPI_Wtime() - t0) / reps;
        if (rank == 0) {
          sampler.add(s);
          more = sampler.done() ? 0 : 1;
        }
        if (who.concurrent) MPI_Bcast(&more, 1, MPI_INT, 0, comm);
      }
      if (rank == 0) {
        const auto sum = sampler.summary();
        combine_rows.push_back({{"bytes", bytes}, {"s", sum.median_s},
                                {"spread", sum.spread}});
      }
    }
  }
  const nlohmann::json machine = machine_description(comm);  // collective
  if (rank != 0) return {};
  const auto fit = model::fit_hockney(fit_x, fit_y);
  nlohmann::json doc = {{"schema", model::kParamsSchema},
                        {"machine", machine},
                        {"pair", {0, peer}},
                        {"pairs", who.concurrent ? "concurrent" : "lone"},
                        {"pairs_reason", who.reason},
                        {"cycle_bytes", *cycle_bytes > 0 ? cyc.bytes() : 0},
                        {"hockney", {{"alpha_s", fit.alpha_s}, {"beta_s_per_byte", fit.beta_s_per_byte},
                                     {"bandwidth_MBps", fit.beta_s_per_byte > 0 ? 1e-6 / fit.beta_s_per_byte : 0.0}}},
                        {"eager_limit_bytes", eager_limit < 0 ? sizes.back() : eager_limit},
                        {"duplex", duplex},
                        {"duplex_spread", duplex_spread},
                        {"transfer_slots", transfer_slots},
                        {"concurrent_slowdown", slowdown},
                        {"plogp", rows},
                        {"combine", {{"call", "MPI_Reduce_local"}, {"datatype", "MPI_DOUBLE"}, {"op", "MPI_SUM"},
                                     {"rows", combine_rows}}}};
  return doc;
}

namespace {

void print_params(const nlohmann::json& doc) {
  std::printf("# point-to-point parameters, ranks %d and %d", doc["pair"][0].get<int>(), doc["pair"][1].get<int>());
  if (doc.contains("pairs")) {
    std::printf(", %s (%s)", doc["pairs"] == "concurrent" ? "all ranks in pairs at once" : "the pair alone",
                doc.value("pairs_reason", std::string()).c_str());
  }
  std::printf("\n");
  std::printf("%-10s %12s %8s %10s %10s %12s %10s %6s\n", "# Size", "RTT/2(us)", "spread", "os(us)",
              "or(us)", "g(us)", "L(us)", "eager");
  for (const auto& r : doc["plogp"]) {
    std::printf("%-10s %12.2f %7.1f%% %10.2f %10.2f %12.2f %10.2f %6s\n",
                core::format_bytes(r["bytes"].get<std::int64_t>()).c_str(), r["rtt_s"].get<double>() / 2 * 1e6,
                r["rtt_spread"].get<double>() * 100, r["os_s"].get<double>() * 1e6,
                r["or_s"].get<double>() * 1e6, r["g_s"].get<double>() * 1e6,
                r["latency_s"].get<double>() * 1e6, r["eager"].get<bool>() ? "yes" : "no");
  }
  int over = 0;
  double worst = 1;
  for (const auto& r : doc["plogp"]) {
    if (r.contains("over_rtt")) {
      ++over;
      worst = std::max(worst, r["over_rtt"].get<double>());
    }
  }
  if (over > 0) {
    std::printf("# at %d sizes os + g + or exceed RTT/2 (up to %.2fx; L = 0 there): the model costs one message "
                "more than the ping-pong measured (g and or both hold the transfer of a rendezvous message)\n",
                over, worst);
  }
  std::printf("# Hockney fit: alpha %.2f us, beta %.4f ns/B (%.0f MB/s); eager limit about %s; "
              "duplex %.2f%s (1 = full duplex, 0 = one shared link)\n",
              doc["hockney"]["alpha_s"].get<double>() * 1e6, doc["hockney"]["beta_s_per_byte"].get<double>() * 1e9,
              doc["hockney"]["bandwidth_MBps"].get<double>(),
              core::format_bytes(doc["eager_limit_bytes"].get<std::int64_t>()).c_str(), doc["duplex"].get<double>(),
              doc.contains("duplex_spread")
                  ? fmt::format(" (interquartile range of {} paired samples {:.2f})", kDuplexSamples,
                                doc["duplex_spread"].get<double>()).c_str()
                  : "");
  if (doc.contains("combine") && !doc["combine"]["rows"].empty()) {
    std::printf("# combine (MPI_Reduce_local, doubles, MPI_SUM):");
    const auto& crows = doc["combine"]["rows"];
    for (std::size_t i = 0; i < crows.size(); ++i) {
      const auto bytes = crows[i]["bytes"].get<std::int64_t>();
      if (bytes == 1024 || bytes == 65536 || bytes == 1048576 || i + 1 == crows.size()) {
        std::printf(" %s %.2f us", core::format_bytes(bytes).c_str(), crows[i]["s"].get<double>() * 1e6);
      }
    }
    std::printf("\n");
  }
  if (doc.contains("transfer_slots")) {
    const double slots = doc["transfer_slots"].get<double>();
    std::printf("# all ranks in pairs at once: %.2fx one pair's time; transfer slots %s\n",
                doc.value("concurrent_slowdown", 1.0),
                slots > 0 ? fmt::format("{:.2f} (transfers that move at full rate together)", slots).c_str()
                          : "no limit");
  }
}

struct PredictArgs {
  std::string params;
  std::string operation = "bcast";
  int elem_bytes = 8;
  int ranks = 8;
  int root = 0;
  std::string sizes = "8MiB";
  std::string algorithms = "all";
  std::string policies = "all";
  std::string segments = "0,1KiB:1MiB";
  int window = 16;
  bool hockney = false;
  double duplex = -1;
  std::string json_path;
};

int run_predict(const PredictArgs& a) {
  const auto machine = read_machine("--params", a.params, !a.hockney, a.duplex);
  if (a.ranks < 1) throw std::invalid_argument("--ranks must be >= 1");
  if (a.root < 0 || a.root >= a.ranks) {
    throw std::invalid_argument(fmt::format("--root {} is not a rank (0..{})", a.root, a.ranks - 1));
  }
  if (a.elem_bytes < 1) throw std::invalid_argument("--elem-bytes must be >= 1");
  const auto collective = parse_operation(a.operation);
  std::vector<std::string> names;
  if (collective) {
    for (const auto& alg : coll::coll_algorithms(*collective)) {
      if (alg.build != nullptr) names.emplace_back(alg.name);
    }
  } else {
    for (const auto& alg : coll::bcast_algorithms()) {
      if (alg.build != nullptr) names.emplace_back(alg.name);
    }
  }
  const auto algorithms = parse_name_list(a.algorithms, names, fmt::format("modelled {} algorithm (mpi has no schedule)", a.operation));
  const auto policies = parse_name_list(a.policies, {"blocking", "nonblocking"}, "policy");
  const auto sizes = parse_size_list(a.sizes);
  const auto segments = parse_size_list(a.segments);
  nlohmann::json rows = nlohmann::json::array();
  std::printf("# predicted %s times, %d ranks, root %d, %s model (%s)\n", a.operation.c_str(), a.ranks, a.root,
              a.hockney ? "Hockney" : "PLogP", a.params.c_str());
  if (machine.eager_limit_bytes >= 0) {
    std::printf("# messages above %s are rendezvous: each waits %.2f us for its handshake (a control message's round "
                "trip) before its data moves\n", core::format_bytes(machine.eager_limit_bytes).c_str(),
                machine.cost(machine.eager_limit_bytes + 1).handshake_s * 1e6);
  }
  if (collective && *collective != coll::Collective::barrier) {
    std::printf("# sizes are the data a call moves, as relay's tables count them: the vector (reduce, allreduce) or all "
                "ranks' blocks together (the others), in elements of %d bytes\n", a.elem_bytes);
  }
  if (collective && (*collective == coll::Collective::reduce || *collective == coll::Collective::allreduce ||
                     *collective == coll::Collective::reduce_scatter_block)) {
    if (machine.combine.empty()) {
      std::printf("# combining received data (the op) is free here: %s has no combine timings (files "
                  "written by relay model measure now have them)\n", a.params.c_str());
    } else {
      const auto& last = machine.combine.rows().back();
      std::printf("# combines cost what MPI_Reduce_local of doubles with MPI_SUM took (%.3f ns/B at %s)\n",
                  last.second / static_cast<double>(last.first) * 1e9, core::format_bytes(last.first).c_str());
    }
  }
  std::printf("%-10s %-22s %-12s %-9s %14s\n", "# Size", "Algorithm", "Policy", "Segment", "Predicted(us)");
  for (auto requested : sizes) {
    std::int64_t bytes = requested;
    if (collective) bytes = coll_call_bytes(*collective, a.ranks, requested, a.elem_bytes);
    for (const auto& name : algorithms) {
      if (collective) {
        const auto* alg = coll::find_coll_algorithm(*collective, name);
        if (!alg->runs_on(a.ranks)) {
          std::printf("# %s needs a power-of-two process count; relay runs %s instead\n", name.c_str(),
                      std::string(coll::find_coll_algorithm(*collective, alg->fallback)->name).c_str());
          continue;
        }
      }
      for (const auto& policy : policies) {
        for (auto seg : segments) {
          if (seg >= bytes && seg != 0) continue;
          const double t = collective ? predict_coll(machine, *collective, name, policy, a.ranks, a.root, bytes,
                                                     a.elem_bytes, seg, a.window)
                                      : predict_bcast(machine, name, policy, a.ranks, a.root, bytes, seg, a.window);
          std::printf("%-10s %-22s %-12s %-9s %14.2f\n", core::format_bytes(bytes).c_str(), name.c_str(),
                      policy.c_str(), seg > 0 ? core::format_bytes(seg).c_str() : "none", t * 1e6);
          rows.push_back({{"operation", a.operation}, {"size_bytes", bytes}, {"algorithm", name}, {"policy", policy},
                          {"segment_bytes", seg}, {"predicted_us", t * 1e6}});
        }
      }
    }
  }
  return write_results({{"schema", "relay.model.predict/1"}, {"params", a.params}, {"operation", a.operation},
                        {"ranks", a.ranks}, {"rows", rows}},
                       a.json_path, "", "", "relay model predict");
}

// A replay holds every rank's steps: about ranks x segments of them (256 ranks x 8192 segments
// of 1 KiB took 0.5 GB and 54 s), so large --ranks with small --segments can outgrow the
// memory. Unlimited, the process grows until the kernel's OOM killer ends it; with its address
// space capped at what it maps now plus what the machine has available, the allocation fails
// instead and the command says why.
void limit_memory_to_available() {
  const std::int64_t available = available_memory_bytes();
  long long mapped_pages = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return;
  const bool read = std::fscanf(statm, "%lld", &mapped_pages) == 1;
  std::fclose(statm);
  if (!read || available <= 0) return;
  const auto want = static_cast<rlim_t>(mapped_pages * sysconf(_SC_PAGESIZE) + available);
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= want) return;  // already lower
  limit.rlim_cur = want;
  setrlimit(RLIMIT_AS, &limit);
}

}  // namespace

model::Machine read_machine(const std::string& option, const std::string& path, bool use_plogp,
                            double duplex_override) {
  try {
    return model::machine_from_json(model::read_params_file(path), use_plogp, duplex_override);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{} {}: {}", option, path, e.what()));
  }
}

std::optional<schedule::Schedule> bcast_schedule(const std::string& algorithm, int ranks, int root,
                                                 std::int64_t bytes, std::int64_t segment, int fanout) {
  const auto* alg = coll::find_bcast_algorithm(algorithm);
  if (alg == nullptr || alg->build == nullptr) return std::nullopt;
  coll::BcastShape shape{ranks, root, bytes, 1, segment >= bytes ? 0 : segment,
                         fanout > 0 ? fanout : alg->default_fanout};
  return coll::build_bcast_schedule(*alg, shape);
}

double predict_bcast(const model::Machine& machine, const std::string& algorithm,
                     const std::string& policy, int ranks, int root, std::int64_t bytes,
                     std::int64_t segment, int window, int fanout) {
  const auto schedule = bcast_schedule(algorithm, ranks, root, bytes, segment, fanout);
  if (!schedule) return -1;
  return model::replay(*schedule, policy == "blocking" ? exec::Policy::blocking : exec::Policy::nonblocking,
                       window, machine)
      .time_s;
}

std::optional<coll::Collective> parse_operation(const std::string& name) {
  if (name == "bcast") return std::nullopt;
  std::vector<std::string> names = {"bcast"};
  for (auto c : coll::kCollectives) {
    if (coll::to_string(c) == name) return c;
    names.emplace_back(coll::to_string(c));
  }
  throw std::invalid_argument(fmt::format("--operation {} is not one of {}", name, fmt::join(names, ", ")));
}

std::int64_t coll_call_bytes(coll::Collective collective, int ranks, std::int64_t bytes, int elem_bytes) {
  if (collective == coll::Collective::barrier) return 1;
  const std::int64_t unit = static_cast<std::int64_t>(elem_bytes) * (coll::has_blocks(collective) ? ranks : 1);
  return std::max<std::int64_t>(1, bytes / unit) * unit;
}

std::optional<schedule::Schedule> coll_schedule(coll::Collective collective, const std::string& algorithm, int ranks,
                                                int root, std::int64_t bytes, int elem_bytes, std::int64_t segment,
                                                int fanout) {
  const auto* alg = coll::find_coll_algorithm(collective, algorithm);
  if (alg == nullptr || alg->build == nullptr) return std::nullopt;
  // The shape the library builds for such a call (api/collectives.cpp), segments rounded down
  // to whole elements as resolve_coll rounds its defaults.
  coll::CollShape shape;
  shape.size = ranks;
  shape.root = coll::has_root(collective) ? root : 0;
  shape.blocks = coll::has_blocks(collective);
  shape.elem_bytes = collective == coll::Collective::barrier ? 1 : elem_bytes;
  shape.count = collective == coll::Collective::barrier ? 1 : bytes / shape.elem_bytes / (shape.blocks ? ranks : 1);
  if (segment > 0) segment = std::max(shape.elem_bytes, segment / shape.elem_bytes * shape.elem_bytes);
  shape.segment_bytes = segment >= bytes ? 0 : segment;
  shape.fanout = alg->uses_fanout && fanout > 0 ? fanout : 1;
  return coll::build_coll_schedule(*alg, shape);
}

double predict_coll(const model::Machine& machine, coll::Collective collective, const std::string& algorithm,
                    const std::string& policy, int ranks, int root, std::int64_t bytes, int elem_bytes,
                    std::int64_t segment, int window, int fanout) {
  const auto schedule = coll_schedule(collective, algorithm, ranks, root, bytes, elem_bytes, segment, fanout);
  if (!schedule) return -1;
  return model::replay(*schedule, policy == "blocking" ? exec::Policy::blocking : exec::Policy::nonblocking,
                       window, machine)
      .time_s;
}

void add_model(CLI::App& app, int& exit_code) {
  CLI::App* model = app.add_subcommand("model", "Measure point-to-point parameters; predict collective times");
  model->require_subcommand(1);

  auto m = std::make_shared<P2pMeasureArgs>();
  CLI::App* measure = model->add_subcommand("measure", "Measure ping-pong, os, or, g, L and the eager limit between two ranks (run under mpirun)");
  measure->footer("Example: mpirun -np 2 relay model measure --output model.json\n"
                  "Each quantity is repeated until the interquartile spread is under --spread (or a cap);\n"
                  "L = RTT/2 - os - g - or (at least 0), so that the model reproduces the ping-pong where\n"
                  "os + g + or fit in RTT/2; rows where they do not are marked (over_rtt, and printed).");
  measure->add_option("--sizes", m->sizes, "message sizes (lists and power-of-two ranges)" + std::string(kSizesHelpUnits))->capture_default_str();
  measure->add_option("--peer", m->peer, "the rank measured against rank 0")->check(CLI::PositiveNumber)->capture_default_str();
  measure->add_option("--spread", m->spread, "stop once the relative interquartile spread is below this")->check(finite_in(0.0))->capture_default_str();
  measure->add_option("--max-seconds", m->max_seconds, "cap per quantity and size")->check(finite_in(0.0))->capture_default_str();
  measure->add_option("--max-samples", m->max_samples, "cap per quantity and size")->check(CLI::Range(1, measure::kMaxIterations))->capture_default_str();
  measure->add_option("--output,-o", m->output, "parameter file (JSON) to write")->capture_default_str();
  measure->add_option("--pairs", m->pairs, "who measures at a time: lone (rank 0 and --peer; the others wait), concurrent (all ranks in pairs at once, rank 0's pair reported: costs include what ranks sharing cores and memory do to each other during a collective), auto (concurrent when a host runs more ranks than it has cores)")
      ->check(CLI::IsMember({"auto", "lone", "concurrent"}))
      ->capture_default_str();
  measure->add_option("--cycle", m->cycle, "messages take successive parts of a buffer this large per rank (at least twice the largest size), so that no size is served from a cache (as IMB's -off_cache); 0 = reuse one buffer")
      ->capture_default_str();
  measure->add_flag_callback("--concurrent", [m] { m->pairs = "concurrent"; }, "same as --pairs concurrent");
  measure->add_flag("--quiet", m->quiet, "no progress on stderr");
  measure->callback([m, &exit_code] {
    ensure_mpi();
    const auto doc = measure_params(*m, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exit_code = 0;
    if (rank == 0) {
      print_params(doc);
      exit_code = write_results(doc, m->output, "", "", "relay model measure");
    }
  });

  auto p = std::make_shared<PredictArgs>();
  CLI::App* predict = model->add_subcommand("predict", "Predict collective times from a parameter file (no MPI needed)");
  predict->footer("Example: relay model predict --params model.json --ranks 8 --sizes 8MiB --segments 0,8KiB:1MiB\n"
                  "         relay model predict --params model.json --operation allreduce --ranks 6 --sizes 1MiB");
  predict->add_option("--params", p->params, "parameter file from relay model measure")->required()->check(CLI::ExistingFile);
  predict->add_option("--operation", p->operation, "bcast, or a collective of `relay algorithms` (reduce, allreduce, allgather, ...)")->capture_default_str();
  predict->add_option("--elem-bytes", p->elem_bytes, "element size of the reductions and gathers (8: double)")->check(CLI::Range(1, kMaxElemBytes))->capture_default_str();
  predict->add_option("--ranks", p->ranks, "process count")->check(CLI::Range(1, kMaxPredictRanks))->capture_default_str();
  predict->add_option("--root", p->root, "root rank (0 .. --ranks - 1)")->check(CLI::NonNegativeNumber)->capture_default_str();
  predict->add_option("--sizes", p->sizes, "message sizes" + std::string(kSizesHelpUnits))->capture_default_str();
  predict->add_option("--algorithms", p->algorithms, "algorithms (all = every one with a schedule)")->capture_default_str();
  predict->add_option("--policies", p->policies, "blocking, nonblocking or all")->capture_default_str();
  predict->add_option("--segments", p->segments, "segment sizes; 0 = unsegmented")->capture_default_str();
  predict->add_option("--window", p->window, "requests in flight per rank")->check(CLI::Range(1, coll::kMaxMaxRequests))->capture_default_str();
  predict->add_flag("--hockney", p->hockney, "use the Hockney fit instead of the PLogP table");
  predict->add_option("--duplex", p->duplex, "override link sharing: 1 full duplex .. 0 one shared link (default: the parameter file's)")
      ->check(finite_in(0.0, 1.0));
  predict->add_option("--json", p->json_path, "write rows as JSON here");
  predict->callback([p, &exit_code] {
    limit_memory_to_available();
    try {
      exit_code = run_predict(*p);
    } catch (const std::bad_alloc&) {
      throw AgreedError(fmt::format("relay model predict: out of memory replaying schedules on {} ranks (a replay "
                                    "holds about ranks x segments steps): use fewer --ranks or larger --segments",
                                    p->ranks));
    }
  });
}

}  // namespace relay::cli
