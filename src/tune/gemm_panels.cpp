#include "tune/gemm_panels.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/units.hpp"
#include "exec/compute.hpp"
#include "layout/block_cyclic.hpp"
#include "measure/stats.hpp"

namespace relay::tune {

std::vector<PanelCandidate> panel_candidates(const std::vector<std::string>& algorithms,
                                             const std::vector<long long>& segments) {
  std::vector<PanelCandidate> out;
  for (const auto& name : algorithms) {
    // The segmented chains are what segments are for (tan2014's pipeline); the trees and MPI
    // run unsegmented, as relay_ibcast's defaults run them.
    const bool segmented = name == "pipeline" || name == "chain";
    if (!segmented || segments.empty()) {
      out.push_back({name, name, "nonblocking", 0});
      continue;
    }
    for (long long s : segments) {
      out.push_back({fmt::format("{} {}", name, core::format_bytes(s)), name, "nonblocking", s});
    }
  }
  return out;
}

namespace {

int elem_bytes(MPI_Datatype type) {
  int size = 8;
  MPI_Type_size(type, &size);
  return size;
}

// One size: the local matrices (random A and B, C overwritten: beta = 0) and the multiplication
// under each candidate's broadcast.
template <class T>
nlohmann::json tune_size(MPI_Comm comm, relay_grid_t grid, long long n, const GemmTuneOptions& o,
                         const GemmTuneEvents& events) {
  int rows = 1, cols = 1, myrow = 0, mycol = 0;
  relay_grid_info(grid, &rows, &cols, &myrow, &mycol);
  const long long nb = o.block;
  const long long mloc = layout::fortran::numroc(n, nb, myrow, 0, rows);
  const long long nloc = layout::fortran::numroc(n, nb, mycol, 0, cols);
  const long long lld = std::max(1LL, mloc);
  const relay_matrix_desc_t desc{n, n, nb, nb, 0, 0, 0, 0, lld};
  const auto elems = static_cast<std::size_t>(lld * std::max(1LL, nloc));
  if (o.check_memory) {
    const double width = static_cast<double>(
        std::min(n, o.panel_width > 0 ? o.panel_width : nb * ((256 + nb - 1) / nb)));
    // A, B, C and the panels in flight, twice (one broadcast per owner stages them).
    const double bytes =
        (3.0 * static_cast<double>(elems) +
         2.0 * (o.lookahead + 1) * width * static_cast<double>(std::max(1LL, mloc + nloc))) *
        elem_bytes(o.type);
    o.check_memory(bytes,
                   fmt::format("relay tune --for-gemm --n {} on a {}x{} grid", n, rows, cols));
  }
  std::vector<T> a(elems), b(elems), c(elems);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::mt19937_64 rng(static_cast<std::uint64_t>(rank) + 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& x : a) x = T(static_cast<float>(u(rng)));
  for (auto& x : b) x = T(static_cast<float>(u(rng)));
  const T alpha(1), beta(0);

  // One multiplication with `candidate`'s broadcasts: the slowest process's seconds, and the
  // panel broadcasts' communicator sizes and largest bytes (the most over processes).
  struct Run {
    double seconds = 0;
    int ranks[2] = {0, 0};
    long long bytes[2] = {0, 0};
  };
  auto multiply = [&](const PanelCandidate& candidate) {
    relay_bcast_options_t bcast;
    relay_bcast_options_init(&bcast);
    if (relay_bcast_algorithm_from_name(candidate.algorithm.c_str(), &bcast.algorithm) !=
            RELAY_SUCCESS ||
        relay_policy_from_name(candidate.policy.c_str(), &bcast.policy) != RELAY_SUCCESS) {
      throw std::runtime_error(
          fmt::format("{}: not a broadcast algorithm and policy", candidate.name));
    }
    bcast.segment_bytes = candidate.segment_bytes;
    relay_gemm_options_t options;
    relay_gemm_options_init(&options);
    options.bcast = &bcast;
    options.lookahead = o.lookahead;
    options.panel_width = o.panel_width;
    options.pieces = o.pieces;
    options.algorithm = RELAY_GEMM_2D;  // the broadcasts of 2D SUMMA on this grid
    relay_gemm_report_t report;
    relay_gemm_report_init(&report);
    options.report = &report;
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    const relay_status_t st =
        relay_gemm('N', 'N', n, n, n, o.type, &alpha, a.data(), 0, 0, &desc, b.data(), 0, 0, &desc,
                   &beta, c.data(), 0, 0, &desc, grid, &options, nullptr, nullptr);
    double seconds = MPI_Wtime() - t0;
    // relay_gemm fails on every process alike (its arguments are agreed on).
    if (st != RELAY_SUCCESS) {
      throw std::runtime_error(
          fmt::format("relay_gemm with {} broadcasts: {}", candidate.name, relay_last_error()));
    }
    Run run;
    long long most[5] = {0, report.panel_bcast_ranks[0], report.panel_bcast_ranks[1],
                         report.panel_bcast_bytes[0], report.panel_bcast_bytes[1]};
    exec::allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    exec::allreduce(MPI_IN_PLACE, most + 1, 4, MPI_LONG_LONG, MPI_MAX, comm);
    run.seconds = seconds;
    run.ranks[0] = static_cast<int>(most[1]);
    run.ranks[1] = static_cast<int>(most[2]);
    run.bytes[0] = most[3];
    run.bytes[1] = most[4];
    return run;
  };

  // The grid's first call measures the cost model's inputs (a ping-pong and a multiply): not
  // part of any candidate's time.
  Run panels = multiply(o.candidates.front());
  std::vector<std::vector<double>> times(o.candidates.size());
  for (int rep = 0; rep < o.reps; ++rep) {
    for (std::size_t i = 0; i < o.candidates.size(); ++i) {
      const Run run = multiply(o.candidates[i]);
      times[i].push_back(run.seconds);
      if (events.measured) events.measured(n, o.candidates[i], rep, run.seconds);
    }
  }
  std::size_t best = 0;
  std::vector<double> medians;
  for (std::size_t i = 0; i < times.size(); ++i) {
    medians.push_back(measure::median(times[i]));
    if (medians[i] < medians[best]) best = i;
  }
  nlohmann::json doc = {{"n", n},
                        {"grid", fmt::format("{}x{}", rows, cols)},
                        {"block", nb},
                        {"lookahead", o.lookahead},
                        {"choice", o.candidates[best].name},
                        {"candidates", nlohmann::json::array()},
                        {"panel_broadcasts", nlohmann::json::array()}};
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto& cand = o.candidates[i];
    doc["candidates"].push_back({{"name", cand.name},
                                 {"algorithm", cand.algorithm},
                                 {"policy", cand.policy},
                                 {"segment_bytes", cand.segment_bytes},
                                 {"times_s", times[i]},
                                 {"median_s", medians[i]},
                                 {"x_best", medians[i] / medians[best]}});
  }
  const char* operand[2] = {"A", "B"};
  for (int x = 0; x < 2; ++x) {
    doc["panel_broadcasts"].push_back(
        {{"operand", operand[x]}, {"ranks", panels.ranks[x]}, {"largest_bytes", panels.bytes[x]}});
  }
  return doc;
}

}  // namespace

GemmTuneResult tune_gemm_panels(MPI_Comm comm, relay_grid_t grid, const GemmTuneOptions& o,
                                const GemmTuneEvents& events) {
  if (o.candidates.empty()) throw std::invalid_argument("no candidate broadcast");
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  int rows = 1, cols = 1;
  relay_grid_info(grid, &rows, &cols, nullptr, nullptr);
  GemmTuneResult out;
  out.results = {{"schema", "relay.tune.gemm/1"},
                 {"grid", fmt::format("{}x{}", rows, cols)},
                 {"block", o.block},
                 {"lookahead", o.lookahead},
                 {"reps", o.reps},
                 {"sizes", nlohmann::json::array()}};
  // Per communicator size, the grid points (largest panel broadcast bytes) and their choice.
  std::map<int, std::vector<std::pair<std::int64_t, coll::Rule>>> points;
  for (long long n : o.sizes) {
    nlohmann::json doc;
    if (o.type == MPI_FLOAT) {
      doc = tune_size<float>(comm, grid, n, o, events);
    } else if (o.type == MPI_DOUBLE) {
      doc = tune_size<double>(comm, grid, n, o, events);
    } else if (o.type == MPI_C_FLOAT_COMPLEX) {
      doc = tune_size<std::complex<float>>(comm, grid, n, o, events);
    } else {
      doc = tune_size<std::complex<double>>(comm, grid, n, o, events);
    }
    const auto& chosen = *std::find_if(
        o.candidates.begin(), o.candidates.end(),
        [&](const PanelCandidate& c) { return c.name == doc["choice"].get<std::string>(); });
    double best_s = std::numeric_limits<double>::infinity();
    for (const auto& c : doc["candidates"]) best_s = std::min(best_s, c["median_s"].get<double>());
    for (const auto& pb : doc["panel_broadcasts"]) {
      const int ranks = pb["ranks"].get<int>();
      const auto bytes = pb["largest_bytes"].get<std::int64_t>();
      if (ranks < 2 || bytes <= 0) continue;  // no broadcast on that side
      coll::Rule rule;
      rule.choice.algorithm = chosen.algorithm;
      rule.choice.policy = chosen.policy;
      rule.choice.segment_bytes = chosen.segment_bytes >= bytes ? 0 : chosen.segment_bytes;
      rule.source =
          fmt::format("gemm n={} {}x{} block {} L={}", n, rows, cols, o.block, o.lookahead);
      rule.measured_s = best_s;
      auto& at = points[ranks];
      // The same point twice (A's and B's broadcasts alike, or a later size's): the first.
      if (std::none_of(at.begin(), at.end(), [&](const auto& p) { return p.first == bytes; })) {
        at.emplace_back(bytes, rule);
      }
    }
    if (events.size_done) events.size_done(doc);
    out.results["sizes"].push_back(std::move(doc));
  }
  for (const auto& [ranks, at] : points) {
    for (auto& rule : coll::rules_from_grid("bcast", ranks, ranks, at)) {
      out.table.rules.push_back(std::move(rule));
    }
  }
  char date[32] = {};
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out.table.created = date;
  return out;
}

}  // namespace relay::tune
