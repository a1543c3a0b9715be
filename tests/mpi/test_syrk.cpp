// The engine of relay's p?syrk_ (gemm::Problem::triangle): sub(C) := alpha op(A) op(A)^T +
// beta sub(C) on one triangle, against Debian ScaLAPACK's own p?syrk_ on the same BLACS grid,
// in the four precisions, both triangles, both transposes, offsets into A and C, block sizes
// of A and C that differ, and beta = 0. The other triangle (filled with NaN) and everything
// outside sub(C) must come back bit for bit; the triangle within a few rounding errors of
// ScaLAPACK's. A file of its own: namespace relay::gemm (the engine's) and the function
// relay::gemm (relay/gemm.hpp) cannot meet in one translation unit.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"
#include "layout/descriptor.hpp"
#include "scalapack/prototypes.h"
namespace {

template <class T>
struct Kind;
template <>
struct Kind<float> {
  static constexpr MPI_Datatype type() { return MPI_FLOAT; }
  static constexpr auto* psyrk = pssyrk_;
  static constexpr const char* name = "float";
};
template <>
struct Kind<double> {
  static constexpr MPI_Datatype type() { return MPI_DOUBLE; }
  static constexpr auto* psyrk = pdsyrk_;
  static constexpr const char* name = "double";
};
template <>
struct Kind<std::complex<float>> {
  static constexpr MPI_Datatype type() { return MPI_C_FLOAT_COMPLEX; }
  static constexpr auto* psyrk = pcsyrk_;
  static constexpr const char* name = "complex float";
};
template <>
struct Kind<std::complex<double>> {
  static constexpr MPI_Datatype type() { return MPI_C_DOUBLE_COMPLEX; }
  static constexpr auto* psyrk = pzsyrk_;
  static constexpr const char* name = "complex double";
};

template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    const R re = static_cast<R>(u(rng));
    return T(re, static_cast<R>(u(rng)));
  } else {
    return static_cast<T>(u(rng));
  }
}

template <class T>
T nan_value() {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

// A BLACS grid over MPI_COMM_WORLD and relay's grid on its communicator.
struct Grid {
  int ctxt = -1, nprow = 0, npcol = 0, myrow = -1, mycol = -1;
  relay_grid* relay = nullptr;
};

Grid make_grid(int nprow, int npcol) {
  Grid g;
  Cblacs_get(-1, 0, &g.ctxt);
  Cblacs_gridinit(&g.ctxt, "Row", nprow, npcol);
  Cblacs_gridinfo(g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  int handle = 0;
  Cblacs_get(g.ctxt, 10, &handle);
  std::string error;
  EXPECT_EQ(relay::gemm::grid_of_comm(Cblacs2sys_handle(handle), nprow, npcol, &g.relay, error),
            RELAY_SUCCESS)
      << error;
  return g;
}

// A distributed matrix: descriptor and this process's local array, global entry (i, j) from
// `entry` (0-based).
template <class T>
struct Local {
  int desc[9] = {0};
  std::vector<T> data;
};

template <class T, class Entry>
Local<T> distribute(const Grid& g, int m, int n, int mb, int nb, int rsrc, int csrc, Entry entry) {
  Local<T> x;
  const int mloc = numroc_(&m, &mb, &g.myrow, &rsrc, &g.nprow);
  const int nloc = numroc_(&n, &nb, &g.mycol, &csrc, &g.npcol);
  const int lld = std::max(1, mloc);
  int info = 0;
  descinit_(x.desc, &m, &n, &mb, &nb, &rsrc, &csrc, &g.ctxt, &lld, &info);
  EXPECT_EQ(info, 0);
  x.data.assign(static_cast<std::size_t>(lld) * static_cast<std::size_t>(std::max(1, nloc)), T(0));
  for (int lj = 0; lj < nloc; ++lj) {
    const int pj = (g.mycol - csrc + g.npcol) % g.npcol;
    const int j = ((lj / nb) * g.npcol + pj) * nb + lj % nb;
    for (int li = 0; li < mloc; ++li) {
      const int pi = (g.myrow - rsrc + g.nprow) % g.nprow;
      const int i = ((li / mb) * g.nprow + pi) * mb + li % mb;
      x.data[static_cast<std::size_t>(li) + static_cast<std::size_t>(lj) * lld] = entry(i, j);
    }
  }
  return x;
}

// Where A and C start (1-based, as PBLAS takes them) and their blocks.
struct Layout {
  int ia, ja, ic, jc;
  int a_block, c_block;
  bool c_on_last_row;  // C's first block on the last process row, else on row 0
};

template <class T>
void check_syrk(const Grid& g, const Layout& at) {
  using R = decltype(std::abs(T{}));
  const int n = 29, k = 13;
  const int ia = at.ia, ja = at.ja, ic = at.ic, jc = at.jc, ab = at.a_block, cb = at.c_block;
  std::mt19937_64 rng(11);
  // A's entries fixed by (i, j) on every process; C's too, NaN outside sub(C)'s triangle.
  std::vector<T> a_values(64 * 64), c_values(64 * 64);
  for (T& v : a_values) v = random_value<T>(rng);
  for (T& v : c_values) v = random_value<T>(rng);
  const T alpha = static_cast<T>(0.75), betas[2] = {static_cast<T>(-0.5), T(0)};
  for (char uplo : {'L', 'U'}) {
    // Inside sub(C)'s triangle (0-based global entry).
    auto inside = [&](int i, int j) {
      const int si = i - (ic - 1), sj = j - (jc - 1);
      if (si < 0 || sj < 0 || si >= n || sj >= n) return false;
      return uplo == 'L' ? si >= sj : si <= sj;
    };
    for (char trans : {'N', 'T'}) {
      for (const T beta : betas) {
        const int am = trans == 'N' ? ia - 1 + n : ia - 1 + k;
        const int an = trans == 'N' ? ja - 1 + k : ja - 1 + n;
        Local<T> a = distribute<T>(g, am, an, ab, ab, 0, 0,
                                   [&](int i, int j) { return a_values[i * 64 + j]; });
        const int rsrc = at.c_on_last_row ? g.nprow - 1 : 0;
        Local<T> c0 = distribute<T>(g, ic - 1 + n, jc - 1 + n, cb, cb, rsrc, 0, [&](int i, int j) {
          return inside(i, j) && beta != T(0) ? c_values[i * 64 + j] : nan_value<T>();
        });
        Local<T> reference = c0, ours = c0;
        Kind<T>::psyrk(&uplo, &trans, &n, &k, &alpha, a.data.data(), &ia, &ja, a.desc, &beta,
                       reference.data.data(), &ic, &jc, c0.desc);

        relay::gemm::Problem p;
        p.triangle = uplo;
        p.transa = trans;
        p.transb = trans == 'N' ? 'T' : 'N';
        ASSERT_TRUE(relay::gemm::parse_op(p.transa, p.opa));
        ASSERT_TRUE(relay::gemm::parse_op(p.transb, p.opb));
        p.m = p.n = n;
        p.k = k;
        p.type = Kind<T>::type();
        p.alpha = &alpha;
        p.beta = &beta;
        p.a = p.b = a.data.data();
        p.ia = p.ib = ia - 1;
        p.ja = p.jb = ja - 1;
        p.desca = p.descb = relay::layout::descriptor_from_fortran(a.desc);
        p.c = ours.data.data();
        p.ic = ic - 1;
        p.jc = jc - 1;
        p.descc = relay::layout::descriptor_from_fortran(c0.desc);
        p.ctxt = g.ctxt;
        std::string message;
        ASSERT_EQ(relay::gemm::check_arguments(p, *g.relay, message), 0) << message;
        relay::gemm::Options options;
        std::string error;
        ASSERT_EQ(relay::gemm::resolve_options(nullptr, options, error), RELAY_SUCCESS) << error;
        relay_gemm_stats_t stats;
        ASSERT_EQ(relay::gemm::multiply(p, *g.relay, options, stats, error), RELAY_SUCCESS)
            << error;

        // Compare entry by entry, knowing each local entry's global place.
        const int m_c = ic - 1 + n, n_c = jc - 1 + n, zero = 0;
        const int mloc = numroc_(&m_c, &cb, &g.myrow, &rsrc, &g.nprow);
        const int nloc = numroc_(&n_c, &cb, &g.mycol, &zero, &g.npcol);
        const int lld = c0.desc[8];
        const R tolerance = static_cast<R>(32 * k) * std::numeric_limits<R>::epsilon();
        int wrong = 0, touched = 0;
        for (int lj = 0; lj < nloc; ++lj) {
          const int j = ((lj / cb) * g.npcol + g.mycol) * cb + lj % cb;
          for (int li = 0; li < mloc; ++li) {
            const int pi = (g.myrow - rsrc + g.nprow) % g.nprow;
            const int i = ((li / cb) * g.nprow + pi) * cb + li % cb;
            const std::size_t at =
                static_cast<std::size_t>(li) + static_cast<std::size_t>(lj) * lld;
            if (inside(i, j)) {
              const R scale = std::max(R(1), std::abs(reference.data[at]));
              if (!(std::abs(ours.data[at] - reference.data[at]) <= tolerance * scale)) ++wrong;
            } else if (std::memcmp(&ours.data[at], &c0.data[at], sizeof(T)) != 0) {
              ++touched;
            }
          }
        }
        EXPECT_EQ(wrong, 0) << Kind<T>::name << " uplo " << uplo << " trans " << trans << " beta "
                            << std::abs(beta) << " on " << g.nprow << "x" << g.npcol << " A(" << ia
                            << "," << ja << ") C(" << ic << "," << jc << ")";
        EXPECT_EQ(touched, 0) << Kind<T>::name << " uplo " << uplo << " trans " << trans
                              << ": entries outside the triangle were written";
      }
    }
  }
}

TEST(Syrk, TriangleAgreesWithScalapackEverywhere) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::pair<int, int>> shapes = {{1, size}, {size, 1}};
  for (int r = 2; r < size; ++r) {
    if (size % r == 0) shapes.emplace_back(r, size / r);
  }
  for (auto [rows, cols] : shapes) {
    Grid g = make_grid(rows, cols);
    ASSERT_NE(g.relay, nullptr);
    // Blocks of A and C that differ, C starting elsewhere: both panels redistributed. Then
    // p?potrf's own calls, A and C in one matrix: sub(A)'s rows (TRANS = 'N') or columns
    // ('T') fall where sub(C)'s do, and on a square grid the other panel is mirrored (Summa's
    // mirror): with blocks of 3 its panels span several owners (from the diagonal); with
    // blocks of 16 each panel has one (its line from transposed partners).
    for (const Layout& at : {Layout{2, 3, 3, 2, 4, 3, true}, Layout{4, 2, 4, 4, 3, 3, false},
                             Layout{2, 4, 4, 4, 3, 3, false}, Layout{4, 2, 4, 4, 16, 16, false},
                             Layout{2, 4, 4, 4, 16, 16, false}, Layout{7, 2, 7, 7, 4, 4, false}}) {
      check_syrk<float>(g, at);
      check_syrk<double>(g, at);
      check_syrk<std::complex<float>>(g, at);
      check_syrk<std::complex<double>>(g, at);
    }
    Cblacs_gridexit(g.ctxt);
  }
}

}  // namespace
