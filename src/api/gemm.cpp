// relay_gemm and the grid calls: argument checks with PBLAS's numbering, agreement across the
// grid (so a bad argument on any rank fails the call everywhere instead of hanging), then the
// SUMMA engine.
#include "relay/gemm.h"

#include <mpi.h>

#include <array>
#include <string>

#include "api/checks.hpp"
#include "core/status.hpp"
#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"
#include "layout/descriptor.hpp"

using relay::core::fail;

namespace {

relay::layout::Descriptor to_descriptor(const relay_matrix_desc_t* d) {
  if (d == nullptr) {
    relay::layout::Descriptor bad;
    bad.dtype = 0;  // reported as DTYPE_ of the missing descriptor
    return bad;
  }
  return relay::layout::make_descriptor_inb(d->m, d->n, d->imb > 0 ? d->imb : d->mb,
                                            d->inb > 0 ? d->inb : d->nb, d->mb, d->nb, d->rsrc,
                                            d->csrc, 0, d->lld);
}

}  // namespace

extern "C" {

relay_status_t relay_grid_create(MPI_Comm comm, int rows, int cols, char order,
                                 relay_grid_t* grid) {
  if (auto st = relay::api::check_mpi("relay_grid_create"); st != RELAY_SUCCESS) return st;
  if (comm == MPI_COMM_NULL) {
    return fail(RELAY_ERR_COMM, "relay_grid_create: argument 1 (comm) is MPI_COMM_NULL");
  }
  if (rows < 1) return fail(RELAY_ERR_COUNT, "relay_grid_create: argument 2 (rows = {}) < 1", rows);
  if (cols < 1) return fail(RELAY_ERR_COUNT, "relay_grid_create: argument 3 (cols = {}) < 1", cols);
  if (order != 'R' && order != 'r' && order != 'C' && order != 'c') {
    return fail(RELAY_ERR_OPTIONS, "relay_grid_create: argument 4 (order = '{}') is not 'R' or 'C'",
                order);
  }
  if (grid == nullptr)
    return fail(RELAY_ERR_OPTIONS, "relay_grid_create: argument 5 (grid) is NULL");
  *grid = RELAY_GRID_NULL;
  std::string error;
  relay_status_t st = relay::gemm::create_grid(
      comm, rows, cols, relay::layout::grid_order_from_blacs(order), true, grid, error);
  if (st != RELAY_SUCCESS) return fail(st, "relay_grid_create: {}", error);
  return RELAY_SUCCESS;
}

relay_status_t relay_grid_free(relay_grid_t* grid) {
  if (grid == nullptr) return fail(RELAY_ERR_OPTIONS, "relay_grid_free: argument 1 is NULL");
  relay::gemm::free_grid(*grid);
  *grid = RELAY_GRID_NULL;
  return RELAY_SUCCESS;
}

relay_status_t relay_grid_info(relay_grid_t grid, int* rows, int* cols, int* my_row, int* my_col) {
  if (grid == RELAY_GRID_NULL)
    return fail(RELAY_ERR_COMM, "relay_grid_info: argument 1 (grid) is NULL");
  if (rows) *rows = grid->shape.rows;
  if (cols) *cols = grid->shape.cols;
  if (my_row) *my_row = grid->me.row;
  if (my_col) *my_col = grid->me.col;
  return RELAY_SUCCESS;
}

void relay_gemm_options_init_sized(relay_gemm_options_t* options, size_t struct_size) {
  relay::gemm::init_options(options, struct_size);
}

relay_status_t relay_gemm_plan(relay_grid_t grid, const relay_gemm_options_t* options,
                               relay_gemm_report_t* plan) {
  if (grid == RELAY_GRID_NULL) return fail(RELAY_ERR_COMM, "relay_gemm_plan: the grid is NULL");
  if (plan == nullptr) return fail(RELAY_ERR_OPTIONS, "relay_gemm_plan: argument 3 (plan) is NULL");
  relay::gemm::Options resolved;
  std::string error;
  if (relay_status_t st = relay::gemm::resolve_options(options, resolved, error);
      st != RELAY_SUCCESS) {
    return fail(st, "relay_gemm_plan: {}", error);
  }
  const relay::gemm::Plan chosen = relay::gemm::plan(grid->shape, resolved);
  relay_gemm_report_t out{};
  out.struct_size = sizeof out;
  out.algorithm = chosen.algorithm;
  out.layers = chosen.layers;
  out.layer_rows = grid->shape.rows / chosen.cx;
  out.layer_cols = grid->shape.cols / chosen.cy;
  if (!relay::gemm::report_size_valid(plan)) {
    return fail(RELAY_ERR_OPTIONS,
                "relay_gemm_plan: argument 3 (plan->struct_size = {}) is not the size of any "
                "version of relay_gemm_report_t: set it with relay_gemm_report_init",
                plan->struct_size);
  }
  relay::gemm::write_report(plan, out);
  return RELAY_SUCCESS;
}

relay_status_t relay_gemm(char transa, char transb, long long m, long long n, long long k,
                          MPI_Datatype datatype, const void* alpha, const void* a, long long ia,
                          long long ja, const relay_matrix_desc_t* desca, const void* b,
                          long long ib, long long jb, const relay_matrix_desc_t* descb,
                          const void* beta, void* c, long long ic, long long jc,
                          const relay_matrix_desc_t* descc, relay_grid_t grid,
                          const relay_gemm_options_t* options, int* info,
                          relay_gemm_stats_t* stats) {
  if (info) *info = 0;
  if (auto st = relay::api::check_mpi("relay_gemm"); st != RELAY_SUCCESS) return st;
  if (grid == RELAY_GRID_NULL) return fail(RELAY_ERR_COMM, "relay_gemm: the grid is NULL");
  relay::gemm::Problem p;
  p.transa = transa;
  p.transb = transb;
  relay::gemm::parse_op(transa, p.opa);
  relay::gemm::parse_op(transb, p.opb);
  p.m = m;
  p.n = n;
  p.k = k;
  p.type = datatype;
  p.alpha = alpha;
  p.beta = beta;
  p.a = a;
  p.ia = ia;
  p.ja = ja;
  p.desca = to_descriptor(desca);
  p.b = b;
  p.ib = ib;
  p.jb = jb;
  p.descb = to_descriptor(descb);
  p.c = c;
  p.ic = ic;
  p.jc = jc;
  p.descc = to_descriptor(descc);
  p.ctxt = 0;
  std::string message;
  int local = relay::gemm::check_arguments(p, *grid, message);
  relay::gemm::Options resolved;
  std::string option_error;
  relay_status_t option_status = relay::gemm::resolve_options(options, resolved, option_error);
  const bool bad_type = datatype != MPI_FLOAT && datatype != MPI_DOUBLE &&
                        datatype != MPI_C_FLOAT_COMPLEX && datatype != MPI_C_DOUBLE_COMPLEX;
  // Beyond PBLAS, which dereferences them: a process that stores part of a matrix must pass
  // its local array (the first argument, in PDGEMM's order, that is NULL there).
  const char* null_array = nullptr;
  int null_position = 0;
  if (local == 0) {
    const struct {
      const void* data;
      const relay::layout::Descriptor& desc;
      const char* name;
      int position;
      bool used;
    } arrays[3] = {{a, p.desca, "A", 7, m > 0 && n > 0 && k > 0},
                   {b, p.descb, "B", 11, m > 0 && n > 0 && k > 0},
                   {c, p.descc, "C", 16, m > 0 && n > 0}};
    for (const auto& x : arrays) {
      const std::int64_t stored = relay::layout::local_rows(x.desc, grid->shape, grid->me.row) *
                                  relay::layout::local_cols(x.desc, grid->shape, grid->me.col);
      if (x.data == nullptr && x.used && stored > 0) {
        null_array = x.name;
        null_position = x.position;
        break;
      }
    }
  }
  // One agreement covers everything a rank may see differently: PBLAS INFO, options
  // (environment variables can differ between ranks), the datatype and the arrays.
  const std::array<int, 3> local_flags = {bad_type ? 1 : 0, option_status != RELAY_SUCCESS ? 1 : 0,
                                          null_array != nullptr ? 1 : 0};
  const bool checks_passed = local == 0 && local_flags == std::array<int, 3>{};
  const relay::gemm::CallAgreement agreement = relay::gemm::agree_on_call(
      local, local_flags, checks_passed ? relay::gemm::problem_fingerprint(p, resolved) : 0, *grid);
  const int agreed = agreement.info;
  const std::array<int, 3>& any_flags = agreement.any_flags;
  if (agreed != 0) {
    if (info) *info = agreed;
    if (agreed == local) {
      return fail(RELAY_ERR_ARGUMENT, "relay_gemm: INFO = {}: {}", agreed, message);
    }
    return fail(RELAY_ERR_ARGUMENT,
                "relay_gemm: INFO = {}: an argument is invalid on another process of the grid",
                agreed);
  }
  if (any_flags[0]) {
    return fail(RELAY_ERR_DATATYPE,
                "relay_gemm: argument 6 (datatype) is not MPI_FLOAT, MPI_DOUBLE, "
                "MPI_C_FLOAT_COMPLEX or MPI_C_DOUBLE_COMPLEX{}",
                bad_type ? "" : " on some process");
  }
  if (any_flags[1]) {
    return fail(
        RELAY_ERR_OPTIONS, "relay_gemm: {}",
        option_status != RELAY_SUCCESS ? option_error : "invalid options on another process");
  }
  if (any_flags[2]) {
    if (null_array == nullptr) {
      return fail(RELAY_ERR_BUFFER,
                  "relay_gemm: a matrix's local array is NULL on another "
                  "process of the grid");
    }
    return fail(RELAY_ERR_BUFFER,
                "relay_gemm: argument {} ({}) is NULL on process ({}, {}), "
                "which stores part of {}",
                null_position, null_array, grid->me.row, grid->me.col, null_array);
  }
  if (!agreement.same_problem) {
    return fail(RELAY_ERR_MISMATCH,
                "relay_gemm: the processes of the grid passed different arguments (TRANSA, "
                "TRANSB, M, N, K, ALPHA, BETA, offsets, a descriptor other than LLD_, or "
                "options), each valid on its own: every process must describe the same "
                "multiplication");
  }
  relay_gemm_stats_t local_stats;
  std::string error;
  relay_status_t st =
      relay::gemm::multiply(p, *grid, resolved, stats ? *stats : local_stats, error);
  if (st != RELAY_SUCCESS) return fail(st, "relay_gemm: {}", error);
  return RELAY_SUCCESS;
}

}  // extern "C"
