//===- Calls.cpp - Builtin calls and inlining of fn calls --------------------===//
//
// A `fn` call is inlined with its parameters bound by reference; a builtin
// call is checked and built from its registry entry.
//
//===----------------------------------------------------------------------===//
#include "Elaborator.h"

namespace ph::check::elab {

namespace {
/// Whether `body` assigns (whole or in slices, at any depth) the name bound to symbol `sym`.
bool assigns(const State &st, const std::vector<StmtPtr> &body, uint32_t sym) {
  for (const StmtPtr &s : body) {
    if (s->kind == StmtKind::Assign && s->target) {
      const Expr *root = s->target.get();
      while (root->kind == ExprKind::Index) root = root->operands[0].get();
      if (root->kind == ExprKind::Name && st.symbolOf(root) == sym) return true;
    }
    if (assigns(st, s->body, sym) || assigns(st, s->elseBody, sym)) return true;
  }
  return false;
}
} // namespace

void Elaborator::inlineCall(const Expr &call, const Decl &fn, std::vector<kir::StmtPtr> &out) {
  for (auto &f : frames_)
    if (f.decl == &fn) {
      report(DiagKind::Recursion, call.name.range, {fn.name.name, frame().decl->name.name});
      return;
    }
  if (fn.params.size() != call.operands.size()) return; // reported by the resolver
  if (frames_.size() > 64) return;
  Frame nf{&fn, call.range, {}};
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Expr &arg = *call.operands[i];
    const uint32_t *ps = st_.paramSymbol.find(&fn.params[i]);
    Binding b;
    // By reference: a name passes its binding; a slice of a tensor or tile
    // passes the slice (reads load it, writes store into it); anything else
    // is evaluated once into a value.
    if (arg.kind == ExprKind::Name && bindingOf(arg)) {
      b = *bindingOf(arg);
      recordExpr(arg, b.type.isError() ? b.value.type : b.type);
    } else if (arg.kind == ExprKind::Index && arg.operands[0]->kind == ExprKind::Name && bindingOf(*arg.operands[0])) {
      const Binding &base = *bindingOf(*arg.operands[0]);
      std::vector<kir::Slice> slices;
      std::vector<Dim> dims;
      if (base.kind == Binding::Kind::Tensor || base.kind == Binding::Kind::TensorSlice) {
        if (!sliceTensor(base.tensor, base.kind == Binding::Kind::TensorSlice ? &base.slices : nullptr, arg, slices,
                         dims, /*view=*/true)) {
          b.kind = Binding::Kind::Error;
        } else {
          b.kind = Binding::Kind::TensorSlice;
          b.tensor = base.tensor;
          b.slices = std::move(slices);
          Elem el = k_->tensors[base.tensor].elem;
          bool isView = std::any_of(dims.begin(), dims.end(), [](const Dim &d) { return !d.isStatic(); });
          // A slice with a run-time extent stays a view of the tensor (`K[b, h, :, :]`);
          // one with static extents is a tile that reads load and writes store.
          b.type = isView ? Type::tensor(el, dims) : dims.empty() ? Type::scalar(el) : Type::tile(el, dims);
          b.what = "a slice of " + base.what;
          recordExpr(arg, b.type);
        }
      } else if (base.kind == Binding::Kind::Var && varTypes_[base.var].isTile()) {
        if (!sliceTile(varTypes_[base.var], arg, slices, dims)) {
          b.kind = Binding::Kind::Error;
        } else {
          b.kind = Binding::Kind::TileSlice;
          b.var = base.var;
          b.slices = std::move(slices);
          b.type = Type::tile(varTypes_[base.var].elem, std::move(dims));
          b.isLet = base.isLet;
          b.what = "a slice of " + base.what;
          recordExpr(arg, b.type);
        }
      } else {
        b.kind = Binding::Kind::Value;
        b.value = expr(arg);
        b.type = b.value.type;
        b.isLet = true;
        b.what = "the value `" + text(arg.range) + "`";
      }
    } else {
      Val v = expr(arg);
      if (v.isError()) {
        b.kind = Binding::Kind::Error;
      } else if (v.ints.c || (v.expr && v.type.isScalar())) {
        b.kind = Binding::Kind::Value;
        b.value = v;
        b.type = v.type;
        b.isLet = true;
        b.what = "the value `" + text(arg.range) + "`";
      } else if (v.type.isTile()) {
        // A computed tile is held in a temporary so the body reads it once.
        uint32_t var = newVar(fn.params[i].name.name, v.type, false, arg.range, UINT32_MAX);
        varFromDot_[var] = v.fromDot;
        auto st = std::make_shared<KStmt>();
        st->kind = kir::StmtKind::Decl;
        st->loc = arg.range;
        st->var = var;
        st->value = v.expr;
        emit(out, st);
        b.kind = Binding::Kind::Var;
        b.var = var;
        b.type = v.type;
        b.what = "the value `" + text(arg.range) + "`";
      } else {
        b.kind = Binding::Kind::Error;
      }
    }
    // A fn that changes its first parameter in place (std/masks.ph's mask_cols,
    // causal_mask) needs a tile variable or a slice there, not a value: said at the
    // argument, and the body stays quiet.
    if (i == 0 && b.kind != Binding::Kind::Error && ps &&
        assigns(st_, fn.body, *ps)) {
      bool computed = arg.kind != ExprKind::Name && arg.kind != ExprKind::Index;
      bool writable = !computed && (b.kind == Binding::Kind::TileSlice || b.kind == Binding::Kind::TensorSlice ||
                                    (b.kind == Binding::Kind::Var && varTypes_[b.var].isTile()));
      if (writable && b.isLet && b.kind == Binding::Kind::Var) {
        report(DiagKind::AssignToLet, arg.range, {k_->vars[b.var].name});
        b.kind = Binding::Kind::Error;
      } else if (!writable) {
        Type shown = b.kind == Binding::Kind::Var ? varTypes_[b.var] : b.kind == Binding::Kind::Value ? b.value.type : b.type;
        report(DiagKind::NotInPlaceTarget, arg.range,
               {fn.name.name, "`" + text(arg.range) + "` (" + shown.symbolic() + ")"});
        b.kind = Binding::Kind::Error;
      }
    }
    if (ps) {
      recordSymbolType(*ps, b.kind == Binding::Kind::Var     ? varTypes_[b.var]
                            : b.kind == Binding::Kind::Value ? b.value.type
                                                             : b.type);
      nf.bindings[*ps] = std::move(b);
    }
  }
  inlineBody(fn, std::move(nf), out);
}


/// rowmin(x) with rowmax: -rowmax(-x) for floats (negation is exact), and
/// -1 - rowmax(-1 - x) for i32 (`-1 - x` is `~x`: it reverses the order and
/// never overflows).
ExprPtr Elaborator::rowMin(ExprPtr x, const Type &t, SourceRange loc) {
  Type col = Type::tile(t.elem, {t.dims[0], Dim{"1", 1}});
  bool isInt = t.elem == Elem::I32;
  auto flip = [&](ExprPtr v, const Type &vt) -> ExprPtr {
    if (!isInt) {
      auto n = node(kir::ExprKind::Unary, vt, loc);
      n->op = kir::Op::Neg;
      n->operands = {std::move(v)};
      return n;
    }
    auto m1 = node(kir::ExprKind::IntConst, Type::scalar(Elem::I32), loc);
    m1->ival = -1;
    auto n = node(kir::ExprKind::Binary, vt, loc);
    n->op = kir::Op::Sub;
    n->operands = {m1, std::move(v)};
    return n;
  };
  auto m = node(kir::ExprKind::RowReduce, col, loc);
  m->op = kir::Op::Max;
  m->operands = {flip(std::move(x), t)};
  return flip(m, col);
}

Val Elaborator::call(const Expr &e, std::optional<Elem> accumulate) {
  if (!e.name.valid()) return errorVal();
  const std::string &n = e.name.name;
  if (const Builtin *bi = findBuiltinFunction(n)) return builtinCall(e, *bi, accumulate);
  if (st_.functions.count(n)) {
    report(DiagKind::FnCallNotValue, e.range, {n});
    return errorVal();
  }
  return errorVal(); // unknown: reported by the resolver
}

Val Elaborator::builtinCall(const Expr &e, const Builtin &bi, std::optional<Elem> accumulate) {
  // The arity was checked (and reported) by the resolver.
  if (e.operands.size() < static_cast<size_t>(bi.minArgs) || e.operands.size() > static_cast<size_t>(bi.maxArgs))
    return errorVal();
  const std::string n = bi.name;
  auto tile2d = [&](const Val &v, const Expr &arg) {
    if (v.isError()) return false;
    if (v.type.isTensor()) {
      report(DiagKind::TensorArithmetic, arg.range, {k_->tensors[v.tensor].name});
      return false;
    }
    if (!v.type.isTile() || v.type.rank() != 2) {
      report(DiagKind::NotATile2D, arg.range, {n, v.type.symbolic()});
      return false;
    }
    return true;
  };
  switch (bi.kind) {
  case BuiltinKind::Dot: {
    Val a = expr(*e.operands[0]);
    Val b = expr(*e.operands[1]);
    if (!tile2d(a, *e.operands[0]) || !tile2d(b, *e.operands[1])) return errorVal();
    // No target multiplies integer tiles (tile.dot, mma): refused here, not by a verifier.
    for (size_t i = 0; i < 2; ++i)
      if (const Val &v = i ? b : a; v.type.elem == Elem::I32) {
        report(DiagKind::DotIntegerOperand, e.operands[i]->range, {n, v.type.symbolic()});
        return errorVal();
      }
    bool t = n == "dot_t";
    const Dim &ka = a.type.dims[1];
    const Dim &kb = t ? b.type.dims[1] : b.type.dims[0];
    auto differ = [](const Dim &x, const Dim &y) { return x.isStatic() && y.isStatic() ? x.value != y.value : x.sym != y.sym; };
    if (differ(ka, kb)) {
      Diagnostic &d = report(DiagKind::DotShapeMismatch, e.range,
                             {n, a.type.symbolic() + " = " + a.type.concreteShape(),
                              b.type.symbolic() + " = " + b.type.concreteShape(), ka.sym, kb.sym});
      const Dim &other = t ? b.type.dims[0] : b.type.dims[1];
      if (!differ(ka, other)) {
        std::string alt = t ? "dot" : "dot_t";
        d.notes.push_back({e.operands[1]->range, t ? "`dot` takes the second operand as [K, N]"
                                                   : "`dot_t` takes the second operand transposed, as [N, K]"});
        d.fixes.push_back({"use `" + alt + "`", {{e.name.range, alt}}});
      }
      return errorVal();
    }
    Elem opElem = promote(a.type.elem, b.type.elem);
    if (tensorcore_) {
      // Tensor cores multiply 16-bit operands: an f32 operand meeting a 16-bit one is rounded.
      bool a16 = a.type.elem == Elem::F16 || a.type.elem == Elem::BF16;
      bool b16 = b.type.elem == Elem::F16 || b.type.elem == Elem::BF16;
      if (a16 && !b16) opElem = a.type.elem;
      else if (b16 && !a16) opElem = b.type.elem;
      else if (a16 && b16 && a.type.elem == b.type.elem) opElem = a.type.elem;
    }
    a = convert(std::move(a), opElem, e.operands[0]->range);
    b = convert(std::move(b), opElem, e.operands[1]->range);
    Elem accElem = accumulate && isFloat(*accumulate) ? *accumulate : opElem;
    if (accumulate && *accumulate == Elem::I32) accElem = opElem;
    Val r;
    r.type = Type::tile(accElem, {a.type.dims[0], t ? b.type.dims[0] : b.type.dims[1]});
    auto nd = node(kir::ExprKind::Dot, r.type, e.range);
    nd->transB = t;
    nd->operands = {a.expr, b.expr};
    r.expr = nd;
    r.fromDot = true;
    r.isDot = true;
    return r;
  }
  case BuiltinKind::RowReduce:
  case BuiltinKind::ColReduce: {
    Val a = expr(*e.operands[0]);
    if (!tile2d(a, *e.operands[0]) || rejectBool(a, e.operands[0]->range, "reduce")) return errorVal();
    Val r;
    bool rows = bi.kind == BuiltinKind::RowReduce;
    r.type = rows ? Type::tile(a.type.elem, {a.type.dims[0], Dim{"1", 1}})
                  : Type::tile(a.type.elem, {Dim{"1", 1}, a.type.dims[1]});
    r.fromDot = a.fromDot;
    if (bi.op == kir::Op::Min) {
      r.expr = rowMin(a.expr, a.type, e.range);
      return r;
    }
    auto nd = node(rows ? kir::ExprKind::RowReduce : kir::ExprKind::ColReduce, r.type, e.range);
    nd->op = bi.op;
    nd->operands = {a.expr};
    r.expr = nd;
    return r;
  }
  case BuiltinKind::ArgMax: {
    Val a = expr(*e.operands[0]);
    if (!tile2d(a, *e.operands[0]) || rejectBool(a, e.operands[0]->range, "take `rowargmax` of")) return errorVal();
    // The first column holding the row's maximum (or the first NaN, which the
    // maximum then is), with ops every target has: rowmax, ==, where, col_ids
    // and rowmin.
    Type col = Type::tile(a.type.elem, {a.type.dims[0], Dim{"1", 1}});
    Type bools = Type::tile(Elem::Bool, a.type.dims);
    Type ints = Type::tile(Elem::I32, a.type.dims);
    auto m = node(kir::ExprKind::RowReduce, col, e.range);
    m->op = kir::Op::Max;
    m->operands = {a.expr};
    auto cmp = [&](kir::Op op, ExprPtr x, ExprPtr y) {
      auto c = node(kir::ExprKind::Compare, bools, e.range);
      c->op = op;
      c->operands = {std::move(x), std::move(y)};
      return c;
    };
    auto hit = node(kir::ExprKind::Binary, bools, e.range);
    hit->op = kir::Op::Or;
    hit->operands = {cmp(kir::Op::Eq, a.expr, m), cmp(kir::Op::Ne, a.expr, a.expr)};
    auto ids = node(kir::ExprKind::IndexTile, ints, e.range);
    ids->index = 1;
    auto none = node(kir::ExprKind::IntConst, Type::scalar(Elem::I32), e.range);
    none->ival = a.type.dims[1].value;
    auto at = node(kir::ExprKind::Select, ints, e.range);
    at->operands = {hit, ids, none};
    Val r;
    r.type = Type::tile(Elem::I32, {a.type.dims[0], Dim{"1", 1}});
    r.expr = rowMin(at, ints, e.range);
    return r;
  }
  case BuiltinKind::Convert: {
    Val a = expr(*e.operands[0]);
    if (a.isError()) return a;
    if (a.type.isTensor()) {
      report(DiagKind::TensorArithmetic, e.operands[0]->range, {k_->tensors[a.tensor].name});
      return errorVal();
    }
    if (a.type.kind == Type::Kind::Void) {
      report(DiagKind::FnCallNotValue, e.operands[0]->range, {text(e.operands[0]->range)});
      return errorVal();
    }
    if (rejectBool(a, e.operands[0]->range, std::string("convert with `") + n + "`")) return errorVal();
    // A literal takes its own type first (`i32(2.7)` truncates 2.7 as an f32 would).
    if (a.type.elem == Elem::IntLit) a = convert(a, Elem::I32, e.operands[0]->range);
    if (a.type.elem == Elem::FloatLit) a = convert(a, Elem::F32, e.operands[0]->range);
    Val r = a;
    r.isDot = false;
    if (a.type.elem == bi.elem) return r;
    r.type.elem = bi.elem;
    auto nd = node(kir::ExprKind::Convert, r.type, e.range);
    nd->operands = {a.expr};
    r.expr = nd;
    r.ints = IntFacts{};
    return r;
  }
  case BuiltinKind::Binary: {
    Val a = expr(*e.operands[0]);
    Val b = expr(*e.operands[1]);
    return binary(e, bi.op, a, b, e.range, "take the elementwise extremum of");
  }
  case BuiltinKind::Unary: {
    Val a = expr(*e.operands[0]);
    if (a.isError()) return a;
    if (a.type.isTensor()) {
      report(DiagKind::TensorArithmetic, e.operands[0]->range, {k_->tensors[a.tensor].name});
      return errorVal();
    }
    if (a.type.kind == Type::Kind::Void) {
      report(DiagKind::FnCallNotValue, e.operands[0]->range, {text(e.operands[0]->range)});
      return errorVal();
    }
    if (rejectBool(a, e.operands[0]->range, std::string("take `") + n + "` of")) return errorVal();
    Elem el = a.type.elem;
    if (el == Elem::I32 || el == Elem::IntLit || el == Elem::FloatLit) el = Elem::F32;
    a = convert(std::move(a), el, e.operands[0]->range);
    Val r = a;
    r.isDot = false;
    auto un = [&](kir::Op op, ExprPtr x) {
      auto nd = node(kir::ExprKind::Unary, a.type, e.range);
      nd->op = op;
      nd->operands = {std::move(x)};
      return nd;
    };
    if (bi.op == kir::Op::Sigmoid) {
      // sigmoid(x) = 1 / (1 + exp(-x)): ops every target already has.
      auto one = [&] {
        auto c = node(kir::ExprKind::FloatConst, Type::scalar(el), e.range);
        c->fval = 1.0;
        if (!a.type.isTile()) return ExprPtr(c);
        auto s = node(kir::ExprKind::Splat, a.type, e.range);
        s->operands = {c};
        return ExprPtr(s);
      };
      auto bin = [&](kir::Op op, ExprPtr x, ExprPtr y) {
        auto nd = node(kir::ExprKind::Binary, a.type, e.range);
        nd->op = op;
        nd->operands = {std::move(x), std::move(y)};
        return nd;
      };
      r.expr = bin(kir::Op::Div, one(), bin(kir::Op::Add, one(), un(kir::Op::Exp, un(kir::Op::Neg, a.expr))));
      return r;
    }
    r.expr = un(bi.op, a.expr);
    return r;
  }
  case BuiltinKind::Extent: {
    Val x = expr(*e.operands[0]);
    auto d = constInt(*e.operands[1], "the dimension of `extent`");
    if (x.isError() || !d) return errorVal();
    const Type &t = x.type;
    if (!t.isTile() && !t.isTensor()) {
      report(DiagKind::TypeMismatch, e.operands[0]->range, {"a tensor or a tile", t.symbolic()});
      return errorVal();
    }
    if (*d < 0 || static_cast<size_t>(*d) >= t.rank()) {
      report(DiagKind::BadDimensionIndex, e.operands[1]->range, {std::to_string(*d), text(e.operands[0]->range),
                                                                 std::to_string(t.rank())});
      return errorVal();
    }
    const Dim &dim = t.dims[*d];
    if (dim.isStatic()) {
      Val c = intConst(dim.value, e.range);
      c.ints.extentStatic = dim.value;
      return c;
    }
    // A run-time size of a whole tensor, or of an open dimension of a view.
    size_t tdim = static_cast<size_t>(*d);
    if (!x.slices.empty()) {
      size_t open = 0;
      for (size_t i = 0; i < x.slices.size(); ++i)
        if (x.slices[i].kind != kir::Slice::Kind::Index && open++ == tdim) {
          tdim = i;
          break;
        }
    }
    const kir::TensorDim &td = k_->tensors[x.tensor].dims[tdim];
    Val v;
    v.type = Type::scalar(Elem::I32);
    auto nd = node(kir::ExprKind::SizeArg, v.type, e.range);
    nd->index = td.size;
    v.expr = nd;
    v.ints.axis = -2;
    v.ints.div = k_->sizes[td.size].alignedTo;
    v.ints.extentSize = static_cast<int>(td.size);
    return v;
  }
  case BuiltinKind::Select: {
    Val c = expr(*e.operands[0]);
    Val a = expr(*e.operands[1]);
    Val b = expr(*e.operands[2]);
    if (c.isError() || a.isError() || b.isError()) return errorVal();
    if (c.type.elem != Elem::Bool || c.type.isTensor()) {
      report(DiagKind::TypeMismatch, e.operands[0]->range,
             {"a condition (a comparison such as `s < 0.0`) for `where`", c.type.symbolic()});
      return errorVal();
    }
    // Two literals: the branches' type is f32 (or i32), not a literal to fold.
    if ((a.type.elem == Elem::FloatLit || a.type.elem == Elem::IntLit) &&
        (b.type.elem == Elem::FloatLit || b.type.elem == Elem::IntLit)) {
      Elem lit = a.type.elem == Elem::IntLit && b.type.elem == Elem::IntLit ? Elem::I32 : Elem::F32;
      a = convert(std::move(a), lit, e.operands[1]->range);
      b = convert(std::move(b), lit, e.operands[2]->range);
    }
    // The branches' type and shape as arithmetic would make them, then the condition's shape.
    ExprPtr ae, be;
    Type abType;
    if (a.type.isScalar() && b.type.isScalar()) {
      Elem el = promote(a.type.elem, b.type.elem);
      if (el == Elem::FloatLit) el = Elem::F32;
      if (el == Elem::IntLit) el = Elem::I32;
      a = convert(std::move(a), el, e.operands[1]->range);
      b = convert(std::move(b), el, e.operands[2]->range);
      ae = a.expr, be = b.expr;
      abType = Type::scalar(el);
    } else {
      Val ab = binary(e, kir::Op::Max, a, b, e.range, "select between");
      if (ab.isError()) return errorVal();
      ae = ab.expr->operands[0], be = ab.expr->operands[1];
      abType = ab.type;
    }
    Type t = abType;
    if (c.type.isTile()) {
      // The condition broadcasts with the branches like an operand of arithmetic.
      bool fits = !abType.isTile() || abType.rank() == c.type.rank();
      std::vector<Dim> dims = c.type.dims;
      for (size_t i = 0; fits && abType.isTile() && i < dims.size(); ++i) {
        const Dim &x = c.type.dims[i], &y = abType.dims[i];
        if (x.value == 1) dims[i] = y;
        else if (y.value != 1 && y.value != x.value) fits = false;
      }
      if (!fits) {
        report(DiagKind::ShapeMismatch, e.range,
               {"select with the condition of `where` against its branches:",
                c.type.symbolic() + " = " + c.type.concreteShape(), abType.symbolic() + " = " + abType.concreteShape()});
        return errorVal();
      }
      t = Type::tile(abType.elem, dims);
    }
    auto nd = node(kir::ExprKind::Select, t, e.range);
    nd->operands = {c.expr, ae, be};
    Val r;
    r.type = t;
    r.expr = nd;
    r.fromDot = a.fromDot || b.fromDot;
    return r;
  }
  case BuiltinKind::IndexTile: {
    Val x = expr(*e.operands[0]);
    if (!tile2d(x, *e.operands[0])) return errorVal();
    Val r;
    r.type = Type::tile(Elem::I32, x.type.dims);
    auto nd = node(kir::ExprKind::IndexTile, r.type, e.range);
    nd->index = static_cast<uint32_t>(bi.axis);
    r.expr = nd;
    return r;
  }
  case BuiltinKind::Range:
    report(DiagKind::TypeMismatch, e.range, {"a value", "range(...)` outside `for"});
    return errorVal();
  case BuiltinKind::InPlaceMask: // no entry has it: mask_cols and causal_mask are std/masks.ph's
  case BuiltinKind::Decorator: return errorVal();
  }
  return errorVal();
}


} // namespace ph::check::elab
