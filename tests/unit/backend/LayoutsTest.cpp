//===- LayoutsTest.cpp - Which element each thread holds, per layout ------===//
//
// The layout-indexing interface (ph/Dialect/TileGPU/Layouts.h) on the layouts
// the policies pick, checked against the PTX ISA's fragment tables: the mma.sync
// m16n8k16 accumulator (rows g, g+8; columns 2t, 2t+1), its A operand
// (a0..a7) and its B operand (b0..b3), a blocked layout, replication of a
// tile smaller than the layout (a unit dimension held once a thread), and the
// shapes a layout cannot cover.
//
//===----------------------------------------------------------------------===//
#include "ph/Backend/Arch.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>

using namespace ph::tilegpu;

namespace {

struct Ctx {
  mlir::MLIRContext ctx;
  Ctx() { ctx.loadDialect<TileGPUDialect>(); }
  MmaEncodingAttr mma(unsigned wm, unsigned wn) { return MmaEncodingAttr::get(&ctx, 2, {wm, wn}, {16, 8}); }
};

/// Every (row, col) a lane holds under an mma layout, from the layout alone.
std::set<std::pair<int64_t, int64_t>> elementsOf(const RegisterLayout &l, int64_t row0, int64_t col0) {
  std::set<std::pair<int64_t, int64_t>> out;
  for (int64_t r = 0; r < l.numRegs(); ++r)
    out.insert({(row0 + l.offset(r, 0)) % l.shape[0], (col0 + l.offset(r, 1)) % l.shape[1]});
  return out;
}

TEST(Layouts, MmaAccumulatorIsThePtxFragment) {
  Ctx c;
  auto l = registerLayout(c.mma(2, 2), {64, 32});
  ASSERT_TRUE(l);
  // Per warp 32x16: 2 row blocks x 2 column blocks x 4 registers.
  EXPECT_EQ(l->numRegs(), 16);
  // Registers 0..3 of a block: (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
  EXPECT_EQ(l->offset(0, 0), 0);
  EXPECT_EQ(l->offset(1, 1), 1);
  EXPECT_EQ(l->offset(2, 0), 8);
  EXPECT_EQ(l->offset(3, 0), 8);
  EXPECT_EQ(l->offset(3, 1), 1);
  // The second row block of the warp is one pass (16 x 2 warps) further down.
  EXPECT_EQ(l->offset(8, 0), 32);
  // Lane (g = 5, t = 3) of warp (0, 0) holds 16 distinct elements.
  EXPECT_EQ(elementsOf(*l, 5, 6).size(), 16u);
}

TEST(Layouts, OperandFragmentsFollowLdmatrix) {
  Ctx c;
  auto a = registerLayout(DotOperandEncodingAttr::get(&c.ctx, 0, c.mma(4, 1), 2, false), {64, 32});
  ASSERT_TRUE(a);
  // A: 8 halves per 16x16 block; K offsets 2t + {0, 1, 8, 9}.
  EXPECT_EQ(a->numRegs(), 2 * 8);
  EXPECT_EQ(a->offset(0, 1), 0);
  EXPECT_EQ(a->offset(2, 1), 8);
  EXPECT_EQ(a->offset(3, 1), 9);
  EXPECT_EQ(a->offset(4, 0), 8); // a2a3: row g + 8
  auto b = registerLayout(DotOperandEncodingAttr::get(&c.ctx, 1, c.mma(4, 1), 2, false), {32, 64});
  ASSERT_TRUE(b);
  // B [K, N]: 4 halves per 16x8 block, K along dimension 0.
  EXPECT_EQ(b->numRegs(), 2 * 8 * 4);
  EXPECT_EQ(b->offset(2, 0), 8);
  auto bt = registerLayout(DotOperandEncodingAttr::get(&c.ctx, 1, c.mma(4, 1), 2, true), {64, 32});
  ASSERT_TRUE(bt);
  // dot_t's B [N, K]: K along dimension 1.
  EXPECT_EQ(bt->offset(2, 1), 8);
  EXPECT_EQ(bt->offset(2, 0), 0);
}

TEST(Layouts, RowVectorIsReplicatedAcrossTheQuad) {
  Ctx c;
  auto l = registerLayout(c.mma(4, 1), {64, 1});
  ASSERT_TRUE(l);
  // Every column position wraps to 0: the four lanes of a quad hold the same rows.
  for (int64_t t = 0; t < 4; ++t)
    for (auto [row, col] : elementsOf(*l, 3, 2 * t)) EXPECT_EQ(col, 0);
  // ... and a thread holds each of its rows once, not once per column 2t and 2t + 1: per warp
  // 16 rows of the 64 are its pass, rows g and g + 8 of each, so 64 / 64 x 2 = 2 registers.
  EXPECT_EQ(l->perThread[1], 1);
  EXPECT_EQ(l->numRegs(), 2);
  EXPECT_EQ(elementsOf(*l, 3, 0).size(), 2u);
  // A column vector [1, C] of a blocked layout with 2 rows a thread: one element along rows.
  auto bl = BlockedEncodingAttr::get(&c.ctx, {2, 4}, {4, 8}, {4, 1}, {1, 0});
  auto col = registerLayout(bl, {1, 32});
  ASSERT_TRUE(col);
  EXPECT_EQ(col->perThread[0], 1);
  EXPECT_EQ(col->numRegs(), 4);
  // The full tile keeps both rows.
  EXPECT_EQ(registerLayout(bl, {32, 32})->perThread[0], 2);
}

TEST(Layouts, BlockedCoversAndRefuses) {
  Ctx c;
  auto bl = BlockedEncodingAttr::get(&c.ctx, {1, 8}, {8, 4}, {4, 1}, {1, 0});
  auto l = registerLayout(bl, {128, 32});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->numRegs(), 128 * 32 / 128);
  EXPECT_EQ(threadsOf(bl), 128);
  EXPECT_FALSE(l->wraps(0));
  EXPECT_TRUE(l->coversOnce(1));
  std::string why;
  // mma layouts cover whole 16x8 blocks only.
  EXPECT_FALSE(registerLayout(c.mma(4, 1), {24, 8}, &why));
  EXPECT_NE(why.find("does not divide"), std::string::npos) << why;
}

TEST(Layouts, BlockedWrapsAroundExtentsThatAreNotPowersOfTwo) {
  Ctx c;
  // 48 columns under a pass of 32: two passes, the second holding 32-47 and 0-15 again;
  // 24 rows under a pass of 32 (8 lanes x 4 warps): rows 0-23, then 0-7 again.
  auto bl = BlockedEncodingAttr::get(&c.ctx, {1, 8}, {8, 4}, {4, 1}, {1, 0});
  auto l = registerLayout(bl, {24, 48});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->reps[0], 1);
  EXPECT_EQ(l->reps[1], 2);
  EXPECT_TRUE(l->wraps(0));
  EXPECT_TRUE(l->wraps(1));
  EXPECT_FALSE(l->coversOnce(1));
  // Every element is held by some thread (thread base: lane (l0, l1), warp w along rows).
  std::set<std::pair<int64_t, int64_t>> all;
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t l0 = 0; l0 < 8; ++l0)
      for (int64_t l1 = 0; l1 < 4; ++l1)
        for (auto e : elementsOf(*l, w * 8 + l0, l1 * 8)) all.insert(e);
  EXPECT_EQ(all.size(), size_t(24 * 48));
}

TEST(Layouts, ArchTable) {
  using ph::backend::findGpuArch;
  ASSERT_TRUE(findGpuArch("sm_90a"));
  EXPECT_TRUE(findGpuArch("sm_90a")->wgmma);
  EXPECT_FALSE(findGpuArch("sm_90")->wgmma);
  EXPECT_TRUE(findGpuArch("sm_80")->mmaSync);
  EXPECT_EQ(findGpuArch("sm_90")->sharedPerBlock, 232448);
  EXPECT_EQ(findGpuArch("sm_70"), nullptr);
}

TEST(Layouts, ADeviceCompilesForItsArchSpecificVariant) {
  using ph::backend::archForDevice;
  EXPECT_EQ(archForDevice("sm_90"), "sm_90a"); // an H100 or H200: wgmma
  EXPECT_EQ(archForDevice("sm_80"), "sm_80");
  EXPECT_EQ(archForDevice("sm_89"), "sm_89");
  EXPECT_EQ(archForDevice("sm_90a"), "sm_90a");
}

// A dot_op A operand of a wgmma accumulator is mma.sync's A fragment (wgmma's
// register A form), warp by warp; its B has no register form.
TEST(Layouts, WgmmaRegisterAOperandIsMmaSyncs) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<ph::tilegpu::TileGPUDialect>();
  auto v2 = ph::tilegpu::MmaEncodingAttr::get(&ctx, 2, {4, 1}, {16, 8});
  auto v3 = ph::tilegpu::MmaEncodingAttr::get(&ctx, 3, {4, 1}, {64, 8});
  auto a2 = ph::tilegpu::registerLayout(ph::tilegpu::DotOperandEncodingAttr::get(&ctx, 0, v2, 2, false), {128, 64});
  auto a3 = ph::tilegpu::registerLayout(ph::tilegpu::DotOperandEncodingAttr::get(&ctx, 0, v3, 2, false), {128, 64});
  ASSERT_TRUE(a2 && a3);
  EXPECT_EQ(a3->numRegs(), a2->numRegs());
  for (int64_t r = 0; r < a3->numRegs(); ++r)
    for (unsigned d = 0; d < 2; ++d) EXPECT_EQ(a3->offset(r, d), a2->offset(r, d));
  std::string why;
  EXPECT_FALSE(ph::tilegpu::registerLayout(ph::tilegpu::DotOperandEncodingAttr::get(&ctx, 1, v3, 2, false), {64, 64}, &why));
  EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
}

} // namespace
