// SymmSquareCube (relay/symm.h): D^2 and D^3 against a serial reference for both algorithms,
// every n_dup, both precisions, relay's and MPI's collectives, sizes that p does not divide
// (and n < p, leaving empty blocks); bad input fails on every process with the argument named
// and writes nothing. Runs on the largest cube of processes the world holds (1, 8, 27), the
// rest of the world checking that a mesh over a non-cube is refused.
#include <cblas.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "relay/symm.h"

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

template <class T>
void check_against_reference(const char* label) {
  Cube cube;
  if (cube.comm == MPI_COMM_NULL) return;
  relay_mesh_t mesh = RELAY_MESH_NULL;
  ASSERT_EQ(relay_mesh_create(cube.comm, 0, &mesh), RELAY_SUCCESS) << relay_last_error();
  relay_bcast_options_t mpi_bcast;
  relay_bcast_options_init(&mpi_bcast);
  ASSERT_EQ(relay_bcast_algorithm_from_name("mpi", &mpi_bcast.algorithm), RELAY_SUCCESS);
  relay_coll_options_t mpi_reduce;
  relay_coll_options_init(&mpi_reduce);
  ASSERT_EQ(relay_coll_algorithm_from_name(RELAY_COLL_REDUCE, "mpi", &mpi_reduce.algorithm),
            RELAY_SUCCESS);
  relay::test::Failures failures;
  for (long long n : {1LL, 2LL, 7LL, 13LL, 40LL}) {
    const Reference ref(n);
    struct Variant {
      relay_symm_algorithm_t algorithm;
      int n_dup;
      bool mpi;
    };
    for (const Variant v :
         {Variant{RELAY_SYMM_BASELINE, 1, false}, Variant{RELAY_SYMM_BASELINE, 1, true},
          Variant{RELAY_SYMM_OVERLAP, 1, false}, Variant{RELAY_SYMM_OVERLAP, 2, false},
          Variant{RELAY_SYMM_OVERLAP, 3, true}, Variant{RELAY_SYMM_OVERLAP, 4, false},
          Variant{RELAY_SYMM_OVERLAP, 8, true}, Variant{RELAY_SYMM_DEFAULT, 0, false}}) {
      Local<T> local(mesh, ref);
      relay_symm_options_t options;
      relay_symm_options_init(&options);
      options.algorithm = v.algorithm;
      options.n_dup = v.n_dup;
      if (v.mpi) {
        options.bcast = &mpi_bcast;
        options.reduce = &mpi_reduce;
      }
      relay_symm_stats_t stats{};
      const relay_status_t st = relay_symm_square_cube(mesh, n, Types<T>::mpi(), local.d.data(),
                                                       local.ld, local.d2.data(), local.ld,
                                                       local.d3.data(), local.ld, &options, &stats);
      const std::string what = std::string(label) + " n=" + std::to_string(n) +
                               " algorithm=" + std::to_string(v.algorithm) +
                               " n_dup=" + std::to_string(v.n_dup) + (v.mpi ? " mpi" : " relay");
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

}  // namespace
