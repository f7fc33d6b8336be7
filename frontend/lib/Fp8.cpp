//===- Fp8.cpp - The fp8 storage types' conversions (the reference) -------===//
#include "ph/Fp8.h"

#include <cmath>
#include <limits>

using namespace ph;

namespace {
struct Format {
  int expBits, mantBits, bias;
  bool hasInf;   // e5m2: S.11111.00 is ±inf; e4m3 (FN) has none
  uint8_t maxCode; // the largest finite value's bits, without the sign
};
Format formatOf(Elem e) {
  return e == Elem::F8E5M2 ? Format{5, 2, 15, true, 0x7B} : Format{4, 3, 7, false, 0x7E};
}
} // namespace

double fp8::maxFinite(Elem e) { return toFloat(formatOf(e).maxCode, e); }

float fp8::toFloat(uint8_t b, Elem e) {
  Format f = formatOf(e);
  bool neg = b & 0x80;
  unsigned ex = (b >> f.mantBits) & ((1u << f.expBits) - 1), mant = b & ((1u << f.mantBits) - 1);
  unsigned expMax = (1u << f.expBits) - 1;
  double r;
  if (f.hasInf && ex == expMax)
    r = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!f.hasInf && ex == expMax && mant == (1u << f.mantBits) - 1)
    r = std::numeric_limits<double>::quiet_NaN();
  else if (ex == 0)
    r = std::ldexp(static_cast<double>(mant), 1 - f.bias - f.mantBits);
  else
    r = std::ldexp(static_cast<double>(mant | (1u << f.mantBits)), static_cast<int>(ex) - f.bias - f.mantBits);
  return static_cast<float>(neg ? -r : r);
}

uint8_t fp8::fromFloat(float x, Elem e) {
  Format f = formatOf(e);
  if (std::isnan(x))
    return 0x7F;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(static_cast<double>(x));
  if (a >= maxFinite(e)) // saturating, ±inf included
    return sign | f.maxCode;
  const int minExp = 1 - f.bias;
  int ex = a == 0 ? minExp : std::max(std::ilogb(a), minExp);
  double quantum = std::ldexp(1.0, ex - f.mantBits);
  double r = std::nearbyint(a / quantum) * quantum; // FE_TONEAREST: ties to even
  if (r < std::ldexp(1.0, minExp)) // subnormal, or rounded to zero
    return sign | static_cast<uint8_t>(r / std::ldexp(1.0, minExp - f.mantBits));
  int re = std::ilogb(r);
  unsigned mant = static_cast<unsigned>(r / std::ldexp(1.0, re - f.mantBits)) - (1u << f.mantBits);
  return sign | static_cast<uint8_t>((static_cast<unsigned>(re + f.bias) << f.mantBits) | mant);
}

double fp8::round(double v, Elem e) { return toFloat(fromFloat(static_cast<float>(v), e), e); }
