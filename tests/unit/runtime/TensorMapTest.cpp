//===- TensorMapTest.cpp - What the runtime passes cuTensorMapEncodeTiled ---===//
#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/TensorMap.h"

#include <gtest/gtest.h>

using namespace ph;
using namespace ph::rt;

namespace {

/// A tensor `name` of `elem` whose dims are size symbols (index into sizes) or literals.
kir::TensorParam tensor(const std::string &name, Elem elem, std::vector<kir::TensorDim> dims) {
  kir::TensorParam t;
  t.name = name;
  t.elem = elem;
  t.dims = std::move(dims);
  t.read = true;
  return t;
}
kir::TensorDim sym(uint32_t i, const char *name) { return {-1, i, name}; }
kir::TensorDim lit(int64_t v) { return {v, 0, std::to_string(v)}; }

} // namespace

// gemm.ph's A [M, K] f16 under a 128x64 box (one 128-byte swizzled row per box row).
TEST(TensorMap, GemmAOperandF16) {
  TensorMapParams p;
  ASSERT_EQ(tensorMapParams({0, {128, 64}, 128}, tensor("A", Elem::F16, {sym(0, "M"), sym(2, "K")}), {4096, 2048, 1024}, p), "");
  EXPECT_EQ(p.dataType, 6); // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  EXPECT_EQ(p.rank, 2u);
  EXPECT_EQ(p.dims[0], 1024u); // innermost (K) first
  EXPECT_EQ(p.dims[1], 4096u);
  EXPECT_EQ(p.strides[0], 1024u * 2); // bytes between rows
  EXPECT_EQ(p.box[0], 64u);
  EXPECT_EQ(p.box[1], 128u);
  EXPECT_EQ(p.elementStrides[0], 1u);
  EXPECT_EQ(p.elementStrides[1], 1u);
  EXPECT_EQ(p.swizzle, 3);   // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(p.interleave, 0);
  EXPECT_EQ(p.oobFill, 0);   // zeros past the extents: masked loads for free
  EXPECT_EQ(p.l2Promotion, 3);
}

// B [K, N] bf16, N-major: a 128x256 tile is four 64-column boxes of the same map.
TEST(TensorMap, GemmBOperandBf16) {
  TensorMapParams p;
  ASSERT_EQ(tensorMapParams({1, {64, 64}, 128}, tensor("B", Elem::BF16, {sym(1, "K"), sym(0, "N")}), {520, 72}, p), "");
  EXPECT_EQ(p.dataType, 9); // BFLOAT16
  EXPECT_EQ(p.dims[0], 520u);
  EXPECT_EQ(p.dims[1], 72u);
  EXPECT_EQ(p.strides[0], 1040u);
  EXPECT_EQ(p.box[0], 64u);
  EXPECT_EQ(p.box[1], 64u);
}

// A 64-byte and a 32-byte swizzle (BK = 32 and 16 rings).
TEST(TensorMap, NarrowSwizzles) {
  TensorMapParams p;
  auto a = tensor("A", Elem::F16, {sym(0, "M"), sym(1, "K")});
  ASSERT_EQ(tensorMapParams({0, {128, 32}, 64}, a, {256, 256}, p), "");
  EXPECT_EQ(p.swizzle, 2);
  EXPECT_EQ(p.l2Promotion, 2);
  ASSERT_EQ(tensorMapParams({0, {64, 16}, 32}, a, {256, 256}, p), "");
  EXPECT_EQ(p.swizzle, 1);
  ASSERT_EQ(tensorMapParams({0, {64, 16}, 0}, a, {256, 256}, p), "");
  EXPECT_EQ(p.swizzle, 0);
}

// Attention's [B, H, N, D]: a box of one (b, h) and a block of rows; literals and sizes mixed.
TEST(TensorMap, Rank4WithLiteralInnerDim) {
  TensorMapParams p;
  auto q = tensor("Q", Elem::F16, {sym(0, "B"), sym(1, "H"), sym(2, "N"), lit(128)});
  ASSERT_EQ(tensorMapParams({0, {1, 1, 128, 64}, 128}, q, {4, 16, 4096}, p), "");
  EXPECT_EQ(p.rank, 4u);
  EXPECT_EQ(p.dims[0], 128u);
  EXPECT_EQ(p.dims[1], 4096u);
  EXPECT_EQ(p.dims[2], 16u);
  EXPECT_EQ(p.dims[3], 4u);
  EXPECT_EQ(p.strides[0], 256u);
  EXPECT_EQ(p.strides[1], 256u * 4096);
  EXPECT_EQ(p.strides[2], 256u * 4096 * 16);
  EXPECT_EQ(p.box[0], 64u);
  EXPECT_EQ(p.box[1], 128u);
  EXPECT_EQ(p.box[2], 1u);
  EXPECT_EQ(p.box[3], 1u);
}

// What the hardware refuses is refused here, with the tensor's name.
TEST(TensorMap, Refusals) {
  TensorMapParams p;
  auto a = tensor("A", Elem::F16, {sym(0, "M"), sym(1, "K")});
  // Rows of 4094 halves: 8188 bytes, not a multiple of 16 (no @aligned).
  EXPECT_NE(tensorMapParams({0, {128, 64}, 128}, a, {256, 4094}, p).find("multiple of 16"), std::string::npos);
  // A box over 256 elements.
  EXPECT_NE(tensorMapParams({0, {512, 64}, 128}, a, {1024, 1024}, p).find("`A`"), std::string::npos);
  // A box row wider than its swizzle: 128 halves are 256 bytes.
  EXPECT_NE(tensorMapParams({0, {64, 128}, 128}, a, {1024, 1024}, p).find("swizzle"), std::string::npos);
  // A box row of 12 bytes.
  EXPECT_NE(tensorMapParams({0, {64, 6}, 0}, a, {1024, 1024}, p), "");
  EXPECT_NE(tensorMapParams({0, {64, 64}, 48}, a, {1024, 1024}, p), "");
  EXPECT_NE(tensorMapParams({0, {64}, 128}, a, {1024, 1024}, p).find("box of 1 dimensions"), std::string::npos);
  EXPECT_NE(tensorMapParams({0, {1, 64}, 128}, tensor("F", Elem::Bool, {sym(0, "M"), sym(1, "K")}), {8, 64}, p), "");
  // An unbound size.
  EXPECT_NE(tensorMapParams({0, {64, 64}, 128}, a, {1024}, p), "");
}

// The manifest carries the maps through JSON, and a manifest without them reads as before.
TEST(TensorMap, ManifestRoundTrip) {
  Manifest m;
  m.target = "sm_90a";
  ManifestKernel mk;
  mk.sig.name = "gemm";
  mk.symbol = "gemm";
  mk.cubin = "gemm.cubin";
  mk.tma = {{0, {128, 64}, 128}, {1, {64, 64}, 128}};
  m.kernels.push_back(mk);
  Manifest back;
  ASSERT_EQ(fromJson(toJson(m), back), "");
  ASSERT_EQ(back.kernels.size(), 1u);
  ASSERT_EQ(back.kernels[0].tma.size(), 2u);
  EXPECT_EQ(back.kernels[0].tma[1].tensor, 1u);
  EXPECT_EQ(back.kernels[0].tma[1].box, (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(back.kernels[0].tma[0].swizzleBytes, 128);
  m.kernels[0].tma.clear();
  ASSERT_EQ(fromJson(toJson(m), back), "");
  EXPECT_TRUE(back.kernels[0].tma.empty());
}
