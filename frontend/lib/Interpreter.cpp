//===- Interpreter.cpp - The reference interpreter of kir -----------------===//
//
// Values are dense row-major arrays of doubles with a shape (rank 0 for a
// scalar); each float operation's result is rounded to its type, as on the
// targets (docs/language.md, "Precision"). Each expression node computes a whole tile at once, so the cost is
// in the arithmetic, not in walking the tree. Errors are thrown internally and
// returned as one message at the top.
//
//===----------------------------------------------------------------------===//
#include "ph/Interpreter.h"
#include "ph/Builtins.h"

#include "ph/Source.h"

#include <cmath>
#include <limits>
#include <sstream>

using namespace ph;
using namespace ph::kir;

namespace {

struct Value {
  std::vector<int64_t> shape;
  std::vector<double> data;

  static Value scalar(double v) { return {{}, {v}}; }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

struct InterpError {
  std::string message;
  SourceRange loc;
};

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

int64_t product(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Wraps to a signed 32-bit integer, as the targets' i32 arithmetic does.
double wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

double nanMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}
double nanMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}

/// One dimension of a slice, evaluated.
struct DimMap {
  int64_t start, len, extent, stride;
  bool keep, masked;
};

class Interp {
public:
  Interp(const Kernel &k, const LaunchArgs &args, const InterpOptions &opt)
      : k_(k), args_(args), opt_(opt) {}

  void runCta(int64_t x, int64_t y, int64_t z) {
    block_[0] = x;
    block_[1] = y;
    block_[2] = z;
    vars_.assign(k_.vars.size(), Value{});
    defined_.assign(k_.vars.size(), false);
    iterations_ = 0;
    for (const StmtPtr &s : k_.body)
      exec(*s);
  }

private:
  [[noreturn]] void fail(SourceRange loc, std::string msg) { throw InterpError{std::move(msg), loc}; }

  const Value &var(uint32_t id, SourceRange loc) {
    if (id >= vars_.size())
      fail(loc, "variable id " + std::to_string(id) + " is out of range");
    if (!defined_[id])
      fail(loc, "`" + k_.vars[id].name + "` is read before it is assigned");
    return vars_[id];
  }

  HostTensor &tensor(uint32_t id, SourceRange loc) {
    if (id >= args_.tensors.size() || !args_.tensors[id])
      fail(loc, "tensor id " + std::to_string(id) + " is not bound");
    return *args_.tensors[id];
  }

  int64_t evalInt(const ExprPtr &e, SourceRange loc) {
    if (!e)
      fail(loc, "missing integer operand");
    Value v = eval(*e);
    if (v.size() != 1)
      fail(e->loc, "expected a scalar index, found a tile " + shapeStr(v.shape));
    double d = v.data[0];
    if (!std::isfinite(d))
      fail(e->loc, "index is not finite");
    return static_cast<int64_t>(std::trunc(d));
  }

  /// Numpy-style broadcast (right-aligned; a dimension of 1 or a missing one stretches).
  Value broadcast(Value v, const std::vector<int64_t> &shape, SourceRange loc) {
    if (v.shape == shape)
      return v;
    if (v.shape.size() > shape.size())
      fail(loc, "cannot broadcast " + shapeStr(v.shape) + " to " + shapeStr(shape));
    size_t off = shape.size() - v.shape.size();
    std::vector<int64_t> srcStride(shape.size(), 0);
    int64_t st = 1;
    for (size_t i = v.shape.size(); i-- > 0;) {
      int64_t d = v.shape[i];
      if (d != shape[i + off] && d != 1)
        fail(loc, "cannot broadcast " + shapeStr(v.shape) + " to " + shapeStr(shape));
      srcStride[i + off] = d == 1 ? 0 : st;
      st *= d;
    }
    Value r;
    r.shape = shape;
    int64_t n = product(shape);
    r.data.resize(n);
    std::vector<int64_t> idx(shape.size(), 0);
    int64_t src = 0;
    for (int64_t i = 0; i < n; ++i) {
      r.data[i] = v.data[src];
      // Odometer step, keeping the source offset in sync.
      for (size_t d = shape.size(); d-- > 0;) {
        src += srcStride[d];
        if (++idx[d] < shape[d])
          break;
        src -= srcStride[d] * idx[d];
        idx[d] = 0;
      }
    }
    return r;
  }

  /// Evaluates the slices against a base of `extents`; `outShape` gets the kept dims.
  std::vector<DimMap> mapSlices(const std::vector<Slice> &slices, const std::vector<int64_t> &extents,
                                SourceRange loc, const std::string &what, std::vector<int64_t> &outShape) {
    if (slices.size() != extents.size())
      fail(loc, what + " has rank " + std::to_string(extents.size()) + " but the slice has " +
                    std::to_string(slices.size()) + " index(es)");
    std::vector<DimMap> dims(extents.size());
    int64_t stride = 1;
    for (size_t d = extents.size(); d-- > 0;) {
      const Slice &s = slices[d];
      DimMap &m = dims[d];
      m.extent = extents[d];
      m.stride = stride;
      stride *= extents[d];
      m.masked = s.masked;
      switch (s.kind) {
      case Slice::Kind::Full:
        m.start = 0;
        m.len = extents[d];
        m.keep = true;
        break;
      case Slice::Kind::Range:
        m.start = evalInt(s.start, loc);
        m.len = s.len;
        m.keep = true;
        break;
      case Slice::Kind::Index:
        m.start = evalInt(s.start, loc);
        m.len = 1;
        m.keep = false;
        break;
      }
    }
    outShape.clear();
    for (const DimMap &m : dims)
      if (m.keep)
        outShape.push_back(m.len);
    return dims;
  }

  /// Calls f(outIndex, baseFlat or -1 when masked off) for every element of a slice.
  /// An unmasked dimension out of range is an error when `strict`; tiles are always strict.
  template <typename F>
  void forEachSliced(const std::vector<DimMap> &dims, SourceRange loc, const std::string &what,
                     const char *access, bool isTensor, F f) {
    int64_t n = 1;
    for (const DimMap &m : dims)
      n *= m.len;
    if (n == 0)
      return;
    std::vector<int64_t> idx(dims.size(), 0);
    for (int64_t o = 0; o < n; ++o) {
      int64_t flat = 0;
      bool inRange = true;
      for (size_t d = 0; d < dims.size(); ++d) {
        const DimMap &m = dims[d];
        int64_t pos = m.start + idx[d];
        if (pos < 0 || pos >= m.extent) {
          if (!isTensor || !m.masked)
            fail(loc, std::string(isTensor ? "unmasked " : "") + access + " of " + what +
                          " out of range: index " + std::to_string(pos) + " along dimension " +
                          std::to_string(d) + " (extent " + std::to_string(m.extent) + ")" +
                          (isTensor ? "; the checker marked this dimension as in bounds" : ""));
          inRange = false;
        }
        flat += pos * m.stride;
      }
      f(o, inRange ? flat : -1);
      for (size_t d = dims.size(); d-- > 0;) {
        if (++idx[d] < dims[d].len)
          break;
        idx[d] = 0;
      }
    }
  }

  void checkType(const Expr &e, const std::vector<int64_t> &shape) {
    if (shape != e.type.shape)
      fail(e.loc, "evaluated shape " + shapeStr(shape) + " differs from the checked type " +
                      shapeStr(e.type.shape));
  }

  Value eval(const Expr &e) {
    switch (e.kind) {
    case ExprKind::IntConst:
      return filled(e, static_cast<double>(e.ival));
    case ExprKind::FloatConst:
      return filled(e, roundToElem(e.fval, e.type.elem));
    case ExprKind::ScalarArg: {
      if (e.index >= args_.scalars.size() || e.index >= k_.scalars.size())
        fail(e.loc, "scalar argument " + std::to_string(e.index) + " is not bound");
      return filled(e, roundToElem(args_.scalars[e.index], k_.scalars[e.index].elem));
    }
    case ExprKind::SizeArg:
      if (e.index >= args_.sizes.size())
        fail(e.loc, "size " + std::to_string(e.index) + " is not bound");
      return filled(e, static_cast<double>(args_.sizes[e.index]));
    case ExprKind::BlockId:
      if (e.index > 2)
        fail(e.loc, "block axis " + std::to_string(e.index) + " does not exist");
      return filled(e, static_cast<double>(block_[e.index]));
    case ExprKind::VarRead: {
      Value v = var(e.index, e.loc);
      checkType(e, v.shape);
      return v;
    }
    case ExprKind::TileSlice: {
      const Value &base = var(e.index, e.loc);
      std::vector<int64_t> shape;
      std::string what = "tile `" + k_.vars[e.index].name + "`";
      auto dims = mapSlices(e.slices, base.shape, e.loc, what, shape);
      checkType(e, shape);
      Value r{shape, std::vector<double>(product(shape))};
      forEachSliced(dims, e.loc, what, "slice", false,
                    [&](int64_t o, int64_t flat) { r.data[o] = base.data[flat]; });
      return r;
    }
    case ExprKind::TensorLoad: {
      HostTensor &t = tensor(e.index, e.loc);
      std::vector<int64_t> shape;
      std::string what = "`" + k_.tensors[e.index].name + "`";
      auto dims = mapSlices(e.slices, t.shape, e.loc, what, shape);
      checkType(e, shape);
      Value r{shape, std::vector<double>(product(shape))};
      // Loads of 16-bit types are exact conversions: HostTensor::get decodes.
      forEachSliced(dims, e.loc, what, "load", true,
                    [&](int64_t o, int64_t flat) { r.data[o] = flat < 0 ? 0.0 : t.get(flat); });
      return r;
    }
    case ExprKind::Splat: {
      Value v = operand(e, 0);
      if (v.size() != 1)
        fail(e.loc, "splat of a non-scalar " + shapeStr(v.shape));
      return filled(e, v.data[0]);
    }
    case ExprKind::Convert: {
      Value v = operand(e, 0);
      checkType(e, v.shape);
      for (double &x : v.data)
        x = roundToElem(x, e.type.elem);
      return v;
    }
    case ExprKind::Compare: {
      Value a = broadcast(operand(e, 0), e.type.shape, e.loc);
      Value b = broadcast(operand(e, 1), e.type.shape, e.loc);
      for (size_t i = 0; i < a.data.size(); ++i) {
        double x = a.data[i], y = b.data[i];
        bool r = e.op == Op::Lt ? x < y : e.op == Op::Le ? x <= y : e.op == Op::Gt ? x > y
                 : e.op == Op::Ge ? x >= y : e.op == Op::Eq ? x == y : x != y;
        a.data[i] = r ? 1.0 : 0.0;
      }
      return a;
    }
    case ExprKind::Select: {
      Value c = broadcast(operand(e, 0), e.type.shape, e.loc);
      Value a = broadcast(operand(e, 1), e.type.shape, e.loc);
      Value b = broadcast(operand(e, 2), e.type.shape, e.loc);
      for (size_t i = 0; i < a.data.size(); ++i)
        if (c.data[i] == 0.0) a.data[i] = b.data[i];
      return a;
    }
    case ExprKind::IndexTile: {
      Value v = filled(e, 0.0);
      if (v.shape.size() != 2) fail(e.loc, "an index tile needs a 2-D shape, found " + shapeStr(v.shape));
      for (int64_t i = 0; i < v.shape[0]; ++i)
        for (int64_t j = 0; j < v.shape[1]; ++j) v.data[i * v.shape[1] + j] = static_cast<double>(e.index ? j : i);
      return v;
    }
    case ExprKind::Unary:
      return unary(e);
    case ExprKind::Binary:
      return binary(e);
    case ExprKind::Dot:
      return dot(e);
    case ExprKind::RowReduce: {
      Value v = operand(e, 0);
      if (v.shape.size() != 2)
        fail(e.loc, std::string(opName(e.op)) + " needs a 2-D tile, found " + shapeStr(v.shape));
      int64_t R = v.shape[0], C = v.shape[1];
      Value r{{R, 1}, std::vector<double>(R)};
      // `rowsum` adds left to right, each partial sum rounded to f32 (the CPU
      // target's order): a sum that cancels (decode_combine's denominators on random
      // inputs) is then the same here and there, not just close. A 16-bit sum
      // accumulates in f32 as every target does, and is rounded once (roundResult).
      bool roundSteps = e.op == Op::Sum && e.type.elem != Elem::I32;
      for (int64_t i = 0; i < R; ++i) {
        double acc = e.op == Op::Max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t j = 0; j < C; ++j) {
          double x = v.data[i * C + j];
          acc = e.op == Op::Max ? nanMax(acc, x) : acc + x;
          if (roundSteps)
            acc = roundToElem(acc, Elem::F32);
        }
        r.data[i] = acc;
      }
      if (e.op != Op::Max && e.op != Op::Sum)
        fail(e.loc, std::string("unknown row reduction `") + opName(e.op) + "`");
      roundResult(e, r);
      checkType(e, r.shape);
      return r;
    }
    case ExprKind::ColReduce: {
      Value v = operand(e, 0);
      if (v.shape.size() != 2)
        fail(e.loc, std::string(opName(e.op)) + " needs a 2-D tile, found " + shapeStr(v.shape));
      if (e.op != Op::Max && e.op != Op::Sum)
        fail(e.loc, std::string("unknown column reduction `") + opName(e.op) + "`");
      int64_t R = v.shape[0], C = v.shape[1];
      Value r{{1, C}, std::vector<double>(C)};
      // Top to bottom, each partial sum rounded to f32 (the CPU target's order; a
      // 16-bit sum is rounded to its type once, at the end, as on every target).
      bool roundSteps = e.op == Op::Sum && e.type.elem != Elem::I32;
      for (int64_t j = 0; j < C; ++j) {
        double acc = e.op == Op::Max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t i = 0; i < R; ++i) {
          double x = v.data[i * C + j];
          acc = e.op == Op::Max ? nanMax(acc, x) : acc + x;
          if (roundSteps)
            acc = roundToElem(acc, Elem::F32);
        }
        r.data[j] = acc;
      }
      roundResult(e, r);
      checkType(e, r.shape);
      return r;
    }
    case ExprKind::MaskCols:
    case ExprKind::CausalMask: {
      if (e.operands.size() != 3)
        fail(e.loc, "mask needs 3 operands");
      Value s = operand(e, 0);
      if (s.shape.size() != 2)
        fail(e.loc, "mask needs a 2-D tile, found " + shapeStr(s.shape));
      int64_t R = s.shape[0], C = s.shape[1];
      if (e.kind == ExprKind::MaskCols) {
        int64_t n = evalInt(e.operands[1], e.loc);
        Value fillV = operand(e, 2);
        if (fillV.size() != 1)
          fail(e.loc, "`mask_cols` value must be a scalar");
        double fill = roundToElem(fillV.data[0], e.type.elem);
        for (int64_t i = 0; i < R; ++i)
          for (int64_t j = std::max<int64_t>(n, 0); j < C; ++j)
            s.data[i * C + j] = fill;
      } else {
        int64_t row = evalInt(e.operands[1], e.loc);
        int64_t col = evalInt(e.operands[2], e.loc);
        for (int64_t i = 0; i < R; ++i)
          for (int64_t j = 0; j < C; ++j)
            if (col + j > row + i)
              s.data[i * C + j] = -1.0e30;
      }
      checkType(e, s.shape);
      return s;
    }
    }
    fail(e.loc, "unknown expression kind");
  }

  Value operand(const Expr &e, size_t i) {
    if (i >= e.operands.size() || !e.operands[i])
      fail(e.loc, "missing operand " + std::to_string(i));
    return eval(*e.operands[i]);
  }

  Value filled(const Expr &e, double v) {
    return {e.type.shape, std::vector<double>(product(e.type.shape), v)};
  }

  Value unary(const Expr &e) {
    Value v = operand(e, 0);
    checkType(e, v.shape);
    bool isInt = e.type.elem == Elem::I32;
    const Builtin *bi = builtinOfOp(e.op);
    double (*fn)(double) = bi ? bi->eval : nullptr;
    for (double &x : v.data) {
      switch (e.op) {
      case Op::Neg: x = isInt ? wrap32(-static_cast<int64_t>(x)) : -x; break;
      case Op::Not: x = x == 0.0 ? 1.0 : 0.0; break;
      case Op::Abs: x = isInt ? wrap32(std::llabs(static_cast<int64_t>(x))) : std::fabs(x); break;
      default:
        // The elementwise builtins: their fp64 function is in the registry.
        if (!fn) fail(e.loc, std::string("unknown unary operation `") + opName(e.op) + "`");
        x = fn(x);
      }
    }
    roundResult(e, v);
    return v;
  }

  /// Float arithmetic rounds each result to its type, as the targets do
  /// (docs/language.md, "Precision"): an f16, bf16 or f32 operation is computed
  /// exactly (here in fp64) and rounded once to nearest even. `dot` sums in fp64
  /// (the targets' orders differ) and rounds the sum once.
  static void roundResult(const Expr &e, Value &v) {
    if (e.type.elem != Elem::F16 && e.type.elem != Elem::BF16 && e.type.elem != Elem::F32)
      return;
    for (double &x : v.data)
      x = roundToElem(x, e.type.elem);
  }

  Value binary(const Expr &e) {
    Value a = broadcast(operand(e, 0), e.type.shape, e.loc);
    Value b = broadcast(operand(e, 1), e.type.shape, e.loc);
    bool isInt = e.type.elem == Elem::I32;
    int64_t n = a.size();
    for (int64_t i = 0; i < n; ++i) {
      double x = a.data[i], y = b.data[i];
      double r = 0;
      if (e.op == Op::And || e.op == Op::Or) {
        r = (e.op == Op::And ? (x != 0.0 && y != 0.0) : (x != 0.0 || y != 0.0)) ? 1.0 : 0.0;
      } else if (isInt) {
        int64_t p = static_cast<int64_t>(x), q = static_cast<int64_t>(y);
        switch (e.op) {
        case Op::Add: r = wrap32(p + q); break;
        case Op::Sub: r = wrap32(p - q); break;
        case Op::Mul: r = wrap32(p * q); break;
        case Op::Div:
        case Op::Rem:
          if (q == 0)
            fail(e.loc, "integer division by zero");
          // C++ integer division truncates toward zero, as C and the targets do.
          r = wrap32(e.op == Op::Div ? p / q : p % q);
          break;
        case Op::Max: r = std::max(p, q); break;
        case Op::Min: r = std::min(p, q); break;
        default: fail(e.loc, std::string("unknown binary operation `") + opName(e.op) + "`");
        }
      } else {
        switch (e.op) {
        case Op::Add: r = x + y; break;
        case Op::Sub: r = x - y; break;
        case Op::Mul: r = x * y; break;
        case Op::Div: r = x / y; break;
        case Op::Rem: r = std::fmod(x, y); break;
        case Op::Max: r = nanMax(x, y); break;
        case Op::Min: r = nanMin(x, y); break;
        default: fail(e.loc, std::string("unknown binary operation `") + opName(e.op) + "`");
        }
      }
      a.data[i] = r;
    }
    roundResult(e, a);
    return a;
  }

  Value dot(const Expr &e) {
    Value a = operand(e, 0), b = operand(e, 1);
    if (a.shape.size() != 2 || b.shape.size() != 2)
      fail(e.loc, "dot needs 2-D tiles, found " + shapeStr(a.shape) + " and " + shapeStr(b.shape));
    int64_t M = a.shape[0], K = a.shape[1];
    int64_t N = e.transB ? b.shape[0] : b.shape[1];
    int64_t Kb = e.transB ? b.shape[1] : b.shape[0];
    if (K != Kb)
      fail(e.loc, std::string(e.transB ? "dot_t" : "dot") + " of " + shapeStr(a.shape) + " and " +
                      shapeStr(b.shape) + ": inner dimensions differ");
    Value r{{M, N}, std::vector<double>(M * N, 0.0)};
    for (int64_t i = 0; i < M; ++i) {
      double *out = &r.data[i * N];
      for (int64_t kk = 0; kk < K; ++kk) {
        double av = a.data[i * K + kk];
        if (e.transB)
          for (int64_t j = 0; j < N; ++j)
            out[j] += av * b.data[j * K + kk];
        else
          for (int64_t j = 0; j < N; ++j)
            out[j] += av * b.data[kk * N + j];
      }
    }
    if (e.type.elem == Elem::I32)
      for (double &x : r.data)
        x = wrap32(static_cast<int64_t>(x));
    roundResult(e, r);
    checkType(e, r.shape);
    return r;
  }

  /// A value assigned to a whole variable: the checked shape, scalars broadcast.
  Value fitVar(uint32_t id, Value v, SourceRange loc) {
    if (id >= k_.vars.size())
      fail(loc, "variable id " + std::to_string(id) + " is out of range");
    const KType &t = k_.vars[id].type;
    if (v.shape != t.shape) {
      if (v.size() != 1)
        fail(loc, "cannot assign a value of shape " + shapeStr(v.shape) + " to `" + k_.vars[id].name +
                      "` of shape " + shapeStr(t.shape));
      v = broadcast(std::move(v), t.shape, loc);
    }
    return v;
  }

  void exec(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Decl:
    case StmtKind::Assign: {
      if (!s.value)
        fail(s.loc, "assignment without a value");
      Value v = fitVar(s.var, eval(*s.value), s.loc);
      vars_[s.var] = std::move(v);
      defined_[s.var] = true;
      return;
    }
    case StmtKind::AssignSlice: {
      Value v = eval(*s.value);
      if (s.var >= vars_.size())
        fail(s.loc, "variable id out of range");
      var(s.var, s.loc); // must already hold a value
      Value &base = vars_[s.var];
      std::vector<int64_t> shape;
      std::string what = "tile `" + k_.vars[s.var].name + "`";
      auto dims = mapSlices(s.slices, base.shape, s.loc, what, shape);
      v = broadcast(std::move(v), shape, s.loc);
      forEachSliced(dims, s.loc, what, "slice assignment", false,
                    [&](int64_t o, int64_t flat) { base.data[flat] = v.data[o]; });
      return;
    }
    case StmtKind::Store: {
      Value v = eval(*s.value);
      HostTensor &t = tensor(s.tensor, s.loc);
      std::vector<int64_t> shape;
      std::string what = "`" + k_.tensors[s.tensor].name + "`";
      auto dims = mapSlices(s.slices, t.shape, s.loc, what, shape);
      v = broadcast(std::move(v), shape, s.loc);
      // HostTensor::set rounds to the tensor's type (nearest even).
      forEachSliced(dims, s.loc, what, "store", true, [&](int64_t o, int64_t flat) {
        if (flat >= 0)
          t.set(flat, v.data[o]);
      });
      return;
    }
    case StmtKind::For: {
      int64_t lo = evalInt(s.lo, s.loc), hi = evalInt(s.hi, s.loc), step = evalInt(s.step, s.loc);
      if (step <= 0)
        fail(s.loc, "`range` step must be positive, found " + std::to_string(step));
      if (s.var >= vars_.size())
        fail(s.loc, "loop variable id out of range");
      for (int64_t i = lo; i < hi; i += step) {
        if (opt_.maxIterations > 0 && ++iterations_ > opt_.maxIterations)
          fail(s.loc, "more than " + std::to_string(opt_.maxIterations) + " loop iterations in one CTA");
        vars_[s.var] = Value::scalar(static_cast<double>(i));
        defined_[s.var] = true;
        for (const StmtPtr &b : s.body)
          exec(*b);
      }
      return;
    }
    case StmtKind::If: {
      if (!s.value || !s.value->type.isScalar())
        fail(s.loc, "`if` needs a scalar condition");
      Value c = eval(*s.value);
      for (const StmtPtr &b : c.data.at(0) != 0.0 ? s.body : s.elseBody)
        exec(*b);
      return;
    }
    }
    fail(s.loc, "unknown statement kind");
  }

  const Kernel &k_;
  const LaunchArgs &args_;
  const InterpOptions &opt_;
  std::vector<Value> vars_;
  std::vector<bool> defined_;
  int64_t block_[3] = {0, 0, 0};
  int64_t iterations_ = 0;
};

} // namespace

std::string ph::interpret(const Kernel &k, const LaunchArgs &args, const InterpOptions &options) {
  if (args.tensors.size() != k.tensors.size())
    return "interpreter: the launch binds " + std::to_string(args.tensors.size()) + " tensors, but `" +
           k.name + "` has " + std::to_string(k.tensors.size());
  Interp in(k, args, options);
  int64_t x = 0, y = 0, z = 0;
  try {
    for (z = 0; z < args.grid[2]; ++z)
      for (y = 0; y < args.grid[1]; ++y)
        for (x = 0; x < args.grid[0]; ++x)
          in.runCta(x, y, z);
  } catch (const InterpError &err) {
    std::string where;
    if (options.sources && err.loc.file < options.sources->size() && err.loc.end > 0) {
      const SourceFile &f = options.sources->file(err.loc.file);
      LineCol lc = f.lineCol(err.loc.begin);
      where = f.path() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col) + ": ";
    }
    return where + "interpreter: " + err.message + " (kernel `" + k.name + "`, CTA (" + std::to_string(x) +
           ", " + std::to_string(y) + ", " + std::to_string(z) + "))";
  }
  return "";
}
