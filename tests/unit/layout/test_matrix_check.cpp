// PBLAS argument checks: every descriptor entry and scalar argument, wrong on its own, gives
// the INFO PDGEMM would give for its A operand (M at 3, K at 5, IA/JA/DESCA at 8/9/10); the
// precedence of several errors, across operands too, follows PB_Cchkmat.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>

#include "layout/matrix_check.hpp"
#include "reference.hpp"

namespace relay::layout {
namespace {

constexpr int64_t ctxt = 0;
const ProcessGrid grid{2, 3, GridOrder::row_major};

// 9 x 8. Rows (block 2 from row 1): [0,2) p1, [2,4) p0, [4,6) p1, [6,8) p0, [8,9) p1, so
// process row 0 holds 4 rows and row 1 holds 5. Columns (block 3 from column 2): [0,3) p2,
// [3,6) p0, [6,8) p1. LLD 5 is more than process (0, 0) needs.
Descriptor dtype1() { return make_descriptor(9, 8, 2, 3, 1, 2, ctxt, 5); }
// The same with first blocks 1 and 2: rows [0,1) p1, [1,3) p0, [3,5) p1, [5,7) p0, [7,9) p1
// (p0 holds 4), columns [0,2) p2, [2,5) p0, [5,8) p1.
Descriptor dtype2() { return make_descriptor_inb(9, 8, 1, 2, 2, 3, 1, 2, ctxt, 5); }

MatrixOperand operand(const Descriptor& d, int64_t m, int64_t n, int64_t ia = 0, int64_t ja = 0) {
  MatrixOperand a;
  a.name = "A";
  a.m = m;
  a.m_pos = 3;
  a.n = n;
  a.n_pos = 5;
  a.ia = ia;
  a.ja = ja;
  a.desc = d;
  a.desc_pos = 10;
  return a;
}

int info(const Descriptor& d, int64_t m = 9, int64_t n = 8, int64_t ia = 0, int64_t ja = 0,
         int prior = 0, GridCoord me = {0, 0}) {
  return check_matrix(operand(d, m, n, ia, ja), ctxt, grid, me, prior).info;
}

Descriptor with(Descriptor d, const std::function<void(Descriptor&)>& change) {
  change(d);
  return d;
}

TEST(MatrixCheck, ValidOperandsPass) {
  for (const Descriptor& d : {dtype1(), dtype2()}) {
    EXPECT_EQ(info(d), 0);
    EXPECT_EQ(info(d, 1, 1, 8, 7), 0);  // the last element
    EXPECT_EQ(info(d, 0, 8, 9, 0), 0);  // empty, starting just past the end
    EXPECT_EQ(info(d, 3, 0), 0);
    const ArgCheck ok = check_matrix(operand(d, 9, 8), ctxt, grid, {0, 0});
    EXPECT_TRUE(ok.ok());
    EXPECT_TRUE(ok.message.empty());
  }
}

TEST(MatrixCheck, EachDescriptorEntryIsNamed) {
  for (const Descriptor& base : {dtype1(), dtype2()}) {
    const bool is1 = base.dtype == 1;
    SCOPED_TRACE(is1 ? "DTYPE 1" : "DTYPE 2");
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.dtype = 3; })), -1001);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.dtype = 0; })), -1001);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.ctxt = 1; })), -1002);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.m = -1; }), 0, 8), -1003);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.m = 0; }), 1, 8), -1003);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.n = -1; }), 9, 0), -1004);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.n = 0; }), 9, 2), -1004);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.rsrc = 2; })), -1009);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.rsrc = -2; })), -1009);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.csrc = 3; })), -1010);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.csrc = -7; })), -1010);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.lld = 3; })), -1011);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.lld = 0; }), 0, 8), -1011);
    EXPECT_EQ(info(with(base, [](Descriptor& d) { d.lld = 1; }), 0, 8), 0);
  }
  // Block sizes: a DTYPE-1 MB or NB is also PBLAS's IMB or INB, which is checked first.
  const auto mb1 = [](int64_t v) {
    return with(dtype1(), [v](Descriptor& d) { d.imb = d.mb = v; });
  };
  const auto nb1 = [](int64_t v) {
    return with(dtype1(), [v](Descriptor& d) { d.inb = d.nb = v; });
  };
  EXPECT_EQ(info(mb1(0)), -1005);
  EXPECT_EQ(info(nb1(-2)), -1006);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.imb = 0; })), -1005);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.inb = 0; })), -1006);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.mb = 0; })), -1007);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.nb = -4; })), -1008);
}

TEST(MatrixCheck, DescriptorReadFromFortranGivesTheSameCodes) {
  // RSRC out of range: entry 9 in PBLAS's numbering even for a DTYPE-1 array, where it sits
  // at position 7 (dtype1_position gives the Fortran layout's number).
  const std::array<int32_t, 9> raw1{1, 0, 9, 8, 2, 3, 4, 2, 5};
  const ArgCheck r1 =
      check_matrix(operand(descriptor_from_fortran(raw1.data()), 9, 8), ctxt, grid, {0, 0});
  EXPECT_EQ(r1.info, -1009);
  const InfoTarget t = decode_info(r1.info);
  ASSERT_TRUE(t.entry.has_value());
  EXPECT_EQ(dtype1_position(*t.entry), 7);
  const std::array<int32_t, 9> mb0{1, 0, 9, 8, 0, 3, 1, 2, 5};
  EXPECT_EQ(info(descriptor_from_fortran(mb0.data())), -1005);
  const std::array<int64_t, 11> raw2{2, 0, 9, 8, 1, 2, 2, 0, 1, 2, 5};
  EXPECT_EQ(info(descriptor_from_fortran(raw2.data())), -1008);
}

TEST(MatrixCheck, ReplicatedSourcesAreLegal) {
  // RSRC = -1: every process row holds all 9 rows, so LLD must be at least 9.
  EXPECT_EQ(info(with(dtype1(),
                      [](Descriptor& d) {
                        d.rsrc = -1;
                        d.lld = 9;
                      })),
            0);
  EXPECT_EQ(info(with(dtype1(),
                      [](Descriptor& d) {
                        d.rsrc = -1;
                        d.lld = 8;
                      })),
            -1011);
  EXPECT_EQ(info(with(dtype2(),
                      [](Descriptor& d) {
                        d.csrc = -1;
                        d.lld = 4;
                      })),
            0);
}

TEST(MatrixCheck, LeadingDimensionIsCheckedLocally) {
  // Process row 1 holds 5 rows of the DTYPE-1 matrix, process row 0 holds 4.
  const Descriptor d4 = with(dtype1(), [](Descriptor& d) { d.lld = 4; });
  EXPECT_EQ(info(d4, 9, 8, 0, 0, 0, {0, 0}), 0);
  EXPECT_EQ(info(d4, 9, 8, 0, 0, 0, {1, 0}), -1011);
  // 9 x 3 with NB 3 from column 0: process columns 1 and 2 hold no column, LLD 1 is enough.
  const Descriptor thin = make_descriptor(9, 3, 2, 3, 1, 0, ctxt, 1);
  EXPECT_EQ(info(thin, 9, 3, 0, 0, 0, {0, 1}), 0);
  EXPECT_EQ(info(thin, 9, 3, 0, 0, 0, {1, 2}), 0);
  EXPECT_EQ(info(thin, 9, 3, 0, 0, 0, {0, 0}), -1011);
}

TEST(MatrixCheck, ScalarArgumentsAreNamedByPosition) {
  for (const Descriptor& d : {dtype1(), dtype2()}) {
    EXPECT_EQ(info(d, -1, 8), -3);
    EXPECT_EQ(info(d, 9, -1), -5);
    EXPECT_EQ(info(d, 9, 8, -1, 0), -8);
    EXPECT_EQ(info(d, 9, 8, 0, -1), -9);
    EXPECT_EQ(info(d, 5, 8, 5, 0), -8);  // rows 6..10 of a 9-row matrix
    EXPECT_EQ(info(d, 9, 8, 0, 1), -9);
    EXPECT_EQ(info(d, 4, 8, 5, 0), 0);
  }
}

TEST(MatrixCheck, SmallestCodeWins) {
  const Descriptor imb0 = with(dtype2(), [](Descriptor& d) { d.imb = 0; });
  EXPECT_EQ(info(imb0, -1, 8), -3);  // scalar before descriptor
  EXPECT_EQ(info(with(dtype2(),
                      [](Descriptor& d) {
                        d.imb = 0;
                        d.rsrc = 5;
                      })),
            -1005);
  EXPECT_EQ(info(with(dtype2(),
                      [](Descriptor& d) {
                        d.rsrc = 5;
                        d.lld = 1;
                      })),
            -1009);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.lld = 1; }), 5, 8, 5, 0), -8);
  // A bad DTYPE or CTXT ends the descriptor's check: the bounds are not looked at.
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.dtype = 9; }), 5, 8, 5, 0), -1001);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.ctxt = 4; }), 5, 8, 5, 0), -1002);
  EXPECT_EQ(info(with(dtype2(), [](Descriptor& d) { d.dtype = 9; }), -1, 8), -3);
}

TEST(MatrixCheck, InfoCarriesAcrossOperands) {
  const Descriptor imb0 = with(dtype2(), [](Descriptor& d) { d.imb = 0; });
  EXPECT_EQ(info(imb0, 9, 8, 0, 0, -2), -2);        // TRANSB was wrong: it stays
  EXPECT_EQ(info(imb0, 9, 8, 0, 0, -1403), -1005);  // an earlier operand's later entry
  EXPECT_EQ(info(dtype2(), -1, 8, 0, 0, -1005), -3);
  EXPECT_EQ(info(imb0, 9, 8, 0, 0, -1003), -1003);  // an earlier entry of a descriptor
  EXPECT_EQ(info(dtype2(), 9, 8, 0, 0, -1903), -1903);
  // LLD is only checked while nothing at all is wrong, as in PB_Cchkmat.
  const Descriptor lld1 = with(dtype2(), [](Descriptor& d) { d.lld = 1; });
  EXPECT_EQ(info(lld1, 9, 8, 0, 0, -1401), -1401);
  EXPECT_EQ(info(lld1, 9, 8, 0, 0, 0), -1011);
  const ArgCheck carried = check_matrix(operand(imb0, 9, 8), ctxt, grid, {0, 0}, -2);
  EXPECT_TRUE(carried.message.empty());
}

TEST(MatrixCheck, MessagesNameTheArgument) {
  auto message = [](const Descriptor& d, int64_t m, int64_t ia) {
    return check_matrix(operand(d, m, 8, ia, 0), ctxt, grid, {0, 0}).message;
  };
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  const std::string mb1 = message(with(dtype1(), [](Descriptor& d) { d.imb = d.mb = 0; }), 9, 0);
  EXPECT_TRUE(has(mb1, "DESCA[MB_] = 0")) << mb1;
  const std::string imb2 = message(with(dtype2(), [](Descriptor& d) { d.imb = 0; }), 9, 0);
  EXPECT_TRUE(has(imb2, "DESCA[IMB_] = 0")) << imb2;
  const std::string ia = message(dtype2(), 9, -1);
  EXPECT_TRUE(has(ia, "IA = 0")) << ia;
  const std::string bounds = message(dtype2(), 5, 5);
  EXPECT_TRUE(has(bounds, "IA = 6") && has(bounds, "DESCA[M_] = 9")) << bounds;
  const std::string lld = message(with(dtype2(), [](Descriptor& d) { d.lld = 2; }), 9, 0);
  EXPECT_TRUE(has(lld, "DESCA[LLD_] = 2") && has(lld, ">= 4")) << lld;
}

TEST(MatrixCheck, DecodeInfo) {
  EXPECT_EQ(decode_info(0).argument, 0);
  EXPECT_FALSE(decode_info(0).entry.has_value());
  EXPECT_EQ(decode_info(-3).argument, 3);
  EXPECT_FALSE(decode_info(-3).entry.has_value());
  EXPECT_EQ(decode_info(-1005).argument, 10);
  EXPECT_EQ(decode_info(-1005).entry, DescEntry::imb);
  EXPECT_EQ(decode_info(-1911).argument, 19);
  EXPECT_EQ(decode_info(-1911).entry, DescEntry::lld);
}

TEST(MatrixCheck, LeadingDimensionBoundaryEverywhere) {
  // For every small layout and every process: LLD = the brute-force minimum passes and one
  // less fails with entry 11.
  for (int rows = 1; rows <= 3; ++rows) {
    for (int cols = 1; cols <= 3; ++cols) {
      const ProcessGrid g{rows, cols, GridOrder::column_major};
      for (int rsrc = -1; rsrc < rows; ++rsrc) {
        for (int64_t imb = 1; imb <= 3; ++imb) {
          for (int64_t mb = 1; mb <= 3; ++mb) {
            for (int64_t m = 1; m <= 8; ++m) {
              for (int64_t n = 1; n <= 4; ++n) {
                const auto rref = test::brute_map(BlockCyclic{imb, mb, rsrc, rows}, m);
                const auto cref = test::brute_map(BlockCyclic{1, 2, 0, cols}, n);
                Descriptor d = make_descriptor_inb(m, n, imb, 1, mb, 2, rsrc, 0, ctxt, 1);
                for (int r = 0; r < rows; ++r) {
                  for (int c = 0; c < cols; ++c) {
                    const int64_t np = rref.count(r, 0, m);
                    const int64_t nq = cref.count(c, 0, n);
                    const int64_t need = nq > 0 ? std::max<int64_t>(1, np) : 1;
                    MatrixOperand a = operand(d, m, n);
                    a.desc.lld = need;
                    ASSERT_EQ(check_matrix(a, ctxt, g, {r, c}).info, 0);
                    a.desc.lld = need - 1;
                    ASSERT_EQ(check_matrix(a, ctxt, g, {r, c}).info, -1011);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace relay::layout
