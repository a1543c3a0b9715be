// Over 500 lines: one algorithm family -- the exchange of k-slabs, the 2.5D and 3D runs, the
// reduction of C and the automatic choice -- sharing the layers' index arithmetic.
// 2.5D and 3D GEMM on the caller's 2D block-cyclic matrices (mukunoki2017's scheme, on any
// block size, offsets, transposes and the four types), and the choice among the algorithms.
//
// The grid is seen as c layers (layers.hpp: each layer holds a whole block-cyclic distribution
// of every matrix, and a fiber -- the c processes at one place of every layer -- holds between
// them exactly that place's share). The k dimension is cut into c slabs on block boundaries;
// layer z computes alpha op(A)(:, slab z) op(B)(slab z, :) into a partial C of its own, and the
// partial Cs are summed over each fiber into the caller's C:
//   1. replicate: each fiber member sends every other member the part of that member's slab of
//      A and B it holds (an exchange inside the fiber, exact counts, receives posted first). Only
//      the slab a layer multiplies travels to it: per process one 2D share of A and of B arrives,
//      not c of them as with mukunoki2017's allgather of the whole matrices;
//   2. multiply: SUMMA on the layer over its slab (2.5D), or the whole slab at once, its
//      panels all broadcast together and one local multiply (3D);
//   3. reduce: the partial Cs are reduce-scattered inside the fiber, each member receiving the
//      sum of its own 2D share, which it adds into C (C = beta C + sum).
// Memory per process: the A and B slabs (one 2D share each) and a partial C of c 2D shares.
#include "gemm/layers.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "coll/registry.hpp"
#include "core/status.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "exec/host_memory.hpp"
#include "gemm/cost.hpp"
#include "gemm/gemm.hpp"
#include "layout/submatrix.hpp"

namespace relay::gemm {
namespace {

using layout::BlockCyclic;
using layout::GridCoord;

BlockCyclic on_layer(BlockCyclic d, int nprocs) {
  d.source %= nprocs;
  d.nprocs = nprocs;
  return d;
}

// A rectangle of a distributed matrix, as the 2D grid holds it and as a layer holds it.
struct Rect {
  std::int64_t rows = 0, cols = 0;
  BlockCyclic rows2, cols2;  // over the 2D grid, renumbered from the rectangle's corner
  BlockCyclic rowsL, colsL;  // over one layer
  layout::LocalBlock mine;   // this process's 2D part, in the caller's local array
  std::int64_t lld = 1;      // of the caller's local array

  std::int64_t rows_of(int grid_row) const { return layout::local_count(rows2, grid_row, rows); }
  std::int64_t cols_of(int grid_col) const { return layout::local_count(cols2, grid_col, cols); }
  std::int64_t layer_rows(int layer_row) const {
    return layout::local_count(rowsL, layer_row, rows);
  }
  std::int64_t layer_cols(int layer_col) const {
    return layout::local_count(colsL, layer_col, cols);
  }
  // The rectangle as a matrix of its own on the layer, stored as layer_rows x layer_cols.
  layout::Descriptor layer_descriptor(int layer_row) const {
    return layout::make_descriptor_inb(rows, cols, rowsL.first_block, colsL.first_block,
                                       rowsL.block, colsL.block, rowsL.source, colsL.source, 0,
                                       std::max<std::int64_t>(1, layer_rows(layer_row)));
  }
};

Rect make_rect(const layout::Descriptor& d, const relay_grid& grid, const LayerView& view,
               std::int64_t i0, std::int64_t j0, std::int64_t rows, std::int64_t cols) {
  const layout::Submatrix sub = layout::describe_submatrix(d, grid.shape, i0, j0, rows, cols);
  Rect r;
  r.rows = rows;
  r.cols = cols;
  r.rows2 = sub.rows;
  r.cols2 = sub.cols;
  r.rowsL = on_layer(sub.rows, grid.shape.rows / view.cx);
  r.colsL = on_layer(sub.cols, grid.shape.cols / view.cy);
  r.mine = layout::local_block(sub, grid.me);
  r.lld = sub.lld;
  return r;
}

// Where the 2D local rows (columns) of grid row (column) `p` go in a layer's local array.
std::vector<std::int64_t> layer_map(const BlockCyclic& d2, const BlockCyclic& dL, int p,
                                    std::int64_t count) {
  std::vector<std::int64_t> map(static_cast<std::size_t>(count));
  for (std::int64_t l = 0; l < count; ++l) {
    map[static_cast<std::size_t>(l)] = layout::to_local(dL, layout::to_global(d2, p, l));
  }
  return map;
}

template <class T>
class Layered {
 public:
  Layered(const Problem& p, const relay_grid& grid, const LayerView& view, bool one_step,
          const Options& options, relay_gemm_stats_t& stats, LayeredStats& extra)
      : p_(p),
        grid_(grid),
        view_(view),
        one_step_(one_step),
        options_(options),
        stats_(stats),
        extra_(extra) {}

  relay_status_t run(std::string& error);
  /// The most bytes run() holds at once on this process beyond the matrices: the slabs with
  /// the exchange's buffers, then the slabs, the partial C and the layer's panels, then the
  /// partial C with the reduction's buffers.
  double peak_bytes();

 private:
  // The k indices [k0, k1) of layer z's slab.
  std::int64_t slab_start(int z) const { return slab_starts_[static_cast<std::size_t>(z)]; }
  std::int64_t slab_width(int z) const { return slab_start(z + 1) - slab_start(z); }
  void split_k();
  // Operand X's rectangle for layer z's slab (X as stored: rows and columns of A or B).
  Rect slab_rect(bool is_a, int z) const;
  relay_status_t replicate(bool is_a, exec::DataVector<T>& slab, Rect& my_slab);
  relay_status_t reduce(const Rect& c_rect, const exec::DataVector<T>& partial);
  // The most elements of `r` any member of my fiber holds: the reduction's block size.
  std::int64_t largest_share(const Rect& r) const {
    std::int64_t most = 0;
    for (int s = 0; s < view_.layers(); ++s) {
      const GridCoord at = fiber_member(grid_, view_, s);
      most = std::max(most, r.rows_of(at.row) * r.cols_of(at.col));
    }
    return most;
  }
  relay_status_t coll_error(const char* what) {
    error_ = fmt::format("{}: {}", what, relay_last_error());
    return RELAY_ERR_MPI;
  }

  const Problem& p_;
  const relay_grid& grid_;
  const LayerView& view_;
  const bool one_step_;
  const Options& options_;
  relay_gemm_stats_t& stats_;
  LayeredStats& extra_;
  const bool charged_ = exec::compute_is_charged();
  std::vector<std::int64_t> slab_starts_;
  relay_coll_options_t coll_options_{};
  std::string error_;
};

template <class T>
void Layered<T>::split_k() {
  // Slabs start on block boundaries of op(A)'s k dimension (panels stay whole blocks), with
  // as even a share of the blocks as c allows.
  const BlockCyclic kd =
      p_.opa == Op::none ? layout::subrange(layout::col_distribution(p_.desca, grid_.shape), p_.ja)
                         : layout::subrange(layout::row_distribution(p_.desca, grid_.shape), p_.ia);
  const std::int64_t k = p_.k;
  const std::int64_t first = std::min(kd.first_block, k);
  const std::int64_t blocks = 1 + (k > first ? (k - first + kd.block - 1) / kd.block : 0);
  auto boundary = [&](std::int64_t b) {
    return b == 0 ? 0 : std::min(k, first + (b - 1) * kd.block);
  };
  const int c = view_.layers();
  slab_starts_.resize(static_cast<std::size_t>(c) + 1);
  for (int z = 0; z <= c; ++z) slab_starts_[static_cast<std::size_t>(z)] = boundary(blocks * z / c);
}

template <class T>
Rect Layered<T>::slab_rect(bool is_a, int z) const {
  const std::int64_t k0 = slab_start(z), kw = slab_width(z);
  if (is_a) {  // op(A) is m x k
    return p_.opa == Op::none ? make_rect(p_.desca, grid_, view_, p_.ia, p_.ja + k0, p_.m, kw)
                              : make_rect(p_.desca, grid_, view_, p_.ia + k0, p_.ja, kw, p_.m);
  }
  // op(B) is k x n
  return p_.opb == Op::none ? make_rect(p_.descb, grid_, view_, p_.ib + k0, p_.jb, kw, p_.n)
                            : make_rect(p_.descb, grid_, view_, p_.ib, p_.jb + k0, p_.n, kw);
}

template <class T>
relay_status_t Layered<T>::replicate(bool is_a, exec::DataVector<T>& slab, Rect& my_slab) {
  const int c = view_.layers();
  const int me = view_.my_layer;
  const T* data = static_cast<const T*>(is_a ? p_.a : p_.b);
  std::vector<Rect> rects;
  rects.reserve(static_cast<std::size_t>(c));
  for (int z = 0; z < c; ++z) rects.push_back(slab_rect(is_a, z));
  my_slab = rects[static_cast<std::size_t>(me)];
  // Exact counts, point to point: what member s holds of a slab depends on which of the slab's
  // blocks its process column (row) owns, often none. A padded relay_alltoall moved every pair
  // at the largest pair's size (16 gige64 nodes, n = 2048, block 256, c = 4: replication took
  // 51 ms padded, 25 ms exact, the link limit).
  std::vector<std::int64_t> send_count(static_cast<std::size_t>(c)),
      send_at(static_cast<std::size_t>(c) + 1), recv_count(static_cast<std::size_t>(c)),
      recv_at(static_cast<std::size_t>(c) + 1);
  for (int z = 0; z < c; ++z) {
    const auto zi = static_cast<std::size_t>(z);
    const GridCoord at = fiber_member(grid_, view_, z);
    send_count[zi] = rects[zi].mine.rows * rects[zi].mine.cols;
    recv_count[zi] = my_slab.rows_of(at.row) * my_slab.cols_of(at.col);
    send_at[zi + 1] = send_at[zi] + send_count[zi];
    recv_at[zi + 1] = recv_at[zi] + recv_count[zi];
    if (send_count[zi] > INT_MAX || recv_count[zi] > INT_MAX) {
      error_ = fmt::format("a part of a layer's slab, {} elements, exceeds MPI's int count",
                           std::max(send_count[zi], recv_count[zi]));
      return RELAY_ERR_COUNT;
    }
  }
  exec::DataVector<T> send(static_cast<std::size_t>(std::max<std::int64_t>(1, send_at.back())));
  exec::DataVector<T> recv(static_cast<std::size_t>(std::max<std::int64_t>(1, recv_at.back())));
  // Receives first (amestoy2001: a posted receive makes the exchange insensitive to the eager
  // limit), then pack and send.
  std::vector<MPI_Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(c));
  auto post = [&](bool receive, int z) {
    const auto zi = static_cast<std::size_t>(z);
    MPI_Request r = MPI_REQUEST_NULL;
    const int rc = receive ? MPI_Irecv(recv.data() + recv_at[zi], static_cast<int>(recv_count[zi]),
                                       p_.type, z, 0, view_.fiber, &r)
                           : MPI_Isend(send.data() + send_at[zi], static_cast<int>(send_count[zi]),
                                       p_.type, z, 0, view_.fiber, &r);
    requests.push_back(r);
    return rc;
  };
  int rc = MPI_SUCCESS;
  for (int z = 0; z < c && rc == MPI_SUCCESS; ++z) {
    if (z != me && recv_count[static_cast<std::size_t>(z)] > 0) rc = post(true, z);
  }
  for (int z = 0; z < c && !charged_; ++z) {
    const Rect& r = rects[static_cast<std::size_t>(z)];
    T* out = send.data() + send_at[static_cast<std::size_t>(z)];
    for (std::int64_t j = 0; j < r.mine.cols; ++j) {
      const T* column = data + r.mine.row_offset + (r.mine.col_offset + j) * r.lld;
      std::memcpy(out + j * r.mine.rows, column, sizeof(T) * static_cast<std::size_t>(r.mine.rows));
    }
  }
  for (int z = 0; z < c && rc == MPI_SUCCESS; ++z) {
    if (z != me && send_count[static_cast<std::size_t>(z)] > 0) rc = post(false, z);
  }
  const int wait_rc =
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (rc == MPI_SUCCESS) rc = wait_rc;
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    error_ = fmt::format("replicating {}'s slabs: {}", is_a ? 'A' : 'B', text);
    return RELAY_ERR_MPI;
  }
  const auto mi = static_cast<std::size_t>(me);
  if (!charged_) {  // my own part of my slab stays here
    std::copy(send.data() + send_at[mi], send.data() + send_at[mi + 1], recv.data() + recv_at[mi]);
  }
  const int layer_row = view_.layer->me.row, layer_col = view_.layer->me.col;
  const std::int64_t ld = std::max<std::int64_t>(1, my_slab.layer_rows(layer_row));
  slab.resize(
      static_cast<std::size_t>(std::max<std::int64_t>(1, ld * my_slab.layer_cols(layer_col))));
  for (int s = 0; s < c && !charged_; ++s) {
    const GridCoord at = fiber_member(grid_, view_, s);
    const std::int64_t nr = my_slab.rows_of(at.row), nc = my_slab.cols_of(at.col);
    const auto rmap = layer_map(my_slab.rows2, my_slab.rowsL, at.row, nr);
    const auto cmap = layer_map(my_slab.cols2, my_slab.colsL, at.col, nc);
    const T* in = recv.data() + recv_at[static_cast<std::size_t>(s)];
    for (std::int64_t j = 0; j < nc; ++j) {
      T* column = slab.data() + cmap[static_cast<std::size_t>(j)] * ld;
      for (std::int64_t i = 0; i < nr; ++i)
        column[rmap[static_cast<std::size_t>(i)]] = in[i + j * nr];
    }
  }
  // Charged (a simulation): the copies' time, one unit per element packed and unpacked.
  if (charged_) {
    exec::charge_flops(static_cast<double>(send_at.back()) + static_cast<double>(recv_at.back()));
  }
  extra_.layered_bytes += static_cast<long long>(slab.size() * sizeof(T));
  return RELAY_SUCCESS;
}

template <class T>
relay_status_t Layered<T>::reduce(const Rect& c_rect, const exec::DataVector<T>& partial) {
  const int c = view_.layers();
  const std::int64_t count = largest_share(c_rect);
  if (count * c > INT_MAX) {
    error_ = fmt::format("a layer's part of C, {} elements, exceeds MPI's int count", count * c);
    return RELAY_ERR_COUNT;
  }
  if (count == 0) return RELAY_SUCCESS;
  const std::int64_t ld = std::max<std::int64_t>(1, c_rect.layer_rows(view_.layer->me.row));
  exec::DataVector<T> send(static_cast<std::size_t>(count * c));
  exec::DataVector<T> sum(static_cast<std::size_t>(count));
  for (int s = 0; s < c && !charged_; ++s) {
    const GridCoord at = fiber_member(grid_, view_, s);
    const std::int64_t nr = c_rect.rows_of(at.row), nc = c_rect.cols_of(at.col);
    const auto rmap = layer_map(c_rect.rows2, c_rect.rowsL, at.row, nr);
    const auto cmap = layer_map(c_rect.cols2, c_rect.colsL, at.col, nc);
    T* out = send.data() + static_cast<std::int64_t>(s) * count;
    for (std::int64_t j = 0; j < nc; ++j) {
      const T* column = partial.data() + cmap[static_cast<std::size_t>(j)] * ld;
      for (std::int64_t i = 0; i < nr; ++i)
        out[i + j * nr] = column[rmap[static_cast<std::size_t>(i)]];
    }
    std::fill(out + nr * nc, out + count, T(0));  // padding: summed, never read
  }
  if (relay_reduce_scatter_block(send.data(), sum.data(), static_cast<int>(count), p_.type, MPI_SUM,
                                 view_.fiber, &coll_options_) != RELAY_SUCCESS) {
    return coll_error("summing C over the layers");
  }
  const layout::LocalBlock& mine = c_rect.mine;
  if (charged_) {
    exec::charge_flops(3.0 * static_cast<double>(count) * c);
    return RELAY_SUCCESS;
  }
  const T beta = *static_cast<const T*>(p_.beta);
  T* c_local = static_cast<T*>(p_.c);
  for (std::int64_t j = 0; j < mine.cols; ++j) {
    T* column = c_local + mine.row_offset + (mine.col_offset + j) * c_rect.lld;
    const T* s = sum.data() + j * mine.rows;
    if (beta == T(0)) {  // never read C: NaNs must not survive beta = 0
      std::copy(s, s + mine.rows, column);
    } else {
      for (std::int64_t i = 0; i < mine.rows; ++i) column[i] = beta * column[i] + s[i];
    }
  }
  return RELAY_SUCCESS;
}

template <class T>
double Layered<T>::peak_bytes() {
  split_k();
  const int z = view_.my_layer;
  const int layer_row = view_.layer->me.row, layer_col = view_.layer->me.col;
  auto layer_size = [&](const Rect& r) {
    return static_cast<double>(r.layer_rows(layer_row)) *
           static_cast<double>(r.layer_cols(layer_col));
  };
  const Rect a = slab_rect(true, z), b = slab_rect(false, z);
  const Rect c_rect = make_rect(p_.descc, grid_, view_, p_.ic, p_.jc, p_.m, p_.n);
  // What this process sends of B's slabs: its 2D share of op(B)'s whole k range.
  const Rect b_all = p_.opb == Op::none
                         ? make_rect(p_.descb, grid_, view_, p_.ib, p_.jb, p_.k, p_.n)
                         : make_rect(p_.descb, grid_, view_, p_.ib, p_.jb, p_.n, p_.k);
  const double b_send = static_cast<double>(b_all.mine.rows) * static_cast<double>(b_all.mine.cols);
  const double replicate = layer_size(a) + 2 * layer_size(b) + b_send;
  const double kz = static_cast<double>(slab_width(z));
  double width = static_cast<double>(options_.panel_width);
  if (one_step_) {
    width = kz;
  } else if (width <= 0) {
    const BlockCyclic& k_dim = p_.opa == Op::none ? a.colsL : a.rowsL;
    width = static_cast<double>(default_panel_width(std::max<std::int64_t>(1, k_dim.block)));
  }
  // Per owner, a panel is also staged (summa.cpp): at most its size again.
  const double slots =
      (one_step_ ? 1.0 : options_.lookahead + 1.0) * (options_.panels_per_owner ? 2.0 : 1.0);
  const double panels =
      slots * std::min(width, kz) *
      static_cast<double>(c_rect.layer_rows(layer_row) + c_rect.layer_cols(layer_col));
  const double multiply = layer_size(a) + layer_size(b) + layer_size(c_rect) + panels;
  const double reduce =
      layer_size(c_rect) + static_cast<double>(largest_share(c_rect)) * (view_.layers() + 1);
  return std::max({replicate, multiply, reduce}) * static_cast<double>(sizeof(T));
}

template <class T>
relay_status_t Layered<T>::run(std::string& error) {
  const double t_start = MPI_Wtime();
  relay_coll_options_init(&coll_options_);
  coll_options_.check = RELAY_CHECK_LOCAL;  // the GEMM already agreed on its arguments
  split_k();

  double t0 = MPI_Wtime();
  exec::DataVector<T> a_slab, b_slab;
  Rect a_rect, b_rect;
  relay_status_t st = replicate(true, a_slab, a_rect);
  if (st == RELAY_SUCCESS) st = replicate(false, b_slab, b_rect);
  const double replicate_s = MPI_Wtime() - t0;
  if (st != RELAY_SUCCESS) {
    error = error_;
    return st;
  }

  // The layer's multiplication: alpha op(A_z) op(B_z) into a partial C of the whole C
  // rectangle, on the layer's grid, from the slabs as matrices of their own.
  const Rect c_rect = make_rect(p_.descc, grid_, view_, p_.ic, p_.jc, p_.m, p_.n);
  const int layer_row = view_.layer->me.row, layer_col = view_.layer->me.col;
  exec::DataVector<T> partial(static_cast<std::size_t>(std::max<std::int64_t>(
      1, std::max<std::int64_t>(1, c_rect.layer_rows(layer_row)) * c_rect.layer_cols(layer_col))));
  extra_.layered_bytes += static_cast<long long>(partial.size() * sizeof(T));
  Problem q = p_;
  const T zero(0);
  q.k = slab_width(view_.my_layer);
  q.a = a_slab.data();
  q.ia = q.ja = 0;
  q.desca = a_rect.layer_descriptor(layer_row);
  q.b = b_slab.data();
  q.ib = q.jb = 0;
  q.descb = b_rect.layer_descriptor(layer_row);
  q.beta = &zero;
  q.c = partial.data();
  q.ic = q.jc = 0;
  q.descc = c_rect.layer_descriptor(layer_row);
  Options layer_options = options_;
  if (one_step_) {
    layer_options.panel_width = std::max<std::int64_t>(1, q.k);
    layer_options.lookahead = 0;
    layer_options.pieces = 1;
  }
  st = summa(q, *view_.layer, layer_options, stats_, error, &extra_.panels);
  if (st != RELAY_SUCCESS) return st;

  t0 = MPI_Wtime();
  st = reduce(c_rect, partial);
  const double reduce_s = MPI_Wtime() - t0;
  if (st != RELAY_SUCCESS) {
    error = error_;
    return st;
  }
  extra_.replicate_s = replicate_s;
  extra_.reduce_s = reduce_s;
  stats_.total_s = MPI_Wtime() - t_start;
  return RELAY_SUCCESS;
}

// Why a call cannot run layered (empty: it can). A replicated dimension has no owner to take
// a fiber member's share from.
std::string layered_obstacle(const Problem& p) {
  if (p.triangle != 0) return "only a triangle of C is updated (p?syrk)";
  const char* names[3] = {"A", "B", "C"};
  const layout::Descriptor* descs[3] = {&p.desca, &p.descb, &p.descc};
  for (int i = 0; i < 3; ++i) {
    if (descs[i]->rsrc < 0 || descs[i]->csrc < 0) {
      return fmt::format("{} is replicated (RSRC or CSRC = -1)", names[i]);
    }
  }
  return {};
}

double layered_peak_bytes(const Problem& p, const relay_grid& grid, const LayerView& view,
                          bool one_step, const Options& options) {
  return with_element_type(p.type, 0.0, [&](auto tag) {
    relay_gemm_stats_t stats{};
    LayeredStats extra;
    return Layered<decltype(tag)>(p, grid, view, one_step, options, stats, extra).peak_bytes();
  });
}

// The memory a layered call may hold per process beyond the matrices: the caller's limit,
// else (a real run) what the node has available shared by its ranks; 0 = no limit (under
// simulation with computations charged every rank's buffers share the same pages).
double memory_limit(const Options& options, const LayerView& view) {
  if (options.memory_limit_bytes > 0) return static_cast<double>(options.memory_limit_bytes);
  if (exec::compute_is_charged()) return 0;
  const std::int64_t available = exec::available_memory_bytes();
  if (available < 0) return 0;
  return static_cast<double>(available) / std::max(1, view.ranks_on_node);
}

}  // namespace

relay_status_t layered(const Problem& p, const relay_grid& grid, const LayerView& view,
                       bool one_step, const Options& options, relay_gemm_stats_t& stats,
                       LayeredStats& extra, std::string& error) {
  relay_status_t st = RELAY_ERR_DATATYPE;
  if (!with_element_type(p.type, false, [&](auto tag) {
        st = Layered<decltype(tag)>(p, grid, view, one_step, options, stats, extra).run(error);
        return true;
      })) {
    error = "datatype is not MPI_FLOAT, MPI_DOUBLE, MPI_C_FLOAT_COMPLEX or MPI_C_DOUBLE_COMPLEX";
  }
  return st;
}

Plan plan(const layout::ProcessGrid& grid, const Options& options) {
  Plan out;
  const relay_gemm_algorithm_t asked = options.algorithm;
  if (asked == RELAY_GEMM_AUTO || asked == RELAY_GEMM_DEFAULT) {
    out.algorithm = RELAY_GEMM_AUTO;
    out.layers = 0;
    return out;
  }
  if (asked == RELAY_GEMM_2D) return out;
  const int c = asked == RELAY_GEMM_3D
                    ? cube_root_layers(grid)
                    : (options.layers > 0 ? options.layers : default_layers(grid));
  int cx = 0, cy = 0;
  if (asked == RELAY_GEMM_25D && options.layers == 1) {
    out.why_2d = "1 layer is 2D";
  } else if (c < 2) {
    out.why_2d = fmt::format("the {}x{} grid splits into no layers that suit {}", grid.rows,
                             grid.cols, algorithm_name(asked));
  } else if (!split_layers(grid, c, cx, cy)) {
    out.why_2d =
        fmt::format("the {}x{} grid does not split into {} layers", grid.rows, grid.cols, c);
  } else {
    out.algorithm = asked;
    out.layers = c;
    out.cx = cx;
    out.cy = cy;
  }
  return out;
}

std::vector<Candidate> auto_candidates(const layout::ProcessGrid& grid) {
  std::vector<Candidate> out{Candidate{}};
  // c beyond sqrt(P) leaves layers of fewer processes than layers: each process would hold
  // more than a whole row or column of C's partial sums per layer (2.5D's useful range is
  // c <= P^(1/3); mukunoki2017 measured c = 16 slower than c = 4 at 4,096 nodes).
  const double most = std::sqrt(static_cast<double>(grid.size()));
  for (int c : admissible_layers(grid)) {
    if (c > most) break;
    Candidate k{RELAY_GEMM_25D, c, 1, 1};
    split_layers(grid, c, k.cx, k.cy);
    out.push_back(k);
  }
  if (const int c = cube_root_layers(grid); c >= 2) {
    Candidate k{RELAY_GEMM_3D, c, 1, 1};
    split_layers(grid, c, k.cx, k.cy);
    out.push_back(k);
  }
  return out;
}

namespace {

enum class Fit { runs, refused, over_limit };

// The report's panel_bcast_ranks and _bytes from what a SUMMA run broadcast.
void report_panels(const PanelBroadcasts& made, relay_gemm_report_t& report) {
  for (int x = 0; x < 2; ++x) {
    report.panel_bcast_ranks[x] = made.ranks[x];
    report.panel_bcast_bytes[x] = made.largest_bytes[x];
  }
}

// Runs `cand` (2.5D or 3D) after the memory check. Over the limit, every process returns
// over_limit with `error` set and nothing moved.
Fit run_layered(const Problem& p, relay_grid& grid, const Candidate& cand, const Options& options,
                relay_gemm_stats_t& stats, relay_gemm_report_t& report, relay_status_t& st,
                std::string& error) {
  const LayerView* view = nullptr;
  st = layer_view(grid, cand.cx, cand.cy, &view, error);
  if (st != RELAY_SUCCESS) return Fit::refused;
  const bool one_step = cand.algorithm == RELAY_GEMM_3D;
  // The memory check, agreed: every process refuses together, before anything is written.
  const double need = layered_peak_bytes(p, grid, *view, one_step, options);
  const double limit = memory_limit(options, *view);
  double worst[2] = {limit > 0 && need > limit ? need - limit : 0.0, need};
  exec::allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, grid.comm);  // as agree_on_call
  auto kib = [](double bytes) {  // "896KiB": whole KiB, rounded up
    return core::format_bytes(static_cast<std::int64_t>(std::ceil(bytes / 1024.0)) * 1024);
  };
  if (core::log_enabled() && grid.me.row == 0 && grid.me.col == 0) {  // before anything moves
    core::log_line(fmt::format(
        "gemm: {} with c = {} holds up to {:.1f} MiB per process beyond the matrices (limit {})",
        algorithm_name(cand.algorithm), cand.layers, worst[1] / 1048576.0,
        limit > 0 ? fmt::format("{:.1f} MiB", limit / 1048576.0) : std::string("none")));
  }
  if (worst[0] > 0) {
    error = fmt::format(
        "{} with c = {} needs up to {} per process beyond the matrices (A's and B's slabs, "
        "C's partial sums, panels), {} over the limit on some process (here {}: {}); use "
        "fewer layers or 2d",
        algorithm_name(cand.algorithm), cand.layers, kib(worst[1]), kib(worst[0]), kib(limit),
        options.memory_limit_bytes > 0 ? "options->memory_limit_bytes or RELAY_GEMM_MEMORY_LIMIT"
                                       : "the node's available memory over its ranks");
    st = RELAY_ERR_NOMEM;
    return Fit::over_limit;
  }
  LayeredStats extra;
  st = layered(p, grid, *view, one_step, options, stats, extra, error);
  report.algorithm = cand.algorithm;
  report.layers = cand.layers;
  report.layer_rows = view->layer->shape.rows;
  report.layer_cols = view->layer->shape.cols;
  report.replicate_s = extra.replicate_s;
  report.reduce_s = extra.reduce_s;
  report.layered_bytes = extra.layered_bytes;
  report_panels(extra.panels, report);
  return Fit::runs;
}

std::string seconds_text(double s) { return fmt::format("{:.3g} s", s); }

}  // namespace

relay_status_t multiply(const Problem& p, relay_grid& grid, const Options& options,
                        relay_gemm_stats_t& stats, std::string& error) {
  relay_gemm_report_t report{};
  report.struct_size = sizeof report;
  report.algorithm = RELAY_GEMM_2D;
  report.layers = 1;
  report.layer_rows = grid.shape.rows;
  report.layer_cols = grid.shape.cols;
  const bool log = core::log_enabled() && grid.me.row == 0 && grid.me.col == 0;
  // Every decision below is made from values every process agreed on (the fingerprint, and the
  // cost inputs, agreed when made): all processes take the same path.
  const bool empty = p.m == 0 || p.n == 0 || p.k == 0;
  const std::string obstacle = empty ? "the multiplication is empty" : layered_obstacle(p);
  const Plan asked = plan(grid.shape, options);
  const bool automatic = asked.algorithm == RELAY_GEMM_AUTO;

  // What may run, best first: for auto every candidate by the model's time; else the one asked.
  std::vector<Candidate> order;
  std::string why_2d = asked.why_2d;
  if (automatic) {
    order = obstacle.empty() ? auto_candidates(grid.shape) : std::vector<Candidate>{Candidate{}};
  } else if (asked.algorithm != RELAY_GEMM_2D && obstacle.empty()) {
    order.push_back(Candidate{asked.algorithm, asked.layers, asked.cx, asked.cy});
  } else {
    if (asked.algorithm != RELAY_GEMM_2D) why_2d = obstacle;
    order.push_back(Candidate{});
  }
  // Per candidate, its panel broadcasts (the caller's options, or auto's configuration chosen
  // by the model where no tuning table covers them: choose_panel_bcasts) and the model's time.
  std::vector<PanelChoice> panels(order.size());
  for (PanelChoice& c : panels) c.bcast = options.bcast;
  // The cost inputs are made on a grid's first non-empty call whatever it runs (collective).
  const CostInputs* inputs = nullptr;
  if (!empty) {
    if (auto st = cost_inputs(grid, &inputs, error); st != RELAY_SUCCESS) return st;
  }
  if (inputs != nullptr) {
    panels = cached_panel_bcasts(grid, p, order, options, *inputs);  // collective when not cached
    if (order.size() > 1) {
      std::vector<std::size_t> rank(order.size());
      for (std::size_t i = 0; i < rank.size(); ++i) rank[i] = i;
      // Stable: on a tie the simpler algorithm (2D first, then fewer layers) wins.
      std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) {
        const double ta = panels[a].cost.ok ? panels[a].cost.total_s : HUGE_VAL;
        const double tb = panels[b].cost.ok ? panels[b].cost.total_s : HUGE_VAL;
        return ta < tb;
      });
      if (log) {
        std::string line = fmt::format(
            "gemm: auto, {}x{}x{} on the {}x{} grid ({}, {:.1f} GFLOP/s):", p.m, p.n, p.k,
            grid.shape.rows, grid.shape.cols, inputs->source, inputs->flops_per_s * 1e-9);
        for (std::size_t i : rank) {
          const CostBreakdown& c = panels[i].cost;
          line += c.ok ? fmt::format(" {} {} (repl {}, panels {}, multiply {}, reduce {});",
                                     candidate_name(order[i]), seconds_text(c.total_s),
                                     seconds_text(c.replicate_s), seconds_text(c.panels_s),
                                     seconds_text(c.compute_s), seconds_text(c.reduce_s))
                       : fmt::format(" {} not costed;", candidate_name(order[i]));
        }
        core::log_line(line);
      }
      std::vector<Candidate> sorted;
      std::vector<PanelChoice> sorted_panels;
      for (std::size_t i : rank) {
        sorted.push_back(order[i]);
        sorted_panels.push_back(std::move(panels[i]));
      }
      order = std::move(sorted);
      panels = std::move(sorted_panels);
    }
  }

  Options run_options = options;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Candidate& cand = order[i];
    const CostBreakdown& cost = panels[i].cost;
    report.predicted_s = cost.ok ? cost.total_s : 0.0;
    run_options.bcast = panels[i].bcast;
    // auto's pieces: those the model costed the call with (best_pieces), where it did.
    run_options.pieces = options.pieces > 0 || !cost.ok ? options.pieces : cost.pieces;
    run_options.tiles_by_cost = options.pieces == 0 && cost.ok;
    report.pieces = cand.algorithm == RELAY_GEMM_3D ? 1 : run_pieces(run_options);
    report.panel_bcast_algorithm = static_cast<int>(run_options.bcast.algorithm);
    report.panel_bcast_segment_bytes = run_options.bcast.segment_bytes;
    report.panel_bcast_by_model = panels[i].by_model ? 1 : 0;
    if (log && panels[i].by_model) {
      const coll::Algorithm* row =
          coll::find_algorithm(coll::Collective::bcast, run_options.bcast.algorithm);
      core::log_line(fmt::format(
          "gemm: {} panel broadcasts by the model ({}; no tuning table rule): {}{} ({}); "
          "considered: {}",
          candidate_name(cand), inputs->source, row != nullptr ? row->name : "?",
          run_options.bcast.segment_bytes > 0
              ? fmt::format(" {} KiB segments", run_options.bcast.segment_bytes >> 10)
              : std::string(),
          seconds_text(cost.total_s), panels[i].considered));
    }
    if (log && options.pieces == 0 && cost.ok && run_options.lookahead > 0 &&
        cand.algorithm != RELAY_GEMM_3D) {
      core::log_line(fmt::format(
          "gemm: {} local update in {} pieces per panel (auto: the model's least time, {})",
          candidate_name(cand), run_options.pieces, seconds_text(cost.total_s)));
    }
    if (cand.algorithm == RELAY_GEMM_2D) break;
    relay_status_t st = RELAY_SUCCESS;
    const Fit fit = run_layered(p, grid, cand, run_options, stats, report, st, error);
    if (fit == Fit::over_limit && automatic) {
      if (log)
        core::log_line(fmt::format("gemm: auto passes over {}: {}", candidate_name(cand), error));
      error.clear();
      continue;
    }
    if (fit == Fit::runs && log) {
      core::log_line(fmt::format("gemm: {} with c = {} layers of {}x{} on the {}x{} grid{}",
                                 algorithm_name(cand.algorithm), cand.layers, report.layer_rows,
                                 report.layer_cols, grid.shape.rows, grid.shape.cols,
                                 automatic ? " (auto)" : ""));
    }
    if (fit == Fit::runs) write_report(options.report, report);
    return st;
  }
  if (log && !why_2d.empty()) {
    core::log_line(
        fmt::format("gemm: {} asked, 2d run: {}", algorithm_name(options.algorithm), why_2d));
  } else if (log && automatic) {
    core::log_line(
        fmt::format("gemm: 2d on the {}x{} grid (auto)", grid.shape.rows, grid.shape.cols));
  }
  PanelBroadcasts made;
  relay_status_t st = summa(p, grid, run_options, stats, error, &made);
  report_panels(made, report);
  write_report(options.report, report);
  return st;
}

}  // namespace relay::gemm
