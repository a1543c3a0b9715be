#include "measure/p2p_params.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/units.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"

namespace relay::measure {
namespace {

constexpr int kTag = 911;

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
  PairMeter(MPI_Comm comm, int partner, bool concurrent, StopRule rule)
      : comm_(comm), partner_(partner), concurrent_(concurrent), rule_(rule) {
    MPI_Comm_rank(comm, &rank_);
  }
  // Whether this rank calls run() (every rank does when concurrent).
  bool active() const { return concurrent_ || partner_ >= 0; }

  // fn(sample) runs one exchange on both ranks of a pair and returns the leader's reading
  // (seconds); ranks without a partner do not call it.
  template <class F>
  Summary run(F fn) {
    Sampler sampler(rule_);
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
  StopRule rule_;
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
      : bytes_(std::max(region, 2 * largest)),
        cycling_(region > 0),
        half_(largest),
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

P2pMeasurement measure_p2p(MPI_Comm comm, const P2pOptions& a) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2)
    throw std::invalid_argument("relay model measure needs at least 2 ranks (mpirun -np 2)");
  if (a.peer < 1 || a.peer >= size) {
    throw std::invalid_argument(
        fmt::format("--peer {} is not a rank other than 0 (1..{})", a.peer, size - 1));
  }
  auto sizes = a.sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.erase(std::remove(sizes.begin(), sizes.end(), 0), sizes.end());
  if (sizes.empty()) throw std::invalid_argument("--sizes: no size above 0 bytes to measure");
  if (sizes.back() > std::numeric_limits<int>::max()) {  // MPI counts (of bytes) are ints
    throw std::invalid_argument(
        fmt::format("--sizes: {} is more bytes than an MPI count holds (at most {})",
                    core::format_bytes(sizes.back()), std::numeric_limits<int>::max()));
  }
  StopRule rule;
  rule.max_spread = a.max_spread;
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
    const auto at =
        static_cast<std::size_t>(std::find(others.begin(), others.end(), rank) - others.begin());
    if ((at ^ 1U) < others.size()) partner = others[at ^ 1U];
  }
  const bool leader = partner >= 0 && (rank == 0 || (rank != peer && rank < partner));
  PairMeter pm(comm, partner, who.concurrent, rule);
  if (a.cycle_bytes < 0) throw std::invalid_argument("--cycle: a negative size");
  // The buffers below: the cycle (at least twice the largest size) and twice the largest.
  const double largest = static_cast<double>(sizes.back());
  if (a.check_memory) {
    a.check_memory(
        std::max(static_cast<double>(a.cycle_bytes), 2 * largest) + 2 * largest,
        fmt::format(
            "relay model measure (sizes up to {}{})", core::format_bytes(sizes.back()),
            a.cycle_bytes > 0 ? ", --cycle " + core::format_bytes(a.cycle_bytes) : std::string()));
  }
  BufferCycle cyc(a.cycle_bytes, sizes.back());
  std::vector<char> buf(static_cast<std::size_t>(sizes.back()) * 2, 1);  // link sharing, slots
  P2pMeasurement result;
  std::int64_t eager_limit = -1;
  Progress progress(comm, a.quiet, "", sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t m = sizes[i];
    const int n = static_cast<int>(m);
    P2pRow row;
    row.bytes = m;
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
          for (int k = 0; k < burst; ++k)
            MPI_Irecv(cyc.next(m), n, MPI_BYTE, partner, kTag, comm, &r[k]);
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
      if (rtt.median_s > 0 && parts > rtt.median_s / 2) row.over_rtt = parts / (rtt.median_s / 2);
      row.rtt_s = rtt.median_s;
      row.rtt_spread = rtt.spread;
      row.rtt_samples = rtt.samples;
      row.os_s = os.median_s;
      row.or_s = orr.median_s;
      row.g_s = gap.median_s;
      row.g_spread = gap.spread;
      row.latency_s = latency;
      row.eager = eager;
      row.stable = rtt.stable && gap.stable;
    }
    if (rank == 0) result.rows.push_back(row);
    progress.step(fmt::format("{}: rtt {:.2f} us (spread {:.1f}%)", core::format_bytes(m),
                              row.rtt_s * 1e6, row.rtt_spread * 100));
  }
  progress.end_line();
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
    double at_peer[2] = {median(ratios), 0};
    if (!ratios.empty()) {
      at_peer[1] = quantile(ratios, 0.75) - quantile(ratios, 0.25);
    }
    MPI_Bcast(at_peer, 2, MPI_DOUBLE, peer, comm);
    duplex = std::clamp(at_peer[0], 0.0, 1.0);
    duplex_spread = at_peer[1];
  }
  // Sends to two peers at once, as a tree's root and the nonblocking policy post them: does
  // the first message arrive after one transfer's time (a node sends one message at a time,
  // the LogP port) or after two (the messages share the node's link: TCP's connections,
  // SimGrid's flows)? On 64 simulated Gigabit Ethernet nodes a nonblocking binomial broadcast
  // of 8 MiB took 1410 ms, 3.4x the one-port replay's 410 ms, and 1.6% from the shared-link
  // replay (docs/simulate.md). Paired with one transfer alone, sample by sample, as duplex.
  double two_peers_first_ratio = 0;
  {
    const int n = static_cast<int>(sizes.back());
    int third = -1;
    for (int r = 1; r < size && third < 0; ++r) {
      if (r != peer) third = r;
    }
    if (third >= 0) {
      auto first_done = [&](bool two) {
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        double t = 0;
        if (rank == 0) {
          MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
          MPI_Isend(buf.data(), n, MPI_BYTE, peer, kTag, comm, &r[0]);
          if (two) MPI_Isend(buf.data(), n, MPI_BYTE, third, kTag, comm, &r[1]);
          int first = 0;
          MPI_Waitany(2, r, &first, MPI_STATUS_IGNORE);
          t = MPI_Wtime() - t0;
          MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else if (rank == peer || (two && rank == third)) {
          MPI_Recv(buf.data() + n, n, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
        }
        return t;
      };
      std::vector<double> ratios;
      for (int k = 0; k <= kDuplexSamples; ++k) {  // the first pair is a warm-up
        const double one = first_done(false);
        const double two = first_done(true);
        if (k > 0 && one > 0) ratios.push_back(two / one);
      }
      if (rank == 0) two_peers_first_ratio = median(ratios);
    }
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
      return median(samples);
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
  {
    // Operands cycle through the same region as the messages (two parts per call).
    const bool timing = who.concurrent || rank == 0;
    for (const std::int64_t m : sizes) {
      const int count = static_cast<int>(m / 8);
      if (count < 1 || !timing) continue;
      const int reps = static_cast<int>(std::clamp<std::int64_t>((1 << 16) / m, 1, 1 << 10));
      Sampler sampler(rule);
      const std::int64_t bytes = static_cast<std::int64_t>(count) * 8;
      auto operand = [&] { return reinterpret_cast<double*>(cyc.next(bytes)); };
      MPI_Reduce_local(operand(), operand(), count, MPI_DOUBLE, MPI_SUM);  // warm-up
      int more = 1;
      std::vector<std::pair<double*, double*>> parts(static_cast<std::size_t>(reps));
      while (more) {
        for (auto& part : parts) part = {operand(), operand()};
        const double t0 = MPI_Wtime();
        for (const auto& part : parts)
          MPI_Reduce_local(part.first, part.second, count, MPI_DOUBLE, MPI_SUM);
        const double s = (MPI_Wtime() - t0) / reps;
        if (rank == 0) {
          sampler.add(s);
          more = sampler.done() ? 0 : 1;
        }
        if (who.concurrent) MPI_Bcast(&more, 1, MPI_INT, 0, comm);
      }
      if (rank == 0) {
        const auto sum = sampler.summary();
        result.combine.push_back({bytes, sum.median_s, sum.spread});
      }
    }
  }
  if (rank != 0) return {};
  result.peer = peer;
  result.concurrent = who.concurrent;
  result.pairs_reason = who.reason;
  result.cycle_bytes = a.cycle_bytes > 0 ? cyc.bytes() : 0;
  result.eager_limit_bytes = eager_limit < 0 ? sizes.back() : eager_limit;
  result.duplex = duplex;
  result.duplex_spread = duplex_spread;
  result.transfer_slots = transfer_slots;
  result.concurrent_slowdown = slowdown;
  result.two_peers_first_ratio = two_peers_first_ratio;
  return result;
}

}  // namespace relay::measure
