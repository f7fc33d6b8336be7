//===- Slices.cpp - Slices of tensors and tiles, and their masks -------------===//
//
// Slice rank and bounds, composition with an outer slice, whether a mask is
// needed along each dimension, and the grid candidates slices give.
//
//===----------------------------------------------------------------------===//
#include "Elaborator.h"

namespace ph::check::elab {

bool Elaborator::maskNeeded(const kir::TensorDim &dim, const Val &start, int64_t len, bool isIndex) {
  int64_t extent = dim.value;
  int64_t aligned = extent >= 0 ? extent : k_->sizes[dim.size].alignedTo;
  const IntFacts &f = start.ints;
  if (f.c) {
    if (extent >= 0) return !(*f.c >= 0 && *f.c + len <= extent);
    return !(*f.c >= 0 && aligned % len == 0 && (*f.c + len) <= aligned && *f.c % len == 0 && aligned > 0 &&
             false);
  }
  if (isIndex) {
    // ctx.block.a over a dimension the grid is inferred from stays inside it; under `@grid`, when
    // the axis's extent is at most the dimension's (`@grid(N / BR, H)` over an index into H).
    if (!(f.axis >= 0 && f.coef == 1 && f.offset == 0)) return true;
    return explicitGrid_ && !gridInside(f.axis, dim, 1);
  }
  bool blocksTile = aligned % len == 0;
  // `for c in range(lo, end, len)` with lo >= 0 a multiple of len: c + len <= the end when the end
  // is the extent aligned to len, or whole blocks of it, `extent(T, d) / k * k` with k a multiple
  // of len (cross_entropy.ph's loop over full blocks of columns).
  if (f.loopVar >= 0) {
    const LoopInfo &li = loops_[static_cast<uint32_t>(f.loopVar)];
    if (li.step == len && li.loNonNeg && li.loDiv % len == 0) {
      bool hiIsDim = extent >= 0 ? li.hiStatic == extent : li.hiSize == static_cast<int>(dim.size);
      if (hiIsDim && blocksTile) return false;
      if (extent < 0 && li.hiLeSize == static_cast<int>(dim.size) && li.hiDiv % len == 0) return false;
    }
  }
  if (!blocksTile) return true;
  // `ctx.block.a * len :+ len`: the grid inferred along a is ceil(N / len); one given by `@grid`
  // must be no larger (gridInside).
  if (f.axis >= 0 && f.coef == len && f.offset == 0) return explicitGrid_ && !gridInside(f.axis, dim, len);
  return true;
}

bool Elaborator::nonNegative(const IntFacts &f) const {
  if (f.c) return *f.c >= 0;
  if (f.extentSize >= 0 || f.leSize >= 0 || f.quotSize >= 0) return true;
  if (f.axis >= 0) return f.coef >= 0 && f.offset >= 0;
  if (f.loopVar >= 0)
    if (auto l = loops_.find(static_cast<uint32_t>(f.loopVar)); l != loops_.end()) return l->second.loNonNeg;
  return false;
}

bool Elaborator::sliceTensor(int tensor, const std::vector<kir::Slice> *outer, const Expr &e,
                             std::vector<kir::Slice> &slices, std::vector<Dim> &dims, bool view) {
  const kir::TensorParam &tp = k_->tensors[tensor];
  // Dimensions still open in the outer slice (a fn parameter bound to a slice).
  std::vector<size_t> open;
  if (outer) {
    for (size_t i = 0; i < outer->size(); ++i)
      if ((*outer)[i].kind != kir::Slice::Kind::Index) open.push_back(i);
  } else {
    for (size_t i = 0; i < tp.dims.size(); ++i) open.push_back(i);
  }
  if (e.slices.size() != open.size()) {
    report(DiagKind::SliceRank, e.bracketRange, {text(e.operands[0]->range), std::to_string(open.size()),
                                                 std::to_string(e.slices.size())});
    return false;
  }
  slices = outer ? *outer : std::vector<kir::Slice>(tp.dims.size());
  if (!outer)
    for (size_t i = 0; i < tp.dims.size(); ++i) {
      slices[i].kind = kir::Slice::Kind::Full;
      slices[i].len = tp.dims[i].value;
      slices[i].masked = false;
    }
  dims.clear();
  bool ok = true;
  for (size_t j = 0; j < e.slices.size(); ++j) {
    const SliceItem &it = e.slices[j];
    size_t d = open[j];
    kir::Slice &sl = slices[d];
    const kir::TensorDim &td = tp.dims[d];
    if (it.kind == SliceItem::Kind::Full) {
      if (sl.kind == kir::Slice::Kind::Full) {
        if (td.value < 0 && !view) {
          // A whole run-time dimension cannot be a tile extent.
          report(DiagKind::NotCompileTime, it.range, {"a tile extent (a `:` over a run-time size)", td.sym});
          ok = false;
        }
        dims.push_back(Dim{td.sym, td.value});
      } else {
        dims.push_back(Dim{std::to_string(sl.len), sl.len});
      }
      continue;
    }
    Val start = intExpr(*it.start, "a slice start");
    if (start.isError()) {
      ok = false;
      continue;
    }
    int64_t len = 1;
    std::string lenSym;
    if (!sliceLength(it, e, len, lenSym)) {
      ok = false;
      continue;
    }
    if (sl.kind != kir::Slice::Kind::Full) {
      // Composing with the outer slice: offsets add; stay masked unless proven inside.
      auto add = node(kir::ExprKind::Binary, Type::scalar(Elem::I32), it.range);
      add->op = kir::Op::Add;
      add->operands = {sl.start, start.expr};
      bool inside = start.ints.c && *start.ints.c >= 0 && *start.ints.c + len <= sl.len && !sl.masked;
      if (start.ints.c && (*start.ints.c < 0 || *start.ints.c + len > sl.len)) {
        report(DiagKind::SliceOutOfBounds, it.range, {text(it.range), std::to_string(d), text(e.operands[0]->range),
                                                      std::to_string(sl.len)});
        ok = false;
        continue;
      }
      sl.start = add;
      sl.masked = !inside;
    } else {
      sl.start = start.expr;
      sl.masked = maskNeeded(td, start, len, it.kind == SliceItem::Kind::Index);
      // Grid inference: `ctx.block.a * S + c :+ S` over N gives ceil(N / S).
      const IntFacts &f = start.ints;
      if (f.axis >= 0 && !f.mirror && ((it.kind == SliceItem::Kind::Range && f.coef == len) ||
                          (it.kind == SliceItem::Kind::Index && f.coef == 1))) {
        GridCandidate c;
        c.size = td.value < 0 ? static_cast<int>(td.size) : -1;
        c.extent = td.value;
        c.divisor = it.kind == SliceItem::Kind::Range ? len : 1;
        c.sym = td.sym;
        c.divSym = lenSym.empty() ? std::to_string(len) : lenSym;
        c.where = it.range;
        gridCands_[f.axis].push_back(c);
      }
    }
    if (it.kind == SliceItem::Kind::Range) {
      sl.kind = kir::Slice::Kind::Range;
      sl.len = len;
      dims.push_back(Dim{lenSym.empty() ? std::to_string(len) : lenSym, len});
    } else {
      sl.kind = kir::Slice::Kind::Index;
      sl.len = 1;
    }
  }
  return ok;
}

/// The length of a `start :+ len` item (1 for an index): a positive compile-time integer.
bool Elaborator::sliceLength(const SliceItem &it, const Expr &e, int64_t &len, std::string &lenSym) {
  len = 1;
  if (it.kind != SliceItem::Kind::Range) return true;
  auto l = constInt(*it.len, "a slice length", &lenSym);
  if (!l) return false;
  if (*l <= 0) {
    report(DiagKind::BadExtent, it.len->range, {"a slice of `" + text(e.operands[0]->range) + "`", std::to_string(*l)});
    return false;
  }
  len = *l;
  return true;
}

bool Elaborator::sliceTile(const Type &t, const Expr &e, std::vector<kir::Slice> &slices, std::vector<Dim> &dims) {
  if (e.slices.size() != t.rank()) {
    report(DiagKind::SliceRank, e.bracketRange, {text(e.operands[0]->range), std::to_string(t.rank()),
                                                 std::to_string(e.slices.size())});
    return false;
  }
  slices.assign(t.rank(), kir::Slice{});
  dims.clear();
  bool ok = true;
  for (size_t d = 0; d < t.rank(); ++d) {
    const SliceItem &it = e.slices[d];
    kir::Slice &sl = slices[d];
    sl.masked = false;
    if (it.kind == SliceItem::Kind::Full) {
      sl.kind = kir::Slice::Kind::Full;
      sl.len = t.dims[d].value;
      dims.push_back(t.dims[d]);
      continue;
    }
    auto start = constInt(*it.start, "a tile slice start");
    if (!start) {
      ok = false;
      continue;
    }
    int64_t len = 1;
    std::string lenSym;
    if (!sliceLength(it, e, len, lenSym)) {
      ok = false;
      continue;
    }
    if (*start < 0 || *start + len > t.dims[d].value) {
      report(DiagKind::SliceOutOfBounds, it.range, {text(it.range), std::to_string(d), text(e.operands[0]->range),
                                                    std::to_string(t.dims[d].value)});
      ok = false;
      continue;
    }
    sl.start = intConst(*start, it.range).expr;
    sl.len = len;
    if (it.kind == SliceItem::Kind::Range) {
      sl.kind = kir::Slice::Kind::Range;
      dims.push_back(Dim{lenSym, len});
    } else {
      sl.kind = kir::Slice::Kind::Index;
    }
  }
  return ok;
}

Val Elaborator::index(const Expr &e) {
  const Expr &base = *e.operands[0];
  const Binding *b = base.kind == ExprKind::Name ? bindingOf(base) : nullptr;
  if (!b) {
    Val v = expr(base);
    if (!v.isError())
      report(DiagKind::TypeMismatch, base.range, {"a tensor or a tile variable to slice", v.type.symbolic()});
    return errorVal();
  }
  recordExpr(base, b->kind == Binding::Kind::Var ? varTypes_[b->var] : b->type);
  std::vector<kir::Slice> slices;
  std::vector<Dim> dims;
  Binding view;
  if (b->kind == Binding::Kind::Tensor || b->kind == Binding::Kind::TensorSlice) {
    if (!sliceTensor(b->tensor, b->kind == Binding::Kind::TensorSlice ? &b->slices : nullptr, e, slices, dims))
      return errorVal();
    Elem el = k_->tensors[b->tensor].elem;
    view.kind = Binding::Kind::TensorSlice;
    view.tensor = b->tensor;
    view.type = dims.empty() ? Type::scalar(el) : Type::tile(el, dims);
  } else if (b->kind == Binding::Kind::Var && varTypes_[b->var].isTile()) {
    if (!sliceTile(varTypes_[b->var], e, slices, dims)) return errorVal();
    Elem el = varTypes_[b->var].elem;
    view.kind = Binding::Kind::TileSlice;
    view.var = b->var;
    view.type = dims.empty() ? Type::scalar(el) : Type::tile(el, dims);
  } else if (b->kind == Binding::Kind::Error) {
    return errorVal();
  } else {
    Type t = b->kind == Binding::Kind::Var ? varTypes_[b->var] : b->type;
    report(DiagKind::TypeMismatch, base.range, {"a tensor or a tile variable to slice", t.symbolic()});
    return errorVal();
  }
  view.slices = slices;
  return readBinding(view, e.range);
}


} // namespace ph::check::elab
