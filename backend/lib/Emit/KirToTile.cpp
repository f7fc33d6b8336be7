//===- KirToTile.cpp - A checked kir::Kernel as a tile-dialect function ----===//
//
// Variables become SSA values: an assignment rebinds the variable to a new
// value, a slice assignment to a `tile.insert` of the old one, and a `for`
// carries every variable its body assigns (declared before the loop) as an
// iter_arg, in declaration order. Nothing here depends on variable ids or
// names, so two kernels that compute the same thing in the same order (a
// call of `attention` and its body written out) print the same MLIR.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "ph/Builtins.h"
#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <map>
#include <set>

using namespace mlir;
using ph::Elem;
using ph::LineCol;
using ph::SourceFile;
using ph::SourceManager;
using ph::SourceRange;
namespace kir = ph::kir;
namespace tile = ph::tile;

namespace {

struct MaskMatch;

class Emitter {
public:
  Emitter(MLIRContext &ctx, const kir::Kernel &k, const SourceManager *sources)
      : ctx(ctx), b(&ctx), k(k), sources(sources) {}

  OwningOpRef<ModuleOp> run(std::string &err);

private:
  MLIRContext &ctx;
  OpBuilder b;
  const kir::Kernel &k;
  const SourceManager *sources;
  std::string error;

  SmallVector<Value> tensorArgs, sizeArgs, scalarArgs;
  std::map<uint32_t, Value> env;        // variable -> its current value
  std::map<uint32_t, unsigned> declSeq; // variable -> when its declaration was emitted
  unsigned nextDecl = 0;

  /// The one conversion from kir source ranges to MLIR locations.
  Location loc(SourceRange r);
  Type elemType(Elem e);
  Type typeOf(const kir::KType &t);
  Value fail(SourceRange r, const std::string &msg) {
    if (error.empty()) {
      error = msg;
      if (sources && r.file < sources->size()) {
        const SourceFile &f = sources->file(r.file);
        LineCol lc = f.lineCol(r.begin);
        error = f.path() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col) + ": " + msg;
      }
    }
    emitError(loc(r)) << msg;
    return {};
  }

  Value i32Const(Location l, int64_t v) {
    return arith::ConstantIntOp::create(b, l, b.getI32Type(), v);
  }
  Value indexConst(Location l, int64_t v) { return arith::ConstantIndexOp::create(b, l, v); }
  Value toIndex(Location l, Value v) {
    return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
  }
  /// `v` as type `t`: element conversion, then splat or broadcast of shape.
  Value coerce(Location l, Value v, Type t);

  Value expr(const kir::Expr &e);
  Value unary(const kir::Expr &e, Location l);
  Value binary(const kir::Expr &e, Location l);
  Value compare(const kir::Expr &e, Location l);
  Value select(const kir::Expr &e, Location l);
  Value maskOp(const kir::Expr &e, const MaskMatch &m, Location l);

  struct SliceOperands {
    SmallVector<Value> offsets;
    SmallVector<int64_t> lens;
    SmallVector<bool> masked, squeezed;
  };
  bool slices(const std::vector<kir::Slice> &sl, ArrayRef<int64_t> staticExtents, Location l,
              SliceOperands &out);
  SmallVector<Value> tensorExtents(const kir::TensorParam &t, Location l);
  Value tileSliceType(const SliceOperands &s, Type elem, Type &out);

  void stmts(const std::vector<kir::StmtPtr> &body);
  void stmt(const kir::Stmt &s);
  void forLoop(const kir::Stmt &s);
  void ifStmt(const kir::Stmt &s);
  /// Variables a statement list assigns that exist before it, in declaration order.
  std::vector<uint32_t> carriedVars(const std::vector<const std::vector<kir::StmtPtr> *> &bodies);
};

Location Emitter::loc(SourceRange r) {
  if (!sources || r.file >= sources->size())
    return UnknownLoc::get(&ctx);
  const SourceFile &f = sources->file(r.file);
  LineCol a = f.lineCol(r.begin), z = f.lineCol(r.end);
  return FileLineColRange::get(&ctx, f.path(), a.line, a.col, z.line, z.col);
}

Type Emitter::elemType(Elem e) {
  switch (e) {
  case Elem::F16: return b.getF16Type();
  case Elem::BF16: return b.getBF16Type();
  case Elem::F32:
  case Elem::FloatLit: return b.getF32Type();
  case Elem::I32:
  case Elem::IntLit: return b.getI32Type();
  case Elem::Bool: return b.getI1Type();
  case Elem::F8E4M3: return b.getType<Float8E4M3FNType>();
  case Elem::F8E5M2: return b.getType<Float8E5M2Type>();
  }
  return b.getF32Type();
}

Type Emitter::typeOf(const kir::KType &t) {
  Type e = elemType(t.elem);
  if (t.isScalar())
    return e;
  return RankedTensorType::get(t.shape, e);
}

Value Emitter::coerce(Location l, Value v, Type t) {
  if (!v || v.getType() == t)
    return v;
  // A slice with every dimension indexed (`Table[b, i]`) is a rank-0 tile;
  // used as a scalar it is read out with tensor.extract.
  if (auto rt = dyn_cast<RankedTensorType>(v.getType()); rt && rt.getRank() == 0 && !isa<RankedTensorType>(t))
    v = tensor::ExtractOp::create(b, l, v, ValueRange{});
  if (v.getType() == t)
    return v;
  Type from = v.getType();
  Type toElem = getElementTypeOrSelf(t);
  if (getElementTypeOrSelf(from) != toElem) {
    Type conv = toElem;
    if (auto rt = dyn_cast<RankedTensorType>(from))
      conv = RankedTensorType::get(rt.getShape(), toElem);
    v = tile::ConvertOp::create(b, l, conv, v);
  }
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || v.getType() == t)
    return v;
  if (!isa<RankedTensorType>(v.getType()))
    return tile::SplatOp::create(b, l, rt, v);
  return tile::BroadcastOp::create(b, l, rt, v);
}

SmallVector<Value> Emitter::tensorExtents(const kir::TensorParam &t, Location l) {
  SmallVector<Value> ext;
  for (const kir::TensorDim &d : t.dims)
    ext.push_back(d.value >= 0 ? indexConst(l, d.value) : toIndex(l, sizeArgs[d.size]));
  return ext;
}

bool Emitter::slices(const std::vector<kir::Slice> &sl, ArrayRef<int64_t> staticExtents,
                     Location l, SliceOperands &out) {
  for (size_t d = 0; d < sl.size(); ++d) {
    const kir::Slice &s = sl[d];
    int64_t len = s.len;
    if (s.kind == kir::Slice::Kind::Full && d < staticExtents.size() && staticExtents[d] >= 0)
      len = staticExtents[d];
    if (s.kind == kir::Slice::Kind::Index)
      len = 1;
    if (len <= 0)
      return false;
    Value off;
    if (s.kind == kir::Slice::Kind::Full) {
      off = indexConst(l, 0);
    } else {
      Value start = expr(*s.start);
      if (!start)
        return false;
      off = toIndex(l, start);
    }
    out.offsets.push_back(off);
    out.lens.push_back(len);
    out.masked.push_back(s.masked);
    out.squeezed.push_back(s.kind == kir::Slice::Kind::Index);
  }
  return true;
}

Value Emitter::tileSliceType(const SliceOperands &s, Type elem, Type &out) {
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < s.lens.size(); ++d)
    if (!s.squeezed[d])
      shape.push_back(s.lens[d]);
  out = RankedTensorType::get(shape, elem);
  return {};
}

Value Emitter::unary(const kir::Expr &e, Location l) {
  Value x = coerce(l, expr(*e.operands[0]), typeOf(e.type));
  if (!x)
    return {};
  bool isF = isa<FloatType>(getElementTypeOrSelf(x.getType()));
  switch (e.op) {
  case kir::Op::Not: // x xor true
    return arith::XOrIOp::create(b, l, x, coerce(l, arith::ConstantIntOp::create(b, l, b.getI1Type(), 1), x.getType()));
  case kir::Op::Neg:
    if (isF)
      return arith::NegFOp::create(b, l, x);
    return arith::SubIOp::create(b, l, coerce(l, i32Const(l, 0), x.getType()), x);
  case kir::Op::Abs:
    if (isF)
      return math::AbsFOp::create(b, l, x);
    return math::AbsIOp::create(b, l, x);
  default:
    break;
  }
  if (!isF)
    return fail(e.loc, std::string("`") + kir::opName(e.op) + "` of an integer value");
  // The elementwise builtins: the registry names the `math` op (math.exp,
  // math.tanh, ...), which every lowering applies elementwise.
  const ph::Builtin *bi = ph::builtinOfOp(e.op);
  if (!bi || !bi->mlirOp)
    return fail(e.loc, std::string("unknown unary op `") + kir::opName(e.op) + "`");
  OperationState st(l, bi->mlirOp, ValueRange{x}, TypeRange{x.getType()});
  return b.create(st)->getResult(0);
}

/// The source of `rowargmax(x)` as the elaborator writes it (elab/Calls.cpp, with ops every
/// kir consumer has): rowmin(where(x == rowmax(x) || x != x, col_ids(x), C)), rowmin on i32
/// being -1 - rowmax(-1 - v). Null unless `e` is exactly that tree over one `x`.
const kir::Expr *rowArgMaxSource(const kir::Expr &e) {
  auto isConst = [](const kir::ExprPtr &p, int64_t v) {
    return p && p->kind == kir::ExprKind::IntConst && p->type.isScalar() && p->ival == v;
  };
  auto flipped = [&](const kir::Expr &n) -> const kir::Expr * { // -1 - v
    if (n.kind != kir::ExprKind::Binary || n.op != kir::Op::Sub || n.operands.size() != 2 ||
        n.type.elem != Elem::I32 || !isConst(n.operands[0], -1) || !n.operands[1])
      return nullptr;
    return n.operands[1].get();
  };
  const kir::Expr *max = flipped(e);
  if (!max || max->kind != kir::ExprKind::RowReduce || max->op != kir::Op::Max || max->operands.size() != 1 ||
      e.type.shape.size() != 2 || e.type.shape[1] != 1)
    return nullptr;
  const kir::Expr *sel = flipped(*max->operands[0]);
  if (!sel || sel->kind != kir::ExprKind::Select || sel->operands.size() != 3 || sel->type.shape.size() != 2)
    return nullptr;
  const kir::ExprPtr &hit = sel->operands[0], &ids = sel->operands[1];
  if (!ids || ids->kind != kir::ExprKind::IndexTile || ids->index != 1 || ids->type.shape != sel->type.shape ||
      !isConst(sel->operands[2], sel->type.shape[1]))
    return nullptr;
  if (!hit || hit->kind != kir::ExprKind::Binary || hit->op != kir::Op::Or || hit->operands.size() != 2)
    return nullptr;
  const kir::ExprPtr &eq = hit->operands[0], &ne = hit->operands[1];
  if (!eq || eq->kind != kir::ExprKind::Compare || eq->op != kir::Op::Eq || eq->operands.size() != 2 || !ne ||
      ne->kind != kir::ExprKind::Compare || ne->op != kir::Op::Ne || ne->operands.size() != 2)
    return nullptr;
  const kir::ExprPtr &x = eq->operands[0], &m = eq->operands[1];
  if (!x || x->type.shape != sel->type.shape || ne->operands[0] != x || ne->operands[1] != x || !m ||
      m->kind != kir::ExprKind::RowReduce || m->op != kir::Op::Max || m->operands.size() != 1 || m->operands[0] != x)
    return nullptr;
  return x.get();
}

Value Emitter::binary(const kir::Expr &e, Location l) {
  // rowargmax: one reduction of (value, column) pairs on every target (tile.rowargmax).
  if (const kir::Expr *src = rowArgMaxSource(e)) {
    Value x = expr(*src);
    if (!x)
      return {};
    return tile::RowArgMaxOp::create(b, l, typeOf(e.type), x);
  }
  Type t = typeOf(e.type);
  Value x = coerce(l, expr(*e.operands[0]), t);
  Value y = coerce(l, expr(*e.operands[1]), t);
  if (!x || !y)
    return {};
  bool isF = isa<FloatType>(getElementTypeOrSelf(t));
  switch (e.op) {
  case kir::Op::Add: return isF ? arith::AddFOp::create(b, l, x, y).getResult() : arith::AddIOp::create(b, l, x, y).getResult();
  case kir::Op::Sub: return isF ? arith::SubFOp::create(b, l, x, y).getResult() : arith::SubIOp::create(b, l, x, y).getResult();
  case kir::Op::Mul: return isF ? arith::MulFOp::create(b, l, x, y).getResult() : arith::MulIOp::create(b, l, x, y).getResult();
  case kir::Op::Div: return isF ? arith::DivFOp::create(b, l, x, y).getResult() : arith::DivSIOp::create(b, l, x, y).getResult();
  case kir::Op::Rem: return isF ? arith::RemFOp::create(b, l, x, y).getResult() : arith::RemSIOp::create(b, l, x, y).getResult();
  case kir::Op::Max: return isF ? arith::MaximumFOp::create(b, l, x, y).getResult() : arith::MaxSIOp::create(b, l, x, y).getResult();
  case kir::Op::Min: return isF ? arith::MinimumFOp::create(b, l, x, y).getResult() : arith::MinSIOp::create(b, l, x, y).getResult();
  case kir::Op::And: return arith::AndIOp::create(b, l, x, y).getResult();
  case kir::Op::Or: return arith::OrIOp::create(b, l, x, y).getResult();
  default: return fail(e.loc, std::string("unknown binary op `") + kir::opName(e.op) + "`");
  }
}

/// `a < b` and the others: arith.cmpf (ordered) or arith.cmpi (signed), which
/// every lowering applies elementwise like any arith op.
Value Emitter::compare(const kir::Expr &e, Location l) {
  kir::KType operand = e.operands[0]->type;
  operand.shape = e.type.shape;
  Type t = typeOf(operand);
  Value x = coerce(l, expr(*e.operands[0]), t);
  Value y = coerce(l, expr(*e.operands[1]), t);
  if (!x || !y)
    return {};
  if (isa<FloatType>(getElementTypeOrSelf(t))) {
    arith::CmpFPredicate p = e.op == kir::Op::Lt ? arith::CmpFPredicate::OLT : e.op == kir::Op::Le ? arith::CmpFPredicate::OLE
                             : e.op == kir::Op::Gt ? arith::CmpFPredicate::OGT : e.op == kir::Op::Ge ? arith::CmpFPredicate::OGE
                             : e.op == kir::Op::Eq ? arith::CmpFPredicate::OEQ : arith::CmpFPredicate::UNE;
    return arith::CmpFOp::create(b, l, p, x, y);
  }
  arith::CmpIPredicate p = e.op == kir::Op::Lt ? arith::CmpIPredicate::slt : e.op == kir::Op::Le ? arith::CmpIPredicate::sle
                           : e.op == kir::Op::Gt ? arith::CmpIPredicate::sgt : e.op == kir::Op::Ge ? arith::CmpIPredicate::sge
                           : e.op == kir::Op::Eq ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ne;
  return arith::CmpIOp::create(b, l, p, x, y);
}

/// `col_ids(t)` (axis 1) or `row_ids(t)` (axis 0) over exactly `shape`.
bool isIds(const kir::ExprPtr &e, uint32_t axis, const std::vector<int64_t> &shape) {
  return e && e->kind == kir::ExprKind::IndexTile && e->index == axis && e->type.shape == shape;
}
bool isIntScalar(const kir::ExprPtr &e) { return e && e->type.isScalar() && e->type.elem == Elem::I32; }
/// `ids`, `off + ids` or `ids + off` with `off` an i32 scalar: sets `off` (null for none).
bool offsetIds(const kir::ExprPtr &e, uint32_t axis, const std::vector<int64_t> &shape, kir::ExprPtr &off) {
  off = nullptr;
  if (isIds(e, axis, shape))
    return true;
  if (!e || e->kind != kir::ExprKind::Binary || e->op != kir::Op::Add || e->operands.size() != 2)
    return false;
  for (int i = 0; i < 2; ++i)
    if (isIds(e->operands[i], axis, shape) && isIntScalar(e->operands[1 - i])) {
      off = e->operands[1 - i];
      return true;
    }
  return false;
}

/// The masks of std/masks.ph, recognised in a `where`:
///   where(col_ids(s) < n, s, v)                              -> tile.mask_cols s, n, v
///   where(col + col_ids(s) <= row + row_ids(s), s, -1.0e30)  -> tile.causal_mask s, row, col
/// and the mirrored comparisons (`n > col_ids(s)`, `row + row_ids(s) >= col + col_ids(s)`).
/// Every target lowers a mask op without index tiles, and the tensor-core path runs it only
/// on the key blocks it changes, so the seed's kernels compile to the MLIR they did when the
/// masks were builtins.
struct MaskMatch {
  bool causal = false;
  kir::ExprPtr s, n, v;        // mask_cols
  kir::ExprPtr row, col;       // causal_mask (null: 0)
};
bool matchMask(const kir::Expr &e, MaskMatch &m) {
  if (e.operands.size() != 3 || e.type.shape.size() != 2)
    return false;
  const kir::ExprPtr &c = e.operands[0], &a = e.operands[1], &v = e.operands[2];
  if (!c || c->kind != kir::ExprKind::Compare || c->operands.size() != 2 || c->type.shape != e.type.shape ||
      !a || a->type != e.type || !v || !v->type.isScalar())
    return false;
  const std::vector<int64_t> &shape = e.type.shape;
  const kir::ExprPtr &x = c->operands[0], &y = c->operands[1];
  m.s = a;
  if (c->op == kir::Op::Lt && isIds(x, 1, shape) && isIntScalar(y))
    m.n = y;
  else if (c->op == kir::Op::Gt && isIntScalar(x) && isIds(y, 1, shape))
    m.n = x;
  if (m.n) {
    m.v = v;
    return true;
  }
  if (v->kind != kir::ExprKind::FloatConst || v->fval != -1.0e30 || !ph::isFloat(e.type.elem))
    return false;
  m.causal = true;
  if (c->op == kir::Op::Le)
    return offsetIds(x, 1, shape, m.col) && offsetIds(y, 0, shape, m.row);
  if (c->op == kir::Op::Ge)
    return offsetIds(x, 0, shape, m.row) && offsetIds(y, 1, shape, m.col);
  return false;
}

/// A matched mask, its operands emitted in the mask op's order (s, then n, v or row, col).
Value Emitter::maskOp(const kir::Expr &e, const MaskMatch &m, Location l) {
  Type t = typeOf(e.type);
  Value s = coerce(l, expr(*m.s), t);
  if (!s)
    return {};
  auto int32 = [&](const kir::ExprPtr &x) { return x ? coerce(l, expr(*x), b.getI32Type()) : i32Const(l, 0); };
  if (!m.causal) {
    Value n = int32(m.n);
    Value v = n ? coerce(l, expr(*m.v), getElementTypeOrSelf(t)) : Value();
    if (!v)
      return {};
    return tile::MaskColsOp::create(b, l, t, s, n, v);
  }
  Value row = int32(m.row);
  Value col = row ? int32(m.col) : Value();
  if (!col)
    return {};
  return tile::CausalMaskOp::create(b, l, t, s, row, col);
}

/// `where(c, a, b)`: a mask op when it is one of std/masks.ph's (maskOp), else arith.select
/// on operands broadcast to the result's shape.
Value Emitter::select(const kir::Expr &e, Location l) {
  if (MaskMatch m; matchMask(e, m))
    return maskOp(e, m, l);
  kir::KType cond = e.operands[0]->type;
  cond.shape = e.type.shape;
  Value c = coerce(l, expr(*e.operands[0]), typeOf(cond));
  Value x = coerce(l, expr(*e.operands[1]), typeOf(e.type));
  Value y = coerce(l, expr(*e.operands[2]), typeOf(e.type));
  if (!c || !x || !y)
    return {};
  return arith::SelectOp::create(b, l, c, x, y);
}

Value Emitter::expr(const kir::Expr &e) {
  Location l = loc(e.loc);
  Type t = typeOf(e.type);
  switch (e.kind) {
  case kir::ExprKind::IntConst:
    return coerce(l, i32Const(l, e.ival), t);
  case kir::ExprKind::FloatConst: {
    Type elem = getElementTypeOrSelf(t);
    Value c = isa<FloatType>(elem)
                  ? arith::ConstantOp::create(b, l, elem, b.getFloatAttr(elem, e.fval)).getResult()
                  : i32Const(l, (int64_t)e.fval);
    return coerce(l, c, t);
  }
  case kir::ExprKind::ScalarArg:
    if (e.index >= scalarArgs.size())
      return fail(e.loc, "scalar argument index out of range");
    return coerce(l, scalarArgs[e.index], t);
  case kir::ExprKind::SizeArg:
    if (e.index >= sizeArgs.size())
      return fail(e.loc, "size index out of range");
    return coerce(l, sizeArgs[e.index], t);
  case kir::ExprKind::BlockId:
    return coerce(l, tile::BlockIdOp::create(b, l, b.getI32Type(), b.getI32IntegerAttr(e.index)), t);
  case kir::ExprKind::VarRead: {
    auto it = env.find(e.index);
    if (it == env.end())
      return fail(e.loc, "read of a variable before its declaration");
    return coerce(l, it->second, t);
  }
  case kir::ExprKind::TileSlice: {
    auto it = env.find(e.index);
    if (it == env.end())
      return fail(e.loc, "slice of a variable before its declaration");
    auto src = dyn_cast<RankedTensorType>(it->second.getType());
    if (!src)
      return fail(e.loc, "slice of a scalar");
    SliceOperands s;
    if (!slices(e.slices, src.getShape(), l, s))
      return fail(e.loc, "slice without a static length");
    Type rt;
    tileSliceType(s, src.getElementType(), rt);
    Value v = tile::ExtractOp::create(b, l, rt, it->second, s.offsets, b.getDenseI64ArrayAttr(s.lens),
                                      b.getDenseBoolArrayAttr(s.squeezed));
    return coerce(l, v, t);
  }
  case kir::ExprKind::TensorLoad: {
    if (e.index >= k.tensors.size())
      return fail(e.loc, "tensor index out of range");
    const kir::TensorParam &tp = k.tensors[e.index];
    SmallVector<int64_t> st;
    for (const kir::TensorDim &d : tp.dims)
      st.push_back(d.value);
    SliceOperands s;
    if (!slices(e.slices, st, l, s))
      return fail(e.loc, "a load needs a static length along every dimension");
    SmallVector<Value> ext = tensorExtents(tp, l);
    Type rt;
    tileSliceType(s, elemType(tp.elem), rt);
    Value v = tile::LoadOp::create(b, l, rt, tensorArgs[e.index], s.offsets, ext,
                                   b.getDenseI64ArrayAttr(s.lens), b.getDenseBoolArrayAttr(s.masked),
                                   b.getDenseBoolArrayAttr(s.squeezed));
    return coerce(l, v, t);
  }
  case kir::ExprKind::Splat:
  case kir::ExprKind::Convert:
    return coerce(l, expr(*e.operands[0]), t);
  case kir::ExprKind::Unary:
    return unary(e, l);
  case kir::ExprKind::Compare:
    return compare(e, l);
  case kir::ExprKind::Select:
    return select(e, l);
  case kir::ExprKind::IndexTile:
    return tile::IotaOp::create(b, l, typeOf(e.type), b.getI32IntegerAttr(static_cast<int32_t>(e.index)));
  case kir::ExprKind::Binary:
    return binary(e, l);
  case kir::ExprKind::Dot: {
    Value a = expr(*e.operands[0]), c = expr(*e.operands[1]);
    if (!a || !c)
      return {};
    auto dot = tile::DotOp::create(b, l, t, a, c);
    if (e.transB)
      dot.setTransB(true);
    return dot;
  }
  case kir::ExprKind::RowReduce: {
    Value x = expr(*e.operands[0]);
    if (!x)
      return {};
    if (e.op == kir::Op::Max)
      return tile::RowMaxOp::create(b, l, t, x);
    return tile::RowSumOp::create(b, l, t, x);
  }
  case kir::ExprKind::ColReduce: {
    Value x = expr(*e.operands[0]);
    if (!x)
      return {};
    if (e.op == kir::Op::Max)
      return tile::ColMaxOp::create(b, l, t, x);
    return tile::ColSumOp::create(b, l, t, x);
  }
  // Hand-built kir may still hold the mask kinds; the elaborator writes std/masks.ph's
  // `where` instead, which select() raises to the same ops.
  case kir::ExprKind::MaskCols: {
    Value s = coerce(l, expr(*e.operands[0]), t);
    Value n = coerce(l, expr(*e.operands[1]), b.getI32Type());
    Value v = coerce(l, expr(*e.operands[2]), getElementTypeOrSelf(t));
    if (!s || !n || !v)
      return {};
    return tile::MaskColsOp::create(b, l, s.getType(), s, n, v);
  }
  case kir::ExprKind::CausalMask: {
    Value s = coerce(l, expr(*e.operands[0]), t);
    Value row = coerce(l, expr(*e.operands[1]), b.getI32Type());
    Value col = coerce(l, expr(*e.operands[2]), b.getI32Type());
    if (!s || !row || !col)
      return {};
    return tile::CausalMaskOp::create(b, l, s.getType(), s, row, col);
  }
  }
  return fail(e.loc, "unknown expression kind");
}

/// Variables a statement list assigns (whole or in slices), at any depth.
void collectAssigned(const std::vector<kir::StmtPtr> &body, std::set<uint32_t> &out) {
  for (const kir::StmtPtr &s : body) {
    if (s->kind == kir::StmtKind::Assign || s->kind == kir::StmtKind::AssignSlice)
      out.insert(s->var);
    if (s->kind == kir::StmtKind::For || s->kind == kir::StmtKind::If)
      collectAssigned(s->body, out);
    if (s->kind == kir::StmtKind::If)
      collectAssigned(s->elseBody, out);
  }
}

std::vector<uint32_t> Emitter::carriedVars(const std::vector<const std::vector<kir::StmtPtr> *> &bodies) {
  std::set<uint32_t> assigned;
  for (auto *b : bodies)
    collectAssigned(*b, assigned);
  std::vector<uint32_t> carried;
  for (uint32_t v : assigned)
    if (env.count(v))
      carried.push_back(v);
  std::sort(carried.begin(), carried.end(),
            [&](uint32_t x, uint32_t y) { return declSeq[x] < declSeq[y]; });
  return carried;
}

/// `if c { } else { }` as scf.if: every variable a branch assigns (and that
/// exists before the `if`) is a result, yielded by both branches in
/// declaration order, as `for` carries its iter_args.
void Emitter::ifStmt(const kir::Stmt &s) {
  Location l = loc(s.loc);
  Value c = coerce(l, expr(*s.value), b.getI1Type());
  if (!c)
    return;
  std::vector<uint32_t> carried = carriedVars({&s.body, &s.elseBody});
  SmallVector<Type> types;
  for (uint32_t v : carried)
    types.push_back(env[v].getType());
  bool withElse = !carried.empty() || !s.elseBody.empty();
  auto ifOp = scf::IfOp::create(b, l, types, c, withElse);
  std::map<uint32_t, Value> outer = env;
  auto branch = [&](Region &r, const std::vector<kir::StmtPtr> &body) {
    Block &blk = r.front();
    if (blk.mightHaveTerminator())
      b.setInsertionPoint(blk.getTerminator());
    else
      b.setInsertionPointToEnd(&blk);
    env = outer;
    stmts(body);
    if (!carried.empty()) {
      SmallVector<Value> yields;
      for (uint32_t v : carried)
        yields.push_back(env[v]);
      scf::YieldOp::create(b, l, yields);
    }
  };
  branch(ifOp.getThenRegion(), s.body);
  if (withElse)
    branch(ifOp.getElseRegion(), s.elseBody);
  env = std::move(outer);
  for (size_t i = 0; i < carried.size(); ++i)
    env[carried[i]] = ifOp.getResult(i);
  b.setInsertionPointAfter(ifOp);
}

void Emitter::forLoop(const kir::Stmt &s) {
  Location l = loc(s.loc);
  Value lo = coerce(l, expr(*s.lo), b.getI32Type());
  Value hi = coerce(l, expr(*s.hi), b.getI32Type());
  Value step = coerce(l, expr(*s.step), b.getI32Type());
  if (!lo || !hi || !step)
    return;
  // Loop-carried: assigned in the body and alive before it, in declaration order.
  std::set<uint32_t> assigned;
  collectAssigned(s.body, assigned);
  std::vector<uint32_t> carried;
  for (uint32_t v : assigned)
    if (env.count(v))
      carried.push_back(v);
  std::sort(carried.begin(), carried.end(),
            [&](uint32_t x, uint32_t y) { return declSeq[x] < declSeq[y]; });
  SmallVector<Value> inits;
  for (uint32_t v : carried)
    inits.push_back(env[v]);

  auto forOp = scf::ForOp::create(b, l, lo, hi, step, inits);
  std::map<uint32_t, Value> outer = env;
  Block *body = forOp.getBody();
  if (body->mightHaveTerminator())
    b.setInsertionPoint(body->getTerminator());
  else
    b.setInsertionPointToEnd(body);
  env[s.var] = forOp.getInductionVar();
  declSeq[s.var] = nextDecl++;
  for (size_t i = 0; i < carried.size(); ++i)
    env[carried[i]] = forOp.getRegionIterArgs()[i];
  stmts(s.body);
  if (!carried.empty()) {
    SmallVector<Value> yields;
    for (uint32_t v : carried)
      yields.push_back(env[v]);
    scf::YieldOp::create(b, l, yields);
  }
  env = std::move(outer);
  for (size_t i = 0; i < carried.size(); ++i)
    env[carried[i]] = forOp.getResult(i);
  b.setInsertionPointAfter(forOp);
}

void Emitter::stmt(const kir::Stmt &s) {
  Location l = loc(s.loc);
  switch (s.kind) {
  case kir::StmtKind::Decl:
  case kir::StmtKind::Assign: {
    if (s.var >= k.vars.size()) {
      fail(s.loc, "variable index out of range");
      return;
    }
    Value v = coerce(l, expr(*s.value), typeOf(k.vars[s.var].type));
    if (!v)
      return;
    if (s.kind == kir::StmtKind::Decl || !declSeq.count(s.var))
      declSeq[s.var] = nextDecl++;
    env[s.var] = v;
    return;
  }
  case kir::StmtKind::AssignSlice: {
    auto it = env.find(s.var);
    if (it == env.end()) {
      fail(s.loc, "slice assignment to a variable before its declaration");
      return;
    }
    auto dest = dyn_cast<RankedTensorType>(it->second.getType());
    SliceOperands so;
    if (!dest || !slices(s.slices, dest.getShape(), l, so)) {
      fail(s.loc, "slice assignment needs a tile and static lengths");
      return;
    }
    Type vt;
    tileSliceType(so, dest.getElementType(), vt);
    Value v = coerce(l, expr(*s.value), vt);
    if (!v)
      return;
    it->second = tile::InsertOp::create(b, l, dest, v, it->second, so.offsets,
                                        b.getDenseI64ArrayAttr(so.lens),
                                        b.getDenseBoolArrayAttr(so.squeezed));
    return;
  }
  case kir::StmtKind::Store: {
    if (s.tensor >= k.tensors.size()) {
      fail(s.loc, "tensor index out of range");
      return;
    }
    const kir::TensorParam &tp = k.tensors[s.tensor];
    SmallVector<int64_t> st;
    for (const kir::TensorDim &d : tp.dims)
      st.push_back(d.value);
    SliceOperands so;
    if (!slices(s.slices, st, l, so)) {
      fail(s.loc, "a store needs a static length along every dimension");
      return;
    }
    SmallVector<Value> ext = tensorExtents(tp, l);
    Type vt;
    tileSliceType(so, elemType(tp.elem), vt);
    Value v = coerce(l, expr(*s.value), vt);
    if (!v)
      return;
    tile::StoreOp::create(b, l, v, tensorArgs[s.tensor], so.offsets, ext,
                          b.getDenseI64ArrayAttr(so.lens), b.getDenseBoolArrayAttr(so.masked),
                          b.getDenseBoolArrayAttr(so.squeezed));
    return;
  }
  case kir::StmtKind::For:
    forLoop(s);
    return;
  case kir::StmtKind::If:
    ifStmt(s);
    return;
  }
}

void Emitter::stmts(const std::vector<kir::StmtPtr> &body) {
  for (const kir::StmtPtr &s : body) {
    if (!error.empty())
      return;
    stmt(*s);
  }
}

OwningOpRef<ModuleOp> Emitter::run(std::string &err) {
  Location kl = loc(k.loc);
  OwningOpRef<ModuleOp> module = ModuleOp::create(kl);
  b.setInsertionPointToEnd(module->getBody());
  // The ABI (docs/abi.md): tensors, then sizes, then scalars.
  SmallVector<Type> args;
  for (const kir::TensorParam &t : k.tensors)
    args.push_back(tile::PtrType::get(&ctx, elemType(t.elem)));
  for (size_t i = 0; i < k.sizes.size(); ++i)
    args.push_back(b.getI32Type());
  for (const kir::ScalarParam &s : k.scalars)
    args.push_back(elemType(s.elem == Elem::I32 ? Elem::I32 : Elem::F32));
  auto f = func::FuncOp::create(b, kl, k.name, b.getFunctionType(args, {}));
  f->setAttr(ph::tile::kThreadsAttr, b.getI32IntegerAttr(k.threads));
  if (k.threadsGiven) f->setAttr(ph::tile::kLaunchAttr, b.getUnitAttr());
  if (k.tensorcore)
    f->setAttr(ph::tile::kTensorcoreAttr, b.getUnitAttr());
  Block *entry = f.addEntryBlock();
  size_t a = 0;
  for (size_t i = 0; i < k.tensors.size(); ++i)
    tensorArgs.push_back(entry->getArgument(a++));
  // `@aligned(N = B)`: the launch refuses N % B != 0, so the GPU lowering may
  // vectorise accesses along N (Triton's tt.divisibility), one entry per argument
  // (1: nothing known). A function attribute, not argument attributes: lowerings
  // that add arguments (the CPU target's block ids) keep it valid.
  SmallVector<int64_t> divisibility(args.size(), 1);
  bool anyAligned = false;
  for (size_t i = 0; i < k.sizes.size(); ++i)
    if (k.sizes[i].alignedTo > 1) {
      divisibility[k.tensors.size() + i] = k.sizes[i].alignedTo;
      anyAligned = true;
    }
  if (anyAligned)
    f->setAttr(ph::tile::kDivisibilityAttr, b.getDenseI64ArrayAttr(divisibility));
  for (size_t i = 0; i < k.sizes.size(); ++i)
    sizeArgs.push_back(entry->getArgument(a++));
  for (size_t i = 0; i < k.scalars.size(); ++i)
    scalarArgs.push_back(entry->getArgument(a++));
  b.setInsertionPointToStart(entry);
  stmts(k.body);
  func::ReturnOp::create(b, kl);
  if (!error.empty()) {
    err = error;
    return nullptr;
  }
  return module;
}

} // namespace

OwningOpRef<ModuleOp> ph::backend::kirToTile(MLIRContext &ctx, const kir::Kernel &k,
                                             const SourceManager *sources, std::string &err) {
  ctx.getOrLoadDialect<tile::TileDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
  ctx.getOrLoadDialect<arith::ArithDialect>();
  ctx.getOrLoadDialect<math::MathDialect>();
  ctx.getOrLoadDialect<scf::SCFDialect>();
  ctx.getOrLoadDialect<tensor::TensorDialect>();
  Emitter em(ctx, k, sources);
  OwningOpRef<ModuleOp> m;
  {
    // Errors are reported through `err`, not printed.
    ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return success(); });
    m = em.run(err);
  }
  if (!m)
    return nullptr;
  if (!runPipeline(*m, [](OpPassManager &pm) {
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      }, err))
    return nullptr;
  return m;
}
