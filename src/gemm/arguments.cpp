// PDGEMM's argument check (PBLAS/SRC/pdgemm_.c: TRANSA, TRANSB, then PB_Cchkmat on A, B, C
// in that order) and the options of a call.
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "coll/options.hpp"
#include "core/fingerprint.hpp"
#include "core/settings.hpp"
#include "core/sized_struct.hpp"
#include "core/status.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "gemm/gemm.hpp"
#include "layout/matrix_check.hpp"

namespace relay::gemm {

const char* algorithm_name(relay_gemm_algorithm_t algorithm) {
  switch (algorithm) {
    case RELAY_GEMM_DEFAULT:
      return "default";
    case RELAY_GEMM_2D:
      return "2d";
    case RELAY_GEMM_25D:
      return "2.5d";
    case RELAY_GEMM_3D:
      return "3d";
    case RELAY_GEMM_AUTO:
      return "auto";
  }
  return nullptr;
}

bool algorithm_from_name(const std::string& name, relay_gemm_algorithm_t& algorithm) {
  for (relay_gemm_algorithm_t a :
       {RELAY_GEMM_DEFAULT, RELAY_GEMM_2D, RELAY_GEMM_25D, RELAY_GEMM_3D, RELAY_GEMM_AUTO}) {
    if (name == algorithm_name(a)) {
      algorithm = a;
      return true;
    }
  }
  return false;
}

bool parse_op(char c, Op& op) {
  switch (c) {
    case 'N':
    case 'n':
      op = Op::none;
      return true;
    case 'T':
    case 't':
      op = Op::trans;
      return true;
    case 'C':
    case 'c':
      op = Op::conj_trans;
      return true;
    default:
      return false;
  }
}

int check_arguments(const Problem& p, const relay_grid& grid, std::string& message) {
  // PDGEMM's argument positions.
  constexpr int kTransA = 1, kTransB = 2, kM = 3, kN = 4, kK = 5, kAlpha = 6, kDescA = 10,
                kDescB = 14, kBeta = 15, kDescC = 19;
  int info = 0;
  Op op;
  if (!parse_op(p.transa, op)) {
    info = -kTransA;
    message = fmt::format("argument {} (TRANSA = '{}') is not 'N', 'T' or 'C'", kTransA, p.transa);
  } else if (!parse_op(p.transb, op)) {
    info = -kTransB;
    message = fmt::format("argument {} (TRANSB = '{}') is not 'N', 'T' or 'C'", kTransB, p.transb);
  }
  const bool nota = p.opa == Op::none && info != -kTransA;
  const bool notb = p.opb == Op::none && info != -kTransB;
  auto check = [&](layout::MatrixOperand operand) {
    layout::ArgCheck r = layout::check_matrix(operand, p.ctxt, grid.shape, grid.me, info);
    if (r.info != info && !r.message.empty()) message = r.message;
    info = r.info;
  };
  layout::MatrixOperand a{
      "A",  nota ? p.m : p.k, nota ? kM : kK, nota ? p.k : p.m, nota ? kK : kM, p.ia,
      p.ja, p.desca,          kDescA};
  check(a);
  layout::MatrixOperand b{
      "B",  notb ? p.k : p.n, notb ? kK : kN, notb ? p.n : p.k, notb ? kN : kK, p.ib,
      p.jb, p.descb,          kDescB};
  check(b);
  layout::MatrixOperand c{"C", p.m, kM, p.n, kN, p.ic, p.jc, p.descc, kDescC};
  check(c);
  // Beyond PBLAS (which dereferences them): the scalars must exist.
  if (info == 0 && p.alpha == nullptr) {
    info = -kAlpha;
    message = fmt::format("argument {} (ALPHA) is NULL", kAlpha);
  }
  if (info == 0 && p.beta == nullptr) {
    info = -kBeta;
    message = fmt::format("argument {} (BETA) is NULL", kBeta);
  }
  return info;
}

namespace {

// PBLAS reports the earliest argument: a scalar at position i ranks as 100 * i, descriptor
// entry e of the argument at position i as 100 * i + e.
int info_rank(int info) {
  if (info == 0) return INT_MAX;
  return -info < 100 ? -info * 100 : -info;
}

}  // namespace

int agree_on_info(int info, const relay_grid& grid) {
  int pair[2] = {info_rank(info), info}, best[2] = {0, 0};
  // MPI_MINLOC on (rank, INFO) keeps the INFO that goes with the smallest rank.
  exec::allreduce(pair, best, 1, MPI_2INT, MPI_MINLOC, grid.comm);  // as agree_on_call
  return best[0] == INT_MAX ? 0 : best[1];
}

namespace {

void add(core::Fingerprint& f, const layout::Descriptor& d) {
  for (std::int64_t v : {d.dtype, d.m, d.n, d.imb, d.inb, d.mb, d.nb, d.rsrc, d.csrc}) f.add(v);
}

}  // namespace

std::uint64_t problem_fingerprint(const Problem& p, const Options& o) {
  core::Fingerprint f;
  for (std::int64_t v :
       {static_cast<std::int64_t>(p.opa), static_cast<std::int64_t>(p.opb), p.m, p.n, p.k, p.ia,
        p.ja, p.ib, p.jb, p.ic, p.jc, static_cast<std::int64_t>(p.triangle)}) {
    f.add(v);
  }
  add(f, p.desca);
  add(f, p.descb);
  add(f, p.descc);
  int type_size = 0;
  MPI_Type_size(p.type, &type_size);
  f.add(std::int64_t{type_size});
  if (type_size > 0 && type_size <= 16) {  // the four GEMM types; others fail their own check
    if (p.alpha != nullptr) f.add_bytes(p.alpha, static_cast<std::size_t>(type_size));
    if (p.beta != nullptr) f.add_bytes(p.beta, static_cast<std::size_t>(type_size));
  }
  for (std::int64_t v :
       {o.panel_width, static_cast<std::int64_t>(o.lookahead), static_cast<std::int64_t>(o.pieces),
        static_cast<std::int64_t>(o.bcast.algorithm),
        static_cast<std::int64_t>(o.bcast.segment_bytes), static_cast<std::int64_t>(o.bcast.fanout),
        static_cast<std::int64_t>(o.algorithm), static_cast<std::int64_t>(o.layers),
        static_cast<std::int64_t>(o.panels_per_owner)}) {
    f.add(v);
  }
  return f.value();
}

CallAgreement agree_on_call(int info, const std::array<int, 3>& flags, std::uint64_t fingerprint,
                            const relay_grid& grid) {
  const long long hi = static_cast<long long>(fingerprint >> 32);
  const long long lo = static_cast<long long>(fingerprint & 0xffffffffu);
  const long long in[8] = {info != 0 ? 1 : 0, flags[0], flags[1], flags[2], hi, lo, -hi, -lo};
  long long out[8] = {};
  // MPI_Allreduce on real MPI. Under SMPI a reduction and a broadcast (exec::allreduce): SMPI's
  // recursive doubling sends P log2 P small messages, P at a time, and SimGrid 3.32 removes each
  // from a list by a linear scan; at 4,096 simulated ranks this one call per multiplication was
  // a tenth of a SUMMA's host time (paired, docs/simulate.md). The ranks then leave it staggered
  // by the broadcast's depth, a few microseconds: simulated times moved by about 1% there.
  exec::allreduce(in, out, 8, MPI_LONG_LONG, MPI_MAX, grid.comm);
  CallAgreement a;
  a.info = out[0] != 0 ? agree_on_info(info, grid) : 0;
  for (std::size_t i = 0; i < 3; ++i) a.any_flags[i] = static_cast<int>(out[1 + i]);
  a.same_problem = out[4] == -out[6] && out[5] == -out[7];
  return a;
}

namespace {

// The size of relay_gemm_options_t's first versioned layout (relay 0.1): the least struct_size
// a caller can have. Fields added later do not change it.
constexpr std::size_t kGemmOptionsFirstBytes = offsetof(relay_gemm_options_t, pieces) + sizeof(int);

relay_gemm_options_t default_options() {
  relay_gemm_options_t o{};
  o.struct_size = sizeof o;
  o.bcast = nullptr;
  o.panel_width = 0;
  o.lookahead = 0;
  o.pieces = 0;
  o.algorithm = RELAY_GEMM_DEFAULT;
  o.layers = 0;
  o.report = nullptr;
  o.memory_limit_bytes = 0;
  o.panel_broadcasts = RELAY_GEMM_PANELS_DEFAULT;
  return o;
}

}  // namespace

void init_options(relay_gemm_options_t* options, std::size_t struct_size) {
  core::init_sized_struct(options, struct_size, default_options());
}

bool report_size_valid(const relay_gemm_report_t* report) {
  const std::size_t size = core::stored_struct_size(report);
  return size >= offsetof(relay_gemm_report_t, layers) && size <= core::kMaxStructBytes;
}

void write_report(relay_gemm_report_t* to, const relay_gemm_report_t& from) {
  if (to != nullptr) core::init_sized_struct(to, to->struct_size, from);
}

relay_status_t resolve_options(const relay_gemm_options_t* given, Options& out,
                               std::string& error) {
  relay_gemm_options_t o = default_options();
  std::string why;
  if (given != nullptr && !core::copy_sized_struct(given, o, kGemmOptionsFirstBytes, why)) {
    error = fmt::format("argument 22 (options->struct_size = {}) {}",
                        core::stored_struct_size(given), why);
    return RELAY_ERR_OPTIONS;
  }
  // The panel broadcasts' options, copied as relay_ibcast copies them (it checks the rest).
  relay_bcast_options_init(&out.bcast);
  if (o.bcast != nullptr &&
      !core::copy_sized_struct(o.bcast, out.bcast, coll::kBcastOptionsFirstBytes, why)) {
    error = fmt::format("argument 22 (options->bcast->struct_size = {}) {}",
                        core::stored_struct_size(o.bcast), why);
    return RELAY_ERR_OPTIONS;
  }
  auto env = [&](core::Knob knob, long long min, long long max, long long& value) {
    const char* v = core::read_setting(knob);
    if (v == nullptr) return true;
    auto parsed = core::parse_integer(v, min, max);
    if (!parsed) {
      error = fmt::format("environment variable {}='{}' is not an integer in [{}, {}]",
                          core::setting(knob).name, v, min, max);
      return false;
    }
    value = *parsed;
    return true;
  };
  long long width = o.panel_width, lookahead = o.lookahead, pieces = o.pieces;
  if (!env(core::Knob::gemm_panel_width, 0, 1LL << 30, width) ||
      !env(core::Knob::gemm_lookahead, 0, 64, lookahead) ||
      !env(core::Knob::gemm_pieces, 0, 4096, pieces)) {
    return RELAY_ERR_OPTIONS;
  }
  if (width < 0) {
    error = fmt::format("options->panel_width = {} is negative", width);
    return RELAY_ERR_OPTIONS;
  }
  if (lookahead < 0 || lookahead > 64) {
    error = fmt::format("options->lookahead = {} is outside [0, 64]", lookahead);
    return RELAY_ERR_OPTIONS;
  }
  if (pieces < 0 || pieces > 4096) {
    error = fmt::format("options->pieces = {} is outside [0, 4096]", pieces);
    return RELAY_ERR_OPTIONS;
  }
  long long layers = o.layers;
  if (!env(core::Knob::gemm_layers, 0, 65536, layers)) return RELAY_ERR_OPTIONS;
  if (layers < 0 || layers > 65536) {
    error = fmt::format("options->layers = {} is outside [0, 65536]", layers);
    return RELAY_ERR_OPTIONS;
  }
  relay_gemm_algorithm_t algorithm = static_cast<relay_gemm_algorithm_t>(o.algorithm);
  if (algorithm_name(algorithm) == nullptr) {
    error = fmt::format("options->algorithm = {} is not a relay_gemm_algorithm_t", o.algorithm);
    return RELAY_ERR_OPTIONS;
  }
  if (const char* v = core::read_setting(core::Knob::gemm_algorithm);
      v != nullptr && !algorithm_from_name(v, algorithm)) {
    error = fmt::format("environment variable {}='{}' is not auto, default, 2d, 2.5d or 3d",
                        core::setting(core::Knob::gemm_algorithm).name, v);
    return RELAY_ERR_OPTIONS;
  }
  out.algorithm = algorithm == RELAY_GEMM_DEFAULT ? RELAY_GEMM_AUTO : algorithm;
  out.layers = static_cast<int>(layers);
  if (o.report != nullptr && !report_size_valid(o.report)) {
    error = fmt::format(
        "argument 22 (options->report->struct_size = {}) is not the size of any version of "
        "relay_gemm_report_t: set it with relay_gemm_report_init",
        core::stored_struct_size(o.report));
    return RELAY_ERR_OPTIONS;
  }
  out.report = o.report;
  long long memory_limit = o.memory_limit_bytes;
  if (const char* v = core::read_setting(core::Knob::gemm_memory_limit)) {
    const auto bytes = core::parse_bytes(v);
    if (!bytes || *bytes < 0) {
      error =
          fmt::format("environment variable {}='{}' is not a size like 2GiB ({})",
                      core::setting(core::Knob::gemm_memory_limit).name, v, core::kByteUnitsHelp);
      return RELAY_ERR_OPTIONS;
    }
    memory_limit = *bytes;
  }
  if (memory_limit < 0) {
    error = fmt::format("options->memory_limit_bytes = {} is negative", memory_limit);
    return RELAY_ERR_OPTIONS;
  }
  out.memory_limit_bytes = memory_limit;
  int panel_broadcasts = o.panel_broadcasts;
  if (panel_broadcasts < RELAY_GEMM_PANELS_DEFAULT ||
      panel_broadcasts > RELAY_GEMM_PANELS_PER_BLOCK) {
    error = fmt::format("options->panel_broadcasts = {} is not a relay_gemm_panel_broadcasts_t",
                        panel_broadcasts);
    return RELAY_ERR_OPTIONS;
  }
  if (const char* v = core::read_setting(core::Knob::gemm_panel_broadcasts)) {
    if (std::strcmp(v, "per_owner") == 0) {
      panel_broadcasts = RELAY_GEMM_PANELS_PER_OWNER;
    } else if (std::strcmp(v, "per_block") == 0) {
      panel_broadcasts = RELAY_GEMM_PANELS_PER_BLOCK;
    } else {
      error = fmt::format("environment variable {}='{}' is not per_owner or per_block",
                          core::setting(core::Knob::gemm_panel_broadcasts).name, v);
      return RELAY_ERR_OPTIONS;
    }
  }
  out.panels_per_owner = panel_broadcasts != RELAY_GEMM_PANELS_PER_BLOCK;
  out.panel_width = width;
  out.lookahead = static_cast<int>(lookahead);
  out.pieces = static_cast<int>(pieces);  // 0: auto (layered.cpp's multiply, the model's)
  return RELAY_SUCCESS;
}

}  // namespace relay::gemm
