//===- LayoutRewrite.cpp - tilegpu-assign-layouts: types, fused dots, conversions ---===//
//
// Once every value has a layout, the kernel is rewritten in place: types take
// their layouts, `acc + dot(a, b)` becomes one `tilegpu.dot` (the tensor cores
// add into their accumulator), and a `tilegpu.convert_layout` goes wherever an
// operand's layout is not the one its user needs, made once where the value is
// made so that users share it and later passes find it beside its load.
//
//===----------------------------------------------------------------------===//
#include "Assigner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace ph::tilegpu::assign {

Value Assigner::convertTo(Value v, Attribute want, OpBuilder &b) {
  if (layoutOf(v.getType()) == want) return v;
  auto key = std::make_pair(v, want);
  if (auto it = converted_.find(key); it != converted_.end()) return it->second;
  // Converted once, where the value is made: a loop-invariant operand (attention's q)
  // is converted outside the loop, a load's conversion sits beside the load (where
  // tilegpu-pipeline finds it), and two users share one conversion.
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = v.getDefiningOp()) b.setInsertionPointAfter(def);
  else b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  Value out = convertAt(v, want, b);
  converted_[key] = out;
  return out;
}

Value Assigner::convertAt(Value v, Attribute want, OpBuilder &b) {
  // A splat constant is remade in the wanted layout rather than converted; so is a splat of a
  // scalar (one zero tile that starts a loop's carried sum and fills a `where`: the two may
  // want different layouts, and going through shared memory for a constant costs a barrier).
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue())) {
      auto t = withLayout(v.getType(), want);
      return arith::ConstantOp::create(b, c.getLoc(), t, SplatElementsAttr::get(t, dense.getSplatValue<Attribute>()));
    }
  if (auto sp = v.getDefiningOp<tile::SplatOp>())
    return tile::SplatOp::create(b, sp.getLoc(), withLayout(v.getType(), want), sp.getValue());
  return ConvertLayoutOp::create(b, v.getLoc(), withLayout(v.getType(), want), v);
}

void Assigner::rewrite() {
  // Types first (values keep their uses), constants re-typed with them.
  for (auto &[v, a] : layout_) v.setType(withLayout(v.getType(), a));
  f_.walk([&](arith::ConstantOp c) {
    auto t = dyn_cast<RankedTensorType>(c.getType());
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (t && dense && dense.getType() != t) c.setValueAttr(dense.reshape(t));
  });
  OpBuilder b(ctx_);
  // An anchor after a loop (a row reduction of its result) may have placed a result in
  // another layout than the body carries (a dot's): the loop returns what it carries and
  // the result is converted after it (differential seeds 300837, 301271, 301279).
  f_.walk([&](scf::ForOp loop) {
    for (unsigned i = 0; i < loop.getNumResults(); ++i) {
      Value r = loop.getResult(i);
      Type carried = loop.getRegionIterArgs()[i].getType();
      if (r.getType() == carried) continue;
      Attribute want = layoutOf(r.getType());
      r.setType(carried);
      b.setInsertionPointAfter(loop);
      Value c = convertAt(r, want, b);
      r.replaceAllUsesExcept(c, c.getDefiningOp());
      converted_[std::make_pair(r, want)] = c;
    }
  });
  SmallVector<tile::DotOp> dots;
  f_.walk([&](tile::DotOp d) { dots.push_back(d); });
  for (tile::DotOp d : dots) {
    b.setInsertionPoint(d);
    {
      Attribute res = layoutOf(d.getResult().getType());
      Attribute la = mma_ ? Attribute(DotOperandEncodingAttr::get(ctx_, 0, res, 2, false)) : res;
      Attribute lb = mma_ ? Attribute(DotOperandEncodingAttr::get(ctx_, 1, res, 2, d.getTransB())) : res;
      Value a = convertTo(d.getA(), la, b), bv = convertTo(d.getB(), lb, b);
      // acc + dot(a, b) as one op: the tensor cores add into their accumulator.
      arith::AddFOp add;
      if (d.getResult().hasOneUse()) add = dyn_cast<arith::AddFOp>(*d.getResult().getUsers().begin());
      if (add && layoutOf(add.getType()) == res) {
        Value acc = add.getLhs() == d.getResult() ? add.getRhs() : add.getLhs();
        b.setInsertionPoint(add);
        // The accumulator may have been placed by another anchor (a loop's carried value
        // that a reduction also reads): the dot accumulates in its own layout.
        acc = convertTo(acc, res, b);
        b.setInsertionPoint(add);
        auto fused = DotOp::create(b, d.getLoc(), add.getType(), a, bv, acc, d.getTransB());
        add.getResult().replaceAllUsesWith(fused.getResult());
        add.erase();
      } else {
        auto t = cast<RankedTensorType>(d.getResult().getType());
        Value zero = arith::ConstantOp::create(b, d.getLoc(), t,
                                               SplatElementsAttr::get(t, b.getZeroAttr(t.getElementType())));
        auto fused = DotOp::create(b, d.getLoc(), t, a, bv, zero, d.getTransB());
        d.getResult().replaceAllUsesWith(fused.getResult());
      }
      d.erase();
    }
  }
  SmallVector<Operation *> ops;
  f_.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    if (sharesLayout(op)) {
      Attribute want = layoutOf(op->getResult(0).getType());
      for (OpOperand &o : op->getOpOperands())
        if (isa<RankedTensorType>(o.get().getType())) o.set(convertTo(o.get(), want, b));
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
        Attribute want = layoutOf(loop.getRegionIterArgs()[i].getType());
        if (!want) continue;
        OpOperand &init = loop.getInitArgsMutable()[i];
        init.set(convertTo(init.get(), want, b));
      }
      continue;
    }
    if (auto y = dyn_cast<scf::YieldOp>(op)) {
      if (auto loop = dyn_cast<scf::ForOp>(y->getParentOp()))
        for (unsigned i = 0; i < y.getNumOperands(); ++i) {
          Attribute want = layoutOf(loop.getRegionIterArgs()[i].getType());
          if (want) y->setOperand(i, convertTo(y.getOperand(i), want, b));
        }
      if (auto ifOp = dyn_cast<scf::IfOp>(y->getParentOp()))
        for (unsigned i = 0; i < y.getNumOperands(); ++i) {
          Attribute want = layoutOf(ifOp.getResult(i).getType());
          if (want) y->setOperand(i, convertTo(y.getOperand(i), want, b));
        }
    }
  }
}

} // namespace ph::tilegpu::assign
