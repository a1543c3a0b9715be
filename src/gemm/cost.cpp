#include "gemm/cost.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "coll/active_table.hpp"
#include "coll/predict.hpp"
#include "coll/select.hpp"
#include "core/environment.hpp"
#include "core/settings.hpp"
#include "exec/compute.hpp"
#include "gemm/grid.hpp"
#include "model/replay.hpp"

namespace relay::gemm {

std::string candidate_name(const Candidate& c) {
  switch (c.algorithm) {
    case RELAY_GEMM_25D:
      return fmt::format("2.5d:{}", c.layers);
    case RELAY_GEMM_3D:
      return fmt::format("3d:{}", c.layers);
    default:
      return "2d";
  }
}

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Steps of `part` appended to every rank's program of `into`, their dependency prefixes
// counted past what the rank already holds. A step that needed nothing still needs nothing (a
// root starts its piece at once); one that needed its first r receives now also waits for the
// earlier pieces' receives at that rank: the prefixes cannot say "receive r of this piece
// only", and a one-port rank moves one message at a time anyway.
void append(schedule::Schedule& into, const schedule::Schedule& part) {
  if (into.ranks.empty()) {
    into = part;
    return;
  }
  for (std::size_t r = 0; r < into.ranks.size(); ++r) {
    schedule::RankProgram& to = into.ranks[r];
    const std::int32_t recvs = to.recv_count(), sends = to.send_count(),
                       combines = to.combine_count();
    for (schedule::Step step : part.ranks[r].steps) {
      if (step.needs_recvs > 0) step.needs_recvs += recvs;
      if (step.needs_sends > 0) step.needs_sends += sends;
      if (step.needs_combines > 0) step.needs_combines += combines;
      to.add(step);
    }
    to.scratch_bytes = std::max(to.scratch_bytes, part.ranks[r].scratch_bytes);
  }
}

// The local count of a dimension of `extent` indices in blocks of `block` over `procs`
// processes on the busiest one: whole blocks, rounded up.
std::int64_t busiest(std::int64_t extent, std::int64_t block, int procs) {
  if (extent <= 0) return 0;
  block = std::max<std::int64_t>(1, block);
  const std::int64_t blocks = (extent + block - 1) / block;
  return std::min(extent, (blocks + procs - 1) / procs * block);
}

class Coster {
 public:
  Coster(const Problem& p, const Options& options, const CostInputs& in)
      : p_(p), options_(options), in_(in) {
    int size = 8;
    MPI_Type_size(p.type, &size);
    elem_ = std::max(1, size);
    complex_ = p.type == MPI_C_FLOAT_COMPLEX || p.type == MPI_C_DOUBLE_COMPLEX;
  }

  bool ok() const { return ok_; }

  double flops_s(double multiply_adds) const {
    return 2.0 * (complex_ ? 4.0 : 1.0) * multiply_adds / std::max(1.0, in_.flops_per_s);
  }
  // A multiply's further piece: the left operand's `elements` packed again.
  double piece_s(double elements) const { return elements * elem_ / 8.0 * in_.piece_s_per_element; }
  double row_band_s(double elements) const {
    return elements * elem_ / 8.0 * in_.row_band_s_per_element;
  }
  double copy_s(double elements) const {
    if (in_.copies_charged) return elements / std::max(1.0, in_.flops_per_s);
    return elements * elem_ / std::max(1.0, in_.copy_bytes_per_s);
  }

  struct Bcast {
    double s = 0;       ///< seconds
    double rounds = 0;  ///< message rounds on its longest path (see panel_bcast)
  };

  // `pieces` broadcasts of `piece_bytes` each on `ranks` ranks, rooted at successive ranks,
  // started together (one panel step's operand on a process row or column). `rounds` is the
  // same schedule's time when every message costs 1 and nothing else: how many times a rank
  // on its longest path must pass a message on, each of which needs that rank inside MPI.
  Bcast panel_bcast(int ranks, std::int64_t piece_bytes, int pieces) {
    if (ranks <= 1 || piece_bytes <= 0 || pieces <= 0) return {};
    const auto key = std::make_tuple(ranks, piece_bytes, pieces);
    if (auto it = bcast_cache_.find(key); it != bcast_cache_.end()) return it->second;
    const coll::Call call{coll::Collective::bcast, ranks, piece_bytes, elem_};
    coll::Config config;
    Bcast t{kInfinity, 1};
    if (coll::resolve(env_, &options_.bcast, call, "relay_gemm", 22, config) == RELAY_SUCCESS) {
      if (config.automatic) {
        (config.table_rule.rule != nullptr ? by_table_ : by_closed_form_) = true;
      }
      // `mpi` has no schedule of relay's: costed as the binomial tree MPI libraries use for
      // such messages.
      const bool own = config.algorithm->build != nullptr;
      const std::string name = own ? std::string(config.algorithm->name) : "binomial";
      schedule::Schedule all;
      for (int i = 0; i < pieces; ++i) {
        auto piece = coll::bcast_schedule(name, ranks, i % ranks, piece_bytes,
                                          own ? config.segment_bytes : 0, own ? config.fanout : 0);
        if (!piece) break;
        append(all, *piece);
      }
      if (!all.ranks.empty()) {
        const schedule::Policy policy = own ? config.policy : schedule::Policy::nonblocking;
        const model::ReplayLimits limits{config.max_requests * pieces, 64 * 1024};
        t.s = model::replay(all, policy, limits, in_.machine).time_s;
        model::Machine unit;
        unit.alpha_s = 1;
        t.rounds = model::replay(all, policy, limits, unit).time_s;
      }
    }
    if (!std::isfinite(t.s)) ok_ = false;
    bcast_cache_[key] = t;
    return t;
  }

  // The fiber's exchange: every member sends each other member `pair_bytes`.
  double exchange_s(int ranks, std::int64_t pair_bytes) {
    if (ranks <= 1 || pair_bytes <= 0) return 0;
    // A's and B's exchanges are one size on a square problem: replayed once (a linear
    // alltoall of 128 ranks is 16,256 messages, 15 ms here).
    const auto key = std::make_pair(ranks, pair_bytes);
    if (auto it = exchange_cache_.find(key); it != exchange_cache_.end()) return it->second;
    const double s = exchange_uncached_s(ranks, pair_bytes);
    exchange_cache_[key] = s;
    return s;
  }
  double exchange_uncached_s(int ranks, std::int64_t pair_bytes) {
    const auto schedule = coll::coll_schedule(coll::Collective::alltoall, "linear", ranks, 0,
                                              pair_bytes * ranks, elem_, 0);
    if (!schedule) {
      ok_ = false;
      return kInfinity;
    }
    return model::replay(*schedule, schedule::Policy::nonblocking, model::ReplayLimits{ranks, 0},
                         in_.machine)
        .time_s;
  }

  // relay_reduce_scatter_block of `block_bytes` per member on `ranks` ranks, as the layered
  // call's options resolve it.
  double reduce_scatter_s(int ranks, std::int64_t block_bytes) {
    if (ranks <= 1 || block_bytes <= 0) return 0;
    relay_coll_options_t o;
    relay_coll_options_init(&o);
    o.check = RELAY_CHECK_LOCAL;
    const coll::Call call{coll::Collective::reduce_scatter_block, ranks, block_bytes * ranks, elem_,
                          true};
    coll::Config config;
    if (coll::resolve(env_, &o, call, "relay_gemm", 22, 0, config) != RELAY_SUCCESS) {
      ok_ = false;
      return kInfinity;
    }
    const bool own = config.algorithm->build != nullptr;
    const auto schedule = coll::coll_schedule(
        coll::Collective::reduce_scatter_block, own ? std::string(config.algorithm->name) : "ring",
        ranks, 0, block_bytes * ranks, elem_, own ? config.segment_bytes : 0, config.fanout);
    if (!schedule) {
      ok_ = false;
      return kInfinity;
    }
    return model::replay(*schedule, own ? config.policy : schedule::Policy::nonblocking,
                         config.max_requests, in_.machine)
        .time_s;
  }

  int elem() const { return elem_; }
  bool by_table() const { return by_table_; }
  bool by_closed_form() const { return by_closed_form_; }

 private:
  const Problem& p_;
  const Options& options_;
  const CostInputs& in_;
  core::RelayEnvironment env_;
  int elem_ = 8;
  bool complex_ = false;
  bool ok_ = true;
  bool by_table_ = false, by_closed_form_ = false;
  std::map<std::tuple<int, std::int64_t, int>, Bcast> bcast_cache_;
  std::map<std::pair<int, std::int64_t>, double> exchange_cache_;
};

// op(A)'s k dimension block and op(B)'s: the blocks a panel's pieces follow.
std::int64_t k_block_of_a(const Problem& p) { return p.opa == Op::none ? p.desca.nb : p.desca.mb; }
std::int64_t k_block_of_b(const Problem& p) { return p.opb == Op::none ? p.descb.mb : p.descb.nb; }

struct SummaCost {
  double panels_s = 0, compute_s = 0;
  int pieces = 1;
};

// A step's multiply cut into `pieces` and what its look-ahead leaves of the broadcasts exposed.
struct Step {
  double compute = 0, exposed = 0;
};
Step cut_step(const StepTimes& t, int pieces) {
  Step st;
  pieces = std::max(1, pieces);
  const PieceGrid tiles = piece_grid(pieces, t.m, t.n, t.piece_overhead_s, t.row_band_s);
  st.compute =
      t.compute_s + (tiles.cols - 1) * t.piece_overhead_s + (tiles.rows - 1) * t.row_band_s;
  // Look-ahead: the next panels' broadcasts move while this one multiplies, but a rank passes
  // a message on only inside MPI: between the multiply's pieces (and at the next step's
  // wait). A broadcast of more rounds than pieces finishes at the wait: the share of rounds
  // the pieces reach is hidden, the rest is not. (64 simulated torus nodes, 8x8, n = 4096:
  // the nonblocking pipeline's 22 rounds per panel with 4 pieces left 2D with look-ahead at
  // 0.048 s where a fully hidden broadcast would give 0.018 s; binomial's 3 rounds hid.)
  const double hidden = std::min(1.0, pieces / std::max(1.0, t.rounds));
  st.exposed = std::max(0.0, hidden * t.comm_s - st.compute) + (1.0 - hidden) * t.comm_s;
  return st;
}

// SUMMA over `k` on a rows x cols grid (a layer), panels `width` wide (0: the default),
// with `lookahead` and the multiply cut into `pieces` (0: best_pieces).
SummaCost summa_cost(Coster& coster, const Problem& p, const Options& options, int rows, int cols,
                     std::int64_t k, std::int64_t width, int lookahead, int pieces) {
  SummaCost out;
  if (k <= 0) return out;
  const std::int64_t m_loc = busiest(p.m, p.descc.mb, rows);
  const std::int64_t n_loc = busiest(p.n, p.descc.nb, cols);
  const std::int64_t ka = std::max<std::int64_t>(1, k_block_of_a(p));
  const std::int64_t kb = std::max<std::int64_t>(1, k_block_of_b(p));
  if (width <= 0) width = default_panel_width(std::max(ka, kb));
  width = std::min(width, k);
  const bool auto_pieces = pieces <= 0;
  // One panel step of width w: its broadcasts, their rounds and its multiply.
  auto times = [&](std::int64_t w) {
    StepTimes t;
    // Per owner: as many broadcasts as owners, each of the busiest owner's blocks together.
    auto operand = [&](int ranks, std::int64_t free_local, std::int64_t block) {
      const std::int64_t blocks = (w + block - 1) / block;
      std::int64_t broadcasts = blocks, per = 1;
      if (options.panels_per_owner && ranks > 1) {
        broadcasts = std::min<std::int64_t>(blocks, ranks);
        per = (blocks + ranks - 1) / ranks;
      }
      return coster.panel_bcast(ranks, free_local * std::min(w, block * per) * coster.elem(),
                                static_cast<int>(broadcasts));
    };
    const auto a = operand(cols, m_loc, ka);
    const auto b = operand(rows, n_loc, kb);
    // A process row's and a process column's broadcasts share each process's port.
    t.comm_s = a.s + b.s + coster.copy_s(static_cast<double>((m_loc + n_loc) * w));
    t.rounds = std::max({1.0, a.rounds, b.rounds});
    t.compute_s = coster.flops_s(static_cast<double>(m_loc) * static_cast<double>(n_loc) *
                                 static_cast<double>(w));
    // Each further piece is a BLAS call that packs A's m_loc x w panel again (a further
    // column band) or B's n_loc x w (a further row band; piece_grid, as summa.cpp cuts).
    t.piece_overhead_s = coster.piece_s(static_cast<double>(m_loc * w));
    t.row_band_s = coster.row_band_s(static_cast<double>(n_loc * w));
    if (p.triangle == 0 && auto_pieces) {  // as summa.cpp: a fixed count is cut by columns
      t.m = m_loc;
      t.n = n_loc;
    }
    return t;
  };
  const std::int64_t full = k / width, rest = k % width;
  const StepTimes main_times = times(width);
  // The run cuts each update into at most its local columns (summa.cpp).
  const int max_pieces =
      static_cast<int>(std::min<std::int64_t>(64, std::max<std::int64_t>(1, n_loc)));
  // Never fewer than the fixed default with look-ahead: the rounds count only the schedule's
  // messages, and a large message needs its sender inside MPI too (a rendezvous, TCP's
  // fragments). On 4 emulated nodes at 250 Mbit/s (2x2, n = 8192, block 64) one piece, which
  // the model found enough for MPI's own and linear broadcasts, ran 1.06-1.18x slower than 4
  // (docs/measurements/issue26_auto_pieces/).
  if (pieces <= 0) {
    pieces = lookahead > 0 ? best_pieces(main_times, default_pieces(lookahead), max_pieces) : 1;
  }
  pieces = static_cast<int>(std::min<std::int64_t>(pieces, std::max<std::int64_t>(1, n_loc)));
  out.pieces = pieces;
  const Step main = cut_step(main_times, pieces);
  const StepTimes last_times = rest > 0 ? times(rest) : StepTimes{};  // none: costs nothing
  const Step last = cut_step(last_times, pieces);
  out.compute_s = static_cast<double>(full) * main.compute + last.compute;
  if (lookahead > 0) {
    // The first panel's broadcasts, then what each step's multiply does not hide.
    out.panels_s = main_times.comm_s + static_cast<double>(full) * main.exposed + last.exposed;
  } else {
    out.panels_s = static_cast<double>(full) * main_times.comm_s + last_times.comm_s;
  }
  return out;
}

}  // namespace

double step_s(const StepTimes& step, int pieces) {
  const Step st = cut_step(step, pieces);
  return st.compute + st.exposed;
}

int best_pieces(const StepTimes& step, int min_pieces, int max_pieces) {
  max_pieces = std::max(1, max_pieces);
  min_pieces = std::clamp(min_pieces, 1, max_pieces);
  std::vector<int> counts{
      static_cast<int>(std::clamp<double>(std::ceil(step.rounds), min_pieces, max_pieces))};
  for (int c = min_pieces; c <= max_pieces; c *= 2) counts.push_back(c);
  std::sort(counts.begin(), counts.end());
  int best = 1;
  double best_s = kInfinity;
  for (int c : counts) {
    const double t = step_s(step, c);
    if (t < best_s) {  // strictly: on a tie the fewer pieces (sorted ascending)
      best_s = t;
      best = c;
    }
  }
  return best;
}

CostBreakdown predict(const Problem& p, const layout::ProcessGrid& grid, const Candidate& cand,
                      const Options& options, const CostInputs& inputs) {
  CostBreakdown out;
  Coster coster(p, options, inputs);
  if (cand.algorithm != RELAY_GEMM_25D && cand.algorithm != RELAY_GEMM_3D) {
    const SummaCost s = summa_cost(coster, p, options, grid.rows, grid.cols, p.k,
                                   options.panel_width, options.lookahead, options.pieces);
    out.panels_s = s.panels_s;
    out.compute_s = s.compute_s;
    out.pieces = s.pieces;
  } else {
    const int c = cand.layers;
    const int qx = grid.rows / cand.cx, qy = grid.cols / cand.cy;
    // The largest slab: k's blocks dealt out as evenly as c allows.
    const std::int64_t ka = std::max<std::int64_t>(1, k_block_of_a(p));
    const std::int64_t k_blocks = (p.k + ka - 1) / ka;
    const std::int64_t slab = std::min(p.k, (k_blocks + c - 1) / c * ka);
    // Replication: each member sends each other its share of their slab of A (m x slab over
    // the 2D grid) and of B (slab x n), and packs and unpacks it all.
    const std::int64_t a_pair = busiest(p.m, p.descc.mb, grid.rows) * busiest(slab, ka, grid.cols);
    const std::int64_t b_pair =
        busiest(slab, k_block_of_b(p), grid.rows) * busiest(p.n, p.descc.nb, grid.cols);
    out.replicate_s =
        coster.exchange_s(c, a_pair * coster.elem()) +
        coster.exchange_s(c, b_pair * coster.elem()) +
        coster.copy_s(2.0 * static_cast<double>(c) * static_cast<double>(a_pair + b_pair));
    const bool one_step = cand.algorithm == RELAY_GEMM_3D;
    const SummaCost s =
        summa_cost(coster, p, options, qx, qy, slab, one_step ? slab : options.panel_width,
                   one_step ? 0 : options.lookahead, one_step ? 1 : options.pieces);
    out.panels_s = s.panels_s;
    out.compute_s = s.compute_s;
    out.pieces = s.pieces;
    // The sum: each member's share of C from every layer.
    const std::int64_t c_share =
        busiest(p.m, p.descc.mb, grid.rows) * busiest(p.n, p.descc.nb, grid.cols);
    out.reduce_s = coster.reduce_scatter_s(c, c_share * coster.elem()) +
                   coster.copy_s(static_cast<double>(c_share) * (c + 2));
  }
  out.total_s = out.replicate_s + out.panels_s + out.compute_s + out.reduce_s;
  out.ok = coster.ok() && std::isfinite(out.total_s);
  out.panels_by_table = coster.by_table();
  out.panels_by_closed_form = coster.by_closed_form();
  return out;
}

std::string bcast_config_name(relay_bcast_algorithm_t algorithm, long long segment_bytes) {
  const coll::Algorithm* row = coll::find_algorithm(coll::Collective::bcast, algorithm);
  const std::string text = row != nullptr ? std::string(row->name) : "?";
  return segment_bytes > 0 ? fmt::format("{} {} KiB", text, segment_bytes >> 10) : text;
}

namespace {

// The configurations choose_panel_bcast weighs against the closed form's.
struct Try {
  relay_bcast_algorithm_t algorithm;
  long long segment_bytes;  // 0: unsegmented
};
constexpr Try kTries[] = {{RELAY_BCAST_LINEAR, 0},           {RELAY_BCAST_BINOMIAL, 0},
                          {RELAY_BCAST_BINARY, 0},           {RELAY_BCAST_SCATTER_ALLGATHER, 0},
                          {RELAY_BCAST_PIPELINE, 16 << 10},  {RELAY_BCAST_PIPELINE, 64 << 10},
                          {RELAY_BCAST_PIPELINE, 256 << 10}, {RELAY_BCAST_PIPELINE, 1 << 20}};
constexpr int kTryCount = static_cast<int>(sizeof kTries / sizeof kTries[0]);

Options with_try(const Options& options, const Try& t) {
  Options o = options;
  o.bcast.algorithm = t.algorithm;
  o.bcast.segment_bytes = t.segment_bytes;
  return o;
}

// A table rule (for some of them) or the caller's own choice stands; so does a call the model
// cannot cost.
bool weighs_tries(const CostBreakdown& first) {
  return first.ok && !first.panels_by_table && first.panels_by_closed_form;
}

// The choice from the first costing and, where weighs_tries, each try's (kTries' order).
PanelChoice pick(const Options& options, const CostBreakdown& first,
                 const std::vector<CostBreakdown>& tries) {
  PanelChoice out;
  out.bcast = options.bcast;
  out.cost = first;
  if (!weighs_tries(first)) return out;
  out.considered = fmt::format("the closed form's {:.3g} s", first.total_s);
  for (int i = 0; i < kTryCount; ++i) {
    const Try& t = kTries[i];
    const CostBreakdown& c = tries[static_cast<std::size_t>(i)];
    out.considered +=
        c.ok ? fmt::format(", {} {:.3g} s", bcast_config_name(t.algorithm, t.segment_bytes),
                           c.total_s)
             : fmt::format(", {} not costed", bcast_config_name(t.algorithm, t.segment_bytes));
    // Strictly faster: on a tie the closed form's (what auto ran before) stays.
    if (c.ok && c.total_s < out.cost.total_s) {
      out.cost = c;
      out.bcast = with_try(options, t).bcast;
      out.by_model = true;
    }
  }
  return out;
}

// A CostBreakdown as doubles, for the allreduce that shares them (exact: every value is a
// double or a small integer).
constexpr int kCostDoubles = 9;
void put(const CostBreakdown& c, double* to) {
  const double v[kCostDoubles] = {c.replicate_s,
                                  c.panels_s,
                                  c.compute_s,
                                  c.reduce_s,
                                  c.total_s,
                                  static_cast<double>(c.pieces),
                                  c.ok ? 1.0 : 0.0,
                                  c.panels_by_table ? 1.0 : 0.0,
                                  c.panels_by_closed_form ? 1.0 : 0.0};
  std::copy(v, v + kCostDoubles, to);
}
CostBreakdown get(const double* from) {
  CostBreakdown c;
  c.replicate_s = from[0];
  c.panels_s = from[1];
  c.compute_s = from[2];
  c.reduce_s = from[3];
  c.total_s = from[4];
  c.pieces = static_cast<int>(from[5]);
  c.ok = from[6] != 0;
  c.panels_by_table = from[7] != 0;
  c.panels_by_closed_form = from[8] != 0;
  return c;
}

// Each of `work`'s costings on one process of `comm` in turn (the i-th on process i mod P),
// then shared: every process's zeros elsewhere, summed. x + 0 is x, so every process ends with
// the owner's doubles exactly. A single costing is made by every process itself: shared, it
// would take as long plus an allreduce (a forced algorithm's first call: 1,024 simulated
// ranks, n = 2048, 2D ran 4.5% slower with it).
std::vector<CostBreakdown> costed_over(const std::vector<std::function<CostBreakdown()>>& work,
                                       MPI_Comm comm) {
  int me = 0, size = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  if (work.size() <= 1) {  // every process its own, no message
    me = 0;
    size = 1;
  }
  std::vector<double> all(work.size() * kCostDoubles, 0.0);
  for (std::size_t i = static_cast<std::size_t>(me); i < work.size();
       i += static_cast<std::size_t>(size)) {
    put(work[i](), all.data() + i * kCostDoubles);
  }
  if (size > 1 && !all.empty()) {
    exec::allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM,
                    comm);  // as agree_on_call
  }
  std::vector<CostBreakdown> out;
  out.reserve(work.size());
  for (std::size_t i = 0; i < work.size(); ++i) out.push_back(get(all.data() + i * kCostDoubles));
  return out;
}

}  // namespace

PanelChoice choose_panel_bcast(const Problem& p, const layout::ProcessGrid& grid,
                               const Candidate& candidate, const Options& options,
                               const CostInputs& inputs) {
  const CostBreakdown first = predict(p, grid, candidate, options, inputs);
  std::vector<CostBreakdown> tries;
  if (weighs_tries(first)) {
    for (const Try& t : kTries)
      tries.push_back(predict(p, grid, candidate, with_try(options, t), inputs));
  }
  return pick(options, first, tries);
}

std::vector<PanelChoice> choose_panel_bcasts(const Problem& p, const layout::ProcessGrid& grid,
                                             const std::vector<Candidate>& candidates,
                                             const Options& options, const CostInputs& inputs,
                                             MPI_Comm comm) {
  // Round 1: each candidate with the caller's options.
  std::vector<std::function<CostBreakdown()>> work;
  for (const Candidate& c : candidates) {
    work.emplace_back([&, c] { return predict(p, grid, c, options, inputs); });
  }
  const std::vector<CostBreakdown> first = costed_over(work, comm);
  // Round 2: the tries of every candidate whose broadcasts the closed form would run.
  work.clear();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!weighs_tries(first[i])) continue;
    for (const Try& t : kTries) {
      work.emplace_back(
          [&, c = candidates[i], t] { return predict(p, grid, c, with_try(options, t), inputs); });
    }
  }
  const std::vector<CostBreakdown> tried = costed_over(work, comm);
  std::vector<PanelChoice> out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::vector<CostBreakdown> tries;
    if (weighs_tries(first[i])) {
      tries.assign(tried.begin() + static_cast<std::ptrdiff_t>(next),
                   tried.begin() + static_cast<std::ptrdiff_t>(next + kTryCount));
      next += kTryCount;
    }
    out.push_back(pick(options, first[i], tries));
  }
  return out;
}

namespace {

// The cache key: everything choose_panel_bcast reads of the call.
std::string choice_key(const Problem& p, const Candidate& candidate, const Options& options) {
  int type_size = 0;
  MPI_Type_size(p.type, &type_size);
  const relay_bcast_options_t& b = options.bcast;
  return fmt::format(
      "{} {} {} {}{} {} | {} {} {} {} {} {} | {} {} {} {} | {} {} {} {} {} {} {} {} {}", p.m, p.n,
      p.k, static_cast<int>(p.opa), static_cast<int>(p.opb),
      p.type == MPI_C_FLOAT_COMPLEX || p.type == MPI_C_DOUBLE_COMPLEX ? -type_size : type_size,
      p.desca.mb, p.desca.nb, p.descb.mb, p.descb.nb, p.descc.mb, p.descc.nb,
      static_cast<int>(candidate.algorithm), candidate.layers, candidate.cx, candidate.cy,
      options.panel_width, options.lookahead, options.pieces, options.panels_per_owner,
      static_cast<int>(b.algorithm), static_cast<int>(b.policy), b.segment_bytes, b.fanout,
      b.max_requests);
}

}  // namespace

std::vector<PanelChoice> cached_panel_bcasts(relay_grid& grid, const Problem& p,
                                             const std::vector<Candidate>& candidates,
                                             const Options& options, const CostInputs& inputs) {
  coll::ActiveTable table;
  // A table that cannot be read: nothing cached (the call's broadcasts report the error).
  if (coll::active_table(table) != RELAY_SUCCESS) {
    return choose_panel_bcasts(p, grid.shape, candidates, options, inputs, grid.comm);
  }
  if (!grid.panel_choices) grid.panel_choices = std::make_unique<PanelChoices>();
  PanelChoices& choices = *grid.panel_choices;
  auto& cache = choices.by_key;
  // Another table (relay_tuning_load) covers other broadcasts: what was chosen without it goes.
  if (choices.table != table) {
    cache.clear();
    choices.table = table;
  }
  std::vector<std::string> keys;
  std::vector<Candidate> missing;
  std::vector<PanelChoice> out(candidates.size());
  std::vector<std::size_t> missing_at;  // where each of `missing` goes in `out`
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    keys.push_back(choice_key(p, candidates[i], options));
    if (auto it = cache.find(keys.back()); it != cache.end()) {
      out[i] = it->second;
    } else {
      missing.push_back(candidates[i]);
      missing_at.push_back(i);
    }
  }
  if (missing.empty()) return out;
  std::vector<PanelChoice> made =
      choose_panel_bcasts(p, grid.shape, missing, options, inputs, grid.comm);
  // Bounded: a program that multiplies ever new shapes must not grow without end.
  constexpr std::size_t kMaxEntries = 1024;
  if (cache.size() + made.size() > kMaxEntries) cache.clear();
  for (std::size_t j = 0; j < made.size(); ++j) {
    out[missing_at[j]] = made[j];
    cache.emplace(keys[missing_at[j]], std::move(made[j]));
  }
  return out;
}

namespace {

// Half the smallest round trip of `bytes` between ranks 0 and `peer` of `comm` (on rank 0;
// elsewhere 0).
double one_way_s(MPI_Comm comm, int peer, int bytes, std::vector<char>& buffer) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  constexpr int kRepetitions = 5;  // after one warm-up
  double best = kInfinity;
  for (int i = 0; i <= kRepetitions; ++i) {
    const double t0 = MPI_Wtime();
    if (me == 0) {
      MPI_Send(buffer.data(), bytes, MPI_BYTE, peer, 0, comm);
      MPI_Recv(buffer.data(), bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
    } else if (me == peer) {
      MPI_Recv(buffer.data(), bytes, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), bytes, MPI_BYTE, 0, 0, comm);
    }
    if (i > 0) best = std::min(best, (MPI_Wtime() - t0) / 2);
  }
  return me == 0 ? best : 0;
}

// The network from a ping-pong on the grid: between the ends of process column 0 (row 0 for
// a one-row grid), relay's own communicator, so no application message can match.
void measure_network(const relay_grid& grid, CostInputs& in) {
  const bool use_column = grid.shape.rows > 1;
  const bool measures = use_column ? grid.me.col == 0 : grid.me.row == 0;
  double params[2] = {0, 0};  // alpha, beta
  if (measures && grid.shape.size() > 1) {
    MPI_Comm comm = use_column ? grid.col_comm : grid.row_comm;
    int size = 1;
    MPI_Comm_size(comm, &size);
    constexpr int kSmall = 8, kLarge = 256 * 1024;
    std::vector<char> buffer(kLarge, 0);
    const double small = one_way_s(comm, size - 1, kSmall, buffer);
    const double large = one_way_s(comm, size - 1, kLarge, buffer);
    params[1] = std::max(0.0, (large - small) / (kLarge - kSmall));
    params[0] = std::max(0.0, small - kSmall * params[1]);
  }
  MPI_Bcast(params, 2, MPI_DOUBLE, 0, grid.comm);
  in.machine = model::Machine{};
  in.machine.alpha_s = params[0];
  in.machine.beta_s_per_byte = params[1];
  in.source = fmt::format("ping-pong on the grid: alpha {:.1f} us, {:.0f} MB/s", params[0] * 1e6,
                          params[1] > 0 ? 1e-6 / params[1] : 0.0);
}

// Panels are large messages: beta from the ping-pong's two largest sizes (the asymptotic rate),
// alpha from its smallest, when the file has the ping-pong rows. The file's own fit weighs every
// size alike (relative least squares) and follows the middle sizes: on the emulated cluster at
// 250 Mbit/s (31 MB/s) it gave 60 MB/s, from 16-32 KiB messages that pass the shapers' buckets
// at once, while 4 MiB took 141 ms one way (30 MB/s).
void large_message_fit(const nlohmann::json& doc, model::Machine& machine) {
  if (!doc.contains("plogp") || !doc.at("plogp").is_array()) return;
  std::vector<std::pair<double, double>> rows;  // bytes, RTT/2
  for (const auto& r : doc.at("plogp")) {
    if (r.contains("bytes") && r.contains("rtt_s") && r.at("bytes").is_number() &&
        r.at("rtt_s").is_number()) {
      rows.emplace_back(r.at("bytes").get<double>(), r.at("rtt_s").get<double>() / 2);
    }
  }
  if (rows.size() < 2) return;
  std::sort(rows.begin(), rows.end());
  const auto& [x1, t1] = rows[rows.size() - 2];
  const auto& [x2, t2] = rows.back();
  if (x2 <= x1 || t2 <= t1) return;
  machine.beta_s_per_byte = (t2 - t1) / (x2 - x1);
  machine.alpha_s =
      std::max(0.0, rows.front().second - rows.front().first * machine.beta_s_per_byte);
}

// The network from RELAY_MODEL_PARAMS, read by the grid's first process and sent to the others
// (they parse the same text: the same machine everywhere). False with `error` on every process
// when it cannot be used.
bool read_network(const relay_grid& grid, const char* path, CostInputs& in, std::string& error) {
  std::string text;
  long long length = 0;
  const bool root = grid.me.row == 0 && grid.me.col == 0;
  if (root) {
    try {
      text = model::read_params_file(path).dump();
    } catch (const std::exception& e) {
      text = std::string("!") + e.what();  // an error, sent as such
    }
    length = static_cast<long long>(text.size());
  }
  MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, grid.comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, grid.comm);
  try {
    if (!text.empty() && text[0] == '!') throw std::runtime_error(text.substr(1));
    // Alpha and beta, not the PLogP table: above the eager limit PLogP's g and or both hold
    // the transfer (model/params.hpp), which doubles every hop of a large panel's broadcast
    // (256 simulated torus nodes, n = 8192, block 512: 2D predicted at 0.142 s with the
    // table, 0.088 s with alpha and beta, 0.089 s simulated).
    in.machine = panel_machine(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    error = fmt::format("{}: {}", core::setting(core::Knob::model_params).name, e.what());
    return false;
  }
  in.source = fmt::format("{} {}", core::setting(core::Knob::model_params).name, path);
  return true;
}

// The local multiply's rate on this process (the charged rate under simulation): one 512^3
// multiply after a warm-up, every process at once, so that ranks sharing a core measure their
// share of it. A 256^3 multiply (2 ms) fit inside one time slice: 8 ranks on 2 cores measured
// 15.9 GFLOP/s and then multiplied at 6.
double measure_flops_per_s(MPI_Comm comm) {
  if (exec::compute_is_charged()) return exec::charged_gflops() * 1e9;
  constexpr int n = 512;
  std::vector<double> a(n * n, 1.0), b(n * n, 0.5), c(n * n, 0.0);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, 64, 64, 64, 1.0, a.data(), n, b.data(), n,
              1.0, c.data(), n);
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 1.0,
              c.data(), n);
  return 2.0 * n * n * n / std::max(MPI_Wtime() - t0, 1e-9);
}

// What a further piece of a multiply costs, seconds per element of the panel it packs again:
// a 512 x 512 x 256 multiply in the local update's shape (C += A B^T, B's panel stored n x k as
// SUMMA keeps it) as one BLAS call, as 16 column bands (A's panel packed again each) and as 16
// row bands (B's); the least of three runs each, every process at once, as the rate. n = 4096
// on a 1x2 grid with look-ahead spent 2.061 s multiplying in 4 pieces a panel and 2.270 s in
// 32 (docs/measurements/issue26_auto_pieces/shm_np2_1x2_pieces_4_32.txt). 0 under
// simulation: a charged multiply costs its flops only.
struct PieceCosts {
  double column_band = 0, row_band = 0;
};
PieceCosts measure_piece_s_per_element(MPI_Comm comm) {
  if (exec::compute_is_charged()) return {};
  constexpr int m = 512, n = 512, k = 256, kPieces = 16, kRuns = 3;
  std::vector<double> a(m * k, 1.0), b(n * k, 0.5), c(m * n, 0.0);
  auto run = [&](int rows, int cols) {
    double best = kInfinity;
    for (int r = 0; r < kRuns; ++r) {
      const double t0 = MPI_Wtime();
      for (int i = 0; i < rows; ++i) {
        const int i0 = m * i / rows, i1 = m * (i + 1) / rows;
        for (int j = 0; j < cols; ++j) {
          const int j0 = n * j / cols, j1 = n * (j + 1) / cols;
          cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, i1 - i0, j1 - j0, k, 1.0,
                      a.data() + i0, m, b.data() + j0, n, 1.0,
                      c.data() + i0 + static_cast<std::size_t>(j0) * m, m);
        }
      }
      best = std::min(best, MPI_Wtime() - t0);
    }
    return best;
  };
  MPI_Barrier(comm);
  const double whole = run(1, 1);
  const double by_columns = run(1, kPieces), by_rows = run(kPieces, 1);
  const double bands = (kPieces - 1) * static_cast<double>(k);
  return {std::max(0.0, (by_columns - whole) / (bands * m)),
          std::max(0.0, (by_rows - whole) / (bands * n))};
}

// Packing copies' rate, measured as the multiply's: every process at once, 4 x 8 MiB.
double measure_copy_bytes_per_s(MPI_Comm comm) {
  constexpr std::size_t kBytes = 8 << 20;
  constexpr int kTimes = 4;
  std::vector<char> from(kBytes, 1), to(kBytes, 0);
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < kTimes; ++i) {
    from[static_cast<std::size_t>(i)] = static_cast<char>(i);  // each copy reads fresh data
    std::memcpy(to.data(), from.data(), kBytes);
  }
  return static_cast<double>(kBytes) * kTimes / std::max(MPI_Wtime() - t0, 1e-9);
}

}  // namespace

model::Machine panel_machine(const nlohmann::json& params) {
  model::Machine machine = model::machine_from_json(params, false);
  large_message_fit(params, machine);
  return machine;
}

relay_status_t cost_inputs(relay_grid& grid, const CostInputs** inputs, std::string& error) {
  if (grid.cost_inputs) {
    *inputs = grid.cost_inputs.get();
    return RELAY_SUCCESS;
  }
  auto in = std::make_unique<CostInputs>();
  const char* path = core::read_setting(core::Knob::model_params);
  // The root's view of the variable decides for everyone (a process without it must not
  // measure while the others read).
  int from_file = path != nullptr ? 1 : 0;
  MPI_Bcast(&from_file, 1, MPI_INT, 0, grid.comm);
  if (from_file != 0) {
    if (!read_network(grid, path != nullptr ? path : "", *in, error)) return RELAY_ERR_OPTIONS;
  } else {
    measure_network(grid, *in);
  }
  in->copies_charged = exec::compute_is_charged();
  // The slowest process's: the least rates, the largest overhead (negated for one MPI_MIN).
  const PieceCosts pieces = measure_piece_s_per_element(grid.comm);
  double rates[4] = {measure_flops_per_s(grid.comm),
                     in->copies_charged ? 0.0 : measure_copy_bytes_per_s(grid.comm),
                     -pieces.column_band, -pieces.row_band};
  exec::allreduce(MPI_IN_PLACE, rates, 4, MPI_DOUBLE, MPI_MIN, grid.comm);  // as agree_on_call
  in->flops_per_s = rates[0];
  in->copy_bytes_per_s = rates[1];
  in->piece_s_per_element = -rates[2];
  in->row_band_s_per_element = -rates[3];
  grid.cost_inputs = std::move(in);
  *inputs = grid.cost_inputs.get();
  return RELAY_SUCCESS;
}

}  // namespace relay::gemm
