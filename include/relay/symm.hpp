// relay's C++ interface to SymmSquareCube and purification: a mesh that frees itself, typed
// blocks (float or double) and exceptions instead of status codes. See relay/symm.h for the
// semantics (the layout of the blocks, the algorithms, the checks).
#pragma once

#include <type_traits>
#include <utility>

#include "relay/relay.hpp"
#include "relay/symm.h"

namespace relay {

/// A p x p x p process mesh over a communicator of p^3 processes (p = 0: its cube root), or a
/// q x q x c one (layered()), with its row, column and fiber communicators. Collective to
/// create and to destroy.
class Mesh {
 public:
  explicit Mesh(MPI_Comm comm, int p = 0) { detail::check(relay_mesh_create(comm, p, &mesh_)); }
  /// A q x q x c mesh over a communicator of q^2 c processes (RELAY_SYMM_CANNON's).
  static Mesh layered(MPI_Comm comm, int q, int c) {
    Mesh m;
    detail::check(relay_mesh_create_layered(comm, q, c, &m.mesh_));
    return m;
  }
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;
  Mesh(Mesh&& other) noexcept : mesh_(std::exchange(other.mesh_, RELAY_MESH_NULL)) {}
  Mesh& operator=(Mesh&& other) noexcept {
    if (this != &other) {
      if (mesh_ != RELAY_MESH_NULL) relay_mesh_free(&mesh_);
      mesh_ = std::exchange(other.mesh_, RELAY_MESH_NULL);
    }
    return *this;
  }
  ~Mesh() {
    if (mesh_ != RELAY_MESH_NULL) relay_mesh_free(&mesh_);
  }
  struct Place {
    int p, i, j, k;
  };
  /// p and this process's coordinates (i, j, k).
  Place place() const {
    Place x{};
    detail::check(relay_mesh_info(mesh_, &x.p, &x.i, &x.j, &x.k));
    return x;
  }
  /// Block `index` of an n x n matrix: its first row (or column) and its size.
  std::pair<long long, long long> block(long long n, int index) const {
    long long first = 0, size = 0;
    detail::check(relay_mesh_block(n, place().p, index, &first, &size));
    return {first, size};
  }
  /// The number of layers c (p for the cube).
  int layers() const {
    int c = 0;
    detail::check(relay_mesh_layers(mesh_, &c));
    return c;
  }
  relay_mesh_t handle() const { return mesh_; }

 private:
  Mesh() = default;
  relay_mesh_t mesh_ = RELAY_MESH_NULL;
};

/// Options of square_cube(); the collectives' options are relay.h's C structs (NULL: defaults).
struct SymmOptions {
  relay_symm_algorithm_t algorithm = RELAY_SYMM_DEFAULT;
  int n_dup = 0;            ///< 0 = 4
  int parts_in_flight = 0;  ///< 0 = 2
  bool check_symmetry = true;
  const relay_bcast_options_t* bcast = nullptr;
  const relay_coll_options_t* reduce = nullptr;
  const relay_coll_options_t* allreduce = nullptr;  ///< cannon's D^2
  relay_symm_options_t c() const {
    relay_symm_options_t o;
    relay_symm_options_init(&o);
    o.algorithm = algorithm;
    o.n_dup = n_dup;
    o.parts_in_flight = parts_in_flight;
    o.check_symmetry = check_symmetry ? 1 : 0;
    o.bcast = bcast;
    o.reduce = reduce;
    o.allreduce = allreduce;
    return o;
  }
};

/// D^2 and D^3 of the symmetric n x n matrix whose block (i, j) this process holds on the plane
/// k = 0 (d, leading dimension ldd; d2, d3 likewise). Throws relay::Error.
template <class T>
relay_symm_stats_t square_cube(const Mesh& mesh, long long n, const T* d, long long ldd, T* d2,
                               long long ldd2, T* d3, long long ldd3,
                               const SymmOptions& options = {}) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "relay::square_cube supports float and double");
  const relay_symm_options_t o = options.c();
  relay_symm_stats_t stats{};
  detail::check(relay_symm_square_cube(mesh.handle(), n,
                                       std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE, d, ldd,
                                       d2, ldd2, d3, ldd3, &o, &stats));
  return stats;
}

/// Purifies H (block (i, j) on the plane k = 0) into the density matrix of `electrons`
/// occupied states, written to d; returns the iterations run. Throws relay::Error (also when
/// it does not converge: d then holds the last iterate).
inline int purify(const Mesh& mesh, long long n, const double* h, long long ldh, double electrons,
                  double* d, long long ldd, const relay_purify_options_t* options = nullptr) {
  int iterations = 0;
  detail::check(relay_purify(mesh.handle(), n, h, ldh, electrons, d, ldd, options, &iterations));
  return iterations;
}

}  // namespace relay
