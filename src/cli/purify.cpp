// Over 500 lines: one command with its inputs (two generated Hamiltonians, the Matrix Market
// and raw readers, the atomic writer) and the LAPACK check of its result.
// relay purify: canonical density-matrix purification (relay_purify) of a Hamiltonian read
// from a file (Matrix Market, or raw binary doubles) or generated (a dimerized tight-binding
// chain, a graphene flake in the Hueckel model), on a p x p x p mesh of the launch's ranks.
// Prints one line per iteration as it runs (||D^2 - D||_F, |tr D - Ne|, c, time split), then
// optionally checks the converged D against the projector from LAPACK's eigendecomposition of
// H on rank 0, writes D, and the iterations as JSON and a plot.
#include <cblas.h>
#include <lapacke.h>
#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/cli11.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "relay/overlap.h"
#include "relay/symm.h"

namespace relay::cli {
namespace {

struct Args {
  std::string model = "chain";
  std::string input;
  long long n = 0;
  double electrons = 0;
  double hopping = 1.0;
  double hopping2 = 0.6;
  double onsite_gap = 0.5;
  double tolerance = 1e-9;
  int max_iterations = 200;
  std::string algorithm = "overlap";
  int n_dup = 4;
  std::string parts = "relay";
  std::string check = "auto";
  std::string output;
  std::string json_path, plot_path;
  bool quiet = false;
};

// A Hamiltonian's entry (r, c), 0-based.
using Entries = std::function<double(long long r, long long c)>;

// Su-Schrieffer-Heeger chain: hoppings alternate -t1 (bond r, r+1 with r even) and -t2; its
// half-filled gap is 2 |t1 - t2|.
Entries chain(double t1, double t2) {
  return [=](long long r, long long c) {
    if (r - c != 1 && c - r != 1) return 0.0;
    return std::min(r, c) % 2 == 0 ? -t1 : -t2;
  };
}

// A rectangular graphene flake (the honeycomb lattice drawn as a brick wall: site (x, y) has
// neighbours (x +- 1, y), and (x, y + 1) when x + y is even), Hueckel hopping -t, and on-site
// energies +-gap/2 on the two sublattices (as in hexagonal boron nitride): the half-filled gap
// is at least `gap`, so the density matrix is well defined whatever the edges.
Entries graphene(long long n, double t, double gap, long long& width) {
  width = 1;
  for (long long w = 1; w * w <= n; ++w) {
    if (n % w == 0) width = w;
  }
  const long long w = width;
  return [=](long long r, long long c) {
    const long long xr = r % (n / w), yr = r / (n / w), xc = c % (n / w), yc = c / (n / w);
    if (r == c) return (xr + yr) % 2 == 0 ? gap / 2 : -gap / 2;
    if (yr == yc && (xr - xc == 1 || xc - xr == 1)) return -t;
    if (xr == xc && (yr - yc == 1 || yc - yr == 1)) {
      const long long low = std::min(yr, yc);
      return (xr + low) % 2 == 0 ? -t : 0.0;
    }
    return 0.0;
  };
}

// A whole matrix read on one process: Matrix Market (coordinate or array, real or integer,
// general or symmetric) or raw column-major doubles of n x n.
std::vector<double> read_matrix(const std::string& path, long long& n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("--input: cannot open " + path);
  const bool market = path.size() > 4 && path.compare(path.size() - 4, 4, ".mtx") == 0;
  if (!market) {
    in.seekg(0, std::ios::end);
    const auto bytes = static_cast<long long>(in.tellg());
    if (n <= 0) {
      n = static_cast<long long>(std::llround(std::sqrt(static_cast<double>(bytes) / 8)));
    }
    if (n <= 0 || bytes != n * n * 8) {
      throw std::invalid_argument(
          fmt::format("--input {}: {} bytes are not an n x n matrix of doubles{}", path, bytes,
                      n > 0 ? fmt::format(" with n = {}", n) : std::string()));
    }
    std::vector<double> m(static_cast<std::size_t>(n * n));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(m.data()), bytes);
    return m;
  }
  std::string line;
  std::getline(in, line);
  std::istringstream banner(line);
  std::string head, object, format, field, symmetry;
  banner >> head >> object >> format >> field >> symmetry;
  for (auto* s : {&object, &format, &field, &symmetry}) {
    std::transform(s->begin(), s->end(), s->begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
  }
  if (head != "%%MatrixMarket" || object != "matrix" ||
      (format != "coordinate" && format != "array") || (field != "real" && field != "integer") ||
      (symmetry != "general" && symmetry != "symmetric")) {
    throw std::invalid_argument("--input " + path +
                                ": not a real or integer, general or symmetric Matrix Market "
                                "matrix (first line: " +
                                line + ")");
  }
  do {
    if (!std::getline(in, line)) throw std::invalid_argument("--input " + path + ": no size line");
  } while (line.empty() || line[0] == '%');
  std::istringstream size(line);
  long long rows = 0, cols = 0, entries = 0;
  size >> rows >> cols;
  if (format == "coordinate") size >> entries;
  if (!size || rows != cols || rows <= 0) {
    throw std::invalid_argument("--input " + path + ": the matrix is not square (" + line + ")");
  }
  n = rows;
  std::vector<double> m(static_cast<std::size_t>(n * n), 0.0);
  auto at = [&](long long r, long long c) -> double& {
    return m[static_cast<std::size_t>(c * n + r)];
  };
  if (format == "array") {  // column by column; symmetric: the lower triangle only
    for (long long c = 0; c < n; ++c) {
      for (long long r = symmetry == "symmetric" ? c : 0; r < n; ++r) {
        if (!(in >> at(r, c))) throw std::invalid_argument("--input " + path + ": too few values");
        if (symmetry == "symmetric") at(c, r) = at(r, c);
      }
    }
    return m;
  }
  for (long long e = 0; e < entries; ++e) {
    long long r = 0, c = 0;
    double v = 0;
    if (!(in >> r >> c >> v) || r < 1 || c < 1 || r > n || c > n) {
      throw std::invalid_argument(fmt::format(
          "--input {}: entry {} is missing or outside the {} x {} matrix", path, e + 1, n, n));
    }
    at(r - 1, c - 1) = v;
    if (symmetry == "symmetric") at(c - 1, r - 1) = v;
  }
  return m;
}

// The whole matrix written by rank 0, through a temporary file renamed over the target.
void write_matrix(const std::string& path, const std::vector<double>& m, long long n) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("--output: cannot write " + tmp);
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".mtx") == 0) {
      out << "%%MatrixMarket matrix array real general\n% density matrix from relay purify\n"
          << n << ' ' << n << '\n';
      out.precision(17);
      for (double v : m) out << v << '\n';
    } else {
      out.write(reinterpret_cast<const char*>(m.data()),
                static_cast<std::streamsize>(m.size() * sizeof(double)));
    }
    out.flush();
    if (!out) throw std::runtime_error("--output: writing " + tmp + " failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("--output: cannot rename " + tmp + " to " + path);
  }
}

class Purify {
 public:
  explicit Purify(const Args& a) : a_(a) {
    MPI_Comm_dup(MPI_COMM_WORLD, &world_);
    MPI_Comm_rank(world_, &rank_);
    MPI_Comm_size(world_, &size_);
    if (relay_mesh_create(world_, 0, &mesh_) != RELAY_SUCCESS) {
      MPI_Comm_free(&world_);
      throw std::invalid_argument(fmt::format(
          "relay purify runs on a p x p x p mesh: {} ranks are not a cube (1, 8, 27, 64, ...)",
          size_));
    }
    relay_mesh_info(mesh_, &p_, &i_, &j_, &k_);
  }
  ~Purify() {
    relay_mesh_free(&mesh_);
    MPI_Comm_free(&world_);
  }
  int run();

 private:
  // Every plane-0 process's block of a whole matrix held by rank 0 (`whole`), or of `entries`.
  std::vector<double> block_of(const std::vector<double>& whole, const Entries& entries);
  // The blocks of the plane k = 0 gathered into a whole matrix on rank 0.
  std::vector<double> gather(const std::vector<double>& block);

  const Args& a_;
  MPI_Comm world_ = MPI_COMM_NULL;
  relay_mesh_t mesh_ = RELAY_MESH_NULL;
  int rank_ = 0, size_ = 1, p_ = 1, i_ = 0, j_ = 0, k_ = 0;
  long long n_ = 0, r0_ = 0, rows_ = 0, c0_ = 0, cols_ = 0;
};

std::vector<double> Purify::block_of(const std::vector<double>& whole, const Entries& entries) {
  std::vector<double> block(static_cast<std::size_t>(std::max(1LL, rows_) * std::max(1LL, cols_)),
                            0.0);
  if (entries) {
    if (k_ != 0) return block;
    for (long long c = 0; c < cols_; ++c) {
      for (long long r = 0; r < rows_; ++r)
        block[static_cast<std::size_t>(c * rows_ + r)] = entries(r0_ + r, c0_ + c);
    }
    return block;
  }
  // Rank 0 (P(0, 0, 0)) sends each plane-0 process its block.
  if (rank_ == 0) {
    for (int j = p_ - 1; j >= 0; --j) {
      for (int i = p_ - 1; i >= 0; --i) {
        long long r0 = 0, rows = 0, c0 = 0, cols = 0;
        relay_mesh_block(n_, p_, i, &r0, &rows);
        relay_mesh_block(n_, p_, j, &c0, &cols);
        std::vector<double> out(static_cast<std::size_t>(rows * cols));
        for (long long c = 0; c < cols; ++c) {
          for (long long r = 0; r < rows; ++r) {
            out[static_cast<std::size_t>(c * rows + r)] =
                whole[static_cast<std::size_t>((c0 + c) * n_ + r0 + r)];
          }
        }
        if (i == 0 && j == 0) {
          std::copy(out.begin(), out.end(), block.begin());
        } else {
          MPI_Send(out.data(), static_cast<int>(out.size()), MPI_DOUBLE, i + p_ * j, 7, world_);
        }
      }
    }
  } else if (k_ == 0) {
    MPI_Recv(block.data(), static_cast<int>(rows_ * cols_), MPI_DOUBLE, 0, 7, world_,
             MPI_STATUS_IGNORE);
  }
  return block;
}

std::vector<double> Purify::gather(const std::vector<double>& block) {
  std::vector<double> whole;
  if (rank_ != 0) {
    if (k_ == 0) MPI_Send(block.data(), static_cast<int>(rows_ * cols_), MPI_DOUBLE, 0, 8, world_);
    return whole;
  }
  whole.assign(static_cast<std::size_t>(n_ * n_), 0.0);
  std::vector<double> in;
  for (int j = 0; j < p_; ++j) {
    for (int i = 0; i < p_; ++i) {
      long long r0 = 0, rows = 0, c0 = 0, cols = 0;
      relay_mesh_block(n_, p_, i, &r0, &rows);
      relay_mesh_block(n_, p_, j, &c0, &cols);
      in.assign(static_cast<std::size_t>(rows * cols), 0.0);
      if (i == 0 && j == 0) {
        std::copy(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(in.size()),
                  in.begin());
      } else {
        MPI_Recv(in.data(), static_cast<int>(in.size()), MPI_DOUBLE, i + p_ * j, 8, world_,
                 MPI_STATUS_IGNORE);
      }
      for (long long c = 0; c < cols; ++c) {
        for (long long r = 0; r < rows; ++r) {
          whole[static_cast<std::size_t>((c0 + c) * n_ + r0 + r)] =
              in[static_cast<std::size_t>(c * rows + r)];
        }
      }
    }
  }
  return whole;
}

// Each iteration's line, printed as it ends (the run's progress), and its JSON row.
struct Progress {
  int rank = 0;
  nlohmann::json* rows = nullptr;
  bool quiet = false;  ///< no line per iteration (the JSON rows are kept)
};

void on_iteration(const relay_purify_iteration_t* it, void* user) {
  auto* p = static_cast<Progress*>(user);
  if (p->rank != 0) return;
  p->rows->push_back({{"iteration", it->iteration},
                      {"idempotency", it->idempotency},
                      {"trace", it->trace},
                      {"trace_error", it->trace_error},
                      {"c", it->c},
                      {"square_cube_s", it->square_cube_s},
                      {"update_s", it->update_s},
                      {"compute_s", it->stats.compute_s},
                      {"distribute_s", it->stats.distribute_s},
                      {"square_s", it->stats.square_s},
                      {"cube_s", it->stats.cube_s}});
  if (p->quiet) return;
  std::printf("%9d %14.6e %14.6e %8.5f %10.4f %10.4f %10.4f\n", it->iteration, it->idempotency,
              it->trace_error, it->c, it->square_cube_s, it->stats.compute_s, it->update_s);
  std::fflush(stdout);
}

int Purify::run() {
  // The Hamiltonian: rank 0 reads a file (and says its size); generated ones are computed
  // entry by entry where they are needed.
  std::vector<double> whole;
  Entries entries;
  std::string description;
  long long width = 0;
  int read_ok = 1;
  std::string read_error;
  if (!a_.input.empty()) {
    long long n = a_.n;
    if (rank_ == 0) {
      try {
        whole = read_matrix(a_.input, n);
      } catch (const std::invalid_argument& e) {
        read_ok = 0;
        read_error = e.what();
      }
    }
    MPI_Bcast(&read_ok, 1, MPI_INT, 0, world_);
    if (!read_ok) {
      if (rank_ == 0) throw std::invalid_argument(read_error);
      throw std::invalid_argument("reading the input failed on rank 0");
    }
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, world_);
    n_ = n;
    description = fmt::format("{} ({} x {})", a_.input, n_, n_);
  } else {
    if (a_.n < 2) throw std::invalid_argument("--n: a generated Hamiltonian needs n >= 2");
    n_ = a_.n;
    if (a_.model == "chain") {
      entries = chain(a_.hopping, a_.hopping2);
      description = fmt::format("a {}-site dimerized chain (hoppings {} and {})", n_, a_.hopping,
                                a_.hopping2);
    } else {
      entries = graphene(n_, a_.hopping, a_.onsite_gap, width);
      description = fmt::format("a {} x {} graphene flake, {} atoms (hopping {}, on-site +-{})",
                                n_ / width, width, n_, a_.hopping, a_.onsite_gap / 2);
    }
  }
  const double electrons = a_.electrons > 0 ? a_.electrons : static_cast<double>(n_ / 2);
  if (!(electrons > 0 && electrons < static_cast<double>(n_))) {
    throw std::invalid_argument(
        fmt::format("--electrons {} is outside (0, n = {}): every state would be empty or full",
                    electrons, n_));
  }
  relay_mesh_block(n_, p_, i_, &r0_, &rows_);
  relay_mesh_block(n_, p_, j_, &c0_, &cols_);
  const double side = static_cast<double>((n_ + p_ - 1) / p_);
  // Per process: H, D and the iterates' D^2, D^3 blocks plus SymmSquareCube's six buffers;
  // rank 0 also the whole H read and, for the check, H's eigenvectors, the projector and D.
  const double whole_bytes = 8.0 * static_cast<double>(n_) * static_cast<double>(n_);
  require_memory(world_, 11.0 * side * side * 8 + (rank_ == 0 ? 4.0 * whole_bytes : 0.0),
                 fmt::format("relay purify, n = {}", n_));
  const std::vector<double> h = block_of(whole, entries);
  std::vector<double> d(h.size(), 0.0);

  const SymmCollectives collectives = symm_collectives(a_.parts);
  relay_symm_options_t symm;
  relay_symm_options_init(&symm);
  relay_symm_algorithm_t algorithm = RELAY_SYMM_DEFAULT;
  relay_symm_algorithm_from_name(a_.algorithm.c_str(), &algorithm);
  symm.algorithm = algorithm;
  symm.n_dup = a_.n_dup;
  symm.bcast = &collectives.bcast;
  symm.reduce = &collectives.reduce;
  symm.allreduce = &collectives.allreduce;
  nlohmann::json iterations_json = nlohmann::json::array();
  Progress progress{rank_, &iterations_json, a_.quiet};
  relay_purify_options_t options;
  relay_purify_options_init(&options);
  options.tolerance = a_.tolerance;
  options.max_iterations = a_.max_iterations;
  options.symm = &symm;
  options.callback = on_iteration;
  options.user = &progress;
  if (rank_ == 0) {
    std::printf(
        "# relay purify: %s, %g electrons, on a %dx%dx%d mesh (%d ranks); SymmSquareCube %s, "
        "n_dup %d, %s collectives; tolerance %g\n",
        description.c_str(), electrons, p_, p_, p_, size_, a_.algorithm.c_str(), a_.n_dup,
        a_.parts.c_str(), a_.tolerance);
    if (!a_.quiet) {
      std::printf("%9s %14s %14s %8s %10s %10s %10s\n", "iteration", "||D^2-D||_F", "|trD-Ne|", "c",
                  "sq+cube_s", "multiply_s", "update_s");
    }
    std::fflush(stdout);
  }
  const double t0 = MPI_Wtime();
  int iterations = 0;
  const relay_status_t st = relay_purify(mesh_, n_, h.data(), std::max(1LL, rows_), electrons,
                                         d.data(), std::max(1LL, rows_), &options, &iterations);
  const double elapsed = MPI_Wtime() - t0;
  const std::string purify_error = st != RELAY_SUCCESS ? relay_last_error() : "";
  if (st == RELAY_ERR_ARGUMENT && purify_error.find("argument") != std::string::npos &&
      iterations == 0) {
    throw std::invalid_argument(purify_error);  // refused before any iteration: a usage error
  }

  // The reference: the projector onto H's `electrons` lowest eigenvectors (LAPACK dsyevd on
  // rank 0), compared in the max norm.
  nlohmann::json doc = {{"schema", "relay.purify/1"}, {"machine", machine_description(world_)}};
  const bool whole_electrons = std::fabs(electrons - std::round(electrons)) < 1e-12;
  const bool check = a_.check == "on" || (a_.check == "auto" && n_ <= 4096 && whole_electrons);
  const std::vector<double> dense =
      (check || !a_.output.empty()) ? gather(d) : std::vector<double>();
  double max_error = -1, gap = 0;
  if (check && rank_ == 0 && st == RELAY_SUCCESS) {
    if (!whole_electrons)
      throw std::invalid_argument("--check on needs a whole number of electrons");
    std::vector<double> v = whole;
    if (v.empty()) {
      v.resize(static_cast<std::size_t>(n_ * n_));
      for (long long c = 0; c < n_; ++c) {
        for (long long r = 0; r < n_; ++r) v[static_cast<std::size_t>(c * n_ + r)] = entries(r, c);
      }
    }
    std::vector<double> w(static_cast<std::size_t>(n_));
    const double t = MPI_Wtime();
    if (LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', static_cast<lapack_int>(n_), v.data(),
                       static_cast<lapack_int>(n_), w.data()) != 0) {
      throw std::runtime_error("LAPACKE_dsyevd failed on H");
    }
    const auto ne = static_cast<long long>(std::llround(electrons));
    gap = w[static_cast<std::size_t>(ne)] - w[static_cast<std::size_t>(ne - 1)];
    std::vector<double> exact(static_cast<std::size_t>(n_ * n_));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, static_cast<int>(n_), static_cast<int>(n_),
                static_cast<int>(ne), 1.0, v.data(), static_cast<int>(n_), v.data(),
                static_cast<int>(n_), 0.0, exact.data(), static_cast<int>(n_));
    max_error = 0;
    for (std::size_t x = 0; x < exact.size(); ++x)
      max_error = std::max(max_error, std::fabs(exact[x] - dense[x]));
    doc["reference"] = {{"method", "LAPACKE_dsyevd on rank 0"},
                        {"seconds", MPI_Wtime() - t},
                        {"max_abs_error", max_error},
                        {"gap", gap},
                        {"homo", w[static_cast<std::size_t>(ne - 1)]},
                        {"lumo", w[static_cast<std::size_t>(ne)]}};
  }
  if (rank_ != 0) return st == RELAY_SUCCESS ? 0 : kExitFailure;
  const auto& last = iterations_json.empty() ? nlohmann::json() : iterations_json.back();
  if (st == RELAY_SUCCESS) {
    std::printf("# converged in %d iterations, %.3f s: ||D^2 - D||_F = %.3e, |tr D - Ne| = %.3e\n",
                iterations, elapsed, last.value("idempotency", 0.0),
                last.value("trace_error", 0.0));
  } else {
    std::printf("# NOT converged: %s\n", purify_error.c_str());
  }
  if (max_error >= 0) {
    std::printf(
        "# check: max |D - D_eig| = %.3e against the projector onto the %lld lowest "
        "eigenvectors of H (LAPACK dsyevd; HOMO-LUMO gap %.4g)\n",
        max_error, static_cast<long long>(std::llround(electrons)), gap);
  }
  doc["hamiltonian"] = description;
  doc["n"] = n_;
  doc["electrons"] = electrons;
  doc["mesh"] = fmt::format("{}x{}x{}", p_, p_, p_);
  doc["ranks"] = size_;
  doc["symm"] = {{"algorithm", a_.algorithm}, {"n_dup", a_.n_dup}, {"parts", a_.parts}};
  doc["tolerance"] = a_.tolerance;
  doc["converged"] = st == RELAY_SUCCESS;
  if (st != RELAY_SUCCESS) doc["error"] = purify_error;
  doc["seconds"] = elapsed;
  doc["rows"] = iterations_json;
  int rc = st == RELAY_SUCCESS ? 0 : kExitFailure;
  if (!a_.output.empty() && st == RELAY_SUCCESS) {
    write_matrix(a_.output, dense, n_);
    std::printf("# wrote %s\n", a_.output.c_str());
  }
  std::fflush(stdout);
  return std::max(rc, write_results(doc, a_.json_path, a_.plot_path, "purify.py", "relay purify"));
}

}  // namespace

void add_purify(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "purify", "Density-matrix purification (Palser-Manolopoulos) on SymmSquareCube");
  cmd->footer(
      "Run under mpirun on a cube of ranks (1, 8, 27, 64, ...), one BLAS thread per rank:\n"
      "  mpirun -np 8 relay purify --model chain --n 2048\n"
      "  mpirun -np 8 relay purify --model graphene --n 2048 --electrons 1024 --json p.json --plot "
      "p.png\n"
      "  mpirun -np 8 relay purify --input H.mtx --output D.mtx\n"
      "Each iteration computes D^2 and D^3 with relay_symm_square_cube and prints ||D^2 - D||_F,\n"
      "|tr D - Ne|, c and its time. One state per electron (no spin factor): 0 < Ne < n.\n"
      "Models: chain = dimerized (SSH) chain, hoppings --hopping and --hopping2 (gap 2|t1 - t2|);\n"
      "graphene = rectangular honeycomb flake, hopping --hopping, sublattice energies\n"
      "+-onsite-gap/2 (gap >= --onsite-gap). --input: Matrix Market (.mtx: coordinate or array,\n"
      "real, general or symmetric) or raw column-major doubles (--n, or a square file size).\n"
      "--output: .mtx (array) or raw doubles, written by rank 0 through a temporary file.\n"
      "--check (auto: n <= 4096 and whole Ne) compares D with the projector from LAPACK's\n"
      "eigendecomposition of H on rank 0 (max norm).");
  cmd->add_option("--model", args->model, "generated Hamiltonian: chain or graphene")
      ->check(CLI::IsMember({"chain", "graphene"}))
      ->capture_default_str();
  cmd->add_option("--input", args->input, "read H from this file instead (.mtx or raw doubles)");
  cmd->add_option("--n", args->n, "matrix size (states) of a generated H, or of a raw --input")
      ->check(CLI::Range(0LL, 1LL << 40));
  cmd->add_option("--electrons", args->electrons, "occupied states Ne (default n / 2)")
      ->check(CLI::Range(0.0, 1e15));
  cmd->add_option("--hopping", args->hopping, "hopping t (chain: t1)")->capture_default_str();
  cmd->add_option("--hopping2", args->hopping2, "chain: the second hopping t2")
      ->capture_default_str();
  cmd->add_option("--onsite-gap", args->onsite_gap, "graphene: sublattice energy difference")
      ->capture_default_str();
  cmd->add_option("--tolerance", args->tolerance, "stop when ||D^2 - D||_F is below this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-iterations", args->max_iterations, "give up after this many")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--algorithm", args->algorithm,
                  "SymmSquareCube: baseline, overlap or cannon (huang2018 Algorithms 4, 5, 6)")
      ->check(CLI::IsMember({"baseline", "overlap", "cannon"}))
      ->capture_default_str();
  cmd->add_option("--n-dup", args->n_dup, "overlap's parts (1..64)")
      ->check(CLI::Range(1, RELAY_OVERLAP_MAX_DUP))
      ->capture_default_str();
  cmd->add_option("--parts", args->parts, "collectives: relay or mpi")
      ->check(CLI::IsMember({"relay", "mpi"}))
      ->capture_default_str();
  cmd->add_option("--check", args->check, "compare with LAPACK's eigendecomposition: auto, on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->add_option("--output", args->output, "write the converged D here (.mtx or raw doubles)");
  cmd->add_option("--json", args->json_path, "write the iterations as JSON here (atomically)");
  cmd->add_option("--plot", args->plot_path,
                  "draw convergence and time per iteration (needs --json)");
  cmd->add_flag("--quiet", args->quiet,
                "no line per iteration (the summary, --json and --plot are unchanged)");
  cmd->callback([args, cmd, &exit_code] {
    if (!args->plot_path.empty() && args->json_path.empty()) {
      throw CLI::ValidationError("--plot", "needs --json");
    }
    if (!args->input.empty() && cmd->count("--model") > 0) {
      throw CLI::ValidationError("--input", "takes no --model");
    }
    ensure_mpi();
    Purify run(*args);
    exit_code = run.run();
  });
}

}  // namespace relay::cli
