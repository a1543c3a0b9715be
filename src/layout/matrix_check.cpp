// PBLAS-compatible operand checks (see matrix_check.hpp).
//
// Errors are ranked on one scale: scalar argument i scores 100 * i, entry e of descriptor
// argument i scores 100 * i + e, and the lowest score found wins. INFO is minus the score,
// divided by 100 for scalars.
#include "layout/matrix_check.hpp"

#include <algorithm>
#include <limits>

namespace relay::layout {

namespace {

constexpr int64_t desc_mult = 100;
constexpr int64_t no_error = std::numeric_limits<int64_t>::max();

int64_t score_from_info(int info) {
  if (info >= 0) return no_error;
  if (info < -desc_mult) return -static_cast<int64_t>(info);
  return -static_cast<int64_t>(info) * desc_mult;
}

int info_from_score(int64_t score) {
  if (score == no_error) return 0;
  if (score % desc_mult == 0) return static_cast<int>(-(score / desc_mult));
  return static_cast<int>(-score);
}

// Keeps the lowest score seen and the message of the error that set it.
class Ranking {
 public:
  explicit Ranking(int prior_info) : score_(score_from_info(prior_info)) {}

  void add(int64_t score, const std::string& message) {
    if (score < score_) {
      score_ = score;
      message_ = message;
    }
  }
  bool clean() const { return score_ == no_error; }
  ArgCheck result() const { return ArgCheck{info_from_score(score_), message_}; }

 private:
  int64_t score_;
  std::string message_;
};

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

InfoTarget decode_info(int info) {
  InfoTarget t;
  if (info >= 0) return t;
  const int code = -info;
  if (code < desc_mult) {
    t.argument = code;
    return t;
  }
  t.argument = static_cast<int>(code / desc_mult);
  const int e = static_cast<int>(code % desc_mult);
  if (e >= static_cast<int>(DescEntry::dtype) && e <= static_cast<int>(DescEntry::lld)) {
    t.entry = static_cast<DescEntry>(e);
  }
  return t;
}

ArgCheck check_matrix(const MatrixOperand& a, int64_t ctxt, const ProcessGrid& grid, GridCoord me,
                      int prior_info) {
  Ranking rank(prior_info);
  const Descriptor& d = a.desc;
  const std::string name(a.name);
  const std::string desc_name = "DESC" + name;
  const bool dtype1 = d.dtype == dtype_block_cyclic_2d;
  const int64_t ia_score = (a.desc_pos - 2) * desc_mult;
  const int64_t ja_score = (a.desc_pos - 1) * desc_mult;

  // Descriptor entries are named in the layout the caller used.
  auto entry_text = [&](DescEntry e) {
    std::string field(to_string(e));
    if (dtype1 && e == DescEntry::imb) field = "MB_";
    if (dtype1 && e == DescEntry::inb) field = "NB_";
    return desc_name + "[" + field + "]";
  };
  auto bad_entry = [&](DescEntry e, int64_t value, const std::string& rule) {
    rank.add(a.desc_pos * desc_mult + static_cast<int>(e),
             entry_text(e) + " = " + str(value) + ", " + rule);
  };

  if (a.m < 0) {
    rank.add(a.m_pos * desc_mult, "rows of sub(" + name + ") = " + str(a.m) + ", must be >= 0");
  }
  if (a.n < 0) {
    rank.add(a.n_pos * desc_mult, "columns of sub(" + name + ") = " + str(a.n) + ", must be >= 0");
  }
  if (a.ia < 0) rank.add(ia_score, "I" + name + " = " + str(a.ia + 1) + ", must be >= 1");
  if (a.ja < 0) rank.add(ja_score, "J" + name + " = " + str(a.ja + 1) + ", must be >= 1");

  if (d.dtype != dtype_block_cyclic_2d && d.dtype != dtype_block_cyclic_2d_inb) {
    bad_entry(DescEntry::dtype, d.dtype, "must be 1 or 2");
    return rank.result();
  }
  if (d.ctxt != ctxt) {
    bad_entry(DescEntry::ctxt, d.ctxt, "does not match the operation's context " + str(ctxt));
    return rank.result();
  }

  if (d.imb < 1) bad_entry(DescEntry::imb, d.imb, "must be >= 1");
  if (d.inb < 1) bad_entry(DescEntry::inb, d.inb, "must be >= 1");
  if (d.mb < 1) bad_entry(DescEntry::mb, d.mb, "must be >= 1");
  if (d.nb < 1) bad_entry(DescEntry::nb, d.nb, "must be >= 1");
  if (d.rsrc < -1 || d.rsrc >= grid.rows) {
    bad_entry(DescEntry::rsrc, d.rsrc, "must be -1 or in [0, " + str(grid.rows) + ")");
  }
  if (d.csrc < -1 || d.csrc >= grid.cols) {
    bad_entry(DescEntry::csrc, d.csrc, "must be -1 or in [0, " + str(grid.cols) + ")");
  }

  if (a.m == 0 || a.n == 0) {
    // An empty sub(A) touches no element: only the sizes and LLD must make sense.
    if (d.m < 0) bad_entry(DescEntry::m, d.m, "must be >= 0");
    if (d.n < 0) bad_entry(DescEntry::n, d.n, "must be >= 0");
    if (d.lld < 1) bad_entry(DescEntry::lld, d.lld, "must be >= 1");
    return rank.result();
  }

  if (d.m < 1) bad_entry(DescEntry::m, d.m, "must be >= 1");
  if (d.n < 1) bad_entry(DescEntry::n, d.n, "must be >= 1");
  if (d.m >= 1 && d.n >= 1) {
    if (a.ia + a.m > d.m) {
      rank.add(ia_score, "sub(" + name + ") out of bounds: I" + name + " = " + str(a.ia + 1) +
                             ", M = " + str(a.m) + ", " + desc_name + "[M_] = " + str(d.m));
    }
    if (a.ja + a.n > d.n) {
      rank.add(ja_score, "sub(" + name + ") out of bounds: J" + name + " = " + str(a.ja + 1) +
                             ", N = " + str(a.n) + ", " + desc_name + "[N_] = " + str(d.n));
    }
  }
  // The local leading dimension is checked only when everything else (including the
  // operands checked before) is right, as the local row count needs valid entries.
  if (rank.clean()) {
    const int64_t need = required_lld(d, grid, me);
    if (d.lld < need) {
      bad_entry(
          DescEntry::lld, d.lld,
          "must be >= " + str(need) + " on process (" + str(me.row) + ", " + str(me.col) + ")");
    }
  }
  return rank.result();
}

}  // namespace relay::layout
