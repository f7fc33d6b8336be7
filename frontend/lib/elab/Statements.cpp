//===- Statements.cpp - let, var, assignment, stores and for -----------------===//
//
// Each statement becomes kir statements; assignments check shape and
// narrowing once (assignVar, storeSlice).
//
//===----------------------------------------------------------------------===//
#include "Elaborator.h"

namespace ph::check::elab {

void Elaborator::stmts(const std::vector<StmtPtr> &body, std::vector<kir::StmtPtr> &out) {
  for (auto &s : body) stmt(*s, out);
}

void Elaborator::stmt(const Stmt &s, std::vector<kir::StmtPtr> &out) {
  auto saved = out_;
  out_ = &out;
  switch (s.kind) {
  case StmtKind::Error: break;
  case StmtKind::Let: letStmt(s, out); break;
  case StmtKind::Assign: assignStmt(s, out); break;
  case StmtKind::For: forStmt(s, out); break;
  case StmtKind::Block: stmts(s.body, out); break;
  case StmtKind::If: ifStmt(s, out); break;
  case StmtKind::ExprStmt: {
    const Expr &e = *s.value;
    if (e.kind != ExprKind::Call) {
      if (e.kind != ExprKind::Error) report(DiagKind::UselessExpression, e.range, {});
      break;
    }
    const std::string &n = e.name.name;
    if (const ast::Decl *const *f = st_.functions.find(n)) {
      inlineCall(e, **f, out);
    } else if (findBuiltinFunction(n)) {
      report(DiagKind::UselessExpression, e.range, {});
    }
    break;
  }
  }
  out_ = saved;
}

uint32_t Elaborator::newVar(const std::string &name, const Type &t, bool isLet, SourceRange loc, uint32_t sym) {
  kir::Var v;
  v.name = name;
  v.type = ktype(t);
  v.isLet = isLet;
  v.loc = loc;
  k_->vars.push_back(std::move(v));
  varTypes_.push_back(t);
  varFromDot_.push_back(false);
  varSymbol_.push_back(sym);
  return static_cast<uint32_t>(k_->vars.size() - 1);
}

Type Elaborator::declaredType(const TypeExpr &t) {
  Elem elem;
  if (!t.elem.valid() || !parseElem(t.elem.name, elem)) return Type::error();
  if (isFp8(elem) && t.kind != TypeExpr::Kind::Tensor) {
    Diagnostic &d = report(DiagKind::Fp8StorageOnly, t.elem.range,
                           {t.elem.name, t.kind == TypeExpr::Kind::Tile ? "tiles" : "scalars"});
    d.fixes.push_back({"use `f32`", {{t.elem.range, "f32"}}});
    return Type::error();
  }
  if (t.kind == TypeExpr::Kind::Scalar) return Type::scalar(elem);
  if (t.kind == TypeExpr::Kind::Tensor) {
    report(DiagKind::TypeMismatch, t.range, {"a `tile<T>[...]` or scalar type for a local", text(t.range)});
    return Type::error();
  }
  if (t.kind != TypeExpr::Kind::Tile) return Type::error();
  std::vector<Dim> dims;
  const Frame &f = frame();
  bool ok = true;
  for (auto &d : t.dims) {
    // Inside a fn, a tile type may name only the function's parameters and literals.
    if (!f.decl->isKernel) {
      std::function<bool(const Expr &)> onlyParams = [&](const Expr &x) -> bool {
        if (x.kind == ExprKind::Name) {
          uint32_t xs = st_.symbolOf(&x);
          if (xs == UINT32_MAX) return false;
          if (st_.symbol(xs).kind != SymbolKind::Parameter) {
            report(DiagKind::FnTileTypeName, x.range, {x.name.name, f.decl->name.name});
            return false;
          }
          return true;
        }
        for (auto &o : x.operands)
          if (!onlyParams(*o)) return false;
        return true;
      };
      if (!onlyParams(*d)) {
        ok = false;
        continue;
      }
    }
    auto v = constInt(*d, "a tile extent");
    if (!v) {
      ok = false;
      continue;
    }
    if (*v <= 0) {
      report(DiagKind::BadExtent, d->range, {"a tile", std::to_string(*v)});
      ok = false;
      continue;
    }
    dims.push_back(Dim{text(d->range), *v});
  }
  if (!ok) return Type::error();
  return Type::tile(elem, dims);
}

void Elaborator::letStmt(const Stmt &s, std::vector<kir::StmtPtr> &out) {
  const uint32_t *symIt = st_.stmtSymbol.find(&s);
  uint32_t sym = symIt ? *symIt : UINT32_MAX;
  Type declared = s.type ? declaredType(*s.type) : Type::error();
  bool hasDeclared = s.type && !declared.isError();
  Val v;
  if (s.value) {
    v = expr(*s.value, hasDeclared ? std::optional<Elem>(declared.elem) : std::nullopt);
  } else if (hasDeclared) {
    v = convert(intConst(0, s.range), declared.elem, s.range);
  }
  Binding b;
  b.isLet = !s.isVar;
  b.what = "`" + s.name.name + "`";
  if (s.type && declared.isError()) {
    b.kind = Binding::Kind::Error;
    if (sym != UINT32_MAX) frame().bindings[sym] = std::move(b);
    return;
  }
  if (v.isError() || v.type.kind == Type::Kind::Void) {
    if (v.type.kind == Type::Kind::Void && s.value)
      report(DiagKind::FnCallNotValue, s.value->range, {s.value->name.name});
    b.kind = Binding::Kind::Error;
    // With a declared type the variable stays usable, so later errors still show.
    if (hasDeclared) {
      b.kind = Binding::Kind::Var;
      b.var = newVar(s.name.name, declared, !s.isVar, s.name.range, sym);
      b.type = declared;
    }
    if (sym != UINT32_MAX) frame().bindings[sym] = std::move(b);
    return;
  }
  if (v.type.isTensor()) {
    report(DiagKind::TensorArithmetic, s.value->range, {text(s.value->range)});
    b.kind = Binding::Kind::Error;
    if (sym != UINT32_MAX) frame().bindings[sym] = std::move(b);
    return;
  }
  Type t = hasDeclared ? declared : v.type;
  if (!hasDeclared) {
    if (t.elem == Elem::IntLit) t.elem = Elem::I32;
    if (t.elem == Elem::FloatLit) t.elem = Elem::F32;
    // A score tile of 16-bit operands accumulates in 16 bits: almost never intended.
    if (v.isDot && (v.type.elem == Elem::F16 || v.type.elem == Elem::BF16)) {
      std::string dims;
      for (size_t i = 0; i < t.dims.size(); ++i) dims += (i ? ", " : "") + t.dims[i].sym;
      Diagnostic &d = report(DiagKind::LowPrecisionScores, s.value->range,
                             {s.value->name.name, elemName(v.type.elem), s.name.name, dims});
      d.fixes.push_back({"declare `" + s.name.name + ": tile<f32>[" + dims + "]`",
                         {{SourceRange{s.name.range.file, s.name.range.end, s.name.range.end},
                           ": tile<f32>[" + dims + "]"}}});
      // Note the fix changes the meaning (f32 accumulation), so it is not applied here.
    }
  }
  uint32_t var = newVar(s.name.name, t, !s.isVar, s.name.range, sym);
  b.kind = Binding::Kind::Var;
  b.var = var;
  b.type = t;
  if (sym != UINT32_MAX) frame().bindings[sym] = std::move(b);
  // Initialise through assignVar so that shape and narrowing are checked once.
  if (v.type.isScalar() && t.isTile()) {
    Val c = convert(v, t.elem, s.range);
    auto e = node(kir::ExprKind::Splat, t, s.value ? s.value->range : s.range);
    e->operands.push_back(c.expr);
    v.expr = e;
    v.type = t;
  }
  if (hasDeclared && v.type.isTile() && t.isTile() && !sameShape(v.type, t)) {
    report(DiagKind::AssignShapeMismatch, s.value->range, {v.type.symbolic() + " = " + v.type.concreteShape(),
                                                            s.name.name, t.symbolic() + " = " + t.concreteShape()});
    return;
  }
  if (hasDeclared && v.type.isTile() != t.isTile()) {
    report(DiagKind::AssignShapeMismatch, s.value->range, {v.type.symbolic(), s.name.name, t.symbolic()});
    return;
  }
  if (promote(v.type.elem, t.elem) != t.elem && v.type.elem != Elem::IntLit && v.type.elem != Elem::FloatLit) {
    report(DiagKind::ImplicitNarrowing, s.value->range, {v.type.symbolic(), s.name.name, t.symbolic()});
    return;
  }
  v = convert(std::move(v), t.elem, s.value ? s.value->range : s.range);
  varFromDot_[var] = v.fromDot;
  if (!s.isVar && t.isInteger()) letInts_[var] = v.ints;
  auto st = std::make_shared<KStmt>();
  st->kind = kir::StmtKind::Decl;
  st->loc = s.range;
  st->var = var;
  st->value = v.expr;
  emit(out, st);
}

bool Elaborator::sameShape(const Type &a, const Type &b) const {
  if (a.dims.size() != b.dims.size()) return false;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    const Dim &x = a.dims[i], &y = b.dims[i];
    if (x.isStatic() && y.isStatic()) {
      if (x.value != y.value) return false;
    } else if (x.sym != y.sym) {
      return false;
    }
  }
  return true;
}

void Elaborator::assignVar(uint32_t var, Val v, SourceRange valueRange, SourceRange targetRange,
                           std::vector<kir::StmtPtr> &out) {
  const Type &t = varTypes_[var];
  const std::string &name = k_->vars[var].name;
  if (v.isError() || t.isError()) return;
  if (v.type.kind == Type::Kind::Void) {
    report(DiagKind::FnCallNotValue, valueRange, {text(valueRange)});
    return;
  }
  if (v.type.isTensor()) {
    report(DiagKind::TensorArithmetic, valueRange, {text(valueRange)});
    return;
  }
  if (t.isScalar() && !v.type.isScalar()) {
    report(DiagKind::AssignShapeMismatch, valueRange, {v.type.symbolic(), name, t.symbolic()});
    return;
  }
  if (t.isTile() && v.type.isScalar()) {
    Val c = convert(v, t.elem, valueRange);
    auto e = node(kir::ExprKind::Splat, t, valueRange);
    e->operands.push_back(c.expr);
    v.expr = e;
    v.type = t;
  }
  if (t.isTile() && !sameShape(v.type, t)) {
    report(DiagKind::AssignShapeMismatch, valueRange,
           {v.type.symbolic() + " = " + v.type.concreteShape(), name, t.symbolic() + " = " + t.concreteShape()});
    return;
  }
  if (promote(v.type.elem, t.elem) != t.elem && v.type.elem != Elem::IntLit && v.type.elem != Elem::FloatLit) {
    report(DiagKind::ImplicitNarrowing, valueRange, {v.type.symbolic(), name, t.symbolic()});
    return;
  }
  v = convert(std::move(v), t.elem, valueRange);
  if (v.fromDot) varFromDot_[var] = true;
  auto st = std::make_shared<KStmt>();
  st->kind = kir::StmtKind::Assign;
  st->loc = SourceRange::join(targetRange, valueRange);
  st->var = var;
  st->value = v.expr;
  emit(out, st);
}

void Elaborator::storeSlice(const Binding &target, std::vector<kir::Slice> slices, std::vector<Dim> dims, Val v,
                            SourceRange valueRange, SourceRange targetRange, std::vector<kir::StmtPtr> &out) {
  if (v.isError()) return;
  if (v.type.kind == Type::Kind::Void) {
    report(DiagKind::FnCallNotValue, valueRange, {text(valueRange)});
    return;
  }
  if (v.type.isTensor()) {
    report(DiagKind::TensorArithmetic, valueRange, {text(valueRange)});
    return;
  }
  bool toTensor = target.kind == Binding::Kind::Tensor || target.kind == Binding::Kind::TensorSlice;
  if (toTensor && rejectBool(v, valueRange, "store")) return;
  Elem elem = toTensor ? k_->tensors[target.tensor].elem : varTypes_[target.var].elem;
  Type sliceType = Type::tile(elem, dims);
  if (dims.empty()) sliceType = Type::scalar(elem);
  if (v.type.isScalar() && !dims.empty()) {
    Val c = convert(v, elem, valueRange);
    auto e = node(kir::ExprKind::Splat, sliceType, valueRange);
    e->operands.push_back(c.expr);
    v.expr = e;
    v.type = sliceType;
  }
  if (!v.type.isScalar() && !sameShape(v.type, sliceType)) {
    report(toTensor ? DiagKind::StoreShapeMismatch : DiagKind::AssignShapeMismatch, valueRange,
           toTensor ? std::vector<std::string>{v.type.symbolic() + " = " + v.type.concreteShape(),
                                               text(targetRange) + ": " + sliceType.symbolic() + " = " +
                                                   sliceType.concreteShape()}
                    : std::vector<std::string>{v.type.symbolic() + " = " + v.type.concreteShape(), text(targetRange),
                                               sliceType.symbolic() + " = " + sliceType.concreteShape()});
    return;
  }
  if (!toTensor && promote(v.type.elem, elem) != elem && v.type.elem != Elem::IntLit &&
      v.type.elem != Elem::FloatLit) {
    report(DiagKind::ImplicitNarrowing, valueRange, {v.type.symbolic(), text(targetRange), sliceType.symbolic()});
    return;
  }
  // Narrowing is allowed (and rounds to nearest even) only when storing into a tensor.
  v = convert(std::move(v), elem, valueRange);
  auto st = std::make_shared<KStmt>();
  st->loc = SourceRange::join(targetRange, valueRange);
  st->value = v.expr;
  st->slices = std::move(slices);
  if (toTensor) {
    st->kind = kir::StmtKind::Store;
    st->tensor = static_cast<uint32_t>(target.tensor);
    k_->tensors[target.tensor].written = true;
  } else {
    st->kind = kir::StmtKind::AssignSlice;
    st->var = target.var;
    if (v.fromDot) varFromDot_[target.var] = true;
  }
  emit(out, st);
}

static kir::Op assignOpToKir(AssignOp op) {
  switch (op) {
  case AssignOp::Add: return kir::Op::Add;
  case AssignOp::Sub: return kir::Op::Sub;
  case AssignOp::Mul: return kir::Op::Mul;
  case AssignOp::Div: return kir::Op::Div;
  default: return kir::Op::None;
  }
}

void Elaborator::assignStmt(const Stmt &s, std::vector<kir::StmtPtr> &out) {
  const Expr &target = *s.target;
  const Expr *root = &target;
  while (root->kind == ExprKind::Index) root = root->operands[0].get();
  if (root->kind != ExprKind::Name) return; // reported by the resolver
  const Binding *b = bindingOf(*root);
  if (!b || b->kind == Binding::Kind::Error) {
    expr(*s.value);
    return;
  }
  // The destination's element type is the accumulator type of a dot on the right.
  std::optional<Elem> acc;
  if (b->kind == Binding::Kind::Var) acc = varTypes_[b->var].elem;
  else if (b->kind == Binding::Kind::TileSlice) acc = varTypes_[b->var].elem;
  else if (b->kind == Binding::Kind::Tensor || b->kind == Binding::Kind::TensorSlice) acc = Elem::F32;
  Val rhs = expr(*s.value, acc);
  if (rhs.isError()) return;
  auto combine = [&](Val current) -> Val {
    if (s.assignOp == AssignOp::Set) return rhs;
    const char *verb = s.assignOp == AssignOp::Add ? "add" : s.assignOp == AssignOp::Sub ? "subtract"
                       : s.assignOp == AssignOp::Mul ? "multiply" : "divide";
    return binary(target, assignOpToKir(s.assignOp), current, rhs, SourceRange::join(target.range, s.value->range),
                  verb);
  };
  uint32_t rootSym = st_.symbolOf(root);
  bool viaFnParam = rootSym != UINT32_MAX && st_.symbol(rootSym).kind == SymbolKind::Parameter &&
                    !frame().decl->isKernel;
  bool kernelParam = rootSym != UINT32_MAX && st_.symbol(rootSym).kind == SymbolKind::Parameter &&
                     frame().decl->isKernel;
  if (b->isLet && b->kind != Binding::Kind::TensorSlice && (viaFnParam || kernelParam)) {
    // Reached through a fn parameter bound to a `let` or a constant (the
    // resolver reports direct assignments to `let`s and constants).
    report(b->kind == Binding::Kind::Var ? DiagKind::AssignToLet : DiagKind::NotAssignable, target.range,
           {b->kind == Binding::Kind::Var ? k_->vars[b->var].name : b->what});
    return;
  }
  if (b->isLet && b->kind != Binding::Kind::TensorSlice && b->kind != Binding::Kind::Tensor) return;
  if (&target == root) {
    switch (b->kind) {
    case Binding::Kind::Var: assignVar(b->var, combine(readBinding(*b, target.range)), s.value->range, target.range, out); return;
    case Binding::Kind::TensorSlice:
    case Binding::Kind::TileSlice: {
      Binding copy = *b;
      storeSlice(copy, copy.slices, copy.type.dims, combine(readBinding(copy, target.range)), s.value->range,
                 target.range, out);
      return;
    }
    case Binding::Kind::Tensor:
      report(DiagKind::NotAssignable, target.range,
             {b->what + " as a whole; store a tile through a slice, e.g. `" + root->name.name + "[i :+ n, :] = t`"});
      return;
    default: report(DiagKind::NotAssignable, target.range, {b->what}); return;
    }
  }
  // Slice assignment: `x[...] = v` or `T[...] = v`.
  if (target.operands[0].get() != root) {
    report(DiagKind::NotAssignable, target.range, {"a slice of a slice; write one slice with every index"});
    return;
  }
  std::vector<kir::Slice> slices;
  std::vector<Dim> dims;
  Binding dest = *b;
  if (b->kind == Binding::Kind::Tensor || b->kind == Binding::Kind::TensorSlice) {
    if (!sliceTensor(b->tensor, b->kind == Binding::Kind::TensorSlice ? &b->slices : nullptr, target, slices, dims))
      return;
    dest.kind = Binding::Kind::Tensor;
  } else if (b->kind == Binding::Kind::Var && varTypes_[b->var].isTile()) {
    if (!sliceTile(varTypes_[b->var], target, slices, dims)) return;
    dest.kind = Binding::Kind::TileSlice;
  } else if (b->kind == Binding::Kind::TileSlice) {
    report(DiagKind::NotAssignable, target.range, {"a slice of a slice; write one slice with every index"});
    return;
  } else {
    report(DiagKind::NotAssignable, target.range, {b->what});
    return;
  }
  Val current;
  if (s.assignOp != AssignOp::Set) {
    Binding view = dest;
    view.kind = dest.kind == Binding::Kind::Tensor ? Binding::Kind::TensorSlice : Binding::Kind::TileSlice;
    view.slices = slices;
    Elem e = dest.kind == Binding::Kind::Tensor ? k_->tensors[dest.tensor].elem : varTypes_[dest.var].elem;
    view.type = Type::tile(e, dims);
    current = readBinding(view, target.range);
  }
  storeSlice(dest, slices, dims, combine(current), s.value->range, target.range, out);
}

void Elaborator::forStmt(const Stmt &s, std::vector<kir::StmtPtr> &out) {
  const Expr *r = s.value.get();
  if (!r || r->kind != ExprKind::Call || r->name.name != "range") {
    if (r && r->kind != ExprKind::Error) report(DiagKind::ForNeedsRange, r->range, {"`" + text(r->range) + "`"});
    return;
  }
  if (r->operands.size() < 2 || r->operands.size() > 3) return; // arity reported by the resolver
  Val lo = intExpr(*r->operands[0], "the start of `range`");
  Val hi = intExpr(*r->operands[1], "the end of `range`");
  Val step = r->operands.size() == 3 ? intExpr(*r->operands[2], "the step of `range`") : intConst(1, r->range);
  if (lo.isError() || hi.isError() || step.isError()) return;
  if (!step.ints.c || *step.ints.c <= 0) {
    report(DiagKind::ZeroStep, r->operands.size() == 3 ? r->operands[2]->range : r->range,
           {r->operands.size() == 3 ? text(r->operands[2]->range) : "1"});
    return;
  }
  const uint32_t *symIt = st_.stmtSymbol.find(&s);
  uint32_t sym = symIt ? *symIt : UINT32_MAX;
  uint32_t var = newVar(s.name.name, Type::scalar(Elem::I32), true, s.name.range, sym);
  LoopInfo li;
  li.loDiv = lo.ints.c ? (*lo.ints.c == 0 ? 0 : *lo.ints.c) : lo.ints.div;
  li.step = *step.ints.c;
  li.hiSize = hi.ints.extentSize;
  li.hiStatic = hi.ints.extentStatic >= 0 ? hi.ints.extentStatic : -1;
  li.hiLeSize = hi.ints.leSize;
  li.hiDiv = hi.ints.div;
  // A start below 0 would put the first block before the tensor (`range(k - 64, N, 64)`).
  li.loNonNeg = nonNegative(lo.ints);
  loops_[var] = li;
  Binding b;
  b.kind = Binding::Kind::Var;
  b.var = var;
  b.type = Type::scalar(Elem::I32);
  b.isLet = true;
  b.what = "the loop variable `" + s.name.name + "`";
  if (sym != UINT32_MAX) frame().bindings[sym] = std::move(b);
  auto st = std::make_shared<KStmt>();
  st->kind = kir::StmtKind::For;
  st->loc = s.range;
  st->var = var;
  st->lo = lo.expr;
  st->hi = hi.expr;
  st->step = step.expr;
  std::vector<kir::StmtPtr> body;
  stmts(s.body, body);
  st->body = std::move(body);
  emit(out, st);
}

/// `if c { } else { }`: `c` is one condition (a `bool` scalar: sizes, scalar
/// parameters, loop counters, block ids, scalar reads), so every thread of the
/// CTA takes the same branch. The branches are elaborated even when the
/// condition is wrong, so their errors show too.
void Elaborator::ifStmt(const Stmt &s, std::vector<kir::StmtPtr> &out) {
  Val c = s.value ? expr(*s.value) : errorVal();
  bool ok = !c.isError();
  if (ok && c.type.isTensor()) {
    report(DiagKind::TensorArithmetic, s.value->range, {k_->tensors[c.tensor].name});
    ok = false;
  } else if (ok && c.type.isTile()) {
    report(DiagKind::IfConditionTile, s.value->range, {text(s.value->range) + ": " + c.type.symbolic()});
    ok = false;
  } else if (ok && c.type.elem != Elem::Bool) {
    report(DiagKind::TypeMismatch, s.value->range,
           {"a condition (a comparison such as `n > 0`) for `if`",
            c.type.kind == Type::Kind::Void ? text(s.value->range) : text(s.value->range) + ": " + c.type.symbolic()});
    ok = false;
  }
  auto st = std::make_shared<KStmt>();
  st->kind = kir::StmtKind::If;
  st->loc = s.range;
  st->value = c.expr;
  std::vector<kir::StmtPtr> thenBody, elseBody;
  stmts(s.body, thenBody);
  stmts(s.elseBody, elseBody);
  st->body = std::move(thenBody);
  st->elseBody = std::move(elseBody);
  if (ok) emit(out, st);
}

} // namespace ph::check::elab
