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
#include "gemm/gemm.hpp"
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
                     std::vector<std::vector<std::int64_t>>& classes);
  relay_status_t start(Slot<T>& slot, std::int64_t k0, std::int64_t w);
  void pack(const Operand<T>& x, std::int64_t g, std::int64_t count, T* out) const;
  relay_status_t start_aligned(const Operand<T>& x, Slot<T>& slot, Staging<T>& staging,
                               exec::DataVector<T>& panel);
  relay_status_t start_gather(const Operand<T>& x,
                              const std::vector<std::vector<std::int64_t>>& classes, Slot<T>& slot,
                              Gather<T>& g);
  void finish_gather(const Operand<T>& x, const std::vector<std::vector<std::int64_t>>& classes,
                     Slot<T>& slot, Gather<T>& g, exec::DataVector<T>& panel);
  relay_status_t progress(Slot<T>& slot);
  relay_status_t wait(Slot<T>& slot);
  void scale_c();
  relay_status_t mpi_error(int rc, const char* call);

  // Grid coordinate of the source of element (f, t) of op(X) as destination `dest` sees it
  // (a replicated axis is served by the destination's own coordinate along it).
  int source_rank(const Operand<T>& x, std::int64_t f, std::int64_t kk,
                  layout::GridCoord dest) const {
    const int fo = layout::owner(x.free_dist(), x.free_offset() + f);
    const int k_owner = layout::owner(x.k_dist(), x.k_offset() + kk);
    int row = x.free_is_row ? fo : k_owner;
    int col = x.free_is_row ? k_owner : fo;
    if (row < 0) row = dest.row;
    if (col < 0) col = dest.col;
    return grid_.shape.rank_of(layout::GridCoord{row, col});
  }

  const Problem& p_;
  const relay_grid& grid_;
  const Options& options_;
  relay_gemm_stats_t& stats_;
  // Read once per call: under SMPI the local work is charged instead of run, and the values
  // nobody reads are neither packed nor scaled (exec/compute.hpp).
  const bool charged_ = exec::compute_is_charged();
  Operand<T> a_, b_;
  std::vector<std::vector<std::int64_t>> classes_a_, classes_b_;
  T* c_local_ = nullptr;
  std::int64_t ldc_ = 1;
  std::int64_t m_loc_ = 0, n_loc_ = 0;
  relay_bcast_options_t bcast_options_{};
  std::string error_;
  PanelBroadcasts panels_;
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
                             std::vector<std::vector<std::int64_t>>& classes) {
  classes.assign(static_cast<std::size_t>(nclasses), {});
  for (std::int64_t f = 0; f < x.nfree; ++f) {
    for (int q = 0; q < nclasses; ++q) {
      if (holds(c_free, q, f)) classes[static_cast<std::size_t>(q)].push_back(f);
    }
  }
}

template <class T>
void Summa<T>::pack(const Operand<T>& x, std::int64_t g, std::int64_t count, T* out) const {
  const BlockCyclic& kd = x.k_dist();
  const std::int64_t nf = x.nfree_local;
  for (std::int64_t u = 0; u < count; ++u) {
    const std::int64_t lk = layout::to_local(kd, g + u);
    T* to = out + u * nf;
    if (x.free_is_row) {
      std::memcpy(to, x.data + x.free_local0 + lk * x.ld, sizeof(T) * static_cast<std::size_t>(nf));
    } else {
      for (std::int64_t f = 0; f < nf; ++f) to[f] = x.data[lk + (x.free_local0 + f) * x.ld];
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
relay_status_t Summa<T>::start_gather(const Operand<T>& x,
                                      const std::vector<std::vector<std::int64_t>>& classes,
                                      Slot<T>& slot, Gather<T>& g) {
  const int P = grid_.shape.size();
  const int me = grid_.shape.rank_of(grid_.me);
  g.scounts.assign(P, 0);
  g.sdispls.assign(P, 0);
  g.rcounts.assign(P, 0);
  g.rdispls.assign(P, 0);
  g.send.clear();
  const BlockCyclic& fd = x.free_dist();
  const BlockCyclic& kd = x.k_dist();
  // What I send, destination by destination, in the destination's panel order.
  for (int d = 0; d < P; ++d) {
    const layout::GridCoord dc = grid_.shape.coord_of(d);
    const auto& mine = classes[static_cast<std::size_t>(x.class_is_row ? dc.row : dc.col)];
    g.sdispls[d] = static_cast<int>(g.send.size());
    for (std::int64_t t = 0; t < slot.w; ++t) {
      const std::int64_t gk = x.k_offset() + slot.k0 + t;
      for (std::int64_t f : mine) {
        if (source_rank(x, f, slot.k0 + t, dc) != me) continue;
        const std::int64_t lf = layout::to_local(fd, x.free_offset() + f);
        g.send.push_back(x.at(lf, layout::to_local(kd, gk)));
      }
    }
    g.scounts[d] = static_cast<int>(g.send.size()) - g.sdispls[d];
  }
  // What I receive: my panel, by source.
  const auto& my_list = classes[static_cast<std::size_t>(x.free_class)];
  for (std::int64_t t = 0; t < slot.w; ++t) {
    for (std::int64_t f : my_list) ++g.rcounts[source_rank(x, f, slot.k0 + t, grid_.me)];
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
void Summa<T>::finish_gather(const Operand<T>& x,
                             const std::vector<std::vector<std::int64_t>>& classes, Slot<T>& slot,
                             Gather<T>& g, exec::DataVector<T>& panel) {
  const auto& my_list = classes[static_cast<std::size_t>(x.free_class)];
  g.cursor = g.rdispls;
  const std::int64_t nf = x.nfree_local;
  for (std::int64_t t = 0; t < slot.w; ++t) {
    T* out = panel.data() + t * nf;
    for (std::size_t i = 0; i < my_list.size(); ++i) {
      const int s = source_rank(x, my_list[i], slot.k0 + t, grid_.me);
      out[i] = g.recv[static_cast<std::size_t>(g.cursor[s]++)];
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
  relay_status_t st = a_.aligned ? start_aligned(a_, slot, slot.stage_a, slot.a)
                                 : start_gather(a_, classes_a_, slot, slot.ga);
  if (st == RELAY_SUCCESS) {
    st = b_.aligned ? start_aligned(b_, slot, slot.stage_b, slot.b)
                    : start_gather(b_, classes_b_, slot, slot.gb);
  }
  stats_.bcast_s += MPI_Wtime() - t0;
  return st;
}

template <class T>
relay_status_t Summa<T>::progress(Slot<T>& slot) {
  if (!slot.active) return RELAY_SUCCESS;
  const double t0 = MPI_Wtime();
  for (relay_request_t r : slot.bcasts) {
    if (r != RELAY_REQUEST_NULL) {
      relay_status_t st = relay_progress(r);
      if (st != RELAY_SUCCESS) {
        error_ = fmt::format("panel broadcast: {}", relay_last_error());
        return st;
      }
    }
  }
  for (Gather<T>* g : {&slot.ga, &slot.gb}) {
    if (g->request != MPI_REQUEST_NULL) {
      int flag = 0;
      int rc = MPI_Test(&g->request, &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return mpi_error(rc, "MPI_Test");
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
  if (!a_.aligned) finish_gather(a_, classes_a_, slot, slot.ga, slot.a);
  if (!b_.aligned) finish_gather(b_, classes_b_, slot, slot.gb, slot.b);
  if (!charged_) {  // a simulation reads no value
    for (auto [staging, panel] : {std::pair{&slot.stage_a, &slot.a}, {&slot.stage_b, &slot.b}}) {
      for (const auto& c : staging->unpack) {
        std::memcpy(panel->data() + c.to, staging->data.data() + c.from,
                    sizeof(T) * static_cast<std::size_t>(c.count));
      }
    }
  }
  stats_.bcast_s += MPI_Wtime() - t1;
  slot.active = false;
  return result;
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
    if (beta == T(0)) {
      std::fill(col, col + m_loc_, T(0));  // never read C: NaNs must not survive beta = 0
    } else {
      for (std::int64_t i = 0; i < m_loc_; ++i) col[i] *= beta;
    }
  }
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
  if (!a_.aligned) build_classes(a_, csub.rows, grid_.shape.rows, classes_a_);
  if (!b_.aligned) build_classes(b_, csub.cols, grid_.shape.cols, classes_b_);
  bcast_options_ = options_.bcast;
  bcast_options_.check = RELAY_CHECK_LOCAL;  // the GEMM already agreed on its arguments

  // Panel width: the caller's, else default_panel_width of an aligned operand's k block.
  std::int64_t width = options_.panel_width;
  if (width <= 0) {
    std::int64_t block = 1;
    if (a_.aligned) block = std::max(block, a_.k_dist().block);
    if (b_.aligned) block = std::max(block, b_.k_dist().block);
    width = default_panel_width(block);
  }
  width = std::min(width, p_.k);
  const std::int64_t npanels = (p_.k + width - 1) / width;
  const int nslots = static_cast<int>(std::min<std::int64_t>(options_.lookahead + 1, npanels));
  std::vector<Slot<T>> slots(static_cast<std::size_t>(nslots));
  auto panel_start = [&](std::int64_t q) { return q * width; };
  auto panel_width = [&](std::int64_t q) { return std::min(width, p_.k - q * width); };
  const std::int64_t L = options_.lookahead;

  relay_status_t st = RELAY_SUCCESS;
  for (std::int64_t q = 0; q < std::min(L, npanels) && st == RELAY_SUCCESS; ++q) {
    st = start(slots[static_cast<std::size_t>(q % nslots)], panel_start(q), panel_width(q));
  }
  const int pieces = std::max(1, static_cast<int>(std::min<std::int64_t>(
                                     options_.pieces, std::max<std::int64_t>(n_loc_, 1))));
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
    // The local update, cut into column pieces; between pieces, later panels progress.
    for (int piece = 0; piece < pieces && st == RELAY_SUCCESS; ++piece) {
      const std::int64_t j0 = n_loc_ * piece / pieces, j1 = n_loc_ * (piece + 1) / pieces;
      t0 = MPI_Wtime();
      if (j1 > j0 && charged_) {
        // Simulation: the multiplication's flops (a complex one is 4 real ones) become time.
        exec::charge_flops(2.0 * (is_complex<T>::value ? 4.0 : 1.0) * static_cast<double>(m_loc_) *
                           static_cast<double>(j1 - j0) * static_cast<double>(slot.w));
      } else if (j1 > j0) {
        Blas<T>::gemm(static_cast<int>(m_loc_), static_cast<int>(j1 - j0), static_cast<int>(slot.w),
                      alpha, slot.a.data(), static_cast<int>(std::max<std::int64_t>(1, m_loc_)),
                      slot.b.data() + j0, static_cast<int>(std::max<std::int64_t>(1, n_loc_)),
                      c_local_ + j0 * ldc_, static_cast<int>(ldc_));
      }
      stats_.compute_s += MPI_Wtime() - t0;
      if (L > 0) {
        for (Slot<T>& other : slots) {
          if (&other != &slot && st == RELAY_SUCCESS) st = progress(other);
        }
      }
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
