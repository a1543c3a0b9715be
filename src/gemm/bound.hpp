// What a GEMM run cannot beat on this machine (issue 26): one core's measured BLAS rate, and
// the lower bounds of one multiplication C = A B on a process grid -- the time the links need
// to carry what each node must receive and send at least once, and the time the local
// multiplications need at the measured rate; relay bench gemm prints achieved times as
// multiples of them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace relay::gemm {

/// Real flops per multiply-add: 2, or 8 for the complex precisions ('c', 'z').
double flops_per_fma(char precision);

/// One core's BLAS rate for `precision` ('s', 'd', 'c', 'z'): the best of three n^3 GEMMs on
/// rank 0 while the other ranks wait; under simulation with computations charged, the charged
/// rate; 0 where computations are not timed (exec::compute_is_timed). GFLOP/s, the same on
/// every rank. Collective over comm.
double measure_core_gflops(char precision, std::int64_t n, MPI_Comm comm);

/// Cores this launch can use: per machine, min(ranks on it, its cores), summed. Collective over
/// comm.
int usable_cores(MPI_Comm comm);

/// A multiplication on a rows x cols grid (row-major: world rank r * cols + c).
struct BoundInputs {
  int rows = 1, cols = 1;
  std::int64_t n = 0;                  ///< the shared dimension k
  std::vector<std::int64_t> row_rows;  ///< rows of A (and C) each process row holds
  std::vector<std::int64_t> col_cols;  ///< columns of B (and C) each process column holds
  std::vector<int> node_ranks;         ///< world ranks on this rank's node, sorted
  int rank = 0;                        ///< this rank (world)
  double elem_bytes = 8, fma_flops = 2;
  double core_gflops = 0;       ///< 0: no BLAS bound
  double link_bytes_per_s = 0;  ///< each direction; 0: no link bound
};

/// The bounds, the slowest node's (max over ranks).
struct Bound {
  double links_s = 0;  ///< max(in, out) / the link rate (0 when it is unknown)
  double blas_s = 0;   ///< the busiest rank's multiply-adds at the core rate, or its machine's
                       ///< over the machine's cores when its ranks outnumber them
  double ranks_per_core = 1;  ///< the most crowded machine's ranks per core (1 if none shares)
  double in_bytes = 0, out_bytes = 0;
};

/// Lower bounds of one multiplication: each node must receive, at least once, every panel
/// piece one of its ranks needs and a rank elsewhere owns (A's pieces (r, c') for its ranks
/// (r, c), B's (r', c) likewise), and send every piece its ranks own that a rank elsewhere
/// needs; ranks of a node share its link, and a node's own pieces cost nothing. Collective over
/// comm (the grid's ranks).
Bound multiplication_bound(const BoundInputs& in, MPI_Comm comm);

}  // namespace relay::gemm
