// Over 500 lines: one engine; packing, pipelined panel broadcasts, look-ahead and local
// multiplies share its state.
// The SUMMA engine (see gemm.hpp for the scheme).
//
// Panel layout, the same for both operands so one packing routine serves both: a panel of
// op(X) covering k indices [k0, k0 + w) is stored "k-major": element (f, t) -- f a local index
// along the free dimension (C's local rows for A, C's local columns for B), t = kk - k0 -- at
// t * nfree + f. For A that is the m_loc x w column-major panel; for B it is the n_loc x w
// column-major transpose of the w x n_loc panel, so the local update is one
// gemm(N, T, m_loc, n_loc, w) and a k-piece of either panel is one contiguous range, which is
// what a broadcast can move without a datatype.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "exec/compute.hpp"
#include "gemm/cost.hpp"
#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"
#include "layout/submatrix.hpp"

namespace relay::gemm {
namespace {

using layout::BlockCyclic;

template <class T>
struct Blas;
template <>
struct Blas<float> {
  static void gemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                   int ldb, float* c, int ldc) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, 1.0f, c,
                ldc);
  }
};
template <>
struct Blas<double> {
  static void gemm(int m, int n, int k, double alpha, const double* a, int lda, const double* b,
                   int ldb, double* c, int ldc) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, 1.0, c,
                ldc);
  }
};
template <>
struct Blas<std::complex<float>> {
  using T = std::complex<float>;
  static void gemm(int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T* c,
                   int ldc) {
    const T one(1.0f, 0.0f);
    cblas_cgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, &alpha, a, lda, b, ldb, &one, c,
                ldc);
  }
};
template <>
struct Blas<std::complex<double>> {
  using T = std::complex<double>;
  static void gemm(int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T* c,
                   int ldc) {
    const T one(1.0, 0.0);
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, &alpha, a, lda, b, ldb, &one, c,
                ldc);
  }
};

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};

template <class T>
T conjugate(T x) {
  return x;
}
template <class R>
std::complex<R> conjugate(std::complex<R> x) {
  return std::conj(x);
}

bool holds(const BlockCyclic& d, int p, std::int64_t g) {
  return d.source < 0 || layout::owner(d, g) == p;
}

// Whether two distributions place the indices [0, len) identically: same owner and same local
// order, so a panel of one is laid out like the other.
bool same_map(const BlockCyclic& x, const BlockCyclic& y, std::int64_t len) {
  if (x.nprocs != y.nprocs) return false;
  if (x.source < 0 || y.source < 0) return x.source < 0 && y.source < 0;
  if (x.nprocs == 1) return true;
  if (x.source != y.source) return false;
  if (len <= x.first_block && len <= y.first_block) return true;
  return x.first_block == y.first_block && x.block == y.block;
}

// One operand (A or B) as the engine sees it.
template <class T>
struct Operand {
  const T* data = nullptr;
  std::int64_t ld = 1;
  BlockCyclic rows, cols;       // X's distributions (whole matrix)
  std::int64_t i0 = 0, j0 = 0;  // sub(X)'s first row and column
  bool free_is_row = true;      // op(X)'s free index runs along X's rows
  bool conj = false;
  bool aligned = false;
  MPI_Comm comm = MPI_COMM_NULL;  // broadcast communicator (aligned): my row (A) or column (B)
  int k_coord = 0;                // my coordinate along the k dimension's grid axis
  bool class_is_row = true;       // C's free axis lies along grid rows (A) or columns (B)
  int free_class = 0;             // my coordinate along that axis
  std::int64_t nfree = 0;         // free indices of op(sub(X)) (m for A, n for B)
  std::int64_t nfree_local = 0;   // of them mine (C's local rows for A, columns for B)
  std::int64_t free_local0 = 0;   // aligned: local index along X's free axis of my first one

  const BlockCyclic& free_dist() const { return free_is_row ? rows : cols; }
  const BlockCyclic& k_dist() const { return free_is_row ? cols : rows; }
  std::int64_t free_offset() const { return free_is_row ? i0 : j0; }
  std::int64_t k_offset() const { return free_is_row ? j0 : i0; }
  T at(std::int64_t local_free, std::int64_t local_k) const {
    const T v = free_is_row ? data[local_free + local_k * ld] : data[local_k + local_free * ld];
    return conj ? conjugate(v) : v;
  }
};

// Where the free indices of op(X) that one process row (A) or column (B) of C holds (ascending)
// live along X's free axis: computed once per call, so that each panel's redistribution
// (start_gather, finish_gather) does no index arithmetic per element beyond a comparison.
struct FreeClass {
  std::vector<int> owner;           // f's owner along X's free axis; -1: replicated
  std::vector<std::int64_t> local;  // f's local index there
};

// Buffers and request of one redistributed panel (the MPI_Ialltoallv path).
template <class T>
struct Gather {
  exec::DataVector<T> send, recv;  // shared pages in a simulation (exec/compute.hpp)
  std::vector<int> scounts, sdispls, rcounts, rdispls, cursor;
  MPI_Request request = MPI_REQUEST_NULL;
};

// A panel's pieces grouped by owner for one broadcast each (Options::panels_per_owner), and
// where each piece goes in the panel.
template <class T>
struct Staging {
  struct Copy {
    std::int64_t from, to, count;  // elements: staging offset, panel offset, length
  };
  exec::DataVector<T> data;  // shared pages in a simulation (exec/compute.hpp)
  std::vector<Copy> unpack;
};

template <class T>
struct Slot {
  std::int64_t k0 = 0, w = 0;
  exec::DataVector<T> a, b;  // shared pages in a simulation (exec/compute.hpp)
  Staging<T> stage_a, stage_b;
  std::vector<relay_request_t> bcasts;
  Gather<T> ga, gb;
  bool active = false;
};

// Which SUMMA operand is the other's transpose, its panel broadcast from the grid's diagonal
// (Summa::mirror_).
enum class Mirror { none, b_from_a, a_from_b };

template <class T>
class Summa {
 public:
  Summa(const Problem& p, const relay_grid& grid, const Options& options, relay_gemm_stats_t& stats)
      : p_(p), grid_(grid), options_(options), stats_(stats) {}

  relay_status_t run(std::string& error);
  /// The panel broadcasts run() took part in.
  const PanelBroadcasts& panels() const { return panels_; }

 private:
  void setup_operand(Operand<T>& x, bool is_a);
  void build_classes(const Operand<T>& x, const BlockCyclic& c_free, int nclasses,
                     std::vector<FreeClass>& classes);
  relay_status_t start(Slot<T>& slot, std::int64_t k0, std::int64_t w);
  void pack(const Operand<T>& x, std::int64_t g, std::int64_t count, T* out) const;
  relay_status_t start_aligned(const Operand<T>& x, Slot<T>& slot, Staging<T>& staging,
                               exec::DataVector<T>& panel);
  relay_status_t start_gather(const Operand<T>& x, const std::vector<FreeClass>& classes,
                              Slot<T>& slot, Gather<T>& g);
  void finish_gather(const Operand<T>& x, const std::vector<FreeClass>& classes, Slot<T>& slot,
                     Gather<T>& g, exec::DataVector<T>& panel);
  /// Per k index of the panel: its owner along X's k axis (-1: replicated) and local index.
  void k_places(const Operand<T>& x, const Slot<T>& slot, std::vector<int>& owner,
                std::vector<std::int64_t>& local) const;
  relay_status_t progress_others(std::vector<Slot<T>>& slots, const Slot<T>& current);
  relay_status_t wait(Slot<T>& slot);
  void scale_c();
  /// C(i0:i1, j0:j1) += alpha * panel A * (panel B)^T on this process's local C; with
  /// p_.triangle set, columns j0:j1 restricted to the triangle (all rows: i0, i1 not read).
  /// Returns the flops it did (or charged).
  double update(const Slot<T>& slot, T alpha, std::int64_t i0, std::int64_t i1, std::int64_t j0,
                std::int64_t j1);
  /// Mirror::b_from_a or a_from_b: which operand is the other's transpose, broadcast from the
  /// grid's diagonal; Mirror::none if the call is not of that form.
  Mirror mirror_of(const layout::Submatrix& csub) const;
  /// Fills the mirrored operand's panel of `slot` from the diagonal, once the other's is in.
  relay_status_t mirror(Slot<T>& slot);
  /// The triangle's rows of local column j: [first, last) of this process's local rows.
  std::pair<std::int64_t, std::int64_t> triangle_rows(std::int64_t j) const;
  relay_status_t mpi_error(int rc, const char* call);

  // Rank of the source of a panel element I receive, from its owners along X's free axis (fo)
  // and k axis (ko), -1 for a replicated axis (then my own coordinate serves it).
  int gather_source(const Operand<T>& x, int fo, int ko) const {
    const int my_free = x.free_is_row ? grid_.me.row : grid_.me.col;
    const int my_k = x.free_is_row ? grid_.me.col : grid_.me.row;
    const int f = fo < 0 ? my_free : fo, k = ko < 0 ? my_k : ko;
    return grid_.shape.rank_of(x.free_is_row ? layout::GridCoord{f, k} : layout::GridCoord{k, f});
  }

  const Problem& p_;
  const relay_grid& grid_;
  const Options& options_;
  relay_gemm_stats_t& stats_;
  // Read once per call: under SMPI the local work is charged instead of run, and the values
  // nobody reads are neither packed nor scaled (exec/compute.hpp).
  const bool charged_ = exec::compute_is_charged();
  Operand<T> a_, b_;
  std::vector<FreeClass> classes_a_, classes_b_;
  T* c_local_ = nullptr;
  std::int64_t ldc_ = 1;
  std::int64_t m_loc_ = 0, n_loc_ = 0;
  // With a triangle: the sub(C) index of each local row and column (ascending, as block-cyclic
  // local order is), to find each local column's rows inside the triangle.
  std::vector<std::int64_t> c_row_index_, c_col_index_;
  std::vector<T> diagonal_;  // a triangle's diagonal-crossing block, before its masked add
  // B = A^T (p?syrk, or a GEMM of A by its own transpose) on a square grid where sub(C)'s rows
  // and columns are laid out alike: process (r, c) needs as op(B)'s panel the op(A) panel rows
  // process row c received, so the diagonal process (c, c) broadcasts its A panel down its
  // column (or, mirrored, its B panel along its row) instead of a redistribution over the
  // whole grid (MPI_Ialltoallv): on 4 emulated nodes at 250 Mbit/s that sent a panel column's
  // rows twice over one link.
  Mirror mirror_ = Mirror::none;
  relay_bcast_options_t bcast_options_{};
  std::string error_;
  PanelBroadcasts panels_;
  std::vector<relay_request_t> progress_requests_;  // progress_others's list, kept
};

template <class T>
relay_status_t Summa<T>::mpi_error(int rc, const char* call) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  error_ = fmt::format("{} failed: {}", call, text);
  return RELAY_ERR_MPI;
}

template <class T>
void Summa<T>::setup_operand(Operand<T>& x, bool is_a) {
  const layout::Descriptor& d = is_a ? p_.desca : p_.descb;
  const Op op = is_a ? p_.opa : p_.opb;
  x.data = static_cast<const T*>(is_a ? p_.a : p_.b);
  x.ld = d.lld;
  x.rows = layout::row_distribution(d, grid_.shape);
  x.cols = layout::col_distribution(d, grid_.shape);
  x.i0 = is_a ? p_.ia : p_.ib;
  x.j0 = is_a ? p_.ja : p_.jb;
  // A: free index = op(A)'s rows (A's rows unless transposed). B: free index = op(B)'s
  // columns (B's columns unless transposed).
  x.free_is_row = is_a ? (op == Op::none) : (op != Op::none);
  x.conj = op == Op::conj_trans;
  x.nfree = is_a ? p_.m : p_.n;
  x.nfree_local = is_a ? m_loc_ : n_loc_;
  x.class_is_row = is_a;
  x.free_class = is_a ? grid_.me.row : grid_.me.col;
  const layout::Submatrix csub =
      layout::describe_submatrix(p_.descc, grid_.shape, p_.ic, p_.jc, p_.m, p_.n);
  const BlockCyclic& c_free = is_a ? csub.rows : csub.cols;
  const BlockCyclic x_free = layout::subrange(x.free_dist(), x.free_offset());
  // The free axis of X must be the grid axis C's free axis lies on: A's rows (grid rows) for
  // A, B's columns (grid columns) for B -- i.e. X is not transposed.
  x.aligned = op == Op::none && same_map(x_free, c_free, x.nfree);
  if (x.aligned) {
    x.comm = is_a ? grid_.row_comm : grid_.col_comm;
    x.k_coord = is_a ? grid_.me.col : grid_.me.row;
    x.free_local0 = layout::local_start(x.free_dist(), x.free_class, x.free_offset());
  }
}

template <class T>
void Summa<T>::build_classes(const Operand<T>& x, const BlockCyclic& c_free, int nclasses,
                             std::vector<FreeClass>& classes) {
  classes.assign(static_cast<std::size_t>(nclasses), {});
  const BlockCyclic& fd = x.free_dist();
  for (std::int64_t f = 0; f < x.nfree; ++f) {
    const std::int64_t g = x.free_offset() + f;
    const int owner = layout::is_replicated(fd) ? -1 : layout::owner(fd, g);
    const std::int64_t local = layout::to_local(fd, g);
    for (int q = 0; q < nclasses; ++q) {
      if (!holds(c_free, q, f)) continue;
      FreeClass& c = classes[static_cast<std::size_t>(q)];
      c.owner.push_back(owner);
      c.local.push_back(local);
    }
  }
}

template <class T>
void Summa<T>::pack(const Operand<T>& x, std::int64_t g, std::int64_t count, T* out) const {
  const BlockCyclic& kd = x.k_dist();
  const std::int64_t nf = x.nfree_local;
  if (x.free_is_row) {
    for (std::int64_t u = 0; u < count; ++u) {
      const std::int64_t lk = layout::to_local(kd, g + u);
      std::memcpy(out + u * nf, x.data + x.free_local0 + lk * x.ld,
                  sizeof(T) * static_cast<std::size_t>(nf));
    }
    return;
  }
  // A transpose (the k indices are the local rows): in tiles, so that each tile's reads run
  // down a column and its writes along a few panel columns. Element by element along the
  // panel, every read was a column apart (ld elements): a fifth of a small call's time on
  // shared memory (docs/gemm.md, "The cause at n = 2048").
  constexpr std::int64_t kTile = 32;
  std::int64_t lk[kTile];
  for (std::int64_t u0 = 0; u0 < count; u0 += kTile) {
    const std::int64_t us = std::min(kTile, count - u0);
    for (std::int64_t u = 0; u < us; ++u) lk[u] = layout::to_local(kd, g + u0 + u);
    for (std::int64_t f0 = 0; f0 < nf; f0 += kTile) {
      const std::int64_t fs = std::min(kTile, nf - f0);
      for (std::int64_t f = f0; f < f0 + fs; ++f) {
        const T* column = x.data + (x.free_local0 + f) * x.ld;
        T* to = out + u0 * nf + f;
        for (std::int64_t u = 0; u < us; ++u) to[u * nf] = column[lk[u]];
      }
    }
  }
}

template <class T>
relay_status_t Summa<T>::start_aligned(const Operand<T>& x, Slot<T>& slot, Staging<T>& staging,
                                       exec::DataVector<T>& panel) {
  const BlockCyclic& kd = x.k_dist();
  const std::int64_t nf = x.nfree_local;
  int comm_size = 1;
  MPI_Comm_size(x.comm, &comm_size);
  // The panel's pieces: a k block each (or the part of one the panel covers), with its owner
  // along the communicator (-1: replicated, every process holds it).
  struct Piece {
    std::int64_t t, count;
    int owner;
  };
  std::vector<Piece> pieces;
  for (std::int64_t t = 0; t < slot.w;) {
    const std::int64_t g = x.k_offset() + slot.k0 + t;
    const std::int64_t count = std::min(slot.w - t, layout::block_end(kd, g) - g);
    pieces.push_back({t, count, layout::owner(kd, g)});
    t += count;
  }
  // Per owner, the order in which its pieces appear; an owner of one piece broadcasts straight
  // into the panel, one of several packs them back to back in the staging buffer and
  // broadcasts them as one message, unpacked into k order once the panel has arrived.
  std::vector<int> owners;     // in order of first appearance
  std::vector<int> pieces_of;  // per owner: its pieces in this panel
  std::vector<std::int64_t> elements_of;
  for (const Piece& pc : pieces) {
    const auto at_owner = std::find(owners.begin(), owners.end(), pc.owner);
    const auto o = static_cast<std::size_t>(at_owner - owners.begin());
    if (at_owner == owners.end()) {
      owners.push_back(pc.owner);
      pieces_of.push_back(0);
      elements_of.push_back(0);
    }
    ++pieces_of[o];
    elements_of[o] += pc.count * nf;
  }
  panels_.ranks[x.class_is_row ? 0 : 1] = comm_size;  // A's classes are process rows
  const bool broadcasts = comm_size > 1 && nf > 0;
  const bool group = options_.panels_per_owner && broadcasts;
  auto staged_for = [&](std::size_t o) { return group && owners[o] >= 0 && pieces_of[o] > 1; };
  staging.unpack.clear();
  std::int64_t staged = 0;
  for (std::size_t o = 0; o < owners.size(); ++o) staged += staged_for(o) ? elements_of[o] : 0;
  staging.data.resize(static_cast<std::size_t>(staged));
  auto bcast = [&](T* buffer, std::int64_t count, int owner) {
    if (count > INT_MAX) {
      error_ = fmt::format("a panel broadcast of {} elements exceeds MPI's int count", count);
      return RELAY_ERR_COUNT;
    }
    relay_request_t req = RELAY_REQUEST_NULL;
    relay_status_t st = relay_ibcast(buffer, static_cast<int>(count), p_.type, owner, x.comm,
                                     &bcast_options_, &req);
    if (st != RELAY_SUCCESS) {
      error_ = fmt::format("panel broadcast: {}", relay_last_error());
      return st;
    }
    slot.bcasts.push_back(req);
    const long long bytes = count * static_cast<long long>(sizeof(T));
    stats_.panel_bytes += bytes;
    const int operand = x.class_is_row ? 0 : 1;  // A's classes are process rows
    panels_.largest_bytes[operand] = std::max(panels_.largest_bytes[operand], bytes);
    return RELAY_SUCCESS;
  };
  std::int64_t at = 0;  // next free element of the staging buffer
  for (std::size_t o = 0; o < owners.size(); ++o) {
    const int owner = owners[o];
    const bool mine = owner < 0 || owner == x.k_coord;
    const bool staged_here = staged_for(o);
    const std::int64_t first = at;
    for (const Piece& pc : pieces) {
      if (pc.owner != owner) continue;
      const std::int64_t g = x.k_offset() + slot.k0 + pc.t;
      T* to = staged_here ? staging.data.data() + at : panel.data() + pc.t * nf;
      // Charged (a simulation): no value is read, and the copy would touch shared pages.
      if (mine && nf > 0 && !charged_) pack(x, g, pc.count, to);
      if (staged_here) {
        staging.unpack.push_back({at, pc.t * nf, pc.count * nf});
        at += pc.count * nf;
      } else if (owner >= 0 && broadcasts) {
        if (relay_status_t st = bcast(to, pc.count * nf, owner); st != RELAY_SUCCESS) return st;
      }
    }
    if (staged_here) {
      if (relay_status_t st = bcast(staging.data.data() + first, at - first, owner);
          st != RELAY_SUCCESS) {
        return st;
      }
    }
  }
  return RELAY_SUCCESS;
}

template <class T>
void Summa<T>::k_places(const Operand<T>& x, const Slot<T>& slot, std::vector<int>& owner,
                        std::vector<std::int64_t>& local) const {
  const BlockCyclic& kd = x.k_dist();
  owner.resize(static_cast<std::size_t>(slot.w));
  local.resize(static_cast<std::size_t>(slot.w));
  for (std::int64_t t = 0; t < slot.w; ++t) {
    const std::int64_t gk = x.k_offset() + slot.k0 + t;
    owner[static_cast<std::size_t>(t)] = layout::is_replicated(kd) ? -1 : layout::owner(kd, gk);
    local[static_cast<std::size_t>(t)] = layout::to_local(kd, gk);
  }
}

// Element (f, t) of the panel comes from the process at (free owner, k owner) along X's axes,
// a replicated axis served by the destination's own coordinate.
template <class T>
relay_status_t Summa<T>::start_gather(const Operand<T>& x, const std::vector<FreeClass>& classes,
                                      Slot<T>& slot, Gather<T>& g) {
  const int P = grid_.shape.size();
  g.scounts.assign(P, 0);
  g.sdispls.assign(P, 0);
  g.rcounts.assign(P, 0);
  g.rdispls.assign(P, 0);
  g.send.clear();
  std::vector<int> k_owner;
  std::vector<std::int64_t> k_local;
  k_places(x, slot, k_owner, k_local);
  const int my_free = x.free_is_row ? grid_.me.row : grid_.me.col;
  const int my_k = x.free_is_row ? grid_.me.col : grid_.me.row;
  // What I send, destination by destination, in the destination's panel order.
  for (int d = 0; d < P; ++d) {
    const layout::GridCoord dc = grid_.shape.coord_of(d);
    const int dest_free = x.free_is_row ? dc.row : dc.col;
    const int dest_k = x.free_is_row ? dc.col : dc.row;
    const FreeClass& theirs = classes[static_cast<std::size_t>(x.class_is_row ? dc.row : dc.col)];
    g.sdispls[d] = static_cast<int>(g.send.size());
    for (std::int64_t t = 0; t < slot.w; ++t) {
      const int ko = k_owner[static_cast<std::size_t>(t)];
      if ((ko < 0 ? dest_k : ko) != my_k) continue;
      const std::int64_t lk = k_local[static_cast<std::size_t>(t)];
      for (std::size_t i = 0; i < theirs.owner.size(); ++i) {
        const int fo = theirs.owner[i];
        if ((fo < 0 ? dest_free : fo) == my_free) g.send.push_back(x.at(theirs.local[i], lk));
      }
    }
    g.scounts[d] = static_cast<int>(g.send.size()) - g.sdispls[d];
  }
  // What I receive: my panel, by source.
  const FreeClass& mine = classes[static_cast<std::size_t>(x.free_class)];
  for (std::int64_t t = 0; t < slot.w; ++t) {
    const int ko = k_owner[static_cast<std::size_t>(t)];
    for (int fo : mine.owner) ++g.rcounts[gather_source(x, fo, ko)];
  }
  int total = 0;
  for (int s = 0; s < P; ++s) {
    g.rdispls[s] = total;
    total += g.rcounts[s];
  }
  g.recv.resize(static_cast<std::size_t>(total));
  stats_.panel_bytes += static_cast<long long>(total) * static_cast<long long>(sizeof(T));
  int rc = MPI_Ialltoallv(g.send.data(), g.scounts.data(), g.sdispls.data(), p_.type, g.recv.data(),
                          g.rcounts.data(), g.rdispls.data(), p_.type, grid_.comm, &g.request);
  if (rc != MPI_SUCCESS) return mpi_error(rc, "MPI_Ialltoallv");
  return RELAY_SUCCESS;
}

template <class T>
void Summa<T>::finish_gather(const Operand<T>& x, const std::vector<FreeClass>& classes,
                             Slot<T>& slot, Gather<T>& g, exec::DataVector<T>& panel) {
  const FreeClass& mine = classes[static_cast<std::size_t>(x.free_class)];
  std::vector<int> k_owner;
  std::vector<std::int64_t> k_local;
  k_places(x, slot, k_owner, k_local);
  g.cursor = g.rdispls;
  const std::int64_t nf = x.nfree_local;
  for (std::int64_t t = 0; t < slot.w; ++t) {
    T* out = panel.data() + t * nf;
    const int ko = k_owner[static_cast<std::size_t>(t)];
    for (std::size_t i = 0; i < mine.owner.size(); ++i) {
      out[i] = g.recv[static_cast<std::size_t>(g.cursor[gather_source(x, mine.owner[i], ko)]++)];
    }
  }
}

template <class T>
relay_status_t Summa<T>::start(Slot<T>& slot, std::int64_t k0, std::int64_t w) {
  const double t0 = MPI_Wtime();
  slot.k0 = k0;
  slot.w = w;
  slot.active = true;
  slot.a.resize(static_cast<std::size_t>(w * m_loc_));
  slot.b.resize(static_cast<std::size_t>(w * n_loc_));
  relay_status_t st = RELAY_SUCCESS;
  if (mirror_ != Mirror::a_from_b) {  // else wait() fills A's panel from B's (mirror)
    st = a_.aligned ? start_aligned(a_, slot, slot.stage_a, slot.a)
                    : start_gather(a_, classes_a_, slot, slot.ga);
  }
  if (st == RELAY_SUCCESS && mirror_ != Mirror::b_from_a) {
    st = b_.aligned ? start_aligned(b_, slot, slot.stage_b, slot.b)
                    : start_gather(b_, classes_b_, slot, slot.gb);
  }
  stats_.bcast_s += MPI_Wtime() - t0;
  return st;
}

template <class T>
relay_status_t Summa<T>::progress_others(std::vector<Slot<T>>& slots, const Slot<T>& current) {
  const double t0 = MPI_Wtime();
  // Every later panel's broadcasts with one MPI test (relay_progressall): under SMPI each test
  // is a rank switch and a message to itself, and SUMMA on 16,384 simulated ranks spent most
  // of its host time in those, one per broadcast per piece of the multiplication.
  progress_requests_.clear();
  for (Slot<T>& other : slots) {
    if (&other == &current || !other.active) continue;
    for (relay_request_t r : other.bcasts) {
      if (r != RELAY_REQUEST_NULL) progress_requests_.push_back(r);
    }
  }
  if (relay_status_t st =
          relay_progressall(static_cast<int>(progress_requests_.size()), progress_requests_.data());
      st != RELAY_SUCCESS) {
    error_ = fmt::format("panel broadcast: {}", relay_last_error());
    return st;
  }
  for (Slot<T>& other : slots) {
    if (&other == &current || !other.active) continue;
    for (Gather<T>* g : {&other.ga, &other.gb}) {
      if (g->request != MPI_REQUEST_NULL) {
        int flag = 0;
        int rc = MPI_Test(&g->request, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_error(rc, "MPI_Test");
      }
    }
  }
  stats_.bcast_s += MPI_Wtime() - t0;
  return RELAY_SUCCESS;
}

template <class T>
relay_status_t Summa<T>::wait(Slot<T>& slot) {
  const double t0 = MPI_Wtime();
  // All of the slot's broadcasts together: waiting for them one by one, a rank would not
  // forward the others meanwhile, and chains and trees stall at every rank waiting on another
  // piece (docs/simulate.md: SMPI's linear MPI_Ibcast, which needs no forwarding, then beat
  // relay's pipeline 1.5x in SUMMA on tan2014's platform).
  relay_status_t result = relay_waitall(static_cast<int>(slot.bcasts.size()), slot.bcasts.data());
  if (result != RELAY_SUCCESS) {
    error_ = fmt::format("panel broadcast: {}", relay_last_error());
    // The others still run: they finish before the panels are let go.
    for (relay_request_t& r : slot.bcasts) relay_wait(&r);
  }
  slot.bcasts.clear();
  for (Gather<T>* g : {&slot.ga, &slot.gb}) {
    if (g->request != MPI_REQUEST_NULL) {
      int rc = MPI_Wait(&g->request, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS && result == RELAY_SUCCESS) result = mpi_error(rc, "MPI_Wait");
    }
  }
  const double t1 = MPI_Wtime();
  stats_.wait_s += t1 - t0;
  if (!a_.aligned && mirror_ != Mirror::a_from_b) {
    finish_gather(a_, classes_a_, slot, slot.ga, slot.a);
  }
  if (!b_.aligned && mirror_ != Mirror::b_from_a) {
    finish_gather(b_, classes_b_, slot, slot.gb, slot.b);
  }
  if (!charged_) {  // a simulation reads no value
    for (auto [staging, panel] : {std::pair{&slot.stage_a, &slot.a}, {&slot.stage_b, &slot.b}}) {
      for (const auto& c : staging->unpack) {
        std::memcpy(panel->data() + c.to, staging->data.data() + c.from,
                    sizeof(T) * static_cast<std::size_t>(c.count));
      }
    }
  }
  stats_.bcast_s += MPI_Wtime() - t1;
  if (result == RELAY_SUCCESS && mirror_ != Mirror::none) result = mirror(slot);
  slot.active = false;
  return result;
}

template <class T>
Mirror Summa<T>::mirror_of(const layout::Submatrix& csub) const {
  const bool same_operand = p_.a == p_.b && p_.ia == p_.ib && p_.ja == p_.jb &&
                            p_.desca.dtype == p_.descb.dtype && p_.desca.m == p_.descb.m &&
                            p_.desca.n == p_.descb.n && p_.desca.imb == p_.descb.imb &&
                            p_.desca.inb == p_.descb.inb && p_.desca.mb == p_.descb.mb &&
                            p_.desca.nb == p_.descb.nb && p_.desca.rsrc == p_.descb.rsrc &&
                            p_.desca.csrc == p_.descb.csrc && p_.desca.lld == p_.descb.lld;
  const bool transposes =
      (p_.opa == Op::none && p_.opb == Op::trans) || (p_.opa == Op::trans && p_.opb == Op::none);
  if (!same_operand || !transposes || p_.m != p_.n || grid_.shape.rows != grid_.shape.cols ||
      !same_map(csub.rows, csub.cols, p_.n) || csub.rows.source < 0) {
    return Mirror::none;
  }
  if (a_.aligned && !b_.aligned) return Mirror::b_from_a;
  if (b_.aligned && !a_.aligned) return Mirror::a_from_b;
  return Mirror::none;
}

template <class T>
relay_status_t Summa<T>::mirror(Slot<T>& slot) {
  const double t0 = MPI_Wtime();
  const bool to_b = mirror_ == Mirror::b_from_a;
  const Operand<T>& source = to_b ? a_ : b_;
  exec::DataVector<T>& from = to_b ? slot.a : slot.b;
  exec::DataVector<T>& to = to_b ? slot.b : slot.a;
  // Lines: the grid columns (to B) or rows (to A) the mirrored panel travels along; a
  // process's line and its place on it. The diagonal's own rows and columns of sub(C) are the
  // same indices: its panel is the other's as it is, and every process of its line holds as
  // many as it does.
  const int line = to_b ? grid_.me.col : grid_.me.row;
  const int place = to_b ? grid_.me.row : grid_.me.col;
  const std::int64_t count = (to_b ? n_loc_ : m_loc_) * slot.w;
  if (count > INT_MAX) {
    error_ = fmt::format("a panel broadcast of {} elements exceeds MPI's int count", count);
    return RELAY_ERR_COUNT;
  }
  if (line == place && count > 0 && !charged_) {
    std::memcpy(to.data(), from.data(), sizeof(T) * static_cast<std::size_t>(count));
  }
  // The line the panel came from (its owner along the k axis): there the diagonal is that
  // owner, which has sent it once already; its line's others take it from their transposed
  // partners instead, (owner, x) sending to (x, owner), so that no link carries it twice.
  // -1 when the panel has several owners (wider than a k block) or every process holds it.
  const BlockCyclic& kd = source.k_dist();
  const std::int64_t g0 = source.k_offset() + slot.k0;
  const int owner = layout::is_replicated(kd) || layout::block_end(kd, g0) < g0 + slot.w
                        ? -1
                        : layout::owner(kd, g0);
  const int partner_tag = 0x5e1f;  // a message of this call's own on the grid's communicator
  auto rank_at = [&](int line_at, int place_at) {
    return grid_.shape.rank_of(to_b ? layout::GridCoord{place_at, line_at}
                                    : layout::GridCoord{line_at, place_at});
  };
  std::vector<MPI_Request> requests;
  relay_status_t st = RELAY_SUCCESS;
  if (grid_.shape.rows > 1) {
    // (owner, x) sends to (x, owner) the panel it holds: as many as (x, owner) needs.
    const std::int64_t held = (to_b ? m_loc_ : n_loc_) * slot.w;
    if (owner >= 0 && place == owner && line != owner && held > 0) {
      requests.emplace_back();
      MPI_Isend(from.data(), static_cast<int>(held), p_.type, rank_at(owner, line), partner_tag,
                grid_.comm, &requests.back());
    }
    if (owner >= 0 && line == owner) {
      if (place != owner && count > 0) {
        requests.emplace_back();
        MPI_Irecv(to.data(), static_cast<int>(count), p_.type, rank_at(place, owner), partner_tag,
                  grid_.comm, &requests.back());
      }
    } else if (count > 0) {  // from the line's diagonal: relay's broadcast along the line
      relay_request_t req = RELAY_REQUEST_NULL;
      st = relay_ibcast(to.data(), static_cast<int>(count), p_.type, line,
                        to_b ? grid_.col_comm : grid_.row_comm, &bcast_options_, &req);
      if (st == RELAY_SUCCESS) st = relay_wait(&req);
      if (st != RELAY_SUCCESS) error_ = fmt::format("panel broadcast: {}", relay_last_error());
    }
    if (!requests.empty()) {
      const int rc =
          MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS && st == RELAY_SUCCESS) st = mpi_error(rc, "MPI_Waitall");
    }
    if (st == RELAY_SUCCESS) {
      const long long bytes = count * static_cast<long long>(sizeof(T));
      stats_.panel_bytes += bytes;
      const int operand = to_b ? 1 : 0;
      panels_.ranks[operand] = grid_.shape.rows;
      panels_.largest_bytes[operand] = std::max(panels_.largest_bytes[operand], bytes);
    }
  }
  stats_.wait_s += MPI_Wtime() - t0;
  return st;
}

template <class T>
void Summa<T>::scale_c() {
  const T beta = *static_cast<const T*>(p_.beta);
  if (beta == T(1)) return;
  if (charged_) {  // a simulation: writing C would touch every shared page
    exec::charge_flops(static_cast<double>(m_loc_) * static_cast<double>(n_loc_));
    return;
  }
  for (std::int64_t j = 0; j < n_loc_; ++j) {
    T* col = c_local_ + j * ldc_;
    const auto [first, last] = triangle_rows(j);  // all rows without a triangle
    if (beta == T(0)) {
      std::fill(col + first, col + last, T(0));  // never read C: NaNs must not survive beta = 0
    } else {
      for (std::int64_t i = first; i < last; ++i) col[i] *= beta;
    }
  }
}

template <class T>
std::pair<std::int64_t, std::int64_t> Summa<T>::triangle_rows(std::int64_t j) const {
  if (p_.triangle == 0) return {0, m_loc_};
  const std::int64_t col = c_col_index_[static_cast<std::size_t>(j)];
  const auto begin = c_row_index_.begin(), end = c_row_index_.end();
  if (p_.triangle == 'L') return {std::lower_bound(begin, end, col) - begin, m_loc_};  // row >= col
  return {0, std::upper_bound(begin, end, col) - begin};                               // row <= col
}

template <class T>
double Summa<T>::update(const Slot<T>& slot, T alpha, std::int64_t i0, std::int64_t i1,
                        std::int64_t j0, std::int64_t j1) {
  const double per_entry = 2.0 * (is_complex<T>::value ? 4.0 : 1.0) * static_cast<double>(slot.w);
  const int lda = static_cast<int>(std::max<std::int64_t>(1, m_loc_));
  const int ldb = static_cast<int>(std::max<std::int64_t>(1, n_loc_));
  // Rows [r0, r1) by columns [c0, c1) of local C, in place.
  auto multiply = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, T* c,
                      std::int64_t ldc) {
    if (r1 <= r0 || c1 <= c0) return 0.0;
    if (!charged_) {
      Blas<T>::gemm(static_cast<int>(r1 - r0), static_cast<int>(c1 - c0), static_cast<int>(slot.w),
                    alpha, slot.a.data() + r0, lda, slot.b.data() + c0, ldb, c,
                    static_cast<int>(ldc));
    }
    return per_entry * static_cast<double>(r1 - r0) * static_cast<double>(c1 - c0);
  };
  if (p_.triangle == 0) return multiply(i0, i1, j0, j1, c_local_ + i0 + j0 * ldc_, ldc_);
  // A triangle: runs of local columns whose sub(C) indices are consecutive (one block of C's
  // columns), each in two multiplications: the rows inside the triangle for every column of
  // the run, in place; and the rows crossing the diagonal, into a scratch block added under
  // the triangle's mask (at most a block of rows: PBLAS's PB_Cpsyrk splits the same way).
  double flops = 0;
  for (std::int64_t j = j0; j < j1;) {
    std::int64_t e = j + 1;
    while (e < j1 && c_col_index_[static_cast<std::size_t>(e)] ==
                         c_col_index_[static_cast<std::size_t>(e - 1)] + 1) {
      ++e;
    }
    const auto [first_of_j, last_of_j] = triangle_rows(j);
    const auto [first_of_e, last_of_e] = triangle_rows(e - 1);
    // Lower: column e-1's rows are inside for every column of the run; upper: column j's.
    const std::int64_t full0 = p_.triangle == 'L' ? first_of_e : 0;
    const std::int64_t full1 = p_.triangle == 'L' ? m_loc_ : last_of_j;
    flops += multiply(full0, full1, j, e, c_local_ + full0 + j * ldc_, ldc_);
    const std::int64_t cross0 = p_.triangle == 'L' ? first_of_j : last_of_j;
    const std::int64_t cross1 = p_.triangle == 'L' ? first_of_e : last_of_e;
    if (cross1 > cross0) {
      const std::int64_t rows = cross1 - cross0;
      if (!charged_) {
        diagonal_.assign(static_cast<std::size_t>(rows * (e - j)), T(0));
        multiply(cross0, cross1, j, e, diagonal_.data(), rows);
        for (std::int64_t c = j; c < e; ++c) {
          const auto [first, last] = triangle_rows(c);
          const T* from = diagonal_.data() + (c - j) * rows;
          T* to = c_local_ + c * ldc_;
          for (std::int64_t i = std::max(first, cross0); i < std::min(last, cross1); ++i) {
            to[i] += from[i - cross0];
          }
        }
      }
      flops += per_entry * static_cast<double>(rows) * static_cast<double>(e - j);
    }
    j = e;
  }
  return flops;
}

template <class T>
relay_status_t Summa<T>::run(std::string& error) {
  const double t_start = MPI_Wtime();
  stats_ = relay_gemm_stats_t{};
  if (p_.m == 0 || p_.n == 0) return RELAY_SUCCESS;
  const layout::Submatrix csub =
      layout::describe_submatrix(p_.descc, grid_.shape, p_.ic, p_.jc, p_.m, p_.n);
  const layout::LocalBlock cl = layout::local_block(csub, grid_.me);
  m_loc_ = cl.rows;
  n_loc_ = cl.cols;
  ldc_ = p_.descc.lld;
  c_local_ = static_cast<T*>(p_.c) + cl.row_offset + cl.col_offset * ldc_;
  if (p_.triangle != 0) {
    c_row_index_.resize(static_cast<std::size_t>(m_loc_));
    c_col_index_.resize(static_cast<std::size_t>(n_loc_));
    for (std::int64_t i = 0; i < m_loc_; ++i) {
      c_row_index_[static_cast<std::size_t>(i)] = layout::to_global(csub.rows, grid_.me.row, i);
    }
    for (std::int64_t j = 0; j < n_loc_; ++j) {
      c_col_index_[static_cast<std::size_t>(j)] = layout::to_global(csub.cols, grid_.me.col, j);
    }
  }

  double t0 = MPI_Wtime();
  scale_c();
  stats_.compute_s += MPI_Wtime() - t0;
  const T alpha = *static_cast<const T*>(p_.alpha);
  if (p_.k == 0 || alpha == T(0)) {
    stats_.total_s = MPI_Wtime() - t_start;
    return RELAY_SUCCESS;
  }

  setup_operand(a_, true);
  setup_operand(b_, false);
  stats_.aligned_a = a_.aligned ? 1 : 0;
  stats_.aligned_b = b_.aligned ? 1 : 0;
  mirror_ = mirror_of(csub);
  if (!a_.aligned && mirror_ != Mirror::a_from_b) {
    build_classes(a_, csub.rows, grid_.shape.rows, classes_a_);
  }
  if (!b_.aligned && mirror_ != Mirror::b_from_a) {
    build_classes(b_, csub.cols, grid_.shape.cols, classes_b_);
  }
  bcast_options_ = options_.bcast;
  bcast_options_.check = RELAY_CHECK_LOCAL;  // the GEMM already agreed on its arguments

  // Panel width: the caller's, else default_panel_width of an aligned operand's k block.
  std::int64_t width = options_.panel_width;
  // Mirrored panels are not cut narrower to overlap their two crossings: on 4 emulated nodes
  // (2x2, 250 Mbit/s) pdpotrf's updates took 2.60-2.71 s in quarter or half blocks with one
  // ahead, 2.27 s in whole blocks (ScaLAPACK's 2.09-2.17 s; RELAY_GEMM_PANEL_WIDTH=16/32/64).
  const std::int64_t L = options_.lookahead;
  if (width <= 0) {
    std::int64_t block = 1;
    if (a_.aligned) block = std::max(block, a_.k_dist().block);
    if (b_.aligned) block = std::max(block, b_.k_dist().block);
    width = default_panel_width(block);
  }
  width = std::min(width, p_.k);
  const std::int64_t npanels = (p_.k + width - 1) / width;
  const int nslots = static_cast<int>(std::min<std::int64_t>(L + 1, npanels));
  std::vector<Slot<T>> slots(static_cast<std::size_t>(nslots));
  auto panel_start = [&](std::int64_t q) { return q * width; };
  auto panel_width = [&](std::int64_t q) { return std::min(width, p_.k - q * width); };

  relay_status_t st = RELAY_SUCCESS;
  for (std::int64_t q = 0; q < std::min(L, npanels) && st == RELAY_SUCCESS; ++q) {
    st = start(slots[static_cast<std::size_t>(q % nslots)], panel_start(q), panel_width(q));
  }
  const int pieces = std::max(1, static_cast<int>(std::min<std::int64_t>(
                                     run_pieces(options_), std::max<std::int64_t>(n_loc_, 1))));
  // Tiles by the measured cost of packing each panel again (the grid's cost inputs, there
  // once a call was costed) when the pieces are auto's; by columns without those rates, for a
  // triangle, and for a count the caller fixed: the rates differ from run to run, and a fixed
  // count is how a caller gets C identical to the bit from run to run (docs/gemm.md).
  double column_band_s = 0, row_band_s = 0;
  if (const CostInputs* in = grid_.cost_inputs.get();
      in != nullptr && p_.triangle == 0 && options_.tiles_by_cost) {
    const double w = static_cast<double>(width) * sizeof(T) / 8.0;
    column_band_s = static_cast<double>(m_loc_) * w * in->piece_s_per_element;
    row_band_s = static_cast<double>(n_loc_) * w * in->row_band_s_per_element;
  }
  const PieceGrid tiles = piece_grid(pieces, m_loc_, n_loc_, column_band_s, row_band_s);
  if (pieces > 1 && core::log_enabled() && grid_.me.row == 0 && grid_.me.col == 0) {
    core::log_line(fmt::format(
        "gemm: local update of {}x{} in {}x{} tiles (a further column band copies A's panel "
        "again: {:.3g} s, a row band B's: {:.3g} s; piece_grid)",
        m_loc_, n_loc_, tiles.rows, tiles.cols, column_band_s, row_band_s));
  }
  for (std::int64_t q = 0; q < npanels && st == RELAY_SUCCESS; ++q) {
    if (q + L < npanels) {
      st = start(slots[static_cast<std::size_t>((q + L) % nslots)], panel_start(q + L),
                 panel_width(q + L));
      if (st != RELAY_SUCCESS) break;
    }
    Slot<T>& slot = slots[static_cast<std::size_t>(q % nslots)];
    st = wait(slot);
    if (st != RELAY_SUCCESS) break;
    ++stats_.panel_count;
    if (m_loc_ == 0 || n_loc_ == 0) continue;
    // The local update, cut into tiles (piece_grid); between pieces, later panels progress.
    for (int piece = 0; piece < pieces && st == RELAY_SUCCESS; ++piece) {
      const std::int64_t r = piece / tiles.cols, c = piece % tiles.cols;
      const std::int64_t i0 = m_loc_ * r / tiles.rows, i1 = m_loc_ * (r + 1) / tiles.rows;
      const std::int64_t j0 = n_loc_ * c / tiles.cols, j1 = n_loc_ * (c + 1) / tiles.cols;
      t0 = MPI_Wtime();
      const double flops = update(slot, alpha, i0, i1, j0, j1);
      // Simulation: the multiplication's flops (a complex one is 4 real ones) become time.
      if (charged_ && flops > 0) exec::charge_flops(flops);
      stats_.compute_s += MPI_Wtime() - t0;
      if (L > 0) st = progress_others(slots, slot);
    }
  }
  // On an error, complete what is in flight so that no request outlives the call.
  for (Slot<T>& slot : slots) {
    if (slot.active) {
      relay_status_t w = wait(slot);
      if (st == RELAY_SUCCESS) st = w;
    }
  }
  long long workspace = 0;
  for (const Slot<T>& slot : slots) {
    workspace += static_cast<long long>(
        (slot.a.capacity() + slot.b.capacity() + slot.stage_a.data.capacity() +
         slot.stage_b.data.capacity() + slot.ga.send.capacity() + slot.ga.recv.capacity() +
         slot.gb.send.capacity() + slot.gb.recv.capacity()) *
        sizeof(T));
  }
  stats_.workspace_bytes = workspace;
  stats_.total_s = MPI_Wtime() - t_start;
  if (st != RELAY_SUCCESS) error = error_;
  return st;
}

}  // namespace

relay_status_t summa(const Problem& p, const relay_grid& grid, const Options& options,
                     relay_gemm_stats_t& stats, std::string& error, PanelBroadcasts* panels) {
  relay_status_t st = RELAY_ERR_DATATYPE;
  if (!with_element_type(p.type, false, [&](auto tag) {
        Summa<decltype(tag)> run(p, grid, options, stats);
        st = run.run(error);
        if (panels != nullptr) *panels = run.panels();
        return true;
      })) {
    error = "datatype is not MPI_FLOAT, MPI_DOUBLE, MPI_C_FLOAT_COMPLEX or MPI_C_DOUBLE_COMPLEX";
  }
  return st;
}

}  // namespace relay::gemm
