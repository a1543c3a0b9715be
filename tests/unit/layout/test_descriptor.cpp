// Descriptors: both Fortran layouts read into one type (32- and 64-bit integers), written back,
// and turned into the row/column distributions and local sizes of the local arrays.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "layout/descriptor.hpp"
#include "reference.hpp"

namespace relay::layout {
namespace {

TEST(Descriptor, ReadsDtype1AsPblasDoes) {
  // DTYPE CTXT M N MB NB RSRC CSRC LLD
  const std::array<int32_t, 9> raw{1, 7, 100, 60, 8, 4, 1, 2, 52};
  const Descriptor d = descriptor_from_fortran(raw.data());
  EXPECT_EQ(d.dtype, 1);
  EXPECT_EQ(d.ctxt, 7);
  EXPECT_EQ(d.m, 100);
  EXPECT_EQ(d.n, 60);
  EXPECT_EQ(d.imb, 8);  // IMB = MB and INB = NB, as PB_CargFtoC sets them
  EXPECT_EQ(d.inb, 4);
  EXPECT_EQ(d.mb, 8);
  EXPECT_EQ(d.nb, 4);
  EXPECT_EQ(d.rsrc, 1);
  EXPECT_EQ(d.csrc, 2);
  EXPECT_EQ(d.lld, 52);
  EXPECT_EQ(d, make_descriptor(100, 60, 8, 4, 1, 2, 7, 52));
  const auto back = to_dtype1_array(d);
  ASSERT_TRUE(back.has_value());
  for (size_t i = 0; i < raw.size(); ++i) EXPECT_EQ((*back)[i], raw[i]) << "entry " << i + 1;
  const std::array<int64_t, 11> as2{2, 7, 100, 60, 8, 4, 8, 4, 1, 2, 52};
  EXPECT_EQ(to_dtype2_array(d), as2);
}

TEST(Descriptor, ReadsDtype2WithFirstBlocks) {
  // DTYPE CTXT M N IMB INB MB NB RSRC CSRC LLD, 64-bit integers
  const std::array<int64_t, 11> raw{2, 3, 17, 23, 2, 5, 3, 4, 0, 1, 9};
  const Descriptor d = descriptor_from_fortran(raw.data());
  EXPECT_EQ(d, make_descriptor_inb(17, 23, 2, 5, 3, 4, 0, 1, 3, 9));
  EXPECT_EQ(d.imb, 2);
  EXPECT_EQ(d.inb, 5);
  EXPECT_EQ(d.mb, 3);
  EXPECT_EQ(d.nb, 4);
  EXPECT_EQ(to_dtype2_array(d), raw);
  EXPECT_FALSE(to_dtype1_array(d).has_value());  // first blocks differ from MB/NB
  EXPECT_FALSE(to_dtype1_array(make_descriptor_inb(17, 23, 3, 5, 3, 4, 0, 1, 3, 9)).has_value());
  EXPECT_FALSE(to_dtype1_array(make_descriptor_inb(17, 23, 2, 4, 3, 4, 0, 1, 3, 9)).has_value());
  // A DTYPE-2 descriptor whose first blocks equal the blocks can be written as DTYPE 1.
  const auto as1 = to_dtype1_array(make_descriptor_inb(17, 23, 3, 4, 3, 4, 0, 1, 3, 9));
  ASSERT_TRUE(as1.has_value());
  EXPECT_EQ(*as1, (std::array<int64_t, 9>{1, 3, 17, 23, 3, 4, 0, 1, 9}));
}

TEST(Descriptor, UnknownTypeReadsOnlyTypeAndContext) {
  // Only desc[0] and desc[1] may be read; the sentinels after them must not show up.
  const std::array<int32_t, 11> raw{5, 4, -77, -77, -77, -77, -77, -77, -77, -77, -77};
  const Descriptor d = descriptor_from_fortran(raw.data());
  EXPECT_EQ(d.dtype, 5);
  EXPECT_EQ(d.ctxt, 4);
  EXPECT_EQ(to_dtype2_array(d), (std::array<int64_t, 11>{2, 4, 0, 0, 1, 1, 1, 1, 0, 0, 1}));
}

TEST(Descriptor, EntryNumbering) {
  EXPECT_EQ(static_cast<int>(DescEntry::dtype), 1);
  EXPECT_EQ(static_cast<int>(DescEntry::imb), 5);
  EXPECT_EQ(static_cast<int>(DescEntry::lld), 11);
  EXPECT_EQ(to_string(DescEntry::rsrc), "RSRC_");
  // The DTYPE-1 layout (DTYPE CTXT M N MB NB RSRC CSRC LLD).
  EXPECT_EQ(dtype1_position(DescEntry::dtype), 1);
  EXPECT_EQ(dtype1_position(DescEntry::ctxt), 2);
  EXPECT_EQ(dtype1_position(DescEntry::m), 3);
  EXPECT_EQ(dtype1_position(DescEntry::n), 4);
  EXPECT_EQ(dtype1_position(DescEntry::imb), 5);
  EXPECT_EQ(dtype1_position(DescEntry::mb), 5);
  EXPECT_EQ(dtype1_position(DescEntry::inb), 6);
  EXPECT_EQ(dtype1_position(DescEntry::nb), 6);
  EXPECT_EQ(dtype1_position(DescEntry::rsrc), 7);
  EXPECT_EQ(dtype1_position(DescEntry::csrc), 8);
  EXPECT_EQ(dtype1_position(DescEntry::lld), 9);
}

TEST(Descriptor, DistributionsAndLocalSizes) {
  const ProcessGrid grid{2, 3, GridOrder::column_major};
  const Descriptor d = make_descriptor_inb(11, 14, 2, 5, 3, 4, 1, 2, 0, 6);
  EXPECT_EQ(row_distribution(d, grid), (BlockCyclic{2, 3, 1, 2}));
  EXPECT_EQ(col_distribution(d, grid), (BlockCyclic{5, 4, 2, 3}));
  // Rows: [0,2) p1, [2,5) p0, [5,8) p1, [8,11) p0 -> p0 6, p1 5.
  EXPECT_EQ(local_rows(d, grid, 0), 6);
  EXPECT_EQ(local_rows(d, grid, 1), 5);
  // Columns: [0,5) p2, [5,9) p0, [9,13) p1, [13,14) p2 -> p0 4, p1 4, p2 6.
  EXPECT_EQ(local_cols(d, grid, 0), 4);
  EXPECT_EQ(local_cols(d, grid, 1), 4);
  EXPECT_EQ(local_cols(d, grid, 2), 6);
  EXPECT_EQ(required_lld(d, grid, {0, 1}), 6);
  EXPECT_EQ(required_lld(d, grid, {1, 1}), 5);
}

TEST(Descriptor, LocalSizesMatchBruteForceAndNumroc) {
  for (int rows = 1; rows <= 4; ++rows) {
    for (int rsrc = 0; rsrc < rows; ++rsrc) {
      for (int64_t mb = 1; mb <= 4; ++mb) {
        for (int64_t m = 0; m <= 20; ++m) {
          const ProcessGrid grid{rows, 1, GridOrder::row_major};
          const Descriptor d = make_descriptor(m, 1, mb, 1, rsrc, 0, 0, 1);
          const auto ref = test::brute_map(BlockCyclic{mb, mb, rsrc, rows}, m);
          for (int p = 0; p < rows; ++p) {
            ASSERT_EQ(local_rows(d, grid, p), ref.count(p, 0, m));
            ASSERT_EQ(local_rows(d, grid, p), fortran::numroc(m, mb, p, rsrc, rows));
          }
        }
      }
    }
  }
}

TEST(Descriptor, RequiredLldIsOneWhereNoColumnsAreHeld) {
  // 5 x 2 matrix with NB = 2 on a 2 x 3 grid from column 0: process column 1 and 2 hold no
  // columns, so any LLD >= 1 is legal there whatever their local row count.
  const ProcessGrid grid{2, 3, GridOrder::row_major};
  const Descriptor d = make_descriptor(5, 2, 2, 2, 0, 0, 0, 3);
  EXPECT_EQ(required_lld(d, grid, {0, 0}), 3);
  EXPECT_EQ(required_lld(d, grid, {1, 0}), 2);
  EXPECT_EQ(required_lld(d, grid, {0, 1}), 1);
  EXPECT_EQ(required_lld(d, grid, {0, 2}), 1);
  // An empty local row count still needs LLD >= 1.
  const Descriptor tall = make_descriptor(2, 4, 2, 2, 0, 0, 0, 1);
  EXPECT_EQ(required_lld(tall, grid, {1, 0}), 1);
}

}  // namespace
}  // namespace relay::layout
