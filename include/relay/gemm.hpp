// relay's C++ interface to the distributed GEMM: a grid that frees itself, typed matrices
// (float, double, std::complex<float>, std::complex<double>) and exceptions instead of
// status codes. See relay/gemm.h for the semantics.
#pragma once

#include <complex>
#include <string>
#include <type_traits>
#include <utility>

#include "relay/gemm.h"
#include "relay/relay.hpp"

namespace relay {

/// A rows x cols process grid over a communicator (row-major unless order = 'C'), with its row
/// and column communicators. Collective to create and to destroy.
class Grid {
 public:
  Grid(MPI_Comm comm, int rows, int cols, char order = 'R') {
    detail::check(relay_grid_create(comm, rows, cols, order, &grid_));
  }
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;
  Grid(Grid&& other) noexcept : grid_(std::exchange(other.grid_, RELAY_GRID_NULL)) {}
  Grid& operator=(Grid&& other) noexcept {
    if (this != &other) {
      if (grid_ != RELAY_GRID_NULL) relay_grid_free(&grid_);
      grid_ = std::exchange(other.grid_, RELAY_GRID_NULL);
    }
    return *this;
  }
  ~Grid() {
    if (grid_ != RELAY_GRID_NULL) relay_grid_free(&grid_);
  }
  int rows() const { return info().first.first; }
  int cols() const { return info().first.second; }
  int my_row() const { return info().second.first; }
  int my_col() const { return info().second.second; }
  relay_grid_t handle() const { return grid_; }

 private:
  std::pair<std::pair<int, int>, std::pair<int, int>> info() const {
    int r = 0, c = 0, mr = 0, mc = 0;
    detail::check(relay_grid_info(grid_, &r, &c, &mr, &mc));
    return {{r, c}, {mr, mc}};
  }
  relay_grid_t grid_ = RELAY_GRID_NULL;
};

/// Options of gemm(): the panel broadcasts and the look-ahead.
struct GemmOptions {
  BcastOptions bcast;
  long long panel_width = 0;  ///< 0 = default (a multiple of the block >= 256)
  int lookahead = 0;          ///< panels broadcast ahead of the update
  int pieces = 0;             ///< 0 = default
  relay_gemm_algorithm_t algorithm = RELAY_GEMM_DEFAULT;  ///< 2D, 2.5D or 3D
  int layers = 0;                                         ///< c of 2.5D; 0 = default
  long long memory_limit_bytes = 0;  ///< for 2.5D/3D; 0 = the node's available memory
  /// The C options; they point to `bcast_c`, which receives the broadcast options.
  relay_gemm_options_t c(relay_bcast_options_t& bcast_c) const {
    relay_gemm_options_t o;
    relay_gemm_options_init(&o);
    bcast_c = bcast.c();
    o.bcast = &bcast_c;
    o.panel_width = panel_width;
    o.lookahead = lookahead;
    o.pieces = pieces;
    o.algorithm = algorithm;
    o.layers = layers;
    o.memory_limit_bytes = memory_limit_bytes;
    return o;
  }
};

/// Thrown for an invalid argument: the PBLAS INFO code in info().
class GemmArgumentError : public Error {
 public:
  GemmArgumentError(int info, const std::string& what)
      : Error(RELAY_ERR_ARGUMENT, what), info_(info) {}
  int info() const { return info_; }

 private:
  int info_;
};

namespace detail {
template <class T>
inline MPI_Datatype gemm_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::complex<float>> ||
                    std::is_same_v<T, std::complex<double>>,
                "relay::gemm supports float, double, std::complex<float>, std::complex<double>");
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  if constexpr (std::is_same_v<T, std::complex<float>>) return MPI_C_FLOAT_COMPLEX;
  if constexpr (std::is_same_v<T, std::complex<double>>) return MPI_C_DOUBLE_COMPLEX;
}
}  // namespace detail

/// C(ic.., jc..) = alpha op(A(ia.., ja..)) op(B(ib.., jb..)) + beta C(ic.., jc..), 0-based
/// offsets, op in 'N', 'T', 'C'. Returns where the time went on this process.
template <class T>
relay_gemm_stats_t gemm(char transa, char transb, long long m, long long n, long long k, T alpha,
                        const T* a, long long ia, long long ja, const relay_matrix_desc_t& desca,
                        const T* b, long long ib, long long jb, const relay_matrix_desc_t& descb,
                        T beta, T* c, long long ic, long long jc, const relay_matrix_desc_t& descc,
                        const Grid& grid, const GemmOptions& options = {}) {
  relay_bcast_options_t bcast_c;
  const relay_gemm_options_t o = options.c(bcast_c);
  relay_gemm_stats_t stats{};
  int info = 0;
  const relay_status_t st =
      relay_gemm(transa, transb, m, n, k, detail::gemm_type<T>(), &alpha, a, ia, ja, &desca, b, ib,
                 jb, &descb, &beta, c, ic, jc, &descc, grid.handle(), &o, &info, &stats);
  if (st == RELAY_ERR_ARGUMENT) throw GemmArgumentError(info, relay_last_error());
  detail::check(st);
  return stats;
}

}  // namespace relay
