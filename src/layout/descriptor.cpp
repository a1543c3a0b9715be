// Descriptor conversions (see descriptor.hpp).
#include "layout/descriptor.hpp"

#include <algorithm>

namespace relay::layout {

namespace {

// 0-based positions in the DTYPE-1 layout (pblas.h: DTYPE1_ .. LLD1_).
enum Dtype1Index { d1_dtype, d1_ctxt, d1_m, d1_n, d1_mb, d1_nb, d1_rsrc, d1_csrc, d1_lld };

// 0-based position of an entry in the DTYPE-2 layout.
constexpr int index_of(DescEntry entry) { return static_cast<int>(entry) - 1; }

template <class Int>
Descriptor read_fortran(const Int* desc) {
  Descriptor d;
  d.dtype = desc[0];
  d.ctxt = desc[1];
  if (d.dtype == dtype_block_cyclic_2d) {
    d.m = desc[d1_m];
    d.n = desc[d1_n];
    d.imb = d.mb = desc[d1_mb];
    d.inb = d.nb = desc[d1_nb];
    d.rsrc = desc[d1_rsrc];
    d.csrc = desc[d1_csrc];
    d.lld = desc[d1_lld];
  } else if (d.dtype == dtype_block_cyclic_2d_inb) {
    d.m = desc[index_of(DescEntry::m)];
    d.n = desc[index_of(DescEntry::n)];
    d.imb = desc[index_of(DescEntry::imb)];
    d.inb = desc[index_of(DescEntry::inb)];
    d.mb = desc[index_of(DescEntry::mb)];
    d.nb = desc[index_of(DescEntry::nb)];
    d.rsrc = desc[index_of(DescEntry::rsrc)];
    d.csrc = desc[index_of(DescEntry::csrc)];
    d.lld = desc[index_of(DescEntry::lld)];
  }
  return d;
}

}  // namespace

std::string_view to_string(DescEntry entry) {
  switch (entry) {
    case DescEntry::dtype:
      return "DTYPE_";
    case DescEntry::ctxt:
      return "CTXT_";
    case DescEntry::m:
      return "M_";
    case DescEntry::n:
      return "N_";
    case DescEntry::imb:
      return "IMB_";
    case DescEntry::inb:
      return "INB_";
    case DescEntry::mb:
      return "MB_";
    case DescEntry::nb:
      return "NB_";
    case DescEntry::rsrc:
      return "RSRC_";
    case DescEntry::csrc:
      return "CSRC_";
    case DescEntry::lld:
      return "LLD_";
  }
  return "unknown";
}

int dtype1_position(DescEntry entry) {
  switch (entry) {
    case DescEntry::dtype:
      return d1_dtype + 1;
    case DescEntry::ctxt:
      return d1_ctxt + 1;
    case DescEntry::m:
      return d1_m + 1;
    case DescEntry::n:
      return d1_n + 1;
    case DescEntry::imb:
    case DescEntry::mb:
      return d1_mb + 1;
    case DescEntry::inb:
    case DescEntry::nb:
      return d1_nb + 1;
    case DescEntry::rsrc:
      return d1_rsrc + 1;
    case DescEntry::csrc:
      return d1_csrc + 1;
    case DescEntry::lld:
      return d1_lld + 1;
  }
  return 0;
}

bool operator==(const Descriptor& a, const Descriptor& b) {
  return a.dtype == b.dtype && to_dtype2_array(a) == to_dtype2_array(b);
}

Descriptor make_descriptor(int64_t m, int64_t n, int64_t mb, int64_t nb, int64_t rsrc, int64_t csrc,
                           int64_t ctxt, int64_t lld) {
  Descriptor d = make_descriptor_inb(m, n, mb, nb, mb, nb, rsrc, csrc, ctxt, lld);
  d.dtype = dtype_block_cyclic_2d;
  return d;
}

Descriptor make_descriptor_inb(int64_t m, int64_t n, int64_t imb, int64_t inb, int64_t mb,
                               int64_t nb, int64_t rsrc, int64_t csrc, int64_t ctxt, int64_t lld) {
  Descriptor d;
  d.dtype = dtype_block_cyclic_2d_inb;
  d.ctxt = ctxt;
  d.m = m;
  d.n = n;
  d.imb = imb;
  d.inb = inb;
  d.mb = mb;
  d.nb = nb;
  d.rsrc = rsrc;
  d.csrc = csrc;
  d.lld = lld;
  return d;
}

Descriptor descriptor_from_fortran(const int32_t* desc) { return read_fortran(desc); }
Descriptor descriptor_from_fortran(const int64_t* desc) { return read_fortran(desc); }

std::array<int64_t, dtype2_length> to_dtype2_array(const Descriptor& d) {
  return {
      dtype_block_cyclic_2d_inb, d.ctxt, d.m, d.n, d.imb, d.inb, d.mb, d.nb, d.rsrc, d.csrc, d.lld};
}

std::optional<std::array<int64_t, dtype1_length>> to_dtype1_array(const Descriptor& d) {
  if (d.imb != d.mb || d.inb != d.nb) return std::nullopt;
  return std::array<int64_t, dtype1_length>{
      dtype_block_cyclic_2d, d.ctxt, d.m, d.n, d.mb, d.nb, d.rsrc, d.csrc, d.lld};
}

BlockCyclic row_distribution(const Descriptor& desc, const ProcessGrid& grid) {
  return BlockCyclic{desc.imb, desc.mb, static_cast<int>(desc.rsrc), grid.rows};
}

BlockCyclic col_distribution(const Descriptor& desc, const ProcessGrid& grid) {
  return BlockCyclic{desc.inb, desc.nb, static_cast<int>(desc.csrc), grid.cols};
}

int64_t local_rows(const Descriptor& desc, const ProcessGrid& grid, int prow) {
  return local_count(row_distribution(desc, grid), prow, desc.m);
}

int64_t local_cols(const Descriptor& desc, const ProcessGrid& grid, int pcol) {
  return local_count(col_distribution(desc, grid), pcol, desc.n);
}

int64_t required_lld(const Descriptor& desc, const ProcessGrid& grid, GridCoord me) {
  if (local_cols(desc, grid, me.col) == 0) return 1;
  return std::max<int64_t>(1, local_rows(desc, grid, me.row));
}

}  // namespace relay::layout
