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
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

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

/// Converts `v` (a scalar or a tensor) to `resultType` (same shape), by the rules above.
inline mlir::Value convertValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type resultType) {
  using namespace mlir;
  Type from = getElementTypeOrSelf(v.getType()), to = getElementTypeOrSelf(resultType);
  if (from == to) return v;
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
