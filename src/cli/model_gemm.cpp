// relay model gemm: what relay_gemm's `auto` would weigh and run for a multiplication on a grid
// of any size, from a parameter file (gemm/cost.hpp's model, the same costings the call makes),
// without the machine: which algorithm, the predicted split of each candidate, and how long each
// costing takes this process (what a call pays on a shape's first use, dealt out over its grid).
#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "coll/registry.hpp"
#include "gemm/cost.hpp"
#include "layout/descriptor.hpp"
#include "model/params.hpp"

namespace relay::cli {
namespace {

struct GemmModelArgs {
  std::string params;
  std::string grid;
  long long n = 0, m = 0, k = 0;  // m, k: 0 = n
  long long block = 0;            // 0: one block per process and dimension of the square grid
  int lookahead = 1;
  std::string bcast = "auto";
  double gflops = 0;
  std::string precision = "d";
  std::string json_path;
};

std::string bcast_text(const relay_bcast_options_t& b) {
  if (b.algorithm == RELAY_BCAST_AUTO) return "auto (relay_ibcast's)";
  return gemm::bcast_config_name(b.algorithm, b.segment_bytes);
}

int run_gemm_model(const GemmModelArgs& a) {
  int rows = 0, cols = 0;
  if (std::sscanf(a.grid.c_str(), "%dx%d", &rows, &cols) != 2 || rows < 1 || cols < 1 ||
      a.grid != fmt::format("{}x{}", rows, cols)) {
    throw std::invalid_argument("--grid '" + a.grid + "' is not RxC (for example 128x128)");
  }
  gemm::Problem p;
  p.m = a.m > 0 ? a.m : a.n;
  p.n = a.n;
  p.k = a.k > 0 ? a.k : a.n;
  p.type = precision_type(a.precision);
  const long long block = a.block > 0 ? a.block : std::max(1LL, a.n / std::max(rows, cols));
  p.desca = layout::make_descriptor_inb(p.m, p.k, block, block, block, block, 0, 0, 0, block);
  p.descb = layout::make_descriptor_inb(p.k, p.n, block, block, block, block, 0, 0, 0, block);
  p.descc = layout::make_descriptor_inb(p.m, p.n, block, block, block, block, 0, 0, 0, block);
  gemm::Options options;
  relay_bcast_options_init(&options.bcast);
  if (a.bcast != "auto") {
    const coll::Algorithm* row = coll::find_algorithm(coll::Collective::bcast, a.bcast);
    if (row == nullptr || row->build == nullptr) {
      throw std::invalid_argument(fmt::format(
          "--bcast {} is not auto or a broadcast with a schedule (relay algorithms)", a.bcast));
    }
    options.bcast.algorithm = static_cast<relay_bcast_algorithm_t>(row->id);
  }
  options.lookahead = a.lookahead;
  gemm::CostInputs inputs;
  try {
    inputs.machine = gemm::panel_machine(model::read_params_file(a.params));
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--params {}: {}", a.params, e.what()));
  }
  inputs.flops_per_s = a.gflops * 1e9;
  inputs.copies_charged = true;  // as a simulation charges them: an element per flop
  inputs.source = a.params;

  layout::ProcessGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  struct Row {
    gemm::Candidate candidate;
    gemm::PanelChoice choice;
    double costing_s = 0;
  };
  std::vector<Row> table;
  for (const gemm::Candidate& c : gemm::auto_candidates(grid)) {
    const auto t0 = std::chrono::steady_clock::now();
    Row r{c, gemm::choose_panel_bcast(p, grid, c, options, inputs), 0};
    r.costing_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    table.push_back(r);
  }
  // As relay_gemm orders them: the model's least time first, on a tie the simpler.
  std::stable_sort(table.begin(), table.end(), [](const Row& x, const Row& y) {
    const double tx = x.choice.cost.ok ? x.choice.cost.total_s : HUGE_VAL;
    const double ty = y.choice.cost.ok ? y.choice.cost.total_s : HUGE_VAL;
    return tx < ty;
  });
  fmt::print(
      "# relay gemm's model: {}x{}x{} {}, block {}, on a {}x{} grid ({} processes), look-ahead "
      "{}, panel broadcasts {}; network from {} (alpha {:.2f} us, {:.0f} MB/s), {:.1f} GFLOP/s "
      "per process; copies charged an element per flop, pieces free (a simulation's costs)\n",
      p.m, p.n, p.k, a.precision, block, rows, cols, rows * cols, a.lookahead, a.bcast, a.params,
      inputs.machine.alpha_s * 1e6,
      inputs.machine.beta_s_per_byte > 0 ? 1e-6 / inputs.machine.beta_s_per_byte : 0.0, a.gflops);
  std::printf("%-10s %10s %10s %10s %10s %10s %6s  %-24s %11s\n", "candidate", "model_s", "repl_s",
              "panels_s", "multiply_s", "reduce_s", "pieces", "panel broadcasts", "costing_ms");
  nlohmann::json rows_json = nlohmann::json::array();
  double slowest_costing = 0, all_costings = 0;
  for (const Row& r : table) {
    const gemm::CostBreakdown& c = r.choice.cost;
    const std::string name = gemm::candidate_name(r.candidate);
    slowest_costing = std::max(slowest_costing, r.costing_s);
    all_costings += r.costing_s;
    if (!c.ok) {
      std::printf("%-10s %10s\n", name.c_str(), "not costed");
    } else {
      std::printf("%-10s %10.4f %10.4f %10.4f %10.4f %10.4f %6d  %-24s %11.2f\n", name.c_str(),
                  c.total_s, c.replicate_s, c.panels_s, c.compute_s, c.reduce_s, c.pieces,
                  bcast_text(r.choice.bcast).c_str(), r.costing_s * 1e3);
    }
    nlohmann::json j = {{"candidate", name},
                        {"costed", c.ok},
                        {"panel_bcast", bcast_text(r.choice.bcast)},
                        {"panel_bcast_by_model", r.choice.by_model},
                        {"costing_s", r.costing_s}};
    if (c.ok) {
      j["predicted_s"] = c.total_s;
      j["replicate_s"] = c.replicate_s;
      j["panels_s"] = c.panels_s;
      j["compute_s"] = c.compute_s;
      j["reduce_s"] = c.reduce_s;
      j["pieces"] = c.pieces;
    }
    rows_json.push_back(j);
  }
  const bool any = !table.empty() && table.front().choice.cost.ok;
  if (any) {
    std::printf(
        "auto runs %s (%.4f s predicted; a candidate over the memory limit is passed over)\n",
        gemm::candidate_name(table.front().candidate).c_str(), table.front().choice.cost.total_s);
  }
  std::printf(
      "# costings on this process: %.1f ms for all %zu candidates, the slowest candidate %.1f ms; "
      "relay_gemm deals them out over the grid's processes on a shape's first call "
      "(docs/gemm.md)\n",
      all_costings * 1e3, table.size(), slowest_costing * 1e3);
  if (a.json_path.empty()) return any ? 0 : kExitFailure;
  nlohmann::json doc = {{"schema", "relay.model.gemm/1"},
                        {"m", p.m},
                        {"n", p.n},
                        {"k", p.k},
                        {"precision", a.precision},
                        {"block", block},
                        {"grid_rows", rows},
                        {"grid_cols", cols},
                        {"lookahead", a.lookahead},
                        {"bcast", a.bcast},
                        {"gflops_per_process", a.gflops},
                        {"params", a.params},
                        {"rows", rows_json}};
  if (any) doc["auto"] = gemm::candidate_name(table.front().candidate);
  const int written = write_results(doc, a.json_path, "", "", "relay model gemm");
  return written != 0 ? written : (any ? 0 : kExitFailure);
}

}  // namespace

void add_model_gemm(CLI::App& model, int& exit_code) {
  auto a = std::make_shared<GemmModelArgs>();
  CLI::App* cmd = model.add_subcommand(
      "gemm",
      "What relay_gemm's auto would run on a grid of any size, from a parameter file (no MPI "
      "needed)");
  cmd->footer(
      "Example: relay model gemm --params ktorus.json --grid 128x128 --n 32768 --gflops 128\n"
      "Every candidate auto weighs (2d, 2.5d with each c, 3d), best first, with the model's split\n"
      "of its time and how long its costing took here. The network is the file's (alpha and beta,\n"
      "as relay_gemm reads RELAY_MODEL_PARAMS); the multiply runs at --gflops per process.");
  cmd->add_option("--params", a->params, "parameter file from relay model measure")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--grid", a->grid, "process grid RxC")->required();
  cmd->add_option("--n", a->n, "columns of C (and m, k unless given)")
      ->required()
      ->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--m", a->m, "rows of C (default: n)")->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--k", a->k, "inner dimension (default: n)")->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--block", a->block,
                  "block size MB = NB (default: n / the grid's larger side, one block per process "
                  "and dimension)")
      ->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--lookahead", a->lookahead, "panels in flight beyond the current one")
      ->check(CLI::Range(0, 16))
      ->capture_default_str();
  cmd->add_option("--bcast", a->bcast,
                  "panel broadcasts: auto (the model weighs them, as relay_gemm does) or a "
                  "broadcast of relay algorithms with a schedule")
      ->capture_default_str();
  cmd->add_option("--gflops", a->gflops, "local multiply rate per process, GFLOP/s")
      ->required()
      ->check(finite_in(1e-6, 1e9));
  cmd->add_option("--precision", a->precision, "s, d, c or z")
      ->check(CLI::IsMember({"s", "d", "c", "z"}))
      ->capture_default_str();
  cmd->add_option("--json", a->json_path, "write the rows as JSON here");
  cmd->callback([a, &exit_code] {
    ensure_mpi();  // MPI_Type_size on the element type
    exit_code = run_gemm_model(*a);
  });
}

}  // namespace relay::cli
