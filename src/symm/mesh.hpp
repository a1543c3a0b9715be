// The p x p x c process mesh of SymmSquareCube (relay/symm.h; c = p: the cube): P(i, j, k) is
// rank i + p j + p^2 k of a private duplicate of the caller's communicator, with its row
// (P(:, j, k), ranked by i), column (P(i, :, k), ranked by j) and fiber (P(i, j, :), ranked by
// k) communicators made once, at creation (mukunoki2017 lost up to 40% of its time to
// MPI_Comm_split made per call).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "relay/symm.h"

struct relay_mesh {
  MPI_Comm comm = MPI_COMM_NULL;   ///< every process (a duplicate of the caller's)
  MPI_Comm row = MPI_COMM_NULL;    ///< P(:, j, k)
  MPI_Comm col = MPI_COMM_NULL;    ///< P(i, :, k)
  MPI_Comm fiber = MPI_COMM_NULL;  ///< P(i, j, :)
  int p = 0, i = 0, j = 0, k = 0;  ///< p: a layer's side (q); the matrices' blocks are p x p
  int layers = 0;                  ///< c (p for a cube)
};

namespace relay::symm {

/// The rank of P(i, j, k) in mesh.comm.
inline int mesh_rank(int p, int i, int j, int k) { return i + p * (j + p * k); }

/// Block `index` of n split into p: n / p elements, plus one for the first n % p.
struct BlockRange {
  std::int64_t first = 0, size = 0;
};
BlockRange block_range(std::int64_t n, int p, int index);

/// The integer cube root of size, or 0 when size is not a cube.
int exact_cube_root(int size);

/// Creates a mesh of `layers` layers of p x p over comm (size p^2 layers, checked by the
/// caller). Collective.
relay_status_t create_mesh(MPI_Comm comm, int p, int layers, relay_mesh** out, std::string& error);
void free_mesh(relay_mesh* mesh);

}  // namespace relay::symm
