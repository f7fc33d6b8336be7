//===- Fp8Test.cpp - ph::fp8 against an independent reference -------------===//
//
// The reference here shares no code with frontend/lib/Fp8.cpp: a value is decoded
// from the OCP FP8 formula with std::pow, and a float is rounded by searching all
// 256 codes for the nearest finite value (ties to the even code), then saturated.
// docs/language.md, "fp8", is the rule.
//
//===----------------------------------------------------------------------===//
#include "ph/Fp8.h"
#include "ph/Launch.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace ph;

namespace {

struct Ref {
  Elem e;
  int expBits, mantBits, bias;
  bool ieee; // e5m2: all-ones exponent is inf/NaN; e4m3 (FN): only S.1111.111 is NaN

  double decode(unsigned b) const {
    unsigned s = b >> 7, ex = (b >> mantBits) & ((1u << expBits) - 1), m = b & ((1u << mantBits) - 1);
    unsigned top = (1u << expBits) - 1;
    double sign = s ? -1.0 : 1.0;
    if (ieee && ex == top) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    if (!ieee && ex == top && m == (1u << mantBits) - 1) return std::numeric_limits<double>::quiet_NaN();
    double frac = static_cast<double>(m) / std::pow(2.0, mantBits);
    if (ex == 0) return sign * std::pow(2.0, 1 - bias) * frac;
    return sign * std::pow(2.0, static_cast<int>(ex) - bias) * (1.0 + frac);
  }
  double maxFinite() const {
    double best = 0;
    for (unsigned b = 0; b < 128; ++b)
      if (std::isfinite(decode(b))) best = std::max(best, decode(b));
    return best;
  }
  /// Nearest finite code, ties to the even code; saturating; NaN -> 0x7F.
  unsigned encode(float x) const {
    if (std::isnan(x)) return 0x7F;
    unsigned sign = std::signbit(x) ? 0x80 : 0;
    double a = std::fabs(static_cast<double>(x));
    double mx = maxFinite();
    if (a >= mx) {
      for (unsigned b = 0; b < 128; ++b)
        if (decode(b) == mx) return sign | b;
    }
    unsigned best = 0;
    double bestD = INFINITY;
    for (unsigned b = 0; b < 128; ++b) {
      double v = decode(b);
      if (!std::isfinite(v)) continue;
      double d = std::fabs(v - a);
      if (d < bestD || (d == bestD && (b & 1) == 0)) {
        best = b;
        bestD = d;
      }
    }
    return sign | best;
  }
};

const Ref kE4M3{Elem::F8E4M3, 4, 3, 7, false};
const Ref kE5M2{Elem::F8E5M2, 5, 2, 15, true};

bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

class Fp8 : public ::testing::TestWithParam<Ref> {};

// Every one of the 256 codes widens to the reference's value (NaN to NaN, -0 to -0).
TEST_P(Fp8, EveryCodeWidensExactly) {
  const Ref &r = GetParam();
  int nans = 0;
  for (unsigned b = 0; b < 256; ++b) {
    double want = r.decode(b);
    float got = fp8::toFloat(static_cast<uint8_t>(b), r.e);
    EXPECT_TRUE(sameValue(got, want)) << elemName(r.e) << " code 0x" << std::hex << b << ": " << got << " vs " << want;
    nans += std::isnan(got);
  }
  EXPECT_EQ(nans, r.ieee ? 6 : 2); // e5m2: S.11111.{01,10,11}; e4m3: S.1111.111
}

// Every code's value narrows back to that code; e5m2's infinities and every NaN do not
// (they saturate, and NaN is 0x7F).
TEST_P(Fp8, EveryCodeNarrowsBack) {
  const Ref &r = GetParam();
  for (unsigned b = 0; b < 256; ++b) {
    float v = fp8::toFloat(static_cast<uint8_t>(b), r.e);
    unsigned got = fp8::fromFloat(v, r.e);
    if (std::isnan(v)) EXPECT_EQ(got, 0x7Fu);
    else if (std::isinf(v)) EXPECT_EQ(got, (b & 0x80) | (r.ieee ? 0x7Bu : 0x7Eu));
    else EXPECT_EQ(got, b) << elemName(r.e) << " code 0x" << std::hex << b;
    EXPECT_EQ(got, r.encode(v));
  }
}

// Halfway between two neighbours (every pair of consecutive finite codes, subnormals
// included) goes to the even code; one f32 step to either side goes to the nearer one.
TEST_P(Fp8, TiesToEvenAndNeighbours) {
  const Ref &r = GetParam();
  int ties = 0;
  for (unsigned b = 0; b + 1 < 128; ++b) {
    double lo = r.decode(b), hi = r.decode(b + 1);
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
    float mid = static_cast<float>((lo + hi) / 2); // exact in f32
    ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2);
    for (float s : {1.0f, -1.0f}) {
      unsigned sign = s < 0 ? 0x80 : 0;
      EXPECT_EQ(fp8::fromFloat(s * mid, r.e), sign | ((b & 1) ? b + 1 : b)) << elemName(r.e) << " tie at " << mid;
      EXPECT_EQ(fp8::fromFloat(s * std::nextafter(mid, 0.0f), r.e), sign | b);
      EXPECT_EQ(fp8::fromFloat(s * std::nextafter(mid, INFINITY), r.e), sign | (b + 1));
    }
    ++ties;
  }
  EXPECT_GT(ties, 100);
}

// Random f32 bit patterns (every exponent, NaNs and infinities among them) against
// the exhaustive reference.
TEST_P(Fp8, RandomFloatsMatchTheReference) {
  const Ref &r = GetParam();
  std::mt19937 rng(20261203);
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = rng();
    // Half of them in the format's range, where the rounding happens.
    if (i % 2) bits = (bits & 0x807FFFFFu) | ((110u + rng() % 40u) << 23);
    float x = std::bit_cast<float>(bits);
    ASSERT_EQ(fp8::fromFloat(x, r.e), r.encode(x)) << elemName(r.e) << " of " << x << " (0x" << std::hex << bits << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Fp8, ::testing::Values(kE4M3, kE5M2),
                         [](const auto &info) { return std::string(elemName(info.param.e)); });

// The rule's edges, written out (docs/language.md, "fp8").
TEST(Fp8Edges, SaturationNaNZerosSubnormals) {
  const Elem A = Elem::F8E4M3, B = Elem::F8E5M2;
  EXPECT_EQ(fp8::maxFinite(A), 448.0);
  EXPECT_EQ(fp8::maxFinite(B), 57344.0);
  EXPECT_EQ(fp8::fromFloat(448.0f, A), 0x7E);
  EXPECT_EQ(fp8::fromFloat(464.0f, A), 0x7E); // the tie past the end: saturates, no NaN
  EXPECT_EQ(fp8::fromFloat(1e6f, A), 0x7E);
  EXPECT_EQ(fp8::fromFloat(INFINITY, A), 0x7E);
  EXPECT_EQ(fp8::fromFloat(-INFINITY, A), 0xFE);
  EXPECT_EQ(fp8::fromFloat(NAN, A), 0x7F);
  EXPECT_EQ(fp8::fromFloat(-NAN, A), 0x7F);
  EXPECT_EQ(fp8::fromFloat(57344.0f, B), 0x7B);
  EXPECT_EQ(fp8::fromFloat(61440.0f, B), 0x7B); // f16 would round this to inf
  EXPECT_EQ(fp8::fromFloat(INFINITY, B), 0x7B);
  EXPECT_EQ(fp8::fromFloat(-INFINITY, B), 0xFB);
  EXPECT_EQ(fp8::fromFloat(NAN, B), 0x7F);
  EXPECT_TRUE(std::isinf(fp8::toFloat(0x7C, B)));
  EXPECT_TRUE(std::isnan(fp8::toFloat(0x7F, A)));
  EXPECT_EQ(fp8::toFloat(0x7E, A), 448.0f);
  EXPECT_EQ(fp8::fromFloat(-0.0f, A), 0x80);
  EXPECT_EQ(fp8::fromFloat(-1e-30f, A), 0x80); // underflow keeps the sign
  EXPECT_EQ(fp8::fromFloat(std::ldexp(1.0f, -9), A), 0x01);  // the smallest subnormal
  EXPECT_EQ(fp8::fromFloat(std::ldexp(1.0f, -10), A), 0x00); // half of it: the tie goes to 0
  EXPECT_EQ(fp8::fromFloat(std::ldexp(3.0f, -10), A), 0x02); // 1.5 units: to the even 2
  EXPECT_EQ(fp8::fromFloat(std::ldexp(1.0f, -6), A), 0x08);  // the smallest normal
  EXPECT_EQ(fp8::fromFloat(std::ldexp(15.5f, -10), A), 0x08); // rounds up into it
  EXPECT_EQ(fp8::fromFloat(std::ldexp(1.0f, -16), B), 0x01);
  EXPECT_EQ(fp8::fromFloat(std::ldexp(1.0f, -17), B), 0x00);
  EXPECT_EQ(fp8::fromFloat(1.0f, A), 0x38);
  EXPECT_EQ(fp8::fromFloat(1.0f, B), 0x3C);
}

// The interpreter's rounding and the host tensors use the same rule: a double is
// rounded to f32 first.
TEST(Fp8Edges, RoundToElemAndHostTensors) {
  EXPECT_EQ(roundToElem(0.3, Elem::F8E4M3), 0.3125);
  EXPECT_EQ(roundToElem(1000.0, Elem::F8E4M3), 448.0);
  EXPECT_EQ(roundToElem(-1e9, Elem::F8E5M2), -57344.0);
  HostTensor t = HostTensor::zeros(Elem::F8E5M2, {4});
  EXPECT_EQ(t.bytes.size(), 4u);
  t.set(0, 1.0);
  t.set(1, std::numeric_limits<double>::infinity());
  t.set(2, std::numeric_limits<double>::quiet_NaN());
  t.set(3, -0.75);
  EXPECT_EQ(t.bytes[0], 0x3C);
  EXPECT_EQ(t.bytes[1], 0x7B);
  EXPECT_EQ(t.bytes[2], 0x7F);
  EXPECT_EQ(t.get(3), -0.75);
}

} // namespace
