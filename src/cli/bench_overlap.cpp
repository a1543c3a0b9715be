// Over 500 lines: one command, four modes each verified against MPI (the helper: src/overlap).
// relay bench overlap: huang2018's micro-benchmark (section V-B, Figs. 4-6) -- broadcast and
// reduce bandwidth against message size for
//   blocking -- one collective call on the whole message, one rank per node (n_dup = 1 of
//               relay_overlap_*, which is exactly the plain call);
//   nonblocking -- one nonblocking call on the whole message, waited for at once (on
//               duplicate 0: what a single MPI_Ibcast/MPI_Ireduce costs, their Fig. 6 (b));
//   overlap  -- the message in n_dup parts, each a nonblocking collective on its own
//               duplicated communicator (relay_overlap_*), one rank per node;
//   ppn      -- with --ranks-per-node K > 1: "multiple processes per node", rank l of every
//               node in column communicator l, each column running the collective on 1/K of
//               the message at the same time (their Fig. 4), with n_dup 1 (their case 3) and
//               combined with overlap.
// Parts come from MPI-3 (`mpi`: MPI_Ibcast/MPI_Ireduce/MPI_Iallreduce, or MPI_Bcast/... when
// blocking) and from relay's schedules (`relay`: the algorithm given, auto by default).
// Ranks are nodes x K with consecutive ranks on a node (relay cluster run's --map-by slot).
// Bandwidth as in their Fig. 5: 2 (p - 1) / p * n / t for p nodes, the volume of recursive
// doubling or Rabenseifner's algorithm; n / t is recorded too. Rank 0's per-part times (when
// each part was posted and completed, their Fig. 6) are averaged over the timed iterations.
#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "measure/progress.hpp"
#include "measure/timing.hpp"
#include "relay/overlap.h"

namespace relay::cli {
namespace {

struct Args : ResultArgs {
  std::string sizes = "1KiB:64MiB";
  std::string operations = "bcast,reduce";
  std::string n_dups = "2,4,8";
  std::string parts = "mpi,relay";
  std::string bcast_algorithm = "auto";
  std::string reduce_algorithm = "auto";
  std::string allreduce_algorithm = "auto";
  std::string datatype = "float";
  int ranks_per_node = 1;
  measure::IterationArgs timing;
};

struct Config {
  std::string operation;  // bcast, reduce, allreduce
  std::string mode;       // blocking, nonblocking, overlap, ppn
  std::string parts;      // mpi, relay
  int n_dup = 1;
};

std::string label(const Config& c) {
  return fmt::format("{} {} parts={} n_dup={}", c.operation, c.mode, c.parts, c.n_dup);
}

// Rank 0's per-part times summed over the timed iterations.
struct PartSums {
  int count = 0;
  double post_start = 0, posted = 0, first_done = 0, done = 0;
};

class Bench {
 public:
  explicit Bench(const Args& a);
  ~Bench();
  int run();

 private:
  MPI_Comm comm_for(const Config& c) const { return c.mode == "ppn" ? column_ : leaders_; }
  // This rank's share of a message of `bytes`: elements and the first one's index.
  void share(const Config& c, std::int64_t bytes, int& count, std::int64_t& first) const;
  relay_status_t run_op(const Config& c, int count, relay_overlap_part_times_t* times);
  template <class T>
  bool check(const Config& c, std::int64_t bytes, std::string& error);
  bool verify(const Config& c, std::int64_t bytes, std::string& error);
  std::string resolved(const Config& c, int count) const;
  nlohmann::json measure(const Config& c, std::int64_t bytes);
  void check_placement(nlohmann::json& doc);

  const Args& a_;
  MPI_Comm world_ = MPI_COMM_NULL, leaders_ = MPI_COMM_NULL, column_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, k_ = 1, nodes_ = 1, node_ = 0, local_ = 0;
  MPI_Datatype type_ = MPI_FLOAT;
  int elem_ = 4;
  std::unique_ptr<double[]> send_, recv_;
};

Bench::Bench(const Args& a) : a_(a), k_(a.ranks_per_node) {
  MPI_Comm_dup(MPI_COMM_WORLD, &world_);
  MPI_Comm_rank(world_, &rank_);
  MPI_Comm_size(world_, &size_);
  if (k_ < 1 || size_ % k_ != 0) {
    MPI_Comm_free(&world_);
    throw std::invalid_argument(fmt::format(
        "--ranks-per-node {} does not divide the {} ranks into whole nodes", k_, size_));
  }
  nodes_ = size_ / k_;
  node_ = rank_ / k_;
  local_ = rank_ % k_;
  MPI_Comm_split(world_, local_ == 0 ? 0 : MPI_UNDEFINED, node_, &leaders_);
  MPI_Comm_split(world_, local_, node_, &column_);
  const std::map<std::string, std::pair<MPI_Datatype, int>> types = {
      {"float", {MPI_FLOAT, 4}}, {"double", {MPI_DOUBLE, 8}}, {"int", {MPI_INT, 4}}};
  const auto t = types.find(a.datatype);
  if (t == types.end()) {
    throw std::invalid_argument("--datatype " + a.datatype + " is not float, double or int");
  }
  type_ = t->second.first;
  elem_ = t->second.second;
}

Bench::~Bench() {
  for (MPI_Comm* c : {&leaders_, &column_, &world_}) {
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  }
}

void Bench::share(const Config& c, std::int64_t bytes, int& count, std::int64_t& first) const {
  const std::int64_t total = bytes / elem_;
  const int k = c.mode == "ppn" ? k_ : 1, l = c.mode == "ppn" ? local_ : 0;
  const std::int64_t base = total / k, extra = total % k;
  count = static_cast<int>(base + (l < extra ? 1 : 0));
  first = base * l + std::min<std::int64_t>(l, extra);
}

relay_status_t Bench::run_op(const Config& c, int count, relay_overlap_part_times_t* times) {
  const MPI_Comm comm = comm_for(c);
  if (comm == MPI_COMM_NULL) return RELAY_SUCCESS;  // a rank idle in this mode
  const bool mpi = c.parts == "mpi";
  // "nonblocking": the whole message in one nonblocking call, waited for at once (huang2018
  // Fig. 6's "single nonblocking call"); every other mode through the blocking API.
  relay_request_t request = RELAY_REQUEST_NULL;
  relay_request_t* nonblocking = c.mode == "nonblocking" ? &request : nullptr;
  relay_status_t st = RELAY_SUCCESS;
  if (c.operation == "bcast") {
    relay_bcast_options_t o;
    relay_bcast_options_init(&o);
    relay_bcast_algorithm_from_name(mpi ? "mpi" : a_.bcast_algorithm.c_str(), &o.algorithm);
    st = nonblocking ? relay_overlap_ibcast(recv_.get(), count, type_, 0, comm, c.n_dup, &o, times,
                                            nonblocking)
                     : relay_overlap_bcast(recv_.get(), count, type_, 0, comm, c.n_dup, &o, times);
  } else {
    const bool reduce = c.operation == "reduce";
    relay_coll_options_t o;
    relay_coll_options_init(&o);
    relay_coll_algorithm_from_name(reduce ? RELAY_COLL_REDUCE : RELAY_COLL_ALLREDUCE,
                                   mpi      ? "mpi"
                                   : reduce ? a_.reduce_algorithm.c_str()
                                            : a_.allreduce_algorithm.c_str(),
                                   &o.algorithm);
    const void* in = send_.get();
    void* out = recv_.get();
    if (reduce) {
      st = nonblocking
               ? relay_overlap_ireduce(in, out, count, type_, MPI_SUM, 0, comm, c.n_dup, &o, times,
                                       nonblocking)
               : relay_overlap_reduce(in, out, count, type_, MPI_SUM, 0, comm, c.n_dup, &o, times);
    } else {
      st = nonblocking
               ? relay_overlap_iallreduce(in, out, count, type_, MPI_SUM, comm, c.n_dup, &o, times,
                                          nonblocking)
               : relay_overlap_allreduce(in, out, count, type_, MPI_SUM, comm, c.n_dup, &o, times);
    }
  }
  if (st == RELAY_SUCCESS && nonblocking) st = relay_wait(nonblocking);
  return st;
}

// One operation on known data, checked where the result lands: a broadcast's element g (of
// the whole message) is g % 251 everywhere; a sum's is P (g % 13) + P (P - 1) / 2 over P
// ranks (exact in every type).
template <class T>
bool Bench::check(const Config& c, std::int64_t bytes, std::string& error) {
  const MPI_Comm comm = comm_for(c);
  if (comm == MPI_COMM_NULL) return true;
  int count = 0, r = 0, p = 1;
  std::int64_t first = 0;
  share(c, bytes, count, first);
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  T* send = reinterpret_cast<T*>(send_.get());
  T* recv = reinterpret_cast<T*>(recv_.get());
  const bool bcast = c.operation == "bcast";
  for (int i = 0; i < count; ++i) {
    const std::int64_t g = first + i;
    send[i] = static_cast<T>(g % 13 + r);
    recv[i] = static_cast<T>(bcast && r == 0 ? g % 251 : -1);
  }
  if (run_op(c, count, nullptr) != RELAY_SUCCESS) {
    error = relay_last_error();
    return false;
  }
  if (c.operation == "reduce" && r != 0) return true;
  for (int i = 0; i < count; ++i) {
    const std::int64_t g = first + i;
    const T want = static_cast<T>(bcast ? g % 251 : p * (g % 13) + p * (p - 1) / 2);
    if (recv[i] != want) {
      error = fmt::format("rank {} element {} is {}, not {}", rank_, g,
                          static_cast<double>(recv[i]), static_cast<double>(want));
      return false;
    }
  }
  return true;
}

bool Bench::verify(const Config& c, std::int64_t bytes, std::string& error) {
  bool ok = type_ == MPI_FLOAT    ? check<float>(c, bytes, error)
            : type_ == MPI_DOUBLE ? check<double>(c, bytes, error)
                                  : check<int>(c, bytes, error);
  int mine = ok ? 1 : 0, all = 0;
  exec::allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, world_);
  if (!all && error.empty()) error = "another rank failed or received wrong data";
  return all == 1;
}

// What relay's parts run, for rank 0's first part (rank 0 takes part in every mode).
std::string Bench::resolved(const Config& c, int count) const {
  if (c.parts == "mpi") return "mpi";
  const int part = count / c.n_dup + (count % c.n_dup > 0 ? 1 : 0);
  char text[256] = {};
  if (c.operation == "bcast") {
    relay_bcast_options_t o;
    relay_bcast_options_init(&o);
    relay_bcast_algorithm_from_name(a_.bcast_algorithm.c_str(), &o.algorithm);
    relay_bcast_describe(part, type_, 0, comm_for(c), &o, text, sizeof text);
  } else {
    const auto coll = c.operation == "reduce" ? RELAY_COLL_REDUCE : RELAY_COLL_ALLREDUCE;
    relay_coll_options_t o;
    relay_coll_options_init(&o);
    relay_coll_algorithm_from_name(
        coll, (coll == RELAY_COLL_REDUCE ? a_.reduce_algorithm : a_.allreduce_algorithm).c_str(),
        &o.algorithm);
    relay_coll_describe(coll, part, type_, MPI_SUM, 0, comm_for(c), &o, text, sizeof text);
  }
  return text;
}

nlohmann::json Bench::measure(const Config& c, std::int64_t bytes) {
  int count = 0;
  std::int64_t first = 0;
  share(c, bytes, count, first);
  const int k = c.mode == "ppn" ? k_ : 1;
  nlohmann::json row = {{"operation", c.operation}, {"mode", c.mode},      {"parts", c.parts},
                        {"n_dup", c.n_dup},         {"ranks_per_node", k}, {"nodes", nodes_},
                        {"ranks", size_},           {"size_bytes", bytes}, {"count", count},
                        {"datatype", a_.datatype}};
  if (rank_ == 0) row["resolved"] = resolved(c, count);
  std::string error;
  if (!verify(c, bytes, error)) {
    row["error"] = error;
    return row;
  }
  std::vector<relay_overlap_part_times_t> times(static_cast<std::size_t>(c.n_dup));
  std::vector<PartSums> sums(times.size());
  int failures = 0;
  const auto t = measure::time_iterations(world_, a_.timing, [&](bool timed) {
    if (run_op(c, count, times.data()) != RELAY_SUCCESS) ++failures;
    if (!timed || rank_ != 0) return;
    for (std::size_t p = 0; p < times.size(); ++p) {
      sums[p].count = times[p].element_count;
      sums[p].post_start += times[p].post_start_s;
      sums[p].posted += times[p].posted_s;
      sums[p].first_done += times[p].first_done_s;
      sums[p].done += times[p].done_s;
    }
  });
  int any = 0;
  exec::allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, world_);
  if (any > 0) {
    row["error"] = "an iteration failed";
    return row;
  }
  add_times(row, t.times_s);
  const double avg = row["avg_us"].get<double>() * 1e-6;
  const double n = static_cast<double>(bytes), p = nodes_;
  row["bandwidth_MBps"] = avg > 0 ? n / avg / 1e6 : 0.0;
  row["bus_bandwidth_MBps"] = avg > 0 && nodes_ > 1 ? 2.0 * (p - 1) / p * n / avg / 1e6 : 0.0;
  row["part_times"] = nlohmann::json::array();
  const double iterations = static_cast<double>(t.times_s.size());
  for (const auto& s : sums) {
    row["part_times"].push_back({{"count", s.count},
                                 {"post_start_us", s.post_start / iterations * 1e6},
                                 {"posted_us", s.posted / iterations * 1e6},
                                 {"first_done_us", s.first_done / iterations * 1e6},
                                 {"done_us", s.done / iterations * 1e6}});
  }
  return row;
}

// --ranks-per-node says rank r is on node r / K: compare with the hosts MPI reports.
void Bench::check_placement(nlohmann::json& doc) {
  const std::vector<std::string> hosts = host_names(world_);
  if (rank_ != 0) return;
  auto host_of = [&](int r) { return hosts[static_cast<std::size_t>(r)]; };
  std::string problem;
  for (int r = 0; r < size_ && problem.empty(); ++r) {
    const bool same_node = r / k_ == 0, same_host = host_of(r) == host_of(0);
    if (same_node != same_host) {
      problem = fmt::format(
          "rank {} is on {} and rank 0 on {}, but --ranks-per-node {} puts them "
          "on {} nodes",
          r, host_of(r), host_of(0), k_, same_node ? "the same" : "different");
    }
  }
  doc["placement_matches_ranks_per_node"] = problem.empty();
  if (!problem.empty() && !a_.quiet) {
    std::fprintf(stderr,
                 "relay bench overlap: note: %s (on one machine every \"node\" shares "
                 "its memory; run on the emulated cluster for a network)\n",
                 problem.c_str());
  }
}

void print_summary(const nlohmann::json& rows, const std::vector<std::int64_t>& sizes) {
  std::printf(
      "# Summary: fastest first; x blocking = time of the blocking call with the same "
      "kind of parts / time\n");
  std::printf("%-10s %-10s %-11s %-6s %6s %4s %12s %10s %10s %11s\n", "# Op", "Size", "Mode",
              "Parts", "n_dup", "PPN", "Avg(us)", "MB/s", "BW(MB/s)", "x blocking");
  for (const std::string op : {"bcast", "reduce", "allreduce"}) {
    for (auto size : sizes) {
      std::vector<const nlohmann::json*> list;
      for (const auto& r : rows) {
        if (r["operation"] == op && r["size_bytes"].get<std::int64_t>() == size &&
            r.contains("avg_us")) {
          list.push_back(&r);
        }
      }
      std::sort(list.begin(), list.end(), [](auto* x, auto* y) {
        return (*x)["avg_us"].template get<double>() < (*y)["avg_us"].template get<double>();
      });
      for (const auto* r : list) {
        double blocking = 0;
        for (const auto* b : list) {
          if ((*b)["mode"] == "blocking" && (*b)["parts"] == (*r)["parts"]) {
            blocking = (*b)["avg_us"].get<double>();
          }
        }
        std::printf("%-10s %-10s %-11s %-6s %6d %4d %12.2f %10.2f %10.2f %11s\n", op.c_str(),
                    core::format_bytes(size).c_str(), (*r)["mode"].get<std::string>().c_str(),
                    (*r)["parts"].get<std::string>().c_str(), (*r)["n_dup"].get<int>(),
                    (*r)["ranks_per_node"].get<int>(), (*r)["avg_us"].get<double>(),
                    (*r)["bandwidth_MBps"].get<double>(), (*r)["bus_bandwidth_MBps"].get<double>(),
                    blocking > 0
                        ? fmt::format("{:.3f}", blocking / (*r)["avg_us"].get<double>()).c_str()
                        : "-");
      }
    }
  }
}

// Rank 0's parts at the largest size, in microseconds since the call began (their Fig. 6).
void print_timelines(const nlohmann::json& rows, std::int64_t size) {
  std::printf(
      "\n# Per-part times on rank 0 at %s (mean over iterations, us since the call began): "
      "part: posted [start-returned] done\n",
      core::format_bytes(size).c_str());
  for (const auto& r : rows) {
    if (r["size_bytes"].get<std::int64_t>() != size || !r.contains("part_times")) continue;
    std::printf("%s %s parts=%s n_dup=%d ppn=%d:", r["operation"].get<std::string>().c_str(),
                r["mode"].get<std::string>().c_str(), r["parts"].get<std::string>().c_str(),
                r["n_dup"].get<int>(), r["ranks_per_node"].get<int>());
    int p = 0;
    for (const auto& t : r["part_times"]) {
      std::printf("%s %d: [%.0f-%.0f] %.0f", p == 0 ? "" : " |", p,
                  t["post_start_us"].get<double>(), t["posted_us"].get<double>(),
                  t["done_us"].get<double>());
      ++p;
    }
    std::printf("\n");
  }
}

int Bench::run() {
  const auto sizes = parse_size_list(a_.sizes);
  const auto operations =
      parse_name_list(a_.operations, {"bcast", "reduce", "allreduce"}, "operation");
  const auto parts = parse_name_list(a_.parts, {"mpi", "relay"}, "kind of parts");
  const auto n_dups = parse_int_list(a_.n_dups, 2, RELAY_OVERLAP_MAX_DUP, "--n-dup value");
  relay_bcast_algorithm_t b;
  int r = 0;
  if (relay_bcast_algorithm_from_name(a_.bcast_algorithm.c_str(), &b) != RELAY_SUCCESS ||
      relay_coll_algorithm_from_name(RELAY_COLL_REDUCE, a_.reduce_algorithm.c_str(), &r) !=
          RELAY_SUCCESS ||
      relay_coll_algorithm_from_name(RELAY_COLL_ALLREDUCE, a_.allreduce_algorithm.c_str(), &r) !=
          RELAY_SUCCESS) {
    throw std::invalid_argument(std::string(relay_last_error()) + " (relay algorithms)");
  }
  std::vector<Config> configs;
  for (const auto& op : operations) {
    for (const auto& p : parts) {
      configs.push_back({op, "blocking", p, 1});
      configs.push_back({op, "nonblocking", p, 1});
      for (int n : n_dups) configs.push_back({op, "overlap", p, n});
      if (k_ == 1) continue;
      configs.push_back({op, "ppn", p, 1});
      for (int n : n_dups) configs.push_back({op, "ppn", p, n});
    }
  }
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  if (largest / elem_ > std::numeric_limits<int>::max()) {  // MPI counts are ints
    throw std::invalid_argument(
        fmt::format("--sizes: {} is more {}s than an MPI count holds (at most {})",
                    core::format_bytes(largest), a_.datatype, std::numeric_limits<int>::max()));
  }
  const auto doubles = static_cast<std::size_t>(largest / 8 + 1);
  require_memory(world_, 2.0 * static_cast<double>(doubles) * 8,
                 fmt::format("relay bench overlap (2 buffers of the largest size, {})",
                             core::format_bytes(largest)));
  send_.reset(new double[doubles]());
  recv_.reset(new double[doubles]());
  for (MPI_Comm c : {leaders_, column_}) {  // duplicates made now, not inside a timing
    for (int n : n_dups) {
      if (c != MPI_COMM_NULL) relay_overlap_prepare(c, n);
    }
  }
  nlohmann::json doc = {{"schema", "relay.bench.overlap/1"},
                        {"machine", machine_description(world_)}};
  check_placement(doc);
  doc["ranks_per_node"] = k_;
  doc["nodes"] = nodes_;
  doc["rows"] = nlohmann::json::array();
  measure::Progress progress(world_, a_.quiet, "", configs.size() * sizes.size());
  std::vector<nlohmann::json> measured;
  for (const auto& c : configs) {
    for (auto bytes : sizes) {
      measured.push_back(measure(c, bytes));
      progress.step(label(c) + " " + core::format_bytes(bytes));
    }
  }
  int failed = 0;
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    if (rank_ == 0) {
      const auto& first = measured[ci * sizes.size()];
      std::printf("# %s ppn=%d nodes=%d ranks=%d datatype=%s %s\n", label(c).c_str(),
                  first["ranks_per_node"].get<int>(), nodes_, size_, a_.datatype.c_str(),
                  first.value("resolved", std::string()).c_str());
      std::printf("%-12s %12s %12s %12s %11s %10s %10s\n", "# Size", "Avg(us)", "Min(us)",
                  "Max(us)", "Iterations", "MB/s", "BW(MB/s)");
    }
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      const nlohmann::json& row = measured[ci * sizes.size() + si];
      doc["rows"].push_back(row);
      if (row.contains("error")) ++failed;
      if (rank_ != 0) continue;
      if (row.contains("error")) {
        std::printf("%-12lld ERROR: %s\n", static_cast<long long>(sizes[si]),
                    row["error"].get<std::string>().c_str());
        continue;
      }
      std::printf("%-12lld %12.2f %12.2f %12.2f %11d %10.2f %10.2f\n",
                  static_cast<long long>(sizes[si]), row["avg_us"].get<double>(),
                  row["min_us"].get<double>(), row["max_us"].get<double>(),
                  row["iterations"].get<int>(), row["bandwidth_MBps"].get<double>(),
                  row["bus_bandwidth_MBps"].get<double>());
    }
    if (rank_ == 0) std::printf("\n");
  }
  int rc = failed > 0 ? 1 : 0;  // every rank knows (verify agrees over all ranks)
  if (rank_ != 0) return rc;
  print_summary(doc["rows"], sizes);
  print_timelines(doc["rows"], largest);
  if (failed > 0)
    std::fprintf(stderr, "relay bench overlap: %d rows failed (ERROR above)\n", failed);
  return std::max(
      rc, write_results(doc, a_.json_path, a_.plot_path, "overlap.py", "relay bench overlap"));
}

}  // namespace

void add_bench_overlap(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand("overlap",
                                       "huang2018's overlap micro-benchmark: blocking vs n_dup "
                                       "overlapped parts vs K ranks per node");
  cmd->footer(
      "Run under mpirun, e.g.\n"
      "  mpirun -np 4 relay bench overlap --sizes 1MiB,8MiB --n-dup 2,4,8\n"
      "and on the emulated cluster (4 nodes; then 4 ranks per node, the same data split 4 ways):\n"
      "  relay cluster up --nodes 4 --rate 250mbit\n"
      "  relay bench overlap --sizes 8MiB --cluster\n"
      "  relay cluster down && relay cluster up --nodes 4 --rate 250mbit --ranks-per-node 4\n"
      "  relay bench overlap --sizes 8MiB --ranks-per-node 4 --cluster\n"
      "Rows: blocking = one collective call on the whole message (n_dup = 1); nonblocking = one\n"
      "nonblocking call on the whole message, waited for at once; overlap = n_dup\n"
      "parts, each a nonblocking collective on its own duplicated communicator; ppn (with\n"
      "--ranks-per-node K > 1) = rank l of every node in column l, every column on 1/K of the\n"
      "message at once, with n_dup 1 and the --n-dup values. Parts: mpi = MPI_Ibcast/MPI_Ireduce,\n"
      "relay = relay's schedules. BW = 2 (p - 1) / p * size / time over p nodes (huang2018 Fig. "
      "5);\n"
      "rank 0's per-part times at the largest size are printed at the end (their Fig. 6).");
  cmd->add_option("--sizes", args->sizes,
                  std::string("message sizes: list and/or power-of-two ranges") + kSizesHelpUnits)
      ->capture_default_str();
  cmd->add_option("--operations", args->operations, "bcast, reduce, allreduce, or all")
      ->capture_default_str();
  cmd->add_option("--n-dup", args->n_dups, "overlapped part counts (2..64)")->capture_default_str();
  cmd->add_option("--parts", args->parts, "mpi, relay, or all")->capture_default_str();
  cmd->add_option("--bcast-algorithm", args->bcast_algorithm, "relay parts' broadcast algorithm")
      ->capture_default_str();
  cmd->add_option("--reduce-algorithm", args->reduce_algorithm, "relay parts' reduce algorithm")
      ->capture_default_str();
  cmd->add_option("--allreduce-algorithm", args->allreduce_algorithm,
                  "relay parts' allreduce algorithm")
      ->capture_default_str();
  cmd->add_option("--datatype", args->datatype, "float, double or int (reductions: MPI_SUM)")
      ->capture_default_str();
  cmd->add_option("--ranks-per-node", args->ranks_per_node,
                  "K consecutive ranks per node (relay cluster up --ranks-per-node K); K > 1 adds "
                  "the ppn rows")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_iteration_options(cmd, args->timing);
  add_result_options(cmd, *args, " like huang2018 Figs. 5 and 6");
  cmd->callback([args, &exit_code] {
    check_result_args(*args);
    ensure_mpi();
    Bench run(*args);
    exit_code = run.run();
  });
}

}  // namespace relay::cli
