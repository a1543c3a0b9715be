// SymmSquareCube (relay/symm.h): D^2 and D^3 against a serial reference for both algorithms,
// every n_dup, both precisions, relay's and MPI's collectives, sizes that p does not divide
// (and n < p, leaving empty blocks); bad input fails on every process with the argument named
// and writes nothing. Runs on the largest cube of processes the world holds (1, 8, 27), the
// rest of the world checking that a mesh over a non-cube is refused.
#include <cblas.h>
#include <gtest/gtest.h>
#include <lapacke.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "relay/symm.h"
#include "relay/symm.hpp"

namespace {

using relay::test::all_ranks;

// The processes of the largest cube in the world (ranks 0 .. p^3 - 1); MPI_COMM_NULL elsewhere.
struct Cube {
  MPI_Comm comm = MPI_COMM_NULL;
  int p = 0;
  Cube() {
    const int size = relay::test::world_size(), rank = relay::test::world_rank();
    while ((p + 1) * (p + 1) * (p + 1) <= size) ++p;
    MPI_Comm_split(MPI_COMM_WORLD, rank < p * p * p ? 0 : MPI_UNDEFINED, rank, &comm);
  }
  ~Cube() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

// A symmetric matrix with entries of both signs, scaled so that D^3 stays near 1.
double entry(long long n, long long r, long long c) {
  const long long a = r < c ? r : c, b = r < c ? c : r;
  const double x = std::sin(0.37 * static_cast<double>(a + 1) + 1.3 * static_cast<double>(b));
  return x / std::sqrt(static_cast<double>(n));
}

template <class T>
struct Types;
template <>
struct Types<double> {
  static MPI_Datatype mpi() { return MPI_DOUBLE; }
  static constexpr double tolerance = 1e-12;
};
template <>
struct Types<float> {
  static MPI_Datatype mpi() { return MPI_FLOAT; }
  static constexpr double tolerance = 2e-5;
};

struct Reference {
  long long n;
  std::vector<double> d, d2, d3;  // column-major n x n
  explicit Reference(long long size) : n(size) {
    const auto nn = static_cast<std::size_t>(n * n);
    d.resize(nn);
    d2.resize(nn);
    d3.resize(nn);
    for (long long c = 0; c < n; ++c) {
      for (long long r = 0; r < n; ++r) d[static_cast<std::size_t>(c * n + r)] = entry(n, r, c);
    }
    const int m = static_cast<int>(n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, d.data(), m, d.data(), m,
                0.0, d2.data(), m);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, d.data(), m, d2.data(), m,
                0.0, d3.data(), m);
  }
};

// This process's block of D (plane k = 0), with leading dimension ld (rows + 3: not tight).
template <class T>
struct Local {
  long long rows = 0, cols = 0, r0 = 0, c0 = 0, ld = 1;
  std::vector<T> d, d2, d3;
  Local(relay_mesh_t mesh, const Reference& ref) {
    int p = 0, i = 0, j = 0, k = 0;
    relay_mesh_info(mesh, &p, &i, &j, &k);
    relay_mesh_block(ref.n, p, i, &r0, &rows);
    relay_mesh_block(ref.n, p, j, &c0, &cols);
    ld = rows + 3;
    if (k != 0) return;
    const auto size = static_cast<std::size_t>(ld * (cols > 0 ? cols : 1));
    d.assign(size, T(0));
    d2.assign(size, T(-7));
    d3.assign(size, T(-7));
    for (long long c = 0; c < cols; ++c) {
      for (long long r = 0; r < rows; ++r) {
        d[static_cast<std::size_t>(c * ld + r)] =
            static_cast<T>(ref.d[static_cast<std::size_t>((c0 + c) * ref.n + r0 + r)]);
      }
    }
  }
  // The largest error of d2 and d3 against the reference, relative to the largest entry.
  double error(const Reference& ref) const {
    double worst = 0, scale2 = 1e-300, scale3 = 1e-300;
    if (d2.empty()) return 0;  // a process off the plane k = 0 holds nothing
    for (std::size_t x = 0; x < ref.d2.size(); ++x) {
      scale2 = std::fmax(scale2, std::fabs(ref.d2[x]));
      scale3 = std::fmax(scale3, std::fabs(ref.d3[x]));
    }
    for (long long c = 0; c < cols; ++c) {
      for (long long r = 0; r < rows; ++r) {
        const auto g = static_cast<std::size_t>((c0 + c) * ref.n + r0 + r);
        const auto l = static_cast<std::size_t>(c * ld + r);
        worst = std::fmax(worst, std::fabs(static_cast<double>(d2[l]) - ref.d2[g]) / scale2);
        worst = std::fmax(worst, std::fabs(static_cast<double>(d3[l]) - ref.d3[g]) / scale3);
      }
    }
    return worst;
  }
  bool untouched() const {
    for (std::size_t x = 0; x < d2.size(); ++x) {
      if (d2[x] != T(-7) || d3[x] != T(-7)) return false;
    }
    return true;
  }
};

// The MPI library's collectives for every step of the algorithms (the paper's reference).
struct MpiCollectives {
  relay_bcast_options_t bcast;
  relay_coll_options_t reduce, allreduce;
  MpiCollectives() {
    relay_bcast_options_init(&bcast);
    relay_coll_options_init(&reduce);
    relay_coll_options_init(&allreduce);
    EXPECT_EQ(relay_bcast_algorithm_from_name("mpi", &bcast.algorithm), RELAY_SUCCESS);
    EXPECT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_REDUCE, "mpi", &reduce.algorithm),
              RELAY_SUCCESS);
    EXPECT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_ALLREDUCE, "mpi", &allreduce.algorithm),
              RELAY_SUCCESS);
  }
  void use(relay_symm_options_t& options) const {
    options.bcast = &bcast;
    options.reduce = &reduce;
    options.allreduce = &allreduce;
  }
};

template <class T>
void check_against_reference(const char* label) {
  Cube cube;
  if (cube.comm == MPI_COMM_NULL) return;
  relay_mesh_t mesh = RELAY_MESH_NULL;
  ASSERT_EQ(relay_mesh_create(cube.comm, 0, &mesh), RELAY_SUCCESS) << relay_last_error();
  const MpiCollectives mpi_collectives;
  // relay's pipeline in the blocking policy: operations that complete in program order, which
  // the overlapped phases cannot wait for together with the others (they poll instead).
  relay_bcast_options_t blocking_pipeline;
  relay_bcast_options_init(&blocking_pipeline);
  ASSERT_EQ(relay_bcast_algorithm_from_name("pipeline", &blocking_pipeline.algorithm),
            RELAY_SUCCESS);
  blocking_pipeline.policy = RELAY_POLICY_BLOCKING;
  relay::test::Failures failures;
  for (long long n : {1LL, 2LL, 7LL, 13LL, 40LL}) {
    const Reference ref(n);
    struct Variant {
      relay_symm_algorithm_t algorithm;
      int n_dup;
      bool mpi;
      bool blocking = false;  // relay's blocking pipeline for the broadcasts
    };
    for (const Variant v :
         {Variant{RELAY_SYMM_BASELINE, 1, false}, Variant{RELAY_SYMM_BASELINE, 1, true},
          Variant{RELAY_SYMM_OVERLAP, 1, false}, Variant{RELAY_SYMM_OVERLAP, 2, false},
          Variant{RELAY_SYMM_OVERLAP, 3, true}, Variant{RELAY_SYMM_OVERLAP, 4, false},
          Variant{RELAY_SYMM_OVERLAP, 8, true}, Variant{RELAY_SYMM_OVERLAP, 2, false, true},
          Variant{RELAY_SYMM_DEFAULT, 0, false}}) {
      Local<T> local(mesh, ref);
      relay_symm_options_t options;
      relay_symm_options_init(&options);
      options.algorithm = v.algorithm;
      options.n_dup = v.n_dup;
      if (v.mpi) mpi_collectives.use(options);
      if (v.blocking) options.bcast = &blocking_pipeline;
      relay_symm_stats_t stats{};
      const relay_status_t st = relay_symm_square_cube(mesh, n, Types<T>::mpi(), local.d.data(),
                                                       local.ld, local.d2.data(), local.ld,
                                                       local.d3.data(), local.ld, &options, &stats);
      const std::string what = std::string(label) + " n=" + std::to_string(n) +
                               " algorithm=" + std::to_string(v.algorithm) +
                               " n_dup=" + std::to_string(v.n_dup) + (v.mpi ? " mpi" : " relay") +
                               (v.blocking ? " blocking pipeline" : "");
      if (st != RELAY_SUCCESS) {
        failures.add(what + ": " + relay_last_error());
        continue;
      }
      const double err = local.error(ref);
      if (!(err <= Types<T>::tolerance)) failures.add(what + ": error " + std::to_string(err));
      if (stats.total_s <= 0 || stats.compute_s < 0) failures.add(what + ": stats not filled");
    }
  }
  failures.report(cube.comm);
  relay_mesh_free(&mesh);
}

TEST(Symm, SquareAndCubeDouble) { check_against_reference<double>("double"); }
TEST(Symm, SquareAndCubeFloat) { check_against_reference<float>("float"); }

// huang2018 Algorithm 6 on every q x q x c mesh (c dividing q) the world holds: D^2 and D^3
// against the serial reference, blocking (n_dup 1) and overlapped, relay's and MPI's
// collectives, n not divisible by q and n < q.
template <class T>
void check_cannon(const char* label) {
  const int size = relay::test::world_size(), rank = relay::test::world_rank();
  const MpiCollectives mpi_collectives;
  for (int q = 1; q * q <= size; ++q) {
    for (int c = 1; c <= q && q * q * c <= size; ++c) {
      if (q % c != 0) continue;
      MPI_Comm comm = MPI_COMM_NULL;
      MPI_Comm_split(MPI_COMM_WORLD, rank < q * q * c ? 0 : MPI_UNDEFINED, rank, &comm);
      if (comm == MPI_COMM_NULL) continue;
      relay_mesh_t mesh = RELAY_MESH_NULL;
      ASSERT_EQ(relay_mesh_create_layered(comm, q, c, &mesh), RELAY_SUCCESS) << relay_last_error();
      int layers = 0;
      ASSERT_EQ(relay_mesh_layers(mesh, &layers), RELAY_SUCCESS);
      EXPECT_EQ(layers, c);
      relay::test::Failures failures;
      for (long long n : {1LL, 2LL, 7LL, 13LL, 40LL}) {
        const Reference ref(n);
        for (int n_dup : {1, 3}) {
          for (bool mpi : {false, true}) {
            Local<T> local(mesh, ref);
            relay_symm_options_t options;
            relay_symm_options_init(&options);
            options.algorithm = RELAY_SYMM_CANNON;
            options.n_dup = n_dup;
            if (mpi) mpi_collectives.use(options);
            relay_symm_stats_t stats{};
            const relay_status_t st = relay_symm_square_cube(
                mesh, n, Types<T>::mpi(), local.d.data(), local.ld, local.d2.data(), local.ld,
                local.d3.data(), local.ld, &options, &stats);
            const std::string what = std::string(label) + " " + std::to_string(q) + "x" +
                                     std::to_string(q) + "x" + std::to_string(c) +
                                     " n=" + std::to_string(n) + " n_dup=" + std::to_string(n_dup) +
                                     (mpi ? " mpi" : " relay");
            if (st != RELAY_SUCCESS) {
              failures.add(what + ": " + relay_last_error());
              continue;
            }
            const double err = local.error(ref);
            if (!(err <= Types<T>::tolerance))
              failures.add(what + ": error " + std::to_string(err));
            if (stats.total_s <= 0) failures.add(what + ": stats not filled");
          }
        }
      }
      failures.report(comm);
      relay_mesh_free(&mesh);
      MPI_Comm_free(&comm);
    }
  }
}

TEST(Symm, CannonSquareAndCubeDouble) { check_cannon<double>("double"); }
TEST(Symm, CannonSquareAndCubeFloat) { check_cannon<float>("float"); }

// A layered mesh: its size is checked; Algorithm 6 needs c to divide q, the others a cube.
TEST(Symm, LayeredMeshRulesFailEverywhere) {
  const int size = relay::test::world_size();
  relay_mesh_t mesh = RELAY_MESH_NULL;
  EXPECT_EQ(relay_mesh_create_layered(MPI_COMM_WORLD, 1, size + 1, &mesh), RELAY_ERR_COUNT);
  EXPECT_NE(std::string(relay_last_error()).find("needs " + std::to_string(size + 1)),
            std::string::npos)
      << relay_last_error();
  EXPECT_EQ(mesh, RELAY_MESH_NULL);
  EXPECT_EQ(relay_mesh_create_layered(MPI_COMM_WORLD, 0, 1, &mesh), RELAY_ERR_COUNT);
  EXPECT_EQ(relay_mesh_create_layered(MPI_COMM_WORLD, 1, 0, &mesh), RELAY_ERR_COUNT);
  // 1 x 1 x size: c does not divide q (size > 1); and not a cube for the baseline either.
  ASSERT_EQ(relay_mesh_create_layered(MPI_COMM_WORLD, 1, size, &mesh), RELAY_SUCCESS)
      << relay_last_error();
  const Reference ref(5);
  Local<double> local(mesh, ref);
  for (relay_symm_algorithm_t algorithm : {RELAY_SYMM_CANNON, RELAY_SYMM_BASELINE}) {
    relay_symm_options_t options;
    relay_symm_options_init(&options);
    options.algorithm = algorithm;
    const relay_status_t st =
        relay_symm_square_cube(mesh, 5, MPI_DOUBLE, local.d.data(), local.ld, local.d2.data(),
                               local.ld, local.d3.data(), local.ld, &options, nullptr);
    if (size == 1) {
      EXPECT_EQ(st, RELAY_SUCCESS) << relay_last_error();
      continue;
    }
    EXPECT_EQ(st, RELAY_ERR_ALGORITHM);
    const std::string expected = algorithm == RELAY_SYMM_CANNON ? "divide" : "p x p x p";
    EXPECT_NE(std::string(relay_last_error()).find(expected), std::string::npos)
        << relay_last_error();
    EXPECT_TRUE(local.untouched());
  }
  relay_symm_algorithm_t parsed = RELAY_SYMM_DEFAULT;
  EXPECT_EQ(relay_symm_algorithm_from_name("cannon", &parsed), RELAY_SUCCESS);
  EXPECT_EQ(parsed, RELAY_SYMM_CANNON);
  relay_mesh_free(&mesh);
}

TEST(Symm, MeshOfANonCubeIsRefusedEverywhere) {
  const int size = relay::test::world_size();
  relay_mesh_t mesh = RELAY_MESH_NULL;
  const relay_status_t st = relay_mesh_create(MPI_COMM_WORLD, 0, &mesh);
  Cube cube;
  if (size == cube.p * cube.p * cube.p) {
    EXPECT_EQ(st, RELAY_SUCCESS) << relay_last_error();
    int p = 0, i = 0, j = 0, k = 0;
    ASSERT_EQ(relay_mesh_info(mesh, &p, &i, &j, &k), RELAY_SUCCESS);
    EXPECT_EQ(i + p * (j + p * k), relay::test::world_rank());
    relay_mesh_free(&mesh);
  } else {
    EXPECT_EQ(st, RELAY_ERR_COUNT);
    EXPECT_NE(std::string(relay_last_error()).find("not a cube"), std::string::npos)
        << relay_last_error();
    EXPECT_EQ(mesh, RELAY_MESH_NULL);
  }
  // p given: it must match the size.
  EXPECT_EQ(relay_mesh_create(MPI_COMM_WORLD, 3, &mesh),
            size == 27 ? RELAY_SUCCESS : RELAY_ERR_COUNT);
  if (mesh != RELAY_MESH_NULL) relay_mesh_free(&mesh);
  long long first = -1, block = -1;
  ASSERT_EQ(relay_mesh_block(10, 3, 0, &first, &block), RELAY_SUCCESS);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(block, 4);
  ASSERT_EQ(relay_mesh_block(10, 3, 2, &first, &block), RELAY_SUCCESS);
  EXPECT_EQ(first, 7);
  EXPECT_EQ(block, 3);
  EXPECT_EQ(relay_mesh_block(10, 3, 3, &first, &block), RELAY_ERR_COUNT);
}

// Each bad input fails on every process of the mesh, named, and leaves D^2 and D^3 untouched.
TEST(Symm, BadInputFailsEverywhereAndWritesNothing) {
  Cube cube;
  if (cube.comm == MPI_COMM_NULL) return;
  relay_mesh_t mesh = RELAY_MESH_NULL;
  ASSERT_EQ(relay_mesh_create(cube.comm, cube.p, &mesh), RELAY_SUCCESS) << relay_last_error();
  int rank = 0;
  MPI_Comm_rank(cube.comm, &rank);
  const long long n = 11;
  const Reference ref(n);
  struct Case {
    const char* name;
    relay_status_t expected;
    const char* text;
  };
  const Case cases[] = {
      {"not symmetric", RELAY_ERR_ARGUMENT, "not symmetric"},
      {"n negative on the last process", RELAY_ERR_COUNT, "argument 2"},
      {"ldd too small on the first process", RELAY_ERR_ARGUMENT, "argument 5"},
      {"n_dup too large", RELAY_ERR_NDUP, "n_dup"},
      {"an integer type", RELAY_ERR_DATATYPE, "argument 3"},
      {"d2 is d3", RELAY_ERR_BUFFER, "argument 8"},
  };
  relay::test::Failures failures;
  for (int c = 0; c < static_cast<int>(sizeof cases / sizeof cases[0]); ++c) {
    Local<double> local(mesh, ref);
    relay_symm_options_t options;
    relay_symm_options_init(&options);
    long long my_n = n, ldd = local.ld;
    MPI_Datatype type = MPI_DOUBLE;
    void* d3 = local.d3.data();
    switch (c) {
      case 0:  // one entry off the diagonal changed, on the process holding block (0, last)
        if (!local.d.empty() && local.c0 + local.cols == n && local.r0 == 0) {
          local.d[static_cast<std::size_t>((local.cols - 1) * local.ld)] += 0.5;  // D(0, n - 1)
        }
        break;
      case 1:
        if (rank == cube.p * cube.p * cube.p - 1) my_n = -1;
        break;
      case 2:
        if (rank == 0) ldd = local.rows - 1;
        break;
      case 3:
        options.n_dup = 65;
        break;
      case 4:
        type = MPI_INT;
        break;
      case 5:
        d3 = local.d2.data();
        break;
    }
    const relay_status_t st =
        relay_symm_square_cube(mesh, my_n, type, local.d.data(), ldd, local.d2.data(), local.ld, d3,
                               local.ld, &options, nullptr);
    const std::string message = relay_last_error();
    if (st == RELAY_SUCCESS) {
      // n < p leaves no block for some processes; every case here has data on process 0.
      failures.add(std::string(cases[c].name) + ": succeeded");
      continue;
    }
    // The process whose argument was bad reports it; the others report that it failed.
    const bool own = message.find(cases[c].text) != std::string::npos;
    const bool relayed = message.find("reported") != std::string::npos;
    if (st != cases[c].expected || !(own || relayed)) {
      failures.add(std::string(cases[c].name) + ": status " + std::to_string(st) + ": " + message);
    }
    if (!local.untouched()) failures.add(std::string(cases[c].name) + ": D^2 or D^3 written");
  }
  failures.report(cube.comm);
  // The mesh still works after every failure.
  Local<double> local(mesh, ref);
  ASSERT_EQ(relay_symm_square_cube(mesh, n, MPI_DOUBLE, local.d.data(), local.ld, local.d2.data(),
                                   local.ld, local.d3.data(), local.ld, nullptr, nullptr),
            RELAY_SUCCESS)
      << relay_last_error();
  EXPECT_TRUE(all_ranks(local.error(ref) <= 1e-12, cube.comm));
  relay_mesh_free(&mesh);
}

// Purification of a dimerized chain converges to the projector onto its lowest eigenvectors
// (LAPACK's, on every process), keeps the trace, and reports each iteration.
TEST(Symm, PurificationMatchesTheEigendecomposition) {
  Cube cube;
  if (cube.comm == MPI_COMM_NULL) return;
  relay_mesh_t mesh = RELAY_MESH_NULL;
  ASSERT_EQ(relay_mesh_create(cube.comm, 0, &mesh), RELAY_SUCCESS) << relay_last_error();
  const long long n = 37;  // odd: blocks of different sizes
  const int electrons = 18;
  auto h_entry = [](long long r, long long c) {
    if (r - c != 1 && c - r != 1) return r == c ? 0.05 * static_cast<double>(r % 3) : 0.0;
    return std::min(r, c) % 2 == 0 ? -1.0 : -0.6;
  };
  int p = 0, i = 0, j = 0, k = 0;
  relay_mesh_info(mesh, &p, &i, &j, &k);
  long long r0 = 0, rows = 0, c0 = 0, cols = 0;
  relay_mesh_block(n, p, i, &r0, &rows);
  relay_mesh_block(n, p, j, &c0, &cols);
  const long long ld = rows > 0 ? rows : 1;
  std::vector<double> h(static_cast<std::size_t>(ld * (cols > 0 ? cols : 1)), 0.0),
      d(h.size(), -7.0);
  for (long long c = 0; c < cols; ++c) {
    for (long long r = 0; r < rows; ++r)
      h[static_cast<std::size_t>(c * ld + r)] = h_entry(r0 + r, c0 + c);
  }
  std::vector<double> full(static_cast<std::size_t>(n * n)), w(static_cast<std::size_t>(n));
  for (long long c = 0; c < n; ++c) {
    for (long long r = 0; r < n; ++r) full[static_cast<std::size_t>(c * n + r)] = h_entry(r, c);
  }
  ASSERT_EQ(LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', static_cast<int>(n), full.data(),
                           static_cast<int>(n), w.data()),
            0);
  std::vector<double> exact(static_cast<std::size_t>(n * n));
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(n),
              electrons, 1.0, full.data(), static_cast<int>(n), full.data(), static_cast<int>(n),
              0.0, exact.data(), static_cast<int>(n));
  struct Seen {
    int calls = 0;
    double last = 0, trace_error = 0;
  } seen;
  relay_purify_options_t options;
  relay_purify_options_init(&options);
  options.tolerance = 1e-10;
  options.user = &seen;
  options.callback = [](const relay_purify_iteration_t* it, void* user) {
    auto* s = static_cast<Seen*>(user);
    ++s->calls;
    s->last = it->idempotency;
    s->trace_error = std::fmax(s->trace_error, it->trace_error);
  };
  int iterations = 0;
  ASSERT_EQ(relay_purify(mesh, n, h.data(), ld, electrons, d.data(), ld, &options, &iterations),
            RELAY_SUCCESS)
      << relay_last_error();
  EXPECT_EQ(seen.calls, iterations);
  EXPECT_LT(seen.last, 1e-10);
  EXPECT_LT(seen.trace_error, 1e-9);
  double worst = 0;
  if (k == 0) {
    for (long long c = 0; c < cols; ++c) {
      for (long long r = 0; r < rows; ++r) {
        worst = std::fmax(worst, std::fabs(d[static_cast<std::size_t>(c * ld + r)] -
                                           exact[static_cast<std::size_t>((c0 + c) * n + r0 + r)]));
      }
    }
  }
  EXPECT_TRUE(all_ranks(worst < 1e-8, cube.comm)) << "max error " << worst;

  // Bad input: every process fails, d is not written.
  std::vector<double> untouched(h.size(), -7.0), out = untouched;
  EXPECT_EQ(relay_purify(mesh, n, h.data(), ld, 0.0, out.data(), ld, nullptr, nullptr),
            RELAY_ERR_ARGUMENT);
  EXPECT_NE(std::string(relay_last_error()).find("argument 5"), std::string::npos)
      << relay_last_error();
  EXPECT_EQ(
      relay_purify(mesh, n, h.data(), ld, static_cast<double>(n), out.data(), ld, nullptr, nullptr),
      RELAY_ERR_ARGUMENT);
  std::vector<double> skew = h;
  if (k == 0 && r0 == 0 && c0 + cols == n) skew[static_cast<std::size_t>((cols - 1) * ld)] += 1.0;
  EXPECT_EQ(relay_purify(mesh, n, skew.data(), ld, electrons, out.data(), ld, nullptr, nullptr),
            RELAY_ERR_ARGUMENT);
  EXPECT_NE(std::string(relay_last_error()).find("not symmetric"), std::string::npos)
      << relay_last_error();
  EXPECT_TRUE(all_ranks(out == untouched, cube.comm));

  // A Fermi level inside a degenerate level (H = diag(0, 1, 1, 2, ...) with the first level
  // and one of the two at 1 occupied): no projector of that trace exists; the call stops
  // with a reason instead of iterating to its limit.
  std::vector<double> degenerate(h.size(), 0.0);
  for (long long c = 0; c < cols && k == 0; ++c) {
    for (long long r = 0; r < rows; ++r) {
      const long long g = r0 + r;
      if (g == c0 + c)
        degenerate[static_cast<std::size_t>(c * ld + r)] = g == 0 ? 0.0 : g <= 2 ? 1.0 : 2.0;
    }
  }
  EXPECT_EQ(relay_purify(mesh, n, degenerate.data(), ld, 2.0, out.data(), ld, nullptr, &iterations),
            RELAY_ERR_ARGUMENT);
  EXPECT_LT(iterations, 200) << relay_last_error();
  relay_mesh_free(&mesh);
}

// ScaLAPACK numroc: how many of n indices in blocks of nb process iproc of nprocs holds.
long long numroc(long long n, long long nb, int iproc, int nprocs) {
  const long long blocks = n / nb, extra = n % nb;
  long long count = blocks / nprocs * nb;
  const long long rest = blocks % nprocs;
  if (iproc < rest) {
    count += nb;
  } else if (iproc == rest) {
    count += extra;
  }
  return count;
}

// From and to the 2D block-cyclic layout: the same D^2 and D^3 whatever the grid and blocks.
TEST(Symm, FromAndToTheBlockCyclicLayout) {
  Cube cube;
  if (cube.comm == MPI_COMM_NULL) return;
  int size = 0, rank = 0;
  MPI_Comm_size(cube.comm, &size);
  MPI_Comm_rank(cube.comm, &rank);
  relay_mesh_t mesh = RELAY_MESH_NULL;
  ASSERT_EQ(relay_mesh_create(cube.comm, 0, &mesh), RELAY_SUCCESS);
  const int rows = cube.p, cols = size / cube.p;  // 1x1, 2x4, 3x9
  relay_grid_t grid = RELAY_GRID_NULL;
  ASSERT_EQ(relay_grid_create(cube.comm, rows, cols, 'C', &grid), RELAY_SUCCESS);
  int my_row = 0, my_col = 0;
  relay_grid_info(grid, nullptr, nullptr, &my_row, &my_col);
  relay::test::Failures failures;
  for (long long n : {5LL, 23LL}) {
    const Reference ref(n);
    for (long long nb : {2LL, 7LL}) {
      const long long lr = numroc(n, nb, my_row, rows), lc = numroc(n, nb, my_col, cols);
      const long long lld = lr > 0 ? lr : 1;
      const relay_matrix_desc_t desc = {n, n, nb, nb, 0, 0, 0, 0, lld};
      std::vector<double> d(static_cast<std::size_t>(lld * (lc > 0 ? lc : 1)), 0.0), d2(d.size()),
          d3(d.size());
      auto global_of = [&](long long l, long long bsize, int proc, int nprocs) {
        return (l / bsize * nprocs + proc) * bsize + l % bsize;
      };
      for (long long c = 0; c < lc; ++c) {
        for (long long r = 0; r < lr; ++r) {
          d[static_cast<std::size_t>(c * lld + r)] = ref.d[static_cast<std::size_t>(
              global_of(c, nb, my_col, cols) * n + global_of(r, nb, my_row, rows))];
        }
      }
      relay_symm_options_t options;
      relay_symm_options_init(&options);
      if (relay_symm_square_cube_2d(mesh, grid, n, MPI_DOUBLE, d.data(), &desc, d2.data(), &desc,
                                    d3.data(), &desc, &options, nullptr) != RELAY_SUCCESS) {
        failures.add("n=" + std::to_string(n) + " nb=" + std::to_string(nb) + ": " +
                     relay_last_error());
        continue;
      }
      double worst = 0;
      for (long long c = 0; c < lc; ++c) {
        for (long long r = 0; r < lr; ++r) {
          const auto g = static_cast<std::size_t>(global_of(c, nb, my_col, cols) * n +
                                                  global_of(r, nb, my_row, rows));
          worst =
              std::fmax(worst, std::fabs(d2[static_cast<std::size_t>(c * lld + r)] - ref.d2[g]));
          worst =
              std::fmax(worst, std::fabs(d3[static_cast<std::size_t>(c * lld + r)] - ref.d3[g]));
        }
      }
      if (!(worst < 1e-12))
        failures.add("n=" + std::to_string(n) + " error " + std::to_string(worst));
    }
  }
  // A descriptor of the wrong size fails every process, naming it.
  const relay_matrix_desc_t wrong = {4, 4, 2, 2, 0, 0, 0, 0, 4};
  std::vector<double> x(64, 0.0);
  if (relay_symm_square_cube_2d(mesh, grid, 5, MPI_DOUBLE, x.data(), &wrong, x.data() + 16, &wrong,
                                x.data() + 32, &wrong, nullptr, nullptr) != RELAY_ERR_ARGUMENT) {
    failures.add("a 4 x 4 descriptor for n = 5 was accepted");
  }
  failures.report(cube.comm);
  relay_grid_free(&grid);
  relay_mesh_free(&mesh);
}

// The C++ interface: the same results, and a relay::Error (on every process) for bad input.
TEST(Symm, CppInterface) {
  Cube cube;
  if (cube.comm == MPI_COMM_NULL) return;
  relay::Mesh mesh(cube.comm);
  const long long n = 9;
  const Reference ref(n);
  Local<double> local(mesh.handle(), ref);
  const relay_symm_stats_t stats = relay::square_cube(
      mesh, n, local.d.data(), local.ld, local.d2.data(), local.ld, local.d3.data(), local.ld);
  EXPECT_GT(stats.total_s, 0.0);
  EXPECT_TRUE(all_ranks(local.error(ref) <= 1e-12, cube.comm));
  EXPECT_EQ(mesh.block(n, 0).first, 0);
  bool threw = false;
  try {
    relay::square_cube<double>(mesh, -1, nullptr, 1, nullptr, 1, nullptr, 1);
  } catch (const relay::Error& e) {
    threw = e.status() == RELAY_ERR_COUNT;
  }
  EXPECT_TRUE(threw);
  EXPECT_THROW(relay::Mesh(MPI_COMM_SELF, 2), relay::Error);
  // Algorithm 6 on the same processes as a p x p x p mesh made by layered().
  relay::Mesh layered = relay::Mesh::layered(cube.comm, cube.p, cube.p);
  EXPECT_EQ(layered.layers(), cube.p);
  Local<double> again(layered.handle(), ref);
  relay::SymmOptions options;
  options.algorithm = RELAY_SYMM_CANNON;
  relay::square_cube(layered, n, again.d.data(), again.ld, again.d2.data(), again.ld,
                     again.d3.data(), again.ld, options);
  EXPECT_TRUE(all_ranks(again.error(ref) <= 1e-12, cube.comm));
  EXPECT_THROW(relay::Mesh::layered(MPI_COMM_SELF, 1, 2), relay::Error);
}

}  // namespace
