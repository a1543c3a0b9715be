// What the drop-in's entry points (p?gemm_ in pgemm.cpp, p?syrk_ in psyrk.cpp) share: PBLAS's
// way of reporting a bad argument, the BLACS context's relay grid, who serves a call, and the
// totals relay bench solve reads (serving.hpp).
#pragma once

#include <mpi.h>

#include <string>

#include "gemm/gemm.hpp"
#include "gemm/grid.hpp"

namespace relay::scalapack {

/// RELAY_SCALAPACK_ON_ERROR=return: a bad argument is printed and the call returns.
bool return_on_error();

/// Reports INFO as PBLAS does: PB_Cabort (message on stderr, the launch stops), or only the
/// message with RELAY_SCALAPACK_ON_ERROR=return.
void report_error(int ctxt, const char* routine, int info);

/// The relay grid of BLACS context `ctxt` (built once per context and kept with its
/// communicator), and the grid's shape. When the context is not this process's, reports
/// `info_if_not_a_context` and returns nullptr; when it cannot be mapped, stops the launch.
relay_grid* context_grid(const char* routine, int ctxt, int info_if_not_a_context, int& nprow,
                         int& npcol);

/// What every served call does before it runs, on every process of `grid`: agrees on this
/// process's INFO (reporting PBLAS's error if any process found one), resolves relay's GEMM
/// options and agrees that every process passed the same arguments (PBLAS's INFO agreement
/// cannot see arguments valid on each process but different between them: ScaLAPACK's own then
/// hangs; relay stops, naming `compared`). False: the call returns, its error reported.
bool agree_on_call(const char* routine, int ctxt, relay_grid& grid, int info,
                   const gemm::Problem& p, gemm::Options& options, const char* compared);

/// Who serves a call: relay bench solve's switch, else RELAY_SCALAPACK_FORWARD: relay (always
/// relay), scalapack (always ScaLAPACK's own), auto or unset (relay, except what relay cannot
/// speed up: one panel step on a grid within one node).
enum class Path { relay, scalapack, automatic };
Path requested_path();

/// Adds one served call to the totals (serving.hpp's call_totals) and, under relay profile,
/// records it with its shape: `ops` its two op letters (TRANSA TRANSB; p?syrk_'s TRANS UPLO),
/// m x n x k, op(A)'s block along k from DESCA (`a_transposed`), C's blocks from DESCC.
void finish_call(const char* routine, const char ops[2], long long m, long long n, long long k,
                 bool a_transposed, const int* desca, const int* descc, double seconds,
                 bool by_relay, const std::string& config);

/// ScaLAPACK's own definition of `symbol` ("pdsyrk_" ...): the next one after relay's in the
/// link order; nullptr if none.
void* next_definition(const char* symbol);

/// next_definition, or stop the launch saying why it is wanted and missing.
void* required_next_definition(const char* symbol);

}  // namespace relay::scalapack
