// relay_purify: Palser and Manolopoulos' canonical purification (Phys. Rev. B 58, 12704,
// 1998) on relay_symm_square_cube. The iterate lives in this call's own buffers on the plane
// k = 0 (the caller's d is written once, at the end), so that a failure before the first
// iteration leaves d as it was.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api/checks.hpp"
#include "core/sized_struct.hpp"
#include "core/status.hpp"
#include "relay/symm.h"
#include "symm/mesh.hpp"
#include "symm/square_cube.hpp"

using relay::core::fail;

namespace {

constexpr const char* kFn = "relay_purify";

relay_purify_options_t default_options() {
  relay_purify_options_t o{};
  o.struct_size = sizeof o;
  o.tolerance = 0;
  o.max_iterations = 0;
  return o;
}

// A stall: ||D^2 - D|| has not fallen by 1% over this many iterations.
constexpr int kStallWindow = 12;

struct Block {
  std::int64_t r0 = 0, rows = 0, c0 = 0, cols = 0;
  bool holds = false;  // on the plane k = 0 with a non-empty block
};

relay_status_t check_local(relay_mesh_t mesh, long long n, const double* h, long long ldh,
                           double electrons, double* d, long long ldd,
                           const relay_purify_options_t* options, relay_purify_options_t& o,
                           const Block& b) {
  if (n < 0) return fail(RELAY_ERR_COUNT, "{}: argument 2 (n = {}) is negative", kFn, n);
  if (mesh->k == 0) {
    const long long least = std::max<long long>(1, b.rows);
    if (h == nullptr && b.holds) {
      return fail(RELAY_ERR_BUFFER, "{}: argument 3 (h) is NULL on process ({}, {}, 0)", kFn,
                  mesh->i, mesh->j);
    }
    if (ldh < least) {
      return fail(RELAY_ERR_ARGUMENT, "{}: argument 4 (ldh = {}) is less than the block's {} rows",
                  kFn, ldh, least);
    }
  }
  if (!std::isfinite(electrons) || electrons <= 0 || electrons >= static_cast<double>(n)) {
    return fail(RELAY_ERR_ARGUMENT,
                "{}: argument 5 (electrons = {}) is outside (0, n = {}): every state would be "
                "empty or full",
                kFn, electrons, n);
  }
  if (mesh->k == 0) {
    const long long least = std::max<long long>(1, b.rows);
    if (d == nullptr && b.holds) {
      return fail(RELAY_ERR_BUFFER, "{}: argument 6 (d) is NULL on process ({}, {}, 0)", kFn,
                  mesh->i, mesh->j);
    }
    if (ldd < least) {
      return fail(RELAY_ERR_ARGUMENT, "{}: argument 7 (ldd = {}) is less than the block's {} rows",
                  kFn, ldd, least);
    }
  }
  o = default_options();
  if (options != nullptr) {
    std::string why;
    if (!relay::core::copy_sized_struct(options, o, sizeof(relay_purify_options_t), why)) {
      return fail(RELAY_ERR_OPTIONS, "{}: argument 8 (options->struct_size = {}) {}", kFn,
                  relay::core::stored_struct_size(options), why);
    }
  }
  if (!std::isfinite(o.tolerance) || o.tolerance < 0) {
    return fail(RELAY_ERR_OPTIONS, "{}: argument 8 (options->tolerance = {}) is not >= 0", kFn,
                o.tolerance);
  }
  if (o.max_iterations < 0) {
    return fail(RELAY_ERR_OPTIONS, "{}: argument 8 (options->max_iterations = {}) is negative", kFn,
                o.max_iterations);
  }
  if (o.tolerance == 0) o.tolerance = 1e-9;
  if (o.max_iterations == 0) o.max_iterations = 200;
  return RELAY_SUCCESS;
}

long long bits(double x) {
  long long v = 0;
  std::memcpy(&v, &x, sizeof v);
  return v;
}

}  // namespace

extern "C" {

void relay_purify_options_init_sized(relay_purify_options_t* options, size_t struct_size) {
  relay::core::init_sized_struct(options, struct_size, default_options());
}

relay_status_t relay_purify(relay_mesh_t mesh, long long n, const double* h, long long ldh,
                            double electrons, double* d, long long ldd,
                            const relay_purify_options_t* options, int* iterations) {
  if (iterations) *iterations = 0;
  if (auto st = relay::api::check_mpi(kFn); st != RELAY_SUCCESS) return st;
  if (mesh == RELAY_MESH_NULL) return fail(RELAY_ERR_COMM, "{}: argument 1 (mesh) is NULL", kFn);
  Block b;
  if (n >= 0) {
    const auto r = relay::symm::block_range(n, mesh->p, mesh->i);
    const auto c = relay::symm::block_range(n, mesh->p, mesh->j);
    b = {r.first, r.size, c.first, c.size, mesh->k == 0 && r.size > 0 && c.size > 0};
  }
  relay_purify_options_t o = default_options();
  const relay_status_t local = check_local(mesh, n, h, ldh, electrons, d, ldd, options, o, b);
  const long long values[] = {n, bits(electrons), bits(o.tolerance), o.max_iterations};
  const char* const names[] = {"n (argument 2)", "electrons (argument 5)", "options->tolerance",
                               "options->max_iterations"};
  if (auto st = relay::api::agree(kFn, mesh->comm, local, values, names, 4); st != RELAY_SUCCESS) {
    return st;
  }

  // H must be symmetric (the iterates are, by construction).
  std::string error;
  relay::symm::Call hcall;
  hcall.mesh = mesh;
  hcall.n = n;
  hcall.d = h;
  hcall.ldd = ldh;
  double ratio = 0;
  int wi = 0, wj = 0;
  if (auto st = relay::symm::symmetry_error(hcall, &ratio, &wi, &wj, error); st != RELAY_SUCCESS) {
    return fail(st, "{}: {}", kFn, error);
  }
  if (ratio > 1.0) {
    return fail(RELAY_ERR_ARGUMENT,
                "{}: argument 3 (h) is not symmetric: block ({}, {}) and block ({}, {}) "
                "transposed differ {:.3g} times the rounding tolerance",
                kFn, wi, wj, wj, wi, ratio);
  }

  // Gershgorin bounds of H's spectrum and its trace: every row's diagonal entry and the sum
  // of its other entries' magnitudes, summed over the blocks of the row.
  const auto nn = static_cast<std::size_t>(n);
  std::vector<double> rows_in(2 * nn, 0.0), rows_all(2 * nn, 0.0);
  if (b.holds) {
    for (std::int64_t c = 0; c < b.cols; ++c) {
      for (std::int64_t r = 0; r < b.rows; ++r) {
        const double v = h[c * ldh + r];
        const auto g = static_cast<std::size_t>(b.r0 + r);
        if (b.r0 + r == b.c0 + c) {
          rows_in[g] = v;
        } else {
          rows_in[nn + g] += std::fabs(v);
        }
      }
    }
  }
  if (MPI_Allreduce(rows_in.data(), rows_all.data(), static_cast<int>(2 * nn), MPI_DOUBLE, MPI_SUM,
                    mesh->comm) != MPI_SUCCESS) {
    return fail(RELAY_ERR_MPI, "{}: MPI_Allreduce of H's row sums failed", kFn);
  }
  double lowest = std::numeric_limits<double>::infinity(), highest = -lowest, trace = 0;
  for (std::size_t g = 0; g < nn; ++g) {
    lowest = std::min(lowest, rows_all[g] - rows_all[nn + g]);
    highest = std::max(highest, rows_all[g] + rows_all[nn + g]);
    trace += rows_all[g];
  }
  const double nd = static_cast<double>(n), mu = trace / nd;
  if (!(highest - mu > 0) || !(mu - lowest > 0)) {
    return fail(RELAY_ERR_ARGUMENT,
                "{}: argument 3 (h) is a multiple of the identity: all its states are degenerate "
                "and no density matrix of {} electrons is determined",
                kFn, electrons);
  }
  const double lambda = std::min(electrons / (highest - mu), (nd - electrons) / (mu - lowest));

  // D0 = lambda / n (mu I - H) + electrons / n I.
  const std::int64_t ld = std::max<std::int64_t>(1, b.rows);
  const auto elems = static_cast<std::size_t>(b.holds ? ld * b.cols : 1);
  std::vector<double> x(elems, 0.0), x2(elems, 0.0), x3(elems, 0.0);
  if (b.holds) {
    for (std::int64_t c = 0; c < b.cols; ++c) {
      for (std::int64_t r = 0; r < b.rows; ++r) {
        const double diagonal = b.r0 + r == b.c0 + c ? (lambda * mu + electrons) / nd : 0.0;
        x[static_cast<std::size_t>(c * ld + r)] = -lambda / nd * h[c * ldh + r] + diagonal;
      }
    }
  }
  relay_symm_options_t symm;
  relay_symm_options_init(&symm);
  if (o.symm != nullptr) {
    std::string why;
    if (!relay::core::copy_sized_struct(o.symm, symm, sizeof(relay_symm_options_t), why)) {
      return fail(RELAY_ERR_OPTIONS, "{}: argument 8 (options->symm->struct_size = {}) {}", kFn,
                  relay::core::stored_struct_size(o.symm), why);
    }
  }
  symm.check_symmetry = 0;

  std::vector<double> history;
  relay_status_t result = RELAY_SUCCESS;
  bool converged = false;
  int it = 0;
  for (; it < o.max_iterations && !converged; ++it) {
    relay_purify_iteration_t rec{};
    rec.iteration = it;
    double t = MPI_Wtime();
    relay_status_t st = relay_symm_square_cube(mesh, n, MPI_DOUBLE, x.data(), ld, x2.data(), ld,
                                               x3.data(), ld, &symm, &rec.stats);
    rec.square_cube_s = MPI_Wtime() - t;
    if (st != RELAY_SUCCESS) {
      return fail(st, "{}: iteration {}: {}", kFn, it, std::string(relay_last_error()));
    }
    t = MPI_Wtime();
    // tr D, tr D^2, tr D^3 and ||D^2 - D||_F^2 over the blocks of the plane k = 0.
    double sums[4] = {0, 0, 0, 0}, total[4];
    if (b.holds) {
      for (std::int64_t c = 0; c < b.cols; ++c) {
        for (std::int64_t r = 0; r < b.rows; ++r) {
          const auto l = static_cast<std::size_t>(c * ld + r);
          if (b.r0 + r == b.c0 + c) {
            sums[0] += x[l];
            sums[1] += x2[l];
            sums[2] += x3[l];
          }
          sums[3] += (x2[l] - x[l]) * (x2[l] - x[l]);
        }
      }
    }
    if (MPI_Allreduce(sums, total, 4, MPI_DOUBLE, MPI_SUM, mesh->comm) != MPI_SUCCESS) {
      return fail(RELAY_ERR_MPI, "{}: MPI_Allreduce of the traces failed", kFn);
    }
    rec.trace = total[0];
    rec.trace_error = std::fabs(total[0] - electrons);
    rec.idempotency = std::sqrt(total[3]);
    const double spread = total[0] - total[1];  // sum of lambda (1 - lambda) over D's spectrum
    rec.c = spread != 0 ? (total[1] - total[2]) / spread : 0.5;
    converged = rec.idempotency < o.tolerance;
    history.push_back(rec.idempotency);
    const bool stalled = static_cast<int>(history.size()) > kStallWindow &&
                         rec.idempotency > 0.99 * history[history.size() - 1 - kStallWindow];
    if (!converged && !stalled) {
      // The update, the same on every process (c is agreed): D <- ((1 + c) D^2 - D^3) / c for
      // c >= 1/2, else ((1 - 2c) D + (1 + c) D^2 - D^3) / (1 - c).
      const double c = rec.c;
      for (std::size_t l = 0; b.holds && l < elems; ++l) {
        x[l] = c >= 0.5 ? ((1 + c) * x2[l] - x3[l]) / c
                        : ((1 - 2 * c) * x[l] + (1 + c) * x2[l] - x3[l]) / (1 - c);
      }
    }
    rec.update_s = MPI_Wtime() - t;
    if (o.callback != nullptr) o.callback(&rec, o.user);
    if (stalled && !converged) {
      result = fail(RELAY_ERR_ARGUMENT,
                    "{}: stalled at iteration {} with ||D^2 - D||_F = {:.3g} (not below {:.3g} "
                    "in the last {} iterations): the Fermi level of {} electrons lies inside a "
                    "degenerate level of H, or the tolerance is below rounding",
                    kFn, it, rec.idempotency, o.tolerance, kStallWindow, electrons);
      ++it;
      break;
    }
  }
  if (!converged && result == RELAY_SUCCESS) {
    result = fail(RELAY_ERR_ARGUMENT, "{}: not converged in {} iterations (||D^2 - D||_F = {:.3g})",
                  kFn, o.max_iterations, history.empty() ? 0.0 : history.back());
  }
  if (b.holds) {
    for (std::int64_t c = 0; c < b.cols; ++c) {
      std::copy(x.begin() + c * ld, x.begin() + c * ld + b.rows, d + c * ldd);
    }
  }
  if (iterations) *iterations = it;
  return result;
}

}  // extern "C"
