#include "gemm/bound.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "exec/compute.hpp"

namespace relay::gemm {

namespace {

template <class T>
double best_of_three(int n) {
  std::vector<T> a(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), T(0.5)), b(a), c(a);
  const T one(1), zero(0);
  double best_s = 0;
  for (int r = 0; r < 3; ++r) {
    const double t0 = MPI_Wtime();
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                  n, 0.0f, c.data(), n);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
                  0.0, c.data(), n);
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      cblas_cgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, a.data(), n, b.data(),
                  n, &zero, c.data(), n);
    } else {
      cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, a.data(), n, b.data(),
                  n, &zero, c.data(), n);
    }
    const double t = MPI_Wtime() - t0;
    best_s = r == 0 ? t : std::min(best_s, t);
  }
  return best_s;
}

}  // namespace

double flops_per_fma(char precision) { return precision == 'c' || precision == 'z' ? 8.0 : 2.0; }

double measure_core_gflops(char precision, std::int64_t size, MPI_Comm comm) {
  // Simulated with computations charged: the rate they are charged at (the BLAS call is not
  // run, and a simulated clock would not see it).
  if (const double charged = exec::charged_gflops(); charged > 0) return charged;
  // Simulated with real computations: the clock would time the BLAS call at nothing (it
  // printed 68,600,000 GFLOP/s per core). 0: not timed.
  if (!exec::compute_is_timed()) return 0.0;
  if (precision != 's' && precision != 'd' && precision != 'c' && precision != 'z')
    throw std::invalid_argument("measure_core_gflops: precision is not s, d, c or z");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double gflops = 0.0;
  if (rank == 0) {
    const int n = static_cast<int>(size);
    const double seconds = precision == 's'   ? best_of_three<float>(n)
                           : precision == 'd' ? best_of_three<double>(n)
                           : precision == 'c' ? best_of_three<std::complex<float>>(n)
                                              : best_of_three<std::complex<double>>(n);
    const double nd = static_cast<double>(n);
    gflops = seconds > 0 ? flops_per_fma(precision) * nd * nd * nd / seconds / 1e9 : 0.0;
  }
  // The others wait asleep: waiting in MPI_Bcast, MPI libraries spin, and where ranks outnumber
  // cores the spinning ones take the core from rank 0 (8 emulated nodes on 2 cores measured
  // 12.8 GFLOP/s per core, and the multiplications then ran at 121% of that "peak").
  MPI_Request done = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &done);
  for (int flag = 0; !flag;) {
    MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
    if (!flag) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  MPI_Bcast(&gflops, 1, MPI_DOUBLE, 0, comm);
  return gflops;
}

int usable_cores(MPI_Comm comm) {
  MPI_Comm machine = exec::machine_comm(comm);
  int machine_rank = 0, machine_size = 0;
  MPI_Comm_rank(machine, &machine_rank);
  MPI_Comm_size(machine, &machine_size);
  const long cores = exec::host_cores();
  int mine = machine_rank == 0 ? static_cast<int>(std::min<long>(machine_size, cores)) : 0;
  int total = 0;
  exec::allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, comm);
  MPI_Comm_free(&machine);
  return total;
}

Bound multiplication_bound(const BoundInputs& in, MPI_Comm comm) {
  auto on_node = [&](int r, int c) {
    return std::binary_search(in.node_ranks.begin(), in.node_ranks.end(), r * in.cols + c);
  };
  std::set<std::pair<int, int>> a_in, b_in, a_out, b_out;  // pieces (process row, column)
  for (int w : in.node_ranks) {
    const int r = w / in.cols, c = w % in.cols;
    for (int c2 = 0; c2 < in.cols; ++c2) {
      if (c2 != c && !on_node(r, c2)) {  // rank (r, c2) is elsewhere
        a_in.emplace(r, c2);             // its A piece comes in
        a_out.emplace(r, c);             // and this rank's goes out
      }
    }
    for (int r2 = 0; r2 < in.rows; ++r2) {
      if (r2 != r && !on_node(r2, c)) {
        b_in.emplace(r2, c);
        b_out.emplace(r, c);
      }
    }
  }
  // A(r, c) is row r's rows by column c's share of k; B(r, c) row r's share of k by column c's.
  auto bytes = [&](const std::set<std::pair<int, int>>& pieces) {
    double sum = 0;
    for (const auto& [r, c] : pieces) {
      sum += static_cast<double>(in.row_rows[static_cast<std::size_t>(r)]) *
             static_cast<double>(in.col_cols[static_cast<std::size_t>(c)]) * in.elem_bytes;
    }
    return sum;
  };
  const int myrow = in.rank / in.cols, mycol = in.rank % in.cols;
  double mine[3] = {bytes(a_in) + bytes(b_in), bytes(a_out) + bytes(b_out), 0};
  if (in.core_gflops > 0) {
    mine[2] = in.fma_flops * static_cast<double>(in.row_rows[static_cast<std::size_t>(myrow)]) *
              static_cast<double>(in.col_cols[static_cast<std::size_t>(mycol)]) *
              static_cast<double>(in.n) / (in.core_gflops * 1e9);
  }
  // Ranks of one machine share its cores: their multiplications take at least their sum over
  // min(ranks, cores) cores (8 emulated nodes on 2 cores: 4x one rank's share).
  MPI_Comm machine = exec::machine_comm(comm);
  int machine_size = 1;
  MPI_Comm_size(machine, &machine_size);
  double machine_s = 0;
  exec::allreduce(&mine[2], &machine_s, 1, MPI_DOUBLE, MPI_SUM, machine);
  MPI_Comm_free(&machine);
  const int cores = std::max(1, std::min(machine_size, exec::host_cores()));
  mine[2] = std::max(mine[2], machine_s / cores);
  double most[4] = {0, 0, 0, 0};
  const double sharing[4] = {mine[0], mine[1], mine[2],
                             machine_size > cores ? static_cast<double>(machine_size) / cores : 1};
  exec::allreduce(sharing, most, 4, MPI_DOUBLE, MPI_MAX, comm);
  Bound b;
  b.in_bytes = most[0];
  b.out_bytes = most[1];
  b.blas_s = most[2];
  b.ranks_per_core = most[3];
  if (in.link_bytes_per_s > 0) b.links_s = std::max(most[0], most[1]) / in.link_bytes_per_s;
  return b;
}

}  // namespace relay::gemm
