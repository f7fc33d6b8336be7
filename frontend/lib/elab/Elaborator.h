//===- Elaborator.h - The elaborator's state, shared by its parts -*- C++ -*-===//
//
// Specialises each kernel for each autotune configuration: walks the body with
// every name bound (by reference, for `fn` parameters), computes the type and
// shape of every expression, inlines every call at its call site, infers the
// grid, and builds the kir::Kernel that the backends and the interpreter run.
// An error inside a `fn` body carries a note naming each call that led there.
//
// One class, its members defined by job, as Carbon's toolchain/check/ splits
// its checker: Kernel.cpp (set-up, autotune), Statements.cpp, Expressions.cpp
// (and integer facts), Calls.cpp (builtins, inlining), Slices.cpp (slices,
// masks), Grid.cpp (`@grid`, its facts about ctx.block, grid inference).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "../CheckerState.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <set>

namespace ph::check::elab {

using namespace ast;
using kir::ExprPtr;
using KExpr = kir::Expr;
using KStmt = kir::Stmt;

/// What is known about an integer value at compile time.
// A field added here must be added to the inline cache's key too (InlineCache.cpp, inlineKey:
// a structured binding over every field there stops the build until it is).
struct IntFacts {
  std::optional<int64_t> c;  // its value
  int64_t div = 1;           // a divisor of it (0 when it is 0)
  // -1: no block id in it (then value = offset); -2: not affine in block ids, or unknown (the default:
  // a producer that knows nothing, `i32(x)` of a float or a scalar `where`, must not read as 0);
  // else value = coef*block[axis] + offset.
  int axis = -2;
  int64_t coef = 0, offset = 0;
  int loopVar = -1;          // exactly this loop variable
  int extentSize = -1;       // exactly the run-time size `sizes[extentSize]`
  int64_t extentStatic = -1; // exactly this static extent, from extent()
  int quotSize = -1;          // exactly sizes[quotSize] / quotBy (quotBy > 0)
  int64_t quotBy = 0;
  int leSize = -1;            // in [0, sizes[leSize]]: `extent(T, d) / k * k`, whole blocks of a size
  // With axis >= 0: the block counted from the end, value = coef*(G - 1 - block[axis]) + offset,
  // G `@grid`'s extent along the axis. G - 1 - block runs over [0, G) as the block id does, so
  // every rule about the block's range holds for it (gqa_prefill's `row`; Elaborator::binary).
  bool mirror = false;
  int sumSize = -1;           // exactly sizes[sumSize] + sumPlus (`N + BR - 1`)
  int64_t sumPlus = 0;
  int ceilSize = -1;          // exactly ceil(sizes[ceilSize] / ceilBy) + ceilPlus (`(N + BR - 1) / BR`)
  int64_t ceilBy = 0, ceilPlus = 0;
};

struct Val {
  Type type;              // Error, Void, Scalar, Tile, Tensor
  ExprPtr expr;           // Scalar and Tile values
  int tensor = -1;        // Tensor: the parameter
  std::vector<kir::Slice> slices; // a slice of a tensor still to load (set only for bindings)
  IntFacts ints;
  bool fromDot = false;
  bool isDot = false;     // the expression is a dot/dot_t call itself
  bool isError() const { return type.isError(); }
};

/// What a name means while elaborating one frame.
struct Binding {
  enum class Kind { Var, Tensor, TensorSlice, TileSlice, Value, Error } kind = Kind::Error;
  uint32_t var = 0;
  int tensor = -1;
  std::vector<kir::Slice> slices; // TensorSlice, TileSlice
  Type type;                      // the value's type (slices: the slice's)
  Val value;                      // Value: constants, scalar parameters, sizes, temporaries
  bool isLet = false;
  std::string what;               // for messages: "the kernel parameter `scale`"
};

struct Frame {
  const Decl *decl;
  SourceRange callRange;          // where this frame's fn was called (empty for the kernel)
  std::unordered_map<uint32_t, Binding> bindings; // by symbol
};

struct GridCandidate {
  int size = -1;          // run-time size index, or -1 for a static extent
  int64_t extent = -1;    // static extent
  int64_t divisor = 1;
  std::string sym, divSym;
  SourceRange where;
};

struct LoopInfo {
  int64_t loDiv = 1, step = 1;
  int hiSize = -1;
  int64_t hiStatic = -1;
  // The end when it is whole blocks of a size (`extent(T, d) / k * k`, IntFacts::leSize) and a
  // divisor of it; loNonNeg: the start is known to be >= 0 (Elaborator::nonNegative).
  int hiLeSize = -1;
  int64_t hiDiv = 1;
  bool loNonNeg = false;
};

struct InlineAliases; // InlineCache.h

inline int64_t gcd64(int64_t a, int64_t b) { return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b); }
class Elaborator {
public:
  Elaborator(State &st, const Decl &kernel, size_t configIndex, std::vector<std::pair<std::string, int64_t>> config)
      : st_(st), decl_(kernel), configIndex_(configIndex), config_(std::move(config)) {}

  std::shared_ptr<kir::Kernel> run();
  bool failed() const { return errors_ > 0; }

private:
  State &st_;
  const Decl &decl_;
  size_t configIndex_;
  std::vector<std::pair<std::string, int64_t>> config_;
  std::shared_ptr<kir::Kernel> k_;
  std::vector<Frame> frames_;
  std::vector<Type> varTypes_;     // symbolic types of kir vars
  std::vector<bool> varFromDot_;
  std::vector<uint32_t> varSymbol_;
  std::unordered_map<uint32_t, IntFacts> letInts_; // what is known of integer `let`s (immutable)
  std::unordered_map<uint32_t, LoopInfo> loops_;
  std::vector<std::vector<GridCandidate>> gridCands_ = std::vector<std::vector<GridCandidate>>(3);
  SourceRange axisUse_[3];
  bool axisUsed_[3] = {false, false, false};
  size_t errors_ = 0;
  bool tensorcore_ = false;
  bool explicitGrid_ = false; // @grid given: the grid is not inferred from the slices
  // @grid's axis a was read before the body (explicitGrid): ctx.block.a is below k_->grid[a]'s
  // extent, ceil(sizes[size] / divisor) or the constant, at every launch (Launch.cpp computes it
  // from the same GridAxis). An axis whose expression failed stays unknown.
  bool gridKnown_[3] = {false, false, false};

  // --- Diagnostics -------------------------------------------------------------
  Diagnostic &report(DiagKind kind, SourceRange r, std::vector<std::string> args) {
    Diagnostic &d = st_.diags.report(kind, r, std::move(args));
    if (d.severity == Severity::Error) ++errors_;
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->callRange.end > 0)
        d.notes.push_back({it->callRange, "in the call to `" + it->decl->name.name + "` here"});
    return d;
  }
  std::string text(SourceRange r) const { return st_.text(r); }
  Frame &frame() { return frames_.back(); }

  // --- Recording facts for the editor -----------------------------------------
  void recordExpr(const Expr &e, const Type &t) {
    if (!st_.options.editorFacts || t.isError() || t.kind == Type::Kind::Void || e.range.file < st_.factsFrom) return;
    if (e.range.file >= st_.exprFactIndex.size() || e.id >= st_.exprFactIndex[e.range.file].size()) return;
    uint32_t &index = st_.exprFactIndex[e.range.file][e.id];
    if (index == UINT32_MAX) {
      index = static_cast<uint32_t>(st_.A.exprFacts.size());
      st_.A.exprFacts.push_back({e.range, t.symbolic(), {}});
    }
    ExprFact &f = st_.A.exprFacts[index];
    if (f.typeConcrete.size() == configIndex_) f.typeConcrete.push_back(t.isScalar() ? t.symbolic() : t.concreteShape());
  }
  /// Where a tile lives is the backend's to say (`ph build`'s placements, shown on
  /// hover after a compile): the checker records its type and size only.
  void recordSymbolType(uint32_t sym, const Type &t) {
    if (sym == UINT32_MAX || t.isError()) return;
    // A seed symbol (std's, or a builtin std names) is never a variable of the item's.
    if (sym < st_.baseCount) return;
    Symbol &s = st_.ownSymbol(sym);
    if (s.typeConcrete.size() != configIndex_ || s.def.file < st_.factsFrom) return;
    if (s.typeSymbolic.empty() || s.kind == SymbolKind::Local || s.kind == SymbolKind::Parameter) {
      if (configIndex_ == 0 || s.typeSymbolic.empty()) s.typeSymbolic = t.symbolic();
    }
    s.typeConcrete.push_back(t.isScalar() ? t.symbolic() : t.concreteShape());
    if (t.isTile() && configIndex_ == 0) s.bytes = t.bytes();
    if (s.kind == SymbolKind::Local || (s.kind == SymbolKind::Parameter && s.container != UINT32_MAX &&
                                        st_.symbol(s.container).kind == SymbolKind::Function)) {
      // In place: the string the resolver left has room (a few temporaries per
      // variable and configuration otherwise).
      s.signature.clear();
      s.signature += s.kind == SymbolKind::Local ? (s.isLet ? "let " : "var ") : "param ";
      s.signature += s.name;
      s.signature += ": ";
      s.signature += s.typeSymbolic;
    }
  }
  // --- KIR construction helpers -----------------------------------------------
  /// The kir type of `t`. Without `specialise` (the editor, `ph check`) the kernel is
  /// dropped once checked and nothing reads its shapes: they are left empty.
  kir::KType ktype(const Type &t) const {
    kir::KType k;
    k.elem = t.elem == Elem::IntLit ? Elem::I32 : t.elem == Elem::FloatLit ? Elem::F32 : t.elem;
    if (t.isTile() && st_.options.specialise) {
      k.shape.reserve(t.dims.size());
      for (auto &d : t.dims) k.shape.push_back(d.value);
    }
    return k;
  }
  std::shared_ptr<KExpr> node(kir::ExprKind kind, const Type &t, SourceRange loc) const {
    auto e = std::make_shared<KExpr>();
    e->kind = kind;
    e->type = ktype(t);
    e->loc = loc;
    return e;
  }
  Val intConst(int64_t v, SourceRange loc) {
    Val r;
    r.type = Type::scalar(Elem::I32);
    auto e = node(kir::ExprKind::IntConst, r.type, loc);
    e->ival = v;
    r.expr = e;
    r.ints.c = v;
    r.ints.div = v;
    r.ints.axis = -1;
    r.ints.offset = v;
    return r;
  }
  Val errorVal() { return Val{}; }
  void emit(std::vector<kir::StmtPtr> &out, std::shared_ptr<KStmt> s) { out.push_back(std::move(s)); }

  /// Converts a scalar or tile to element type `to` (literals are retyped).
  Val convert(Val v, Elem to, SourceRange loc);
  // --- Expressions ---------------------------------------------------------------
  Val expr(const Expr &e, std::optional<Elem> accumulate = std::nullopt);
  Val exprInner(const Expr &e, std::optional<Elem> accumulate);
  Val name(const Expr &e);
  Val readBinding(const Binding &b, SourceRange loc);
  Val member(const Expr &e);
  Val binary(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc, const char *verb);
  /// `a - b` as the block counted from the end (IntFacts::mirror) where a is `@grid`'s extent
  /// along b's axis plus a constant and b that block id plus a constant: into r.
  void mirrorBlock(const IntFacts &a, const IntFacts &b, IntFacts &r) const;
  /// Sets f.leSize where f, affine in a block id of `@grid`, is known to be in [0, N].
  void blockWithinSize(IntFacts &f) const;
  Val compare(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc);
  /// Reports a condition (a `bool` value) where a number is needed; true if it did.
  bool rejectBool(const Val &v, SourceRange loc, const std::string &verb);
  Val logic(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc);
  Val call(const Expr &e, std::optional<Elem> accumulate);
  Val builtinCall(const Expr &e, const Builtin &bi, std::optional<Elem> accumulate);
  ExprPtr rowMin(ExprPtr x, const Type &t, SourceRange loc);
  Val index(const Expr &e);
  /// Slices a tensor (or a view of one). With `view`, a `:` over a run-time
  /// size is allowed: the result is a view to slice further, not a tile.
  bool sliceTensor(int tensor, const std::vector<kir::Slice> *outer, const Expr &e, std::vector<kir::Slice> &slices,
                   std::vector<Dim> &dims, bool view = false);
  bool sliceTile(const Type &t, const Expr &e, std::vector<kir::Slice> &slices, std::vector<Dim> &dims);
  bool sliceLength(const SliceItem &it, const Expr &e, int64_t &len, std::string &lenSym);
  std::optional<int64_t> constInt(const Expr &e, const std::string &what, std::string *sym = nullptr);
  Val intExpr(const Expr &e, const char *what);
  const Binding *bindingOf(const Expr &e);
  bool sameShape(const Type &a, const Type &b) const;
  bool maskNeeded(const kir::TensorDim &dim, const Val &start, int64_t len, bool isIndex);
  /// Whether every block of `@grid`'s axis stays inside `dim` with `ctx.block.axis * len :+ len`
  /// (len 1: the index `ctx.block.axis`), whose length divides the dimension's alignment.
  bool gridInside(int axis, const kir::TensorDim &dim, int64_t len) const;
  /// Known >= 0: a constant >= 0, a size, an affine block id with coefficient and offset >= 0,
  /// or a loop variable whose loop starts at such a value.
  bool nonNegative(const IntFacts &f) const;

  // --- Statements ----------------------------------------------------------------
  void stmts(const std::vector<StmtPtr> &body, std::vector<kir::StmtPtr> &out);
  void stmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void letStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void assignStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void forStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void ifStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void inlineCall(const Expr &call, const Decl &fn, std::vector<kir::StmtPtr> &out);
  /// Elaborates `fn`'s body in frame `nf`, or replays a cached elaboration of it
  /// (InlineCache.h: a prelude fn, without `specialise`).
  void inlineBody(const Decl &fn, Frame nf, std::vector<kir::StmtPtr> &out);
  /// Everything `fn`'s body can read when it runs in `nf` here; `al` gets the caller's
  /// variables and tensors the key names, in order of first appearance.
  std::string inlineKey(const Decl &fn, const Frame &nf, InlineAliases &al);
  Type declaredType(const TypeExpr &t);
  uint32_t newVar(const std::string &name, const Type &t, bool isLet, SourceRange loc, uint32_t sym);
  /// Assigns `v` to a whole variable, checking shape and narrowing.
  void assignVar(uint32_t var, Val v, SourceRange valueRange, SourceRange targetRange, std::vector<kir::StmtPtr> &out);
  void storeSlice(const Binding &target, std::vector<kir::Slice> slices, std::vector<Dim> dims, Val v,
                  SourceRange valueRange, SourceRange targetRange, std::vector<kir::StmtPtr> &out);
  std::vector<kir::StmtPtr> *out_ = nullptr; // where calls in expressions emit their statements

  // --- Kernel setup --------------------------------------------------------------
  bool setupParams();
  /// Reads `@grid(...)` into k_->grid before the body, so that its extents are facts there.
  void explicitGrid();
  void inferGrid();
};


} // namespace ph::check::elab
