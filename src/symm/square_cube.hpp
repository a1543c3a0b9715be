// huang2018's SymmSquareCube on a p x p x p mesh: Algorithm 4 (blocking collectives, one
// after the other) and Algorithm 5 (each block cut into n_dup parts, part c's collectives on
// duplicate c of each communicator, every forwarding step started part by part). The
// arguments are checked and agreed by the C entry (entry.cpp); this runs a valid call.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "relay/symm.h"
#include "symm/mesh.hpp"

namespace relay::symm {

struct Call {
  const relay_mesh* mesh = nullptr;
  std::int64_t n = 0;
  bool single = false;  ///< MPI_FLOAT, else MPI_DOUBLE
  const void* d = nullptr;
  std::int64_t ldd = 0;
  void* d2 = nullptr;
  std::int64_t ldd2 = 0;
  void* d3 = nullptr;
  std::int64_t ldd3 = 0;
  int algorithm = RELAY_SYMM_OVERLAP;
  int n_dup = 4;
  const relay_bcast_options_t* bcast = nullptr;
  const relay_coll_options_t* reduce = nullptr;
  const relay_coll_options_t* allreduce = nullptr;  ///< cannon's D^2
  bool check_symmetry = true;
  int parts_in_flight = 2;  ///< see relay_symm_options_t
};

/// Side of the square buffer every block travels in: the largest block, ceil(n / p). Every
/// collective of the algorithms then moves the same count on every member (blocks differ by
/// one row at most; the padding is never read).
std::int64_t buffer_side(std::int64_t n, int p);

/// The largest difference between block (i, j) of D and block (j, i)^T on a random
/// projection, relative to its rounding tolerance (> 1: not symmetric), agreed over the k = 0
/// plane and sent to every process; where it is the largest, in *where_i, *where_j. Collective.
relay_status_t symmetry_error(const Call& call, double* ratio, int* where_i, int* where_j,
                              std::string& error);

/// Runs the call. Collective over the mesh.
relay_status_t square_cube(const Call& call, relay_symm_stats_t& stats, std::string& error);

}  // namespace relay::symm
