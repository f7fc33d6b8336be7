//===- KernelIR.h - A checked, inlined, specialised kernel ------*- C++ -*-===//
//
// What the checker hands to the backends and to the fp64 interpreter: one
// kernel for one autotune configuration, every `fn` call inlined, every name
// resolved, every type concrete, implicit conversions made explicit. It is
// plain data: the backend turns it into the tile dialect without re-parsing,
// and the interpreter evaluates it without MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Source.h"
#include "ph/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ph::kir {

/// A concrete type: an element type and static extents. Empty shape = scalar.
/// Integer scalars (indices, sizes, block ids, loop counters) are I32.
struct KType {
  Elem elem = Elem::F32;
  std::vector<int64_t> shape;
  bool isScalar() const { return shape.empty(); }
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  bool operator==(const KType &) const = default;
};

enum class ExprKind {
  IntConst,   // ival (I32)
  FloatConst, // fval, of type.elem
  ScalarArg,  // index: into Kernel::scalars
  SizeArg,    // index: into Kernel::sizes (I32, bound at launch)
  BlockId,    // index: axis 0,1,2 (I32)
  VarRead,    // index: VarId; the whole variable
  TileSlice,  // index: VarId; slices of a tile variable -> tile
  TensorLoad, // index: into Kernel::tensors; slices -> tile (masked reads give 0)
  Splat,      // operands[0] scalar -> tile of `type`
  Convert,    // operands[0] converted to type.elem (round to nearest even when narrowing)
  Unary,      // op in {Neg, Abs} or a Unary builtin's op (Exp, Tanh, ...: ph/Builtins.h)
  Binary,     // op in {Add, Sub, Mul, Div, Rem, Max, Min}; operands broadcast to `type`
  Dot,        // operands a [M,K], b [K,N] (or [N,K] with transB); accumulates in type.elem
  RowReduce,  // op in {Max, Sum}; operands[0] [R,C] -> [R,1]
  ColReduce,  // op in {Max, Sum}; operands[0] [R,C] -> [1,C] (sums top to bottom)
  // The elaborator writes std/masks.ph's where for these two; hand-built kir may still use them.
  MaskCols,   // operands: tile [R,C], n (I32), value (scalar): s[i,j] = value where j >= n
  CausalMask, // operands: tile [R,C], row (I32), col (I32): s[i,j] = -1e30 where col+j > row+i
  Compare,    // op in {Lt, Le, Gt, Ge, Eq, Ne}; operands of one element type, broadcast to `type` (Bool)
  Select,     // operands: condition (Bool), a, b (of type.elem), broadcast to `type`: c ? a : b
  IndexTile,  // index: 0 (each element's row) or 1 (its column); type I32 [R,C]
};

enum class Op { None, Neg, Exp, Exp2, Log, Sqrt, Rsqrt, Abs, Add, Sub, Mul, Div, Rem, Max, Min, Sum,
                Log2, Tanh, Sigmoid, Erf, Sin, Cos, Floor,
                Lt, Le, Gt, Ge, Eq, Ne, // Compare
                And, Or, Not };         // Binary and Unary on Bool
const char *opName(Op op);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// One dimension of a slice. Range: `start :+ len`. Index: `start` alone, and
/// the dimension is dropped from the result. Full: the whole dimension
/// (start 0, len = its extent, which for a tensor may be a run-time size).
struct Slice {
  enum class Kind { Full, Range, Index } kind = Kind::Full;
  ExprPtr start;        // Range, Index (I32 scalar)
  int64_t len = 1;      // Range: static length; Full over a static extent: that extent
  /// False where the checker proved the slice stays inside the dimension
  /// (a static extent, or @aligned with a start that is a multiple of len):
  /// backends then emit no bounds check along this dimension.
  bool masked = true;
};

struct Expr {
  ExprKind kind;
  KType type;
  SourceRange loc;
  Op op = Op::None;
  int64_t ival = 0;
  double fval = 0;
  uint32_t index = 0;
  bool transB = false;            // Dot: b is [N,K]
  std::vector<ExprPtr> operands;
  std::vector<Slice> slices;      // TileSlice, TensorLoad
};

enum class StmtKind {
  Decl,       // var: a new variable `var` with initial value `value`
  Assign,     // var = value (whole variable)
  AssignSlice,// var[slices] = value (tile variable, in place)
  Store,      // tensors[tensor][slices] = value (value already converted to the tensor's elem)
  For,        // for var in range(lo, hi, step) { body }; var is I32
  If,         // if value { body } else { elseBody }; value is a Bool scalar (uniform over the CTA)
};

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

struct Stmt {
  StmtKind kind;
  SourceRange loc;
  uint32_t var = 0;               // Decl, Assign, AssignSlice, For
  uint32_t tensor = 0;            // Store
  ExprPtr value;                  // Decl, Assign, AssignSlice, Store; If: the condition
  std::vector<Slice> slices;      // AssignSlice, Store
  ExprPtr lo, hi, step;           // For (step is a positive IntConst)
  std::vector<StmtPtr> body;      // For; If: the `then` branch
  std::vector<StmtPtr> elseBody;  // If (empty without `else`)
};

struct Var {
  std::string name;     // the source name (fn locals keep theirs; not unique)
  KType type;
  bool isLet = false;
  SourceRange loc;
};

/// One dimension of a tensor parameter: a static extent or a size symbol.
struct TensorDim {
  int64_t value = -1;   // static extent (literal or autotune constant), else -1
  uint32_t size = 0;    // index into Kernel::sizes when value < 0
  std::string sym;      // as written: `Nq`, `D`, `64`
};

struct TensorParam {
  std::string name;
  Elem elem;
  std::vector<TensorDim> dims;
  bool written = false; // the kernel stores into it
  bool read = false;
};

struct ScalarParam {
  std::string name;
  Elem elem;            // F32 or I32 (F16/BF16 scalars are passed as f32)
};

/// A size symbol bound at launch from the tensors' shapes.
struct SizeSym {
  std::string name;
  int64_t alignedTo = 1; // @aligned(N = B): the launch refuses N % B != 0
};

/// grid = ceil(sizes[size] / divisor) along an axis, or a constant.
struct GridAxis {
  bool fromSize = false;
  uint32_t size = 0;
  int64_t divisor = 1;
  int64_t constant = 1;
};

/// A kernel parameter in declaration order (the ABI's order).
struct ParamRef {
  bool isTensor;
  uint32_t index; // into tensors or scalars
};

struct Kernel {
  std::string name;
  SourceRange loc;
  std::vector<std::pair<std::string, int64_t>> config; // autotune values, in @autotune order
  std::vector<ParamRef> params;
  std::vector<TensorParam> tensors;
  std::vector<ScalarParam> scalars;
  std::vector<SizeSym> sizes;
  GridAxis grid[3];
  std::string gridText[3]; // e.g. "ceil(Nq / 64)"
  int threads = 128;
  bool threadsGiven = false; // `@launch` written (else 128 by default, which the GPU target may change)
  bool tensorcore = false;
  std::vector<Var> vars;
  std::vector<StmtPtr> body;

  /// `BR=64,BC=32` (empty when there is no @autotune).
  std::string configName() const;
};

/// Prints the kernel as indented text (tests and `ph emit --stage kir`).
std::string print(const Kernel &k);

} // namespace ph::kir
