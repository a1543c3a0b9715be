// relay_symm_square_cube_2d: SymmSquareCube on ScaLAPACK-style 2D block-cyclic matrices. The
// elements of each mesh block (i, j) are gathered on P(i, j, 0) from their 2D owners with one
// MPI_Alltoallv over the mesh's processes, and D^2 and D^3 scattered back the same way. Both
// sides of a pair walk the elements they exchange in the same order (block columns, then rows),
// so no indices travel with the values.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "api/checks.hpp"
#include "core/status.hpp"
#include "gemm/grid.hpp"
#include "layout/block_cyclic.hpp"
#include "layout/descriptor.hpp"
#include "relay/symm.h"
#include "symm/mesh.hpp"

using relay::core::fail;

namespace {

constexpr const char* kFn = "relay_symm_square_cube_2d";

struct Dist {
  relay::layout::BlockCyclic rows, cols;
  std::int64_t lld = 1;
};

// Checks one descriptor (argument `position`) for an n x n matrix on the grid.
relay_status_t check_desc(const relay_matrix_desc_t* desc, int position, long long n,
                          const relay_grid& grid, Dist& out) {
  if (desc == nullptr) {
    return fail(RELAY_ERR_ARGUMENT, "{}: argument {} (descriptor) is NULL", kFn, position);
  }
  if (desc->m != n || desc->n != n) {
    return fail(RELAY_ERR_ARGUMENT, "{}: argument {} describes a {} x {} matrix, not {} x {}", kFn,
                position, desc->m, desc->n, n, n);
  }
  const auto d = relay::layout::make_descriptor_inb(
      desc->m, desc->n, desc->imb > 0 ? desc->imb : desc->mb, desc->inb > 0 ? desc->inb : desc->nb,
      desc->mb, desc->nb, desc->rsrc, desc->csrc, 0, desc->lld);
  if (desc->mb < 1 || desc->nb < 1 || desc->imb < 0 || desc->inb < 0 || desc->rsrc < 0 ||
      desc->rsrc >= grid.shape.rows || desc->csrc < 0 || desc->csrc >= grid.shape.cols) {
    return fail(RELAY_ERR_ARGUMENT,
                "{}: argument {} has a block size below 1 or a source outside the {} x {} grid "
                "(mb {}, nb {}, imb {}, inb {}, rsrc {}, csrc {}; replicated matrices are not "
                "supported)",
                kFn, position, grid.shape.rows, grid.shape.cols, desc->mb, desc->nb, desc->imb,
                desc->inb, desc->rsrc, desc->csrc);
  }
  out.rows = relay::layout::row_distribution(d, grid.shape);
  out.cols = relay::layout::col_distribution(d, grid.shape);
  const std::int64_t least = relay::layout::required_lld(d, grid.shape, grid.me);
  if (desc->lld < least) {
    return fail(RELAY_ERR_ARGUMENT, "{}: argument {} has lld {} below this process's {} rows", kFn,
                position, desc->lld, least);
  }
  out.lld = desc->lld;
  return RELAY_SUCCESS;
}

// The exchange between the 2D layout and the mesh blocks of one matrix.
class Exchange {
 public:
  Exchange(const relay_mesh& mesh, const relay_grid& grid, long long n, const Dist& dist,
           std::size_t elem)
      : mesh_(mesh), grid_(grid), n_(n), dist_(dist), elem_(elem) {
    const int size = grid.shape.size();
    mine_.assign(static_cast<std::size_t>(size), 0);    // 2D elements this process sends to each
    theirs_.assign(static_cast<std::size_t>(size), 0);  // block elements each sends here
    for (int i = 0; i < mesh.p; ++i) {
      for (int j = 0; j < mesh.p; ++j) {
        const auto r = relay::symm::block_range(n, mesh.p, i);
        const auto c = relay::symm::block_range(n, mesh.p, j);
        mine_[static_cast<std::size_t>(relay::symm::mesh_rank(mesh.p, i, j, 0))] =
            relay::layout::local_count(dist.rows, grid.me.row, r.first, r.size) *
            relay::layout::local_count(dist.cols, grid.me.col, c.first, c.size);
      }
    }
    if (mesh.k == 0) {
      const auto r = relay::symm::block_range(n, mesh.p, mesh.i);
      const auto c = relay::symm::block_range(n, mesh.p, mesh.j);
      for (int pr = 0; pr < grid.shape.rows; ++pr) {
        for (int pc = 0; pc < grid.shape.cols; ++pc) {
          theirs_[static_cast<std::size_t>(grid.shape.rank_of({pr, pc}))] =
              relay::layout::local_count(dist.rows, pr, r.first, r.size) *
              relay::layout::local_count(dist.cols, pc, c.first, c.size);
        }
      }
    }
  }

  // Every count fits an MPI count (the caller's check: blocks of at most 2^31 - 1 elements).
  bool to_mesh(const void* local, void* block, std::int64_t ld_block, MPI_Datatype type) {
    std::vector<unsigned char> send(total(mine_) * elem_), recv(total(theirs_) * elem_);
    walk_local(static_cast<unsigned char*>(const_cast<void*>(local)), send.data(), true);
    if (!alltoallv(send.data(), mine_, recv.data(), theirs_, type)) return false;
    walk_block(static_cast<unsigned char*>(block), ld_block, recv.data(), false);
    return true;
  }
  bool to_2d(const void* block, std::int64_t ld_block, void* local, MPI_Datatype type) {
    std::vector<unsigned char> send(total(theirs_) * elem_), recv(total(mine_) * elem_);
    walk_block(static_cast<unsigned char*>(const_cast<void*>(block)), ld_block, send.data(), true);
    if (!alltoallv(send.data(), theirs_, recv.data(), mine_, type)) return false;
    walk_local(static_cast<unsigned char*>(local), recv.data(), false);
    return true;
  }

 private:
  static std::size_t total(const std::vector<std::int64_t>& v) {
    std::int64_t t = 0;
    for (auto x : v) t += x;
    return static_cast<std::size_t>(t);
  }
  bool alltoallv(const void* send, const std::vector<std::int64_t>& send_counts, void* recv,
                 const std::vector<std::int64_t>& recv_counts, MPI_Datatype type) const {
    const std::size_t size = send_counts.size();
    std::vector<int> sc(size), sd(size), rc(size), rd(size);
    std::int64_t so = 0, ro = 0;
    for (std::size_t x = 0; x < size; ++x) {
      if (so > std::numeric_limits<int>::max() || ro > std::numeric_limits<int>::max())
        return false;
      sc[x] = static_cast<int>(send_counts[x]);
      sd[x] = static_cast<int>(so);
      rc[x] = static_cast<int>(recv_counts[x]);
      rd[x] = static_cast<int>(ro);
      so += send_counts[x];
      ro += recv_counts[x];
    }
    return MPI_Alltoallv(send, sc.data(), sd.data(), type, recv, rc.data(), rd.data(), type,
                         mesh_.comm) == MPI_SUCCESS;
  }
  // This process's 2D elements, block by block in mesh-rank order, columns then rows of each;
  // pack: local -> buffer, else buffer -> local.
  void walk_local(unsigned char* local, unsigned char* buffer, bool pack) const {
    std::size_t at = 0;
    for (int rank = 0; rank < mesh_.p * mesh_.p; ++rank) {
      const auto r = relay::symm::block_range(n_, mesh_.p, rank % mesh_.p);
      const auto c = relay::symm::block_range(n_, mesh_.p, rank / mesh_.p);
      for (std::int64_t gc = c.first; gc < c.first + c.size; ++gc) {
        if (relay::layout::owner(dist_.cols, gc) != grid_.me.col) continue;
        const std::int64_t lc = relay::layout::to_local(dist_.cols, gc);
        for (std::int64_t gr = r.first; gr < r.first + r.size; ++gr) {
          if (relay::layout::owner(dist_.rows, gr) != grid_.me.row) continue;
          unsigned char* x =
              local + (lc * dist_.lld + relay::layout::to_local(dist_.rows, gr)) * elem_;
          if (pack) {
            std::memcpy(buffer + at, x, elem_);
          } else {
            std::memcpy(x, buffer + at, elem_);
          }
          at += elem_;
        }
      }
    }
  }
  // This process's mesh block (plane k = 0), source process by source process in grid-rank
  // order, the same columns-then-rows walk.
  void walk_block(unsigned char* block, std::int64_t ld, unsigned char* buffer, bool pack) const {
    if (mesh_.k != 0) return;
    const auto r = relay::symm::block_range(n_, mesh_.p, mesh_.i);
    const auto c = relay::symm::block_range(n_, mesh_.p, mesh_.j);
    std::size_t at = 0;
    for (int rank = 0; rank < grid_.shape.size(); ++rank) {
      const relay::layout::GridCoord from = grid_.shape.coord_of(rank);
      for (std::int64_t gc = c.first; gc < c.first + c.size; ++gc) {
        if (relay::layout::owner(dist_.cols, gc) != from.col) continue;
        for (std::int64_t gr = r.first; gr < r.first + r.size; ++gr) {
          if (relay::layout::owner(dist_.rows, gr) != from.row) continue;
          unsigned char* x = block + ((gc - c.first) * ld + (gr - r.first)) * elem_;
          if (pack) {
            std::memcpy(buffer + at, x, elem_);
          } else {
            std::memcpy(x, buffer + at, elem_);
          }
          at += elem_;
        }
      }
    }
  }

  const relay_mesh& mesh_;
  const relay_grid& grid_;
  long long n_;
  Dist dist_;
  std::size_t elem_;
  std::vector<std::int64_t> mine_, theirs_;
};

}  // namespace

extern "C" relay_status_t relay_symm_square_cube_2d(relay_mesh_t mesh, relay_grid_t grid,
                                                    long long n, MPI_Datatype datatype,
                                                    const void* d, const relay_matrix_desc_t* descd,
                                                    void* d2, const relay_matrix_desc_t* descd2,
                                                    void* d3, const relay_matrix_desc_t* descd3,
                                                    const relay_symm_options_t* options,
                                                    relay_symm_stats_t* stats) {
  if (auto st = relay::api::check_mpi(kFn); st != RELAY_SUCCESS) return st;
  if (mesh == RELAY_MESH_NULL) return fail(RELAY_ERR_COMM, "{}: argument 1 (mesh) is NULL", kFn);
  if (grid == RELAY_GRID_NULL) return fail(RELAY_ERR_COMM, "{}: argument 2 (grid) is NULL", kFn);
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(mesh->comm, grid->comm, &same);
  if (same != MPI_IDENT && same != MPI_CONGRUENT) {
    return fail(RELAY_ERR_COMM,
                "{}: the grid (argument 2) and the mesh (argument 1) do not span the same "
                "processes with the same ranks: make both on one communicator",
                kFn);
  }
  // Local checks in argument order, then agreement (relay_symm_square_cube checks the rest).
  Dist dd, d2d, d3d;
  relay_status_t local = RELAY_SUCCESS;
  if (n < 0) local = fail(RELAY_ERR_COUNT, "{}: argument 3 (n = {}) is negative", kFn, n);
  if (local == RELAY_SUCCESS && datatype != MPI_DOUBLE && datatype != MPI_FLOAT) {
    local =
        fail(RELAY_ERR_DATATYPE, "{}: argument 4 (datatype) is not MPI_DOUBLE or MPI_FLOAT", kFn);
  }
  if (local == RELAY_SUCCESS) local = check_desc(descd, 6, n, *grid, dd);
  if (local == RELAY_SUCCESS) local = check_desc(descd2, 8, n, *grid, d2d);
  if (local == RELAY_SUCCESS) local = check_desc(descd3, 10, n, *grid, d3d);
  if (local == RELAY_SUCCESS && d2 == d3 && d2 != nullptr) {
    local = fail(RELAY_ERR_BUFFER, "{}: argument 9 (d3) is the same array as argument 7 (d2)", kFn);
  }
  struct Matrix {
    const void* data;
    const Dist& dist;
    int position;
  };
  for (const Matrix& x : {Matrix{d, dd, 5}, Matrix{d2, d2d, 7}, Matrix{d3, d3d, 9}}) {
    if (local != RELAY_SUCCESS) break;
    const bool holds = relay::layout::local_count(x.dist.rows, grid->me.row, n) > 0 &&
                       relay::layout::local_count(x.dist.cols, grid->me.col, n) > 0;
    if (holds && x.data == nullptr) {
      local = fail(RELAY_ERR_BUFFER, "{}: argument {} is NULL on a process that holds part of it",
                   kFn, x.position);
    }
  }
  const long long values[] = {n, datatype == MPI_FLOAT ? 1 : 0};
  const char* const names[] = {"n (argument 3)", "datatype (argument 4)"};
  if (auto st = relay::api::agree(kFn, mesh->comm, local, values, names, 2); st != RELAY_SUCCESS) {
    return st;
  }
  if (n == 0) {
    if (stats) *stats = relay_symm_stats_t{};
    return RELAY_SUCCESS;
  }
  const std::size_t elem = datatype == MPI_FLOAT ? sizeof(float) : sizeof(double);
  const auto r = relay::symm::block_range(n, mesh->p, mesh->i);
  const auto c = relay::symm::block_range(n, mesh->p, mesh->j);
  const std::int64_t ld = std::max<std::int64_t>(1, r.size);
  const std::size_t block_bytes =
      mesh->k == 0 ? static_cast<std::size_t>(ld * std::max<std::int64_t>(1, c.size)) * elem : elem;
  std::vector<unsigned char> bd(block_bytes), bd2(block_bytes), bd3(block_bytes);
  const double t0 = MPI_Wtime();
  Exchange in(*mesh, *grid, n, dd, elem);
  if (!in.to_mesh(d, bd.data(), ld, datatype)) {
    return fail(RELAY_ERR_MPI, "{}: MPI_Alltoallv to the mesh's blocks failed", kFn);
  }
  const double moved_in = MPI_Wtime() - t0;
  relay_symm_stats_t s{};
  if (auto st = relay_symm_square_cube(mesh, n, datatype, bd.data(), ld, bd2.data(), ld, bd3.data(),
                                       ld, options, &s);
      st != RELAY_SUCCESS) {
    return fail(st, "{}: {}", kFn, std::string(relay_last_error()));
  }
  const double t1 = MPI_Wtime();
  Exchange out2(*mesh, *grid, n, d2d, elem), out3(*mesh, *grid, n, d3d, elem);
  if (!out2.to_2d(bd2.data(), ld, d2, datatype) || !out3.to_2d(bd3.data(), ld, d3, datatype)) {
    return fail(RELAY_ERR_MPI, "{}: MPI_Alltoallv back to the 2D layout failed", kFn);
  }
  // The redistributions count as distributing D and returning D^2 and D^3.
  s.distribute_s += moved_in;
  s.cube_s += MPI_Wtime() - t1;
  s.total_s = MPI_Wtime() - t0;
  if (stats) *stats = s;
  return RELAY_SUCCESS;
}
