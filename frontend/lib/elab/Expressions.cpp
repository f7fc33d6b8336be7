//===- Expressions.cpp - Names, operators, conversions and integer facts -----===//
//
// Types and shapes of expressions, broadcasting, literal folding, and what
// is known of integer values at compile time (constants, divisors, affine
// forms in block ids) for masks and grid inference.
//
//===----------------------------------------------------------------------===//
#include "Elaborator.h"

#include <limits>

namespace ph::check::elab {

/// Converts a scalar or tile to element type `to` (literals are retyped).
Val Elaborator::convert(Val v, Elem to, SourceRange loc) {
  if (v.isError() || !v.expr) return v;
  Elem from = v.type.elem;
  if (from == to) return v;
  // A literal stored into an fp8 tensor is an f32 constant, converted by the fp8 rule
  // (no target has fp8 constants; docs/language.md, "fp8").
  if (isFp8(to) && (v.expr->kind == kir::ExprKind::FloatConst || v.expr->kind == kir::ExprKind::IntConst))
    v = convert(std::move(v), Elem::F32, loc);
  else if (v.expr->kind == kir::ExprKind::FloatConst || v.expr->kind == kir::ExprKind::IntConst) {
    if (v.type.isScalar()) {
      auto e = std::make_shared<KExpr>(*v.expr);
      if (isFloat(to)) {
        e->kind = kir::ExprKind::FloatConst;
        e->fval = v.expr->kind == kir::ExprKind::IntConst ? static_cast<double>(v.expr->ival) : v.expr->fval;
      }
      e->type.elem = to;
      v.expr = e;
      v.type.elem = to;
      return v;
    }
  }
  if ((from == Elem::IntLit && to == Elem::I32) || (from == Elem::FloatLit && to == Elem::F32)) {
    v.type.elem = to;
    return v;
  }
  Type t = v.type;
  t.elem = to;
  auto e = node(kir::ExprKind::Convert, t, loc);
  e->operands.push_back(v.expr);
  v.expr = e;
  v.type = t;
  return v;
}

const Binding *Elaborator::bindingOf(const Expr &e) {
  uint32_t sym = st_.symbolOf(&e);
  if (sym == UINT32_MAX) return nullptr;
  auto &b = frame().bindings;
  auto it = b.find(sym);
  if (it == b.end()) return nullptr;
  return &it->second;
}

Val Elaborator::expr(const Expr &e, std::optional<Elem> accumulate) {
  Val v = exprInner(e, accumulate);
  if (!v.isError()) recordExpr(e, v.type);
  return v;
}

std::optional<int64_t> Elaborator::constInt(const Expr &e, const std::string &what, std::string *sym) {
  Val v = expr(e);
  if (v.isError()) return std::nullopt;
  if (!v.type.isInteger()) {
    report(DiagKind::TypeMismatch, e.range, {"an integer for " + what, v.type.symbolic()});
    return std::nullopt;
  }
  if (!v.ints.c) {
    report(DiagKind::NotCompileTime, e.range, {what, text(e.range)});
    return std::nullopt;
  }
  if (sym) *sym = text(e.range);
  return v.ints.c;
}

Val Elaborator::intExpr(const Expr &e, const char *what) {
  Val v = expr(e);
  if (v.isError()) return v;
  if (!v.type.isInteger()) {
    report(v.type.isScalar() ? DiagKind::IndexNotInteger : DiagKind::ScalarExpected, e.range,
           v.type.isScalar() ? std::vector<std::string>{v.type.symbolic()}
                             : std::vector<std::string>{what, v.type.symbolic()});
    return errorVal();
  }
  return convert(std::move(v), Elem::I32, e.range);
}

Val Elaborator::readBinding(const Binding &b, SourceRange loc) {
  switch (b.kind) {
  case Binding::Kind::Error: return errorVal();
  case Binding::Kind::Value: return b.value;
  case Binding::Kind::Tensor: {
    Val v;
    v.type = b.type;
    v.tensor = b.tensor;
    return v;
  }
  case Binding::Kind::Var: {
    Val v;
    v.type = varTypes_[b.var];
    if (v.type.isError()) return errorVal();
    auto e = node(kir::ExprKind::VarRead, v.type, loc);
    e->index = b.var;
    v.expr = e;
    v.fromDot = varFromDot_[b.var];
    if (v.type.isScalar()) {
      v.ints.axis = -2;
      if (auto li = letInts_.find(b.var); li != letInts_.end()) {
        v.ints = li->second;
      }
      if (auto l = loops_.find(b.var); l != loops_.end()) {
        v.ints.loopVar = static_cast<int>(b.var);
        v.ints.div = gcd64(l->second.loDiv, l->second.step);
      }
    }
    return v;
  }
  case Binding::Kind::TensorSlice:
  case Binding::Kind::TileSlice: {
    Val v;
    v.type = b.type;
    if (b.type.isTensor()) {
      v.tensor = b.tensor;
      v.slices = b.slices;
      return v;
    }
    auto e = node(b.kind == Binding::Kind::TensorSlice ? kir::ExprKind::TensorLoad : kir::ExprKind::TileSlice, b.type,
                  loc);
    e->index = b.kind == Binding::Kind::TensorSlice ? static_cast<uint32_t>(b.tensor) : b.var;
    e->slices = b.slices;
    v.expr = e;
    if (b.kind == Binding::Kind::TensorSlice) k_->tensors[b.tensor].read = true;
    else v.fromDot = varFromDot_[b.var];
    if (v.type.isScalar()) v.ints.axis = -2;
    // fp8 is a storage type: what a load gives is widened (exactly) to f32.
    if (isFp8(v.type.elem)) v = convert(std::move(v), Elem::F32, loc);
    return v;
  }
  }
  return errorVal();
}

Val Elaborator::name(const Expr &e) {
  if (e.name.name == "ctx") {
    report(DiagKind::UnknownMember, e.range, {"ctx", "(nothing): use `ctx.block.x`, `.y` or `.z`"});
    return errorVal();
  }
  const Binding *b = bindingOf(e);
  if (!b) return errorVal(); // unknown: reported by the resolver
  return readBinding(*b, e.range);
}

Val Elaborator::member(const Expr &e) {
  // ctx.block.{x,y,z} is the only member access.
  const Expr &base = *e.operands[0];
  if (base.kind == ExprKind::Member && base.operands[0]->kind == ExprKind::Name &&
      base.operands[0]->name.name == "ctx" && base.name.name == "block") {
    int axis = e.name.name == "x" ? 0 : e.name.name == "y" ? 1 : e.name.name == "z" ? 2 : -1;
    if (axis < 0) {
      report(DiagKind::UnknownMember, e.name.range, {"ctx.block", e.name.name});
      return errorVal();
    }
    Val v;
    v.type = Type::scalar(Elem::I32);
    auto n = node(kir::ExprKind::BlockId, v.type, e.range);
    n->index = static_cast<uint32_t>(axis);
    v.expr = n;
    v.ints.axis = axis;
    v.ints.coef = 1;
    v.ints.offset = 0;
    if (!axisUsed_[axis]) axisUse_[axis] = e.range;
    axisUsed_[axis] = true;
    return v;
  }
  if (base.kind == ExprKind::Name && base.name.name == "ctx") {
    if (e.name.name != "block") report(DiagKind::UnknownMember, e.name.range, {"ctx", e.name.name});
    else report(DiagKind::UnknownMember, e.range, {"ctx.block", "(nothing): use `ctx.block.x`, `.y` or `.z`"});
    return errorVal();
  }
  Val b = expr(base);
  if (!b.isError()) report(DiagKind::UnknownMember, e.name.range, {text(base.range), e.name.name});
  return errorVal();
}

static IntFacts combineInts(kir::Op op, const IntFacts &a, const IntFacts &b) {
  IntFacts r;
  r.axis = -2;
  if (a.c && b.c) {
    // Folds exactly what the kernel computes in i32: Div and Rem truncate toward zero, tmax
    // and tmin. An op the folder does not know, a division by zero (the run fails there), and a
    // result outside i32 (the kernel wraps it) stay unknown: folded, they would read as a value
    // the kernel never computes (tmax(48, 16) once folded to 0).
    int64_t x = *a.c, y = *b.c;
    std::optional<int64_t> v;
    int64_t m = 0;
    switch (op) {
    case kir::Op::Add:
      if (!__builtin_add_overflow(x, y, &m)) v = m;
      break;
    case kir::Op::Sub:
      if (!__builtin_sub_overflow(x, y, &m)) v = m;
      break;
    case kir::Op::Mul:
      if (!__builtin_mul_overflow(x, y, &m)) v = m;
      break;
    case kir::Op::Div:
      if (y != 0 && !(y == -1 && x == std::numeric_limits<int64_t>::min())) v = x / y;
      break;
    case kir::Op::Rem:
      if (y != 0) v = y == -1 ? 0 : x % y;
      break;
    case kir::Op::Max: v = std::max(x, y); break;
    case kir::Op::Min: v = std::min(x, y); break;
    default: break;
    }
    if (!v || *v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) return IntFacts{};
    r.c = v;
    r.div = *v;
    r.axis = -1;
    r.offset = *v;
    return r;
  }
  auto affine = [](const IntFacts &f) { return f.axis >= -1; };
  // A size plus a constant, `N + BR - 1` (a size alone adds 0).
  auto sizePlus = [](const IntFacts &f, int &size, int64_t &plus) {
    size = f.extentSize >= 0 ? f.extentSize : f.sumSize;
    plus = f.extentSize >= 0 ? 0 : f.sumPlus;
    return size >= 0;
  };
  switch (op) {
  case kir::Op::Add:
  case kir::Op::Sub: {
    int64_t s = op == kir::Op::Sub ? -1 : 1;
    r.div = gcd64(a.div, b.div);
    if (affine(a) && affine(b) && !(a.axis >= 0 && b.axis >= 0)) {
      r.axis = a.axis >= 0 ? a.axis : b.axis;
      r.coef = a.axis >= 0 ? a.coef : s * b.coef;
      r.offset = a.offset + s * b.offset;
      r.mirror = a.axis >= 0 ? a.mirror : b.mirror;
    }
    int size = -1;
    int64_t plus = 0;
    if (b.c && sizePlus(a, size, plus)) {
      r.sumSize = size;
      r.sumPlus = plus + s * *b.c;
    } else if (a.c && op == kir::Op::Add && sizePlus(b, size, plus)) {
      r.sumSize = size;
      r.sumPlus = plus + *a.c;
    }
    if (b.c && a.ceilSize >= 0) {
      r.ceilSize = a.ceilSize, r.ceilBy = a.ceilBy, r.ceilPlus = a.ceilPlus + s * *b.c;
    } else if (a.c && op == kir::Op::Add && b.ceilSize >= 0) {
      r.ceilSize = b.ceilSize, r.ceilBy = b.ceilBy, r.ceilPlus = b.ceilPlus + *a.c;
    }
    break;
  }
  case kir::Op::Mul: {
    r.div = a.div * b.div;
    const IntFacts *k = a.c ? &a : b.c ? &b : nullptr;
    const IntFacts *o = a.c ? &b : &a;
    if (k && affine(*o)) {
      r.axis = o->axis;
      r.coef = o->coef * *k->c;
      r.offset = o->offset * *k->c;
      r.mirror = o->mirror;
    }
    // floor(S / q) * k <= S for 0 < k <= q: the whole blocks of a size.
    if (k && o->quotSize >= 0 && *k->c > 0 && *k->c <= o->quotBy) r.leSize = o->quotSize;
    break;
  }
  case kir::Op::Div:
    r.div = 1;
    if (a.extentSize >= 0 && b.c && *b.c > 0) {
      r.quotSize = a.extentSize;
      r.quotBy = *b.c;
    }
    // (N + q - 1) / q is ceil(N / q): N >= 0, so truncation is floor.
    if (int size = -1; b.c && *b.c > 0) {
      int64_t plus = 0;
      if (sizePlus(a, size, plus) && plus == *b.c - 1) {
        r.ceilSize = size;
        r.ceilBy = *b.c;
      }
    }
    break;
  default: r.div = 1; break;
  }
  return r;
}

Val Elaborator::binary(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc, const char *verb) {
  if (a.isError() || b.isError()) return errorVal();
  if (a.type.kind == Type::Kind::Void || b.type.kind == Type::Kind::Void) {
    report(DiagKind::FnCallNotValue, loc, {text(loc)});
    return errorVal();
  }
  for (const Val *v : {&a, &b})
    if (v->type.isTensor()) {
      report(DiagKind::TensorArithmetic, loc, {k_->tensors[v->tensor].name});
      return errorVal();
    }
  if ((a.type.elem == Elem::F16 && b.type.elem == Elem::BF16) || (a.type.elem == Elem::BF16 && b.type.elem == Elem::F16)) {
    // Mixing the two 16-bit formats is almost always a mistake; say so.
    report(DiagKind::TileElemMismatch, loc, {verb, a.type.symbolic(), b.type.symbolic()});
    return errorVal();
  }
  Elem elem = promote(a.type.elem, b.type.elem);
  // `col_ids(s) * 0.5` would compute in i32 and truncate the literal to 0: refuse it.
  for (auto [lit, other] : {std::pair{&a, &b}, std::pair{&b, &a}})
    if (lit->type.elem == Elem::FloatLit && lit->type.isScalar() && other->type.elem == Elem::I32 && lit->expr) {
      report(DiagKind::FloatLiteralInteger, lit->expr->loc, {text(lit->expr->loc), other->type.symbolic()});
      return errorVal();
    }
  // Comparisons and && || are built here too (shapes and conversions alike) but not folded.
  bool arithmetic = op == kir::Op::Add || op == kir::Op::Sub || op == kir::Op::Mul || op == kir::Op::Div ||
                    op == kir::Op::Rem || op == kir::Op::Max || op == kir::Op::Min;
  if (arithmetic && (rejectBool(a, loc, verb) || rejectBool(b, loc, verb))) return errorVal();
  Val r;
  r.fromDot = a.fromDot || b.fromDot;
  if (a.type.isScalar() && b.type.isScalar()) {
    if (a.type.isInteger() && b.type.isInteger() && !arithmetic) {
      elem = Elem::I32;
      r.ints.axis = -2;
    } else if (a.type.isInteger() && b.type.isInteger()) {
      IntFacts f = combineInts(op, a.ints, b.ints);
      if (f.c) return intConst(*f.c, loc);
      if (op == kir::Op::Sub) mirrorBlock(a.ints, b.ints, f);
      blockWithinSize(f);
      r.ints = f;
      elem = Elem::I32;
    } else if (op == kir::Op::Rem) {
      report(DiagKind::TypeMismatch, loc, {"integers for `%`", a.type.symbolic() + " % " + b.type.symbolic()});
      return errorVal();
    } else if (a.type.elem == Elem::FloatLit && b.type.elem == Elem::FloatLit && arithmetic) {
      // Fold literal arithmetic so `-1.0e30 * 2.0` stays a literal.
      double x = a.expr->kind == kir::ExprKind::IntConst ? a.expr->ival : a.expr->fval;
      double y = b.expr->kind == kir::ExprKind::IntConst ? b.expr->ival : b.expr->fval;
      double v = op == kir::Op::Add ? x + y : op == kir::Op::Sub ? x - y : op == kir::Op::Mul ? x * y
                 : op == kir::Op::Div ? x / y : op == kir::Op::Max ? std::max(x, y) : std::min(x, y);
      Val c;
      c.type = Type::scalar(Elem::FloatLit);
      auto n = node(kir::ExprKind::FloatConst, c.type, loc);
      n->fval = v;
      c.expr = n;
      return c;
    }
    r.type = Type::scalar(elem == Elem::IntLit ? Elem::I32 : elem);
    if (isFloat(r.type.elem) && r.type.elem != Elem::FloatLit && (a.type.elem == Elem::FloatLit || b.type.elem == Elem::FloatLit))
      r.type.elem = elem;
  } else {
    // `%` on tiles: integer tiles only (docs/language.md), as on scalars.
    auto integral = [](const Val &v) { return v.type.elem == Elem::I32 || v.type.elem == Elem::IntLit; };
    if (op == kir::Op::Rem && !(integral(a) && integral(b))) {
      report(DiagKind::TypeMismatch, loc, {"integers for `%`", a.type.symbolic() + " % " + b.type.symbolic()});
      return errorVal();
    }
    // Broadcasting: same rank, each dimension equal or 1; or a scalar.
    std::vector<Dim> dims;
    if (a.type.isTile() && b.type.isTile()) {
      if (a.type.rank() != b.type.rank()) {
        report(DiagKind::ShapeMismatch, loc, {verb, a.type.symbolic() + " = " + a.type.concreteShape(),
                                              b.type.symbolic() + " = " + b.type.concreteShape()});
        return errorVal();
      }
      for (size_t i = 0; i < a.type.rank(); ++i) {
        const Dim &x = a.type.dims[i], &y = b.type.dims[i];
        if (x.value == y.value && x.isStatic()) dims.push_back(x.sym.size() <= y.sym.size() || y.value == 1 ? x : y);
        else if (x.value == 1) dims.push_back(y);
        else if (y.value == 1) dims.push_back(x);
        else {
          report(DiagKind::ShapeMismatch, loc, {verb, a.type.symbolic() + " = " + a.type.concreteShape(),
                                                b.type.symbolic() + " = " + b.type.concreteShape()});
          return errorVal();
        }
      }
    } else {
      dims = a.type.isTile() ? a.type.dims : b.type.dims;
    }
    if (elem == Elem::IntLit) elem = Elem::I32;
    if (elem == Elem::FloatLit) elem = Elem::F32;
    // An integer scalar meeting a float tile takes its type (promote); i32 tiles stay i32.
    r.type = Type::tile(elem, dims);
  }
  Elem opElem = r.type.elem;
  // The locations first: a moved argument may be taken before the others are read.
  SourceRange aLoc = a.expr ? a.expr->loc : loc, bLoc = b.expr ? b.expr->loc : loc;
  a = convert(std::move(a), opElem, aLoc);
  b = convert(std::move(b), opElem, bLoc);
  auto n = node(kir::ExprKind::Binary, r.type, loc);
  n->op = op;
  n->operands = {a.expr, b.expr};
  r.expr = n;
  (void)e;
  return r;
}

bool Elaborator::rejectBool(const Val &v, SourceRange loc, const std::string &verb) {
  if (v.isError() || v.type.elem != Elem::Bool || v.type.isTensor()) return false;
  report(DiagKind::TypeMismatch, loc, {"numbers to " + verb + " (a condition selects, with `where(c, a, b)`)",
                                       v.type.symbolic()});
  return true;
}

Val Elaborator::compare(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc) {
  if (a.isError() || b.isError()) return errorVal();
  for (const Val *v : {&a, &b})
    if (v->type.elem == Elem::Bool && !v->type.isTensor()) {
      report(DiagKind::TypeMismatch, loc, {"numbers to compare (combine conditions with `&&`, `||`, `!`)",
                                           v->type.symbolic()});
      return errorVal();
    }
  Val r = binary(e, op, std::move(a), std::move(b), loc, "compare");
  if (r.isError()) return r;
  auto n = std::make_shared<KExpr>(*r.expr);
  n->kind = kir::ExprKind::Compare;
  n->type.elem = Elem::Bool;
  r.expr = n;
  r.type.elem = Elem::Bool;
  r.ints = IntFacts{};
  r.ints.axis = -2;
  r.fromDot = false;
  return r;
}

Val Elaborator::logic(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc) {
  if (a.isError() || b.isError()) return errorVal();
  for (const Val *v : {&a, &b})
    if (v->type.elem != Elem::Bool || v->type.isTensor()) {
      report(DiagKind::TypeMismatch, loc, {std::string("conditions (comparisons) for `") +
                                               (op == kir::Op::And ? "&&" : "||") + "`",
                                           v->type.symbolic()});
      return errorVal();
    }
  Val r = binary(e, op, std::move(a), std::move(b), loc, op == kir::Op::And ? "combine with `&&`" : "combine with `||`");
  r.fromDot = false;
  return r;
}

Val Elaborator::exprInner(const Expr &e, std::optional<Elem> accumulate) {
  switch (e.kind) {
  case ExprKind::Error: return errorVal();
  case ExprKind::IntLit: {
    Val v = intConst(e.intValue, e.range);
    v.type.elem = Elem::IntLit;
    return v;
  }
  case ExprKind::FloatLit: {
    Val v;
    v.type = Type::scalar(Elem::FloatLit);
    auto n = node(kir::ExprKind::FloatConst, v.type, e.range);
    n->fval = e.floatValue;
    v.expr = n;
    return v;
  }
  case ExprKind::Name: return name(e);
  case ExprKind::Member: return member(e);
  case ExprKind::Unary: {
    Val a = expr(*e.operands[0]);
    if (a.isError()) return a;
    if (e.unOp == UnOp::Plus) return a;
    if (e.unOp == UnOp::Not) {
      if (a.type.elem != Elem::Bool || a.type.isTensor()) {
        report(DiagKind::TypeMismatch, e.range, {"a condition (a comparison) for `!`", a.type.symbolic()});
        return errorVal();
      }
      Val r = a;
      auto n = node(kir::ExprKind::Unary, a.type, e.range);
      n->op = kir::Op::Not;
      n->operands.push_back(a.expr);
      r.expr = n;
      return r;
    }
    if (a.type.isInteger()) {
      Val zero = intConst(0, e.range);
      return binary(e, kir::Op::Sub, std::move(zero), std::move(a), e.range, "negate");
    }
    if (a.type.isTensor()) {
      report(DiagKind::TensorArithmetic, e.range, {k_->tensors[a.tensor].name});
      return errorVal();
    }
    Val r = a;
    if (r.type.elem == Elem::FloatLit) r.type.elem = Elem::F32;
    r = convert(a, r.type.elem, e.range);
    auto n = node(kir::ExprKind::Unary, r.type, e.range);
    n->op = kir::Op::Neg;
    n->operands.push_back(r.expr);
    r.expr = n;
    r.isDot = false;
    return r;
  }
  case ExprKind::Binary: {
    Val a = expr(*e.operands[0], accumulate);
    Val b = expr(*e.operands[1], accumulate);
    switch (e.binOp) {
    case BinOp::Lt: return compare(e, kir::Op::Lt, std::move(a), std::move(b), e.range);
    case BinOp::Le: return compare(e, kir::Op::Le, std::move(a), std::move(b), e.range);
    case BinOp::Gt: return compare(e, kir::Op::Gt, std::move(a), std::move(b), e.range);
    case BinOp::Ge: return compare(e, kir::Op::Ge, std::move(a), std::move(b), e.range);
    case BinOp::Eq: return compare(e, kir::Op::Eq, std::move(a), std::move(b), e.range);
    case BinOp::Ne: return compare(e, kir::Op::Ne, std::move(a), std::move(b), e.range);
    case BinOp::And: return logic(e, kir::Op::And, std::move(a), std::move(b), e.range);
    case BinOp::Or: return logic(e, kir::Op::Or, std::move(a), std::move(b), e.range);
    default: break;
    }
    kir::Op op = e.binOp == BinOp::Add ? kir::Op::Add : e.binOp == BinOp::Sub ? kir::Op::Sub
                 : e.binOp == BinOp::Mul ? kir::Op::Mul : e.binOp == BinOp::Div ? kir::Op::Div : kir::Op::Rem;
    const char *verb = op == kir::Op::Add ? "add" : op == kir::Op::Sub ? "subtract" : op == kir::Op::Mul ? "multiply"
                       : "divide";
    return binary(e, op, std::move(a), std::move(b), e.range, verb);
  }
  case ExprKind::Call: return call(e, accumulate);
  case ExprKind::Index: return index(e);
  }
  return errorVal();
}


} // namespace ph::check::elab
