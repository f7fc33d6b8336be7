//===- KirBuilder.h - Terse construction of kir for interpreter tests ----===//
#pragma once

#include "ph/KernelIR.h"

namespace ph::kirtest {

using namespace ph::kir;

inline KType ty(Elem e, std::vector<int64_t> shape = {}) { return KType{e, std::move(shape)}; }

inline ExprPtr mk(Expr e) { return std::make_shared<const Expr>(std::move(e)); }
inline Expr ex(ExprKind kind, KType t) {
  Expr e{};
  e.kind = kind;
  e.type = std::move(t);
  return e;
}
inline Stmt st(StmtKind kind) {
  Stmt s{};
  s.kind = kind;
  return s;
}

inline ExprPtr ic(int64_t v) {
  Expr e = ex(ExprKind::IntConst, ty(Elem::I32));
  e.ival = v;
  return mk(e);
}
inline ExprPtr fc(double v, Elem el = Elem::F32, std::vector<int64_t> shape = {}) {
  Expr e = ex(ExprKind::FloatConst, ty(el, shape));
  e.fval = v;
  return mk(e);
}
inline ExprPtr sizeArg(uint32_t i) {
  Expr e = ex(ExprKind::SizeArg, ty(Elem::I32));
  e.index = i;
  return mk(e);
}
inline ExprPtr scalarArg(uint32_t i, Elem el = Elem::F32) {
  Expr e = ex(ExprKind::ScalarArg, ty(el));
  e.index = i;
  return mk(e);
}
inline ExprPtr blockId(uint32_t axis) {
  Expr e = ex(ExprKind::BlockId, ty(Elem::I32));
  e.index = axis;
  return mk(e);
}
inline ExprPtr varRead(uint32_t v, KType t) {
  Expr e = ex(ExprKind::VarRead, std::move(t));
  e.index = v;
  return mk(e);
}
inline Slice full(int64_t len = 1, bool masked = false) {
  Slice s;
  s.kind = Slice::Kind::Full;
  s.len = len;
  s.masked = masked;
  return s;
}
inline Slice range(ExprPtr start, int64_t len, bool masked = true) {
  Slice s;
  s.kind = Slice::Kind::Range;
  s.start = std::move(start);
  s.len = len;
  s.masked = masked;
  return s;
}
inline Slice index(ExprPtr start, bool masked = true) {
  Slice s;
  s.kind = Slice::Kind::Index;
  s.start = std::move(start);
  s.masked = masked;
  return s;
}
inline ExprPtr load(uint32_t tensor, std::vector<Slice> slices, KType t) {
  Expr e = ex(ExprKind::TensorLoad, std::move(t));
  e.index = tensor;
  e.slices = std::move(slices);
  return mk(e);
}
inline ExprPtr tileSlice(uint32_t var, std::vector<Slice> slices, KType t) {
  Expr e = ex(ExprKind::TileSlice, std::move(t));
  e.index = var;
  e.slices = std::move(slices);
  return mk(e);
}
inline ExprPtr op(ExprKind kind, Op o, std::vector<ExprPtr> operands, KType t) {
  Expr e = ex(kind, std::move(t));
  e.op = o;
  e.operands = std::move(operands);
  return mk(e);
}
inline ExprPtr bin(Op o, ExprPtr a, ExprPtr b, KType t) { return op(ExprKind::Binary, o, {a, b}, std::move(t)); }
inline ExprPtr un(Op o, ExprPtr a, KType t) { return op(ExprKind::Unary, o, {a}, std::move(t)); }
inline ExprPtr convert(ExprPtr a, KType t) { return op(ExprKind::Convert, Op::None, {a}, std::move(t)); }
inline ExprPtr splat(ExprPtr a, KType t) { return op(ExprKind::Splat, Op::None, {a}, std::move(t)); }
/// `col_ids` (axis 1) or `row_ids` (axis 0) of a tile of shape `t`.
inline ExprPtr ids(uint32_t axis, const KType &t) {
  Expr e = ex(ExprKind::IndexTile, KType{Elem::I32, t.shape});
  e.index = axis;
  return mk(std::move(e));
}
/// std/masks.ph's mask_cols(s, n, v) as the elaborator builds it: where(col_ids(s) < n, s, v).
inline ExprPtr maskCols(ExprPtr s, ExprPtr n, ExprPtr v, const KType &t) {
  ExprPtr c = op(ExprKind::Compare, Op::Lt, {ids(1, t), std::move(n)}, KType{Elem::Bool, t.shape});
  return op(ExprKind::Select, Op::None, {c, std::move(s), std::move(v)}, t);
}
/// std/masks.ph's causal_mask(s, row, col): where(col + col_ids(s) <= row + row_ids(s), s, -1.0e30).
inline ExprPtr causalMask(ExprPtr s, ExprPtr row, ExprPtr col, const KType &t) {
  KType it{Elem::I32, t.shape};
  ExprPtr c = op(ExprKind::Compare, Op::Le, {bin(Op::Add, std::move(col), ids(1, t), it), bin(Op::Add, std::move(row), ids(0, t), it)},
                 KType{Elem::Bool, t.shape});
  return op(ExprKind::Select, Op::None, {c, std::move(s), fc(-1.0e30, t.elem)}, t);
}
inline ExprPtr dotE(ExprPtr a, ExprPtr b, KType t, bool transB = false) {
  Expr e = ex(ExprKind::Dot, std::move(t));
  e.operands = {a, b};
  e.transB = transB;
  return mk(e);
}

inline StmtPtr decl(uint32_t var, ExprPtr value) {
  Stmt s = st(StmtKind::Decl);
  s.var = var;
  s.value = std::move(value);
  return std::make_shared<const Stmt>(std::move(s));
}
inline StmtPtr assign(uint32_t var, ExprPtr value) {
  Stmt s = st(StmtKind::Assign);
  s.var = var;
  s.value = std::move(value);
  return std::make_shared<const Stmt>(std::move(s));
}
inline StmtPtr assignSlice(uint32_t var, std::vector<Slice> slices, ExprPtr value) {
  Stmt s = st(StmtKind::AssignSlice);
  s.var = var;
  s.slices = std::move(slices);
  s.value = std::move(value);
  return std::make_shared<const Stmt>(std::move(s));
}
inline StmtPtr store(uint32_t tensor, std::vector<Slice> slices, ExprPtr value) {
  Stmt s = st(StmtKind::Store);
  s.tensor = tensor;
  s.slices = std::move(slices);
  s.value = std::move(value);
  return std::make_shared<const Stmt>(std::move(s));
}
inline StmtPtr forLoop(uint32_t var, ExprPtr lo, ExprPtr hi, ExprPtr step, std::vector<StmtPtr> body) {
  Stmt s = st(StmtKind::For);
  s.var = var;
  s.lo = std::move(lo);
  s.hi = std::move(hi);
  s.step = std::move(step);
  s.body = std::move(body);
  return std::make_shared<const Stmt>(std::move(s));
}

/// A tensor parameter whose dims are static extents (value >= 0) or sizes (-1 - sizeIndex).
inline TensorParam tensorParam(std::string name, Elem e, std::vector<int64_t> dims,
                               std::vector<std::string> syms, bool read, bool written) {
  TensorParam p;
  p.name = std::move(name);
  p.elem = e;
  for (size_t i = 0; i < dims.size(); ++i) {
    TensorDim d;
    if (dims[i] >= 0)
      d.value = dims[i];
    else
      d.size = static_cast<uint32_t>(-1 - dims[i]);
    d.sym = syms[i];
    p.dims.push_back(d);
  }
  p.read = read;
  p.written = written;
  return p;
}

inline uint32_t addVar(Kernel &k, std::string name, KType t) {
  Var v;
  v.name = std::move(name);
  v.type = std::move(t);
  k.vars.push_back(std::move(v));
  return static_cast<uint32_t>(k.vars.size() - 1);
}

} // namespace ph::kirtest
