//===- LaunchTest.cpp - 16-bit conversions and binding a launch -----------===//
#include "KirBuilder.h"
#include "ph/Launch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace ph;
using namespace ph::kirtest;

namespace {

float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(Half, KnownBitPatterns) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(0.1f), 0x2E66);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);        // largest finite
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);        // below the halfway point
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);        // halfway to 2^16: ties to even = inf
  EXPECT_EQ(floatToHalf(INFINITY), 0x7C00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xFC00);
  EXPECT_EQ(floatToHalf(0x1p-14f), 0x0400);        // smallest normal
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);        // smallest subnormal
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);        // tie with 0: even
  EXPECT_EQ(floatToHalf(0x1.8p-24f), 0x0002);      // 1.5 ulp: tie, to even (2)
  EXPECT_EQ(floatToHalf(0x1.0p-25f * 3), 0x0002);
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3C00); // tie: to even (1.0)
  EXPECT_EQ(floatToHalf(1.0f + 0x1.8p-10f), 0x3C02);
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-10f + 0x1p-11f), 0x3C02); // tie: to even (up)
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  uint16_t nan = floatToHalf(NAN);
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
}

TEST(Half, DecodesKnownBitPatterns) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(halfToFloat(0x3555), 0x1.554p-2f);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  // Every finite half survives a round trip.
  for (uint32_t h = 0; h < 0x10000; ++h)
    if ((h & 0x7C00) != 0x7C00) {
      ASSERT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
    }
}

TEST(Bf16, KnownBitPatterns) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBf16(3.14159265f), 0x4049);
  EXPECT_EQ(floatToBf16(-2.0f), 0xC000);
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3F80);           // tie: to even
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-7f + 0x1p-8f), 0x3F82); // tie: to even (up)
  EXPECT_EQ(floatToBf16(bitsToFloat(0x7F7FFFFF)), 0x7F80);  // FLT_MAX rounds to inf
  EXPECT_EQ(floatToBf16(bitsToFloat(0x00010000)), 0x0001);  // subnormal
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
  uint16_t nan = floatToBf16(NAN);
  EXPECT_TRUE(std::isnan(bf16ToFloat(nan)));
  // Agrees with the bit trick for every float that is not NaN, on a sample.
  for (uint32_t b = 0; b < 0x7F800000u; b += 0x1003) {
    uint32_t rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16;
    ASSERT_EQ(floatToBf16(bitsToFloat(b)), rounded) << std::hex << b;
  }
}

TEST(RoundToElem, StraightFromDouble) {
  // 1 + 2^-11 + 2^-40: just above the tie, so it rounds up in f16; a detour
  // through float would first drop 2^-40 and then round to even (down).
  EXPECT_EQ(roundToElem(1.0 + 0x1p-11 + 0x1p-40, Elem::F16), 1.0 + 0x1p-10);
  EXPECT_EQ(roundToElem(0.1, Elem::F32), static_cast<double>(0.1f));
  EXPECT_EQ(roundToElem(-3.7, Elem::I32), -3);
  // Float -> i32 saturates, NaN -> 0 (docs/language.md, "Conversions"; the targets
  // emit the same: ph/Conversion/ConvertRules.h).
  EXPECT_EQ(roundToElem(4294967296.0 + 5, Elem::I32), 2147483647);
  EXPECT_EQ(roundToElem(1e30, Elem::I32), 2147483647);
  EXPECT_EQ(roundToElem(2147483648.0, Elem::I32), 2147483647);
  EXPECT_EQ(roundToElem(2147483647.9, Elem::I32), 2147483647);
  EXPECT_EQ(roundToElem(-2147483648.0, Elem::I32), -2147483648.0);
  EXPECT_EQ(roundToElem(-2147483649.0, Elem::I32), -2147483648.0);
  EXPECT_EQ(roundToElem(-1e30, Elem::I32), -2147483648.0);
  EXPECT_EQ(roundToElem(INFINITY, Elem::I32), 2147483647);
  EXPECT_EQ(roundToElem(-INFINITY, Elem::I32), -2147483648.0);
  EXPECT_EQ(roundToElem(NAN, Elem::I32), 0);
}

TEST(CompareOutputs, EqualInfinitiesAndNaNInBothAgree) {
  HostTensor ref = HostTensor::zeros(Elem::F32, {4}), out = HostTensor::zeros(Elem::F32, {4});
  const double vals[] = {1.5, INFINITY, -INFINITY, NAN};
  for (int i = 0; i < 4; ++i) {
    ref.set(i, vals[i]);
    out.set(i, vals[i]);
  }
  OutputComparison c = compareOutputs(out, ref);
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.agreedNonFinite, 3);
  EXPECT_EQ(c.nanCount, 0);
  EXPECT_EQ(c.relErr, 0); // inf - inf is not taken
  // An infinity against a finite value, the other infinity, or NaN disagrees.
  for (double other : {1.0, -static_cast<double>(INFINITY), static_cast<double>(NAN)}) {
    HostTensor o2 = out;
    o2.set(1, other);
    OutputComparison d = compareOutputs(o2, ref);
    EXPECT_FALSE(d.passed) << other;
    EXPECT_EQ(d.nanCount, 1) << other;
  }
  EXPECT_EQ(compareNonFinite(2.0, 2.5), NonFinite::No);
}

TEST(HostTensor, GetSetRoundTrips) {
  for (Elem e : {Elem::F16, Elem::BF16, Elem::F32, Elem::I32}) {
    HostTensor t = HostTensor::zeros(e, {2, 3});
    EXPECT_EQ(t.numElements(), 6);
    EXPECT_EQ(t.bytes.size(), 6u * (e == Elem::F16 || e == Elem::BF16 ? 2 : 4));
    t.set(4, -3.0);
    EXPECT_EQ(t.get(4), -3.0);
    EXPECT_EQ(t.get(3), 0.0);
  }
}

/// flash-attention-like signature: Q[Nq, D], K[Nk, D], O[Nq, D], scale; D = 64 (autotune), @aligned(Nq = 16).
Kernel attnLike() {
  Kernel k;
  k.name = "attn";
  k.config = {{"D", 64}, {"BR", 16}};
  k.sizes = {SizeSym{"Nq", 16}, SizeSym{"Nk", 1}};
  k.tensors = {tensorParam("Q", Elem::F16, {-1, 64}, {"Nq", "D"}, true, false),
               tensorParam("K", Elem::F16, {-2, 64}, {"Nk", "D"}, true, false),
               tensorParam("V", Elem::F16, {-2, 64}, {"Nk", "D"}, true, false),
               tensorParam("O", Elem::F16, {-1, 64}, {"Nq", "D"}, false, true)};
  k.scalars = {ScalarParam{"scale", Elem::F32}};
  k.grid[0].fromSize = true;
  k.grid[0].size = 0;
  k.grid[0].divisor = 16;
  return k;
}

TEST(BindLaunch, SizesFromInputsAndFlags) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.inputs["Q"] = HostTensor::zeros(Elem::F16, {48, 64});
  req.sizes["Nk"] = 100;
  std::vector<HostTensor> storage;
  LaunchArgs args;
  ASSERT_EQ(bindLaunch(k, req, storage, args), "");
  EXPECT_EQ(args.sizes, (std::vector<int64_t>{48, 100}));
  EXPECT_EQ(args.grid[0], 3);
  EXPECT_EQ(args.grid[1], 1);
  ASSERT_EQ(args.tensors.size(), 4u);
  EXPECT_EQ(args.tensors[1]->shape, (std::vector<int64_t>{100, 64}));
  EXPECT_EQ(args.tensors[0]->get(5), 0.0); // the given input, not random
  ASSERT_EQ(args.scalars.size(), 1u);
  EXPECT_EQ(args.scalars[0], 0.125); // 1 / sqrt(D)
}

TEST(BindLaunch, GridRoundsUp) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.sizes = {{"Nq", 32}, {"Nk", 7}};
  k.grid[0].divisor = 24;
  std::vector<HostTensor> storage;
  LaunchArgs args;
  ASSERT_EQ(bindLaunch(k, req, storage, args), "");
  EXPECT_EQ(args.grid[0], 2);
}

TEST(BindLaunch, RandomInputsAreUniformSeededAndOutputsPoisoned) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.sizes = {{"Nq", 64}, {"Nk", 64}};
  req.seed = 7;
  std::vector<HostTensor> s1, s2, s3;
  LaunchArgs a1, a2, a3;
  ASSERT_EQ(bindLaunch(k, req, s1, a1), "");
  ASSERT_EQ(bindLaunch(k, req, s2, a2), "");
  req.seed = 8;
  ASSERT_EQ(bindLaunch(k, req, s3, a3), "");
  EXPECT_EQ(s1[0].bytes, s2[0].bytes);
  EXPECT_NE(s1[0].bytes, s3[0].bytes);
  EXPECT_NE(s1[0].bytes, s1[1].bytes); // each tensor its own stream
  double lo = 1, hi = -1, sum = 0;
  int zeros = 0;
  int64_t n = s1[1].numElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = s1[1].get(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    zeros += v == 0;
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0); // f16 rounding may reach 1.0 from just below
  EXPECT_LT(lo, -0.95);
  EXPECT_GT(hi, 0.95);
  EXPECT_LT(std::fabs(sum / n), 0.05);
  EXPECT_LT(zeros, 10);
  for (int64_t i = 0; i < s1[3].numElements(); ++i)
    ASSERT_TRUE(std::isnan(s1[3].get(i)));
}

TEST(BindLaunch, RandomInt32InputsAreSmallNonNegativeIntegers) {
  Kernel k;
  k.name = "lens";
  k.tensors = {tensorParam("Lens", Elem::I32, {256}, {"256"}, true, false),
               tensorParam("Out", Elem::I32, {4}, {"4"}, false, true)};
  std::vector<HostTensor> storage;
  LaunchArgs args;
  ASSERT_EQ(bindLaunch(k, LaunchRequest{}, storage, args), "");
  std::vector<int> seen(8, 0);
  for (int64_t i = 0; i < 256; ++i) {
    double v = storage[0].get(i);
    ASSERT_EQ(v, std::floor(v));
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 8);
    seen[static_cast<int>(v)]++;
  }
  for (int c : seen)
    EXPECT_GT(c, 0);
  EXPECT_EQ(storage[1].get(0), static_cast<double>(INT32_MIN)); // poisoned output
}

TEST(BindLaunch, DisagreeingTensorsAreNamed) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.inputs["K"] = HostTensor::zeros(Elem::F16, {100, 64});
  req.inputs["V"] = HostTensor::zeros(Elem::F16, {120, 64});
  req.sizes["Nq"] = 16;
  std::vector<HostTensor> storage;
  LaunchArgs args;
  EXPECT_EQ(bindLaunch(k, req, storage, args),
            "size `Nk` is 100 from `K` (dimension 0) but 120 from `V` (dimension 0)");
}

TEST(BindLaunch, SizeFlagDisagreeingWithAnInput) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.inputs["Q"] = HostTensor::zeros(Elem::F16, {32, 64});
  req.sizes = {{"Nq", 48}, {"Nk", 8}};
  std::vector<HostTensor> storage;
  LaunchArgs args;
  EXPECT_EQ(bindLaunch(k, req, storage, args),
            "size `Nq` is 48 from `--size Nq=48` but 32 from `Q` (dimension 0)");
}

TEST(BindLaunch, AlignedViolation) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.sizes = {{"Nq", 40}, {"Nk", 8}};
  std::vector<HostTensor> storage;
  LaunchArgs args;
  EXPECT_EQ(bindLaunch(k, req, storage, args),
            "size `Nq` = 40 (from `--size Nq=40`) breaks `@aligned(Nq = 16)`: it is not a multiple of 16");
}

TEST(BindLaunch, AutotuneConstantMismatch) {
  Kernel k = attnLike();
  LaunchRequest req;
  req.inputs["Q"] = HostTensor::zeros(Elem::F16, {32, 128});
  req.sizes["Nk"] = 8;
  std::vector<HostTensor> storage;
  LaunchArgs args;
  std::string err = bindLaunch(k, req, storage, args);
  EXPECT_NE(err.find("input `Q` has extent 128 along dimension 1"), std::string::npos) << err;
  EXPECT_NE(err.find("the `@autotune` constant `D`"), std::string::npos) << err;

  LaunchRequest req2;
  req2.sizes = {{"Nq", 32}, {"Nk", 8}, {"D", 128}};
  err = bindLaunch(k, req2, storage, args);
  EXPECT_NE(err.find("`--size D=128` disagrees with the `@autotune` constant `D` = 64"), std::string::npos)
      << err;
}

TEST(BindLaunch, MissingSizeAndUnknownNames) {
  Kernel k = attnLike();
  std::vector<HostTensor> storage;
  LaunchArgs args;
  LaunchRequest req;
  req.sizes["Nq"] = 16;
  EXPECT_EQ(bindLaunch(k, req, storage, args),
            "size `Nk` is not bound: give `--size Nk=...` or an input for `K`, `V`");
  req.sizes["Nk"] = 16;
  req.sizes["Nz"] = 1;
  EXPECT_EQ(bindLaunch(k, req, storage, args), "kernel `attn` has no size `Nz` (its sizes: `Nq`, `Nk`)");
  req.sizes.erase("Nz");
  req.inputs["X"] = HostTensor::zeros(Elem::F16, {1});
  EXPECT_EQ(bindLaunch(k, req, storage, args),
            "kernel `attn` has no tensor parameter `X` (its tensors: `Q`, `K`, `V`, `O`)");
  req.inputs.clear();
  req.scalars["sacle"] = 1;
  EXPECT_EQ(bindLaunch(k, req, storage, args), "kernel `attn` has no scalar parameter `sacle` (its scalars: `scale`)");
  req.scalars.clear();
  req.inputs["Q"] = HostTensor::zeros(Elem::F32, {16, 64});
  EXPECT_EQ(bindLaunch(k, req, storage, args),
            "input `Q` has element type f32, but the parameter is `Q: tensor<f16>[Nq, D]`");
}

TEST(CompareOutputs, RelativeErrorToleranceAndNaN) {
  EXPECT_EQ(checkTolerance(Elem::F32), 1e-4);
  EXPECT_EQ(checkTolerance(Elem::F16), 3e-3);
  EXPECT_EQ(checkTolerance(Elem::BF16), 1e-2);
  EXPECT_EQ(checkTolerance(Elem::I32), 0);
  HostTensor ref = HostTensor::zeros(Elem::F32, {4}), out = HostTensor::zeros(Elem::F32, {4});
  for (int i = 0; i < 4; ++i) {
    ref.set(i, 1.0); // ||ref|| = 2
    out.set(i, 1.0);
  }
  OutputComparison same = compareOutputs(out, ref);
  EXPECT_TRUE(same.passed);
  EXPECT_EQ(same.relErr, 0);
  out.set(2, 1.0 + 0x1p-10); // ||diff|| / ||ref|| = 2^-11 ~ 4.9e-4: over f32's tolerance
  OutputComparison off = compareOutputs(out, ref);
  EXPECT_FALSE(off.passed);
  EXPECT_EQ(off.maxAbs, 0x1p-10);
  EXPECT_EQ(off.relErr, 0x1p-11);
  EXPECT_EQ(off.worst, 2); // the element, for the message
  EXPECT_EQ(off.tolerance, 1e-4);
  EXPECT_EQ(comparisonSummary(off), "rel L2 error 0.000488 (tolerance 0.0001), max abs error 0.000977 at element 2");
  // The same difference passes at f16's tolerance.
  HostTensor ref16 = HostTensor::zeros(Elem::F16, {4}), out16 = HostTensor::zeros(Elem::F16, {4});
  for (int i = 0; i < 4; ++i) {
    ref16.set(i, 1.0);
    out16.set(i, i == 2 ? 1.0 + 0x1p-10 : 1.0);
  }
  EXPECT_TRUE(compareOutputs(out16, ref16).passed);
  // An element left unwritten (still NaN) fails however small the error elsewhere.
  out = ref;
  out.set(1, NAN);
  OutputComparison nan = compareOutputs(out, ref);
  EXPECT_FALSE(nan.passed);
  EXPECT_EQ(nan.nanCount, 1);
  // Shapes that differ never pass.
  EXPECT_FALSE(compareOutputs(HostTensor::zeros(Elem::F32, {2}), HostTensor::zeros(Elem::F32, {3})).passed);
}

TEST(DefaultScalar, ScaleIsOneOverSqrtD) {
  Kernel k = attnLike();
  EXPECT_EQ(defaultScalar(k, "scale"), 0.125);
  EXPECT_EQ(defaultScalar(k, "alpha"), 1.0);
  Kernel k2;
  k2.sizes = {SizeSym{"D", 1}};
  EXPECT_EQ(defaultScalar(k2, "scale", {16}), 0.25);
  EXPECT_EQ(defaultScalar(k2, "scale"), 1.0);
}

} // namespace
