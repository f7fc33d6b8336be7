//===- ConvertRules.h - tile.convert's element rules, for every lowering -*- C++ -*-===//
//
// One definition of what converting an element means (docs/language.md,
// "Conversions"), used by the CPU lowering (tensors) and both GPU lowerings
// (scalars), so the targets cannot disagree with each other or with the
// interpreter (ph::roundToElem):
//   - float widening is exact; narrowing rounds to nearest even;
//   - f16 <-> bf16 goes through f32 (exact widening, then one rounding): arith
//     has no cast between two float types of one width;
//   - float -> i32 truncates toward zero and saturates: values >= 2^31 give
//     2147483647, values < -2^31 give -2147483648, NaN gives 0 (arith.fptosi
//     alone is poison there: x86 gave INT_MIN, PTX saturates);
//   - i32 -> float rounds to nearest even, once, from the integer; integer widths
//     sign-extend or truncate. i32 -> bf16 goes through f32 rounded to odd (two
//     roundings to nearest, through f32, are wrong when the first lands on a bf16
//     tie: 2^24 + 2^16 + 1 gave 2^24, not 2^24 + 2^17); f32's 24 bits are more than
//     bf16's 8 + 2, so rounding to odd and then to nearest is one rounding.
//   - f8E4M3FN and f8E5M2 (Ph's f8e4m3, f8e5m2: tensors only) go through f32, in
//     integer arithmetic on the bits (no target has to know fp8, the CPU and sm_80
//     have no instructions for it, and one rule cannot differ between targets):
//     widening is exact; narrowing rounds to nearest even and saturates to the
//     largest finite value (±inf too); NaN gives 0x7F. ph/Fp8.h is the reference
//     the interpreter uses, docs/language.md "fp8" the rule.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <optional>

namespace ph::conv {

/// `like`'s shape (a ranked tensor, or a scalar) with element type `elem`.
inline mlir::Type withElem(mlir::Type like, mlir::Type elem) {
  if (auto rt = mlir::dyn_cast<mlir::RankedTensorType>(like)) return mlir::RankedTensorType::get(rt.getShape(), elem);
  return elem;
}

/// A constant of type `t` (a scalar or a tensor splat) from a typed scalar attribute.
inline mlir::Value splatConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t, mlir::TypedAttr scalar) {
  if (auto rt = mlir::dyn_cast<mlir::RankedTensorType>(t))
    return mlir::arith::ConstantOp::create(b, loc, mlir::DenseElementsAttr::get(rt, mlir::Attribute(scalar)));
  return mlir::arith::ConstantOp::create(b, loc, scalar);
}

/// An i32 `v` (scalar or tensor) as f32 rounded to odd: the value truncated toward zero,
/// its last bit set when that was inexact. sitofp rounds to nearest; the difference of
/// the integer and that value converted back (exact in i64: |f| <= 2^31) says which way.
inline mlir::Value intToF32RoundedToOdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v) {
  using namespace mlir;
  Type f32T = withElem(v.getType(), b.getF32Type()), i32T = withElem(v.getType(), b.getI32Type()),
       i64T = withElem(v.getType(), b.getI64Type());
  auto ic = [&](Type t, int64_t i) {
    return splatConstant(b, loc, t, b.getIntegerAttr(getElementTypeOrSelf(t), i));
  };
  Value f = arith::SIToFPOp::create(b, loc, f32T, v);
  Value diff = arith::SubIOp::create(b, loc, arith::ExtSIOp::create(b, loc, i64T, v),
                                     arith::FPToSIOp::create(b, loc, i64T, f)); // integer - f
  Value inexact = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, diff, ic(i64T, 0));
  // |integer| > |f|: f was rounded toward zero, so it is the truncation; else the
  // truncation is the next value toward zero (one less in the magnitude's bits).
  Value vNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, ic(v.getType(), 0));
  Value above = arith::SelectOp::create(b, loc, vNeg,
                                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, diff, ic(i64T, 0)),
                                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, diff, ic(i64T, 0)));
  Value bits = arith::BitcastOp::create(b, loc, i32T, f);
  Value trunc = arith::SelectOp::create(b, loc, above, bits, arith::SubIOp::create(b, loc, bits, ic(i32T, 1)));
  Value odd = arith::OrIOp::create(b, loc, trunc, ic(i32T, 1));
  return arith::BitcastOp::create(b, loc, f32T, arith::SelectOp::create(b, loc, inexact, odd, bits));
}

/// The fp8 formats' parameters (f8E4M3FN: bias 7, 3 fraction bits, no infinity;
/// f8E5M2: bias 15, 2 fraction bits, IEEE-like).
struct Fp8Format {
  int bias, mant;
  bool hasInf;
  uint32_t maxCode;    // the largest finite value's bits, without the sign
  uint32_t maxF32Bits; // the same value (448, 57344) as f32 bits
};
inline std::optional<Fp8Format> fp8Format(mlir::Type t) {
  if (mlir::isa<mlir::Float8E4M3FNType>(t)) return Fp8Format{7, 3, false, 0x7E, 0x43E00000};
  if (mlir::isa<mlir::Float8E5M2Type>(t)) return Fp8Format{15, 2, true, 0x7B, 0x47600000};
  return std::nullopt;
}

/// An i32 constant of `v`'s shape.
inline mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, mlir::Type like, int64_t i) {
  mlir::Type t = withElem(like, b.getI32Type());
  return splatConstant(b, loc, t, b.getIntegerAttr(b.getI32Type(), i));
}

/// fp8 (scalar or tensor) -> f32, exactly: the bits rebiased, a subnormal through an
/// exact multiplication, e5m2's all-ones exponent as ±inf or NaN, e4m3's S.1111.111 NaN.
inline mlir::Value fp8ToF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, const Fp8Format &f) {
  using namespace mlir;
  Type like = v.getType(), i8T = withElem(like, b.getI8Type()), i32T = withElem(like, b.getI32Type()),
       f32T = withElem(like, b.getF32Type());
  auto c = [&](int64_t i) { return i32Const(b, loc, like, i); };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) { return arith::CmpIOp::create(b, loc, p, x, y); };
  // `v` is fp8, or already its bits as i8 (tile-fp8-to-bits, for the GPU lowerings).
  Value bits8 = getElementTypeOrSelf(v.getType()).isInteger(8) ? v : arith::BitcastOp::create(b, loc, i8T, v).getResult();
  Value u = arith::ExtUIOp::create(b, loc, i32T, bits8);
  Value sign = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, u, c(0x80)), c(24));
  int expMask = f.hasInf ? 0x1F : 0xF, mantMask = (1 << f.mant) - 1;
  Value ex = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, u, c(f.mant)), c(expMask));
  Value mant = arith::AndIOp::create(b, loc, u, c(mantMask));
  Value normal = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, arith::AddIOp::create(b, loc, ex, c(127 - f.bias)), c(23)),
      arith::ShLIOp::create(b, loc, mant, c(23 - f.mant)));
  // A subnormal is mant * 2^(1 - bias - mant bits): exact in f32.
  Value scale = splatConstant(b, loc, f32T, b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias - f.mant)));
  Value sub = arith::BitcastOp::create(
      b, loc, i32T, arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32T, mant), scale));
  Value bits = arith::SelectOp::create(b, loc, cmp(arith::CmpIPredicate::eq, ex, c(0)), sub, normal);
  Value special = f.hasInf ? cmp(arith::CmpIPredicate::eq, ex, c(expMask))
                           : cmp(arith::CmpIPredicate::eq, arith::AndIOp::create(b, loc, u, c(0x7F)), c(0x7F));
  Value inf = f.hasInf ? arith::SelectOp::create(b, loc, cmp(arith::CmpIPredicate::eq, mant, c(0)), c(0x7F800000),
                                                 c(0x7FC00000))
                             .getResult()
                       : c(0x7FC00000);
  bits = arith::SelectOp::create(b, loc, special, inf, bits);
  return arith::BitcastOp::create(b, loc, f32T, arith::OrIOp::create(b, loc, bits, sign));
}

/// f32 (scalar or tensor) -> fp8 `to`: rounded to nearest, ties to even, on the bits;
/// saturating (|x| >= the largest finite value, ±inf included, gives it); NaN gives 0x7F.
/// `to` i8: the bits themselves (tile-fp8-to-bits).
inline mlir::Value f32ToFp8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to, const Fp8Format &f) {
  using namespace mlir;
  using P = arith::CmpIPredicate;
  Type like = v.getType(), i32T = withElem(like, b.getI32Type()), i8T = withElem(like, b.getI8Type());
  auto c = [&](int64_t i) { return i32Const(b, loc, like, i); };
  auto cmp = [&](P p, Value x, Value y) { return arith::CmpIOp::create(b, loc, p, x, y); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); };
  auto shr = [&](Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); };
  auto band = [&](Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); };
  Value u = arith::BitcastOp::create(b, loc, i32T, v);
  Value a = band(u, c(0x7FFFFFFF));
  Value sign8 = shr(band(u, c(static_cast<int64_t>(int32_t(0x80000000u)))), c(24));
  // Normal results: round the f32 bits at fraction bit 23 - mant, then rebias.
  int shift = 23 - f.mant;
  Value odd = band(shr(a, c(shift)), c(1));
  Value normal = arith::SubIOp::create(b, loc, shr(add(add(a, c((1 << (shift - 1)) - 1)), odd), c(shift)),
                                       c(int64_t(127 - f.bias) << f.mant));
  // Subnormal results (the f32 exponent E below the format's): the significand M
  // shifted right by s = 151 - bias - mant - E, rounded to nearest even; a carry
  // into the smallest normal gives its bits. s is at least 21; past 31 the result
  // is 0 anyway (M < 2^24), so s is clamped there (a shift by 32 is poison).
  Value e = shr(a, c(23));
  Value m = arith::OrIOp::create(b, loc, band(a, c(0x7FFFFF)), c(0x800000));
  Value s = arith::MinUIOp::create(b, loc, arith::SubIOp::create(b, loc, c(151 - f.bias - f.mant), e), c(31));
  Value one = c(1);
  Value half = arith::SubIOp::create(b, loc, arith::ShLIOp::create(b, loc, one, arith::SubIOp::create(b, loc, s, one)), one);
  Value sub = shr(add(add(m, half), band(shr(m, s), one)), s);
  Value code = arith::SelectOp::create(b, loc, cmp(P::uge, a, c(int64_t(128 - f.bias) << 23)), normal, sub);
  code = arith::SelectOp::create(b, loc, cmp(P::uge, a, c(f.maxF32Bits)), c(f.maxCode), code);
  code = arith::OrIOp::create(b, loc, code, sign8);
  code = arith::SelectOp::create(b, loc, cmp(P::ugt, a, c(0x7F800000)), c(0x7F), code);
  Value bits = arith::TruncIOp::create(b, loc, i8T, code);
  return to.isInteger(8) ? bits : arith::BitcastOp::create(b, loc, withElem(like, to), bits).getResult();
}

/// Converts `v` (a scalar or a tensor) to `resultType` (same shape), by the rules above.
inline mlir::Value convertValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type resultType) {
  using namespace mlir;
  Type from = getElementTypeOrSelf(v.getType()), to = getElementTypeOrSelf(resultType);
  if (from == to) return v;
  // fp8 on either side: through f32 (exact from and to f16/bf16 for fp8's values).
  if (std::optional<Fp8Format> f = fp8Format(from)) {
    Value wide = fp8ToF32(b, loc, v, *f);
    return convertValue(b, loc, wide, resultType);
  }
  if (std::optional<Fp8Format> f = fp8Format(to)) {
    Value wide = convertValue(b, loc, v, withElem(v.getType(), b.getF32Type()));
    return f32ToFp8(b, loc, wide, to, *f);
  }
  bool fromF = isa<FloatType>(from), toF = isa<FloatType>(to);
  if (fromF && toF) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw == tw) { // f16 <-> bf16
      Value wide = arith::ExtFOp::create(b, loc, withElem(v.getType(), b.getF32Type()), v);
      return arith::TruncFOp::create(b, loc, resultType, wide);
    }
    return fw < tw ? arith::ExtFOp::create(b, loc, resultType, v).getResult()
                   : arith::TruncFOp::create(b, loc, resultType, v).getResult();
  }
  if (!fromF && toF) {
    if (!to.isBF16() || !from.isInteger(32)) return arith::SIToFPOp::create(b, loc, resultType, v);
    return arith::TruncFOp::create(b, loc, resultType, intToF32RoundedToOdd(b, loc, v));
  }
  if (fromF && !toF) {
    // Decide in f32 at least (2^31 and -2^31 are exact there; f16 cannot hold them).
    Type wideElem = from.getIntOrFloatBitWidth() < 32 ? b.getF32Type() : from;
    Type wideT = withElem(v.getType(), wideElem);
    Value x = wideElem == from ? v : arith::ExtFOp::create(b, loc, wideT, v).getResult();
    auto fc = [&](double d) { return splatConstant(b, loc, wideT, b.getFloatAttr(wideElem, d)); };
    unsigned w = to.getIntOrFloatBitWidth();
    double lim = std::ldexp(1.0, static_cast<int>(w) - 1);
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, fc(lim));
    Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, fc(-lim));
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value out = arith::OrIOp::create(b, loc, arith::OrIOp::create(b, loc, big, small), nan);
    // Only in-range values reach fptosi, so it is never poison.
    Value safe = arith::SelectOp::create(b, loc, out, fc(0.0), x);
    Value r = arith::FPToSIOp::create(b, loc, resultType, safe);
    auto ic = [&](llvm::APInt i) { return splatConstant(b, loc, resultType, b.getIntegerAttr(to, i)); };
    r = arith::SelectOp::create(b, loc, big, ic(llvm::APInt::getSignedMaxValue(w)), r);
    return arith::SelectOp::create(b, loc, small, ic(llvm::APInt::getSignedMinValue(w)), r);
  }
  if (isa<IndexType>(from) || isa<IndexType>(to)) return arith::IndexCastOp::create(b, loc, resultType, v);
  return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
             ? arith::ExtSIOp::create(b, loc, resultType, v).getResult()
             : arith::TruncIOp::create(b, loc, resultType, v).getResult();
}

} // namespace ph::conv
