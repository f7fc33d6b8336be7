//===- Elaborator.cpp - Types, shapes, inlining and kir::Kernels ------------===//
//
// Specialises each kernel for each autotune configuration: walks the body with
// every name bound (by reference, for `fn` parameters), computes the type and
// shape of every expression, inlines every call at its call site, infers the
// grid, and builds the kir::Kernel that the backends and the interpreter run.
// An error inside a `fn` body carries a note naming each call that led there.
//
//===----------------------------------------------------------------------===//
#include "CheckerState.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <set>

namespace ph::check {
namespace {

using namespace ast;
using kir::ExprPtr;
using KExpr = kir::Expr;
using KStmt = kir::Stmt;

/// What is known about an integer value at compile time.
struct IntFacts {
  std::optional<int64_t> c;  // its value
  int64_t div = 1;           // a divisor of it (0 when it is 0)
  int axis = -1;             // -1: no block id in it; -2: not affine in block ids; else value = coef*block[axis] + offset
  int64_t coef = 0, offset = 0;
  int loopVar = -1;          // exactly this loop variable
  int extentSize = -1;       // exactly the run-time size `sizes[extentSize]`
  int64_t extentStatic = -1; // exactly this static extent, from extent()
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
};

int64_t gcd64(int64_t a, int64_t b) { return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b); }

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
  bool explicitGrid_ = false; // @grid: slices of ctx.block are not known to stay inside

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
    if (!st_.options.editorFacts || t.isError() || t.kind == Type::Kind::Void) return;
    if (e.range.file >= st_.exprFactIndex.size() || e.id >= st_.exprFactIndex[e.range.file].size()) return;
    uint32_t &index = st_.exprFactIndex[e.range.file][e.id];
    if (index == UINT32_MAX) {
      index = static_cast<uint32_t>(st_.A.exprFacts.size());
      st_.A.exprFacts.push_back({e.range, t.symbolic(), {}});
    }
    ExprFact &f = st_.A.exprFacts[index];
    if (f.typeConcrete.size() == configIndex_) f.typeConcrete.push_back(t.isScalar() ? t.symbolic() : t.concreteShape());
  }
  void recordSymbolType(uint32_t sym, const Type &t, bool registers) {
    if (sym == UINT32_MAX || t.isError()) return;
    Symbol &s = st_.A.symbols[sym];
    if (s.typeConcrete.size() != configIndex_) return;
    if (s.typeSymbolic.empty() || s.kind == SymbolKind::Local || s.kind == SymbolKind::Parameter) {
      if (configIndex_ == 0 || s.typeSymbolic.empty()) s.typeSymbolic = t.symbolic();
    }
    s.typeConcrete.push_back(t.isScalar() ? t.symbolic() : t.concreteShape());
    if (t.isTile()) {
      s.memory = registers ? "registers" : "shared memory";
      if (configIndex_ == 0) s.bytes = t.bytes();
    }
    if (s.kind == SymbolKind::Local || (s.kind == SymbolKind::Parameter && s.container != UINT32_MAX &&
                                        st_.A.symbols[s.container].kind == SymbolKind::Function))
      s.signature = (s.kind == SymbolKind::Local ? std::string(s.isLet ? "let " : "var ") : std::string("param ")) +
                    s.name + ": " + s.typeSymbolic;
  }
  // --- KIR construction helpers -----------------------------------------------
  static kir::KType ktype(const Type &t) {
    kir::KType k;
    k.elem = t.elem == Elem::IntLit ? Elem::I32 : t.elem == Elem::FloatLit ? Elem::F32 : t.elem;
    if (t.isTile())
      for (auto &d : t.dims) k.shape.push_back(d.value);
    return k;
  }
  static std::shared_ptr<KExpr> node(kir::ExprKind kind, const Type &t, SourceRange loc) {
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
    r.ints.offset = v;
    return r;
  }
  Val errorVal() { return Val{}; }
  void emit(std::vector<kir::StmtPtr> &out, std::shared_ptr<KStmt> s) { out.push_back(std::move(s)); }

  /// Converts a scalar or tile to element type `to` (literals are retyped).
  Val convert(Val v, Elem to, SourceRange loc) {
    if (v.isError() || !v.expr) return v;
    Elem from = v.type.elem;
    if (from == to) return v;
    if (v.expr->kind == kir::ExprKind::FloatConst || v.expr->kind == kir::ExprKind::IntConst) {
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

  // --- Expressions ---------------------------------------------------------------
  Val expr(const Expr &e, std::optional<Elem> accumulate = std::nullopt);
  Val exprInner(const Expr &e, std::optional<Elem> accumulate);
  Val name(const Expr &e);
  Val readBinding(const Binding &b, SourceRange loc);
  Val member(const Expr &e);
  Val binary(const Expr &e, kir::Op op, Val a, Val b, SourceRange loc, const char *verb);
  Val call(const Expr &e, std::optional<Elem> accumulate);
  Val builtinCall(const Expr &e, const std::string &n, std::optional<Elem> accumulate);
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

  // --- Statements ----------------------------------------------------------------
  void stmts(const std::vector<StmtPtr> &body, std::vector<kir::StmtPtr> &out);
  void stmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void letStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void assignStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void forStmt(const Stmt &s, std::vector<kir::StmtPtr> &out);
  void inlineCall(const Expr &call, const Decl &fn, std::vector<kir::StmtPtr> &out);
  Type declaredType(const TypeExpr &t);
  uint32_t newVar(const std::string &name, const Type &t, bool isLet, SourceRange loc, uint32_t sym);
  /// Assigns `v` to a whole variable, checking shape and narrowing.
  void assignVar(uint32_t var, Val v, SourceRange valueRange, SourceRange targetRange, std::vector<kir::StmtPtr> &out);
  void storeSlice(const Binding &target, std::vector<kir::Slice> slices, std::vector<Dim> dims, Val v,
                  SourceRange valueRange, SourceRange targetRange, std::vector<kir::StmtPtr> &out);
  std::vector<kir::StmtPtr> *out_ = nullptr; // where calls in expressions emit their statements

  // --- Kernel setup --------------------------------------------------------------
  bool setupParams();
  void inferGrid();
};

//===----------------------------------------------------------------------===//
// Kernel setup
//===----------------------------------------------------------------------===//

bool Elaborator::setupParams() {
  k_ = std::make_shared<kir::Kernel>();
  k_->name = decl_.name.name;
  k_->loc = decl_.range;
  k_->config = config_;
  const KernelDecorators &kd = st_.decorators[&decl_];
  k_->threads = kd.threads;
  k_->tensorcore = tensorcore_ = kd.tensorcore;
  explicitGrid_ = kd.grid != nullptr;
  frames_.push_back(Frame{&decl_, {}, {}});
  // Autotune constants.
  for (size_t ai = 0; ai < kd.autotune.size(); ++ai) {
    const ast::Ident &id = kd.autotune[ai].first;
    uint32_t symbol = st_.autotuneSymbols[&decl_][ai];
    if (symbol == UINT32_MAX) continue;
    {
      {
        Binding b;
        b.kind = Binding::Kind::Value;
        int64_t v = 0;
        for (auto &[n, val] : config_)
          if (n == id.name) v = val;
        b.value = intConst(v, id.range);
        b.type = b.value.type;
        b.isLet = true;
        b.what = "the autotune constant `" + id.name + "`";
        frame().bindings[symbol] = b;
        st_.A.symbols[symbol].typeConcrete.resize(configIndex_);
        st_.A.symbols[symbol].typeConcrete.push_back(std::to_string(v));
      }
    }
  }
  // Size symbols, in order of first appearance in the parameters' shapes.
  std::unordered_map<uint32_t, uint32_t> sizeOfSymbol;
  for (const Param &p : decl_.params) {
    if (!p.type) continue;
    auto ps = st_.paramSymbol.find(&p);
    if (ps == st_.paramSymbol.end()) continue;
    Elem elem = Elem::F32;
    bool elemOk = p.type->elem.valid() && parseElem(p.type->elem.name, elem);
    if (!elemOk) return false;
    if (p.type->kind == TypeExpr::Kind::Scalar) {
      if (elem == Elem::F16 || elem == Elem::BF16) elem = Elem::F32; // passed as f32
      kir::ScalarParam sp{p.name.name, elem};
      k_->params.push_back({false, static_cast<uint32_t>(k_->scalars.size())});
      Binding b;
      b.kind = Binding::Kind::Value;
      b.value.type = Type::scalar(elem);
      auto e = node(kir::ExprKind::ScalarArg, b.value.type, p.name.range);
      e->index = static_cast<uint32_t>(k_->scalars.size());
      b.value.expr = e;
      b.value.ints.axis = -2;
      b.type = b.value.type;
      b.isLet = true;
      b.what = "the kernel parameter `" + p.name.name + "`";
      k_->scalars.push_back(sp);
      frame().bindings[ps->second] = b;
      recordSymbolType(ps->second, b.type, false);
      continue;
    }
    if (p.type->kind == TypeExpr::Kind::Tile) {
      report(DiagKind::TypeMismatch, p.type->range, {"a `tensor<T>[...]` or a scalar type for a kernel parameter",
                                                      text(p.type->range)});
      return false;
    }
    if (p.type->kind != TypeExpr::Kind::Tensor) return false;
    kir::TensorParam tp;
    tp.name = p.name.name;
    tp.elem = elem;
    std::vector<Dim> dims;
    for (auto &d : p.type->dims) {
      kir::TensorDim td;
      td.sym = text(d->range);
      if (d->kind == ExprKind::IntLit) {
        if (d->intValue <= 0) {
          report(DiagKind::BadExtent, d->range, {"`" + p.name.name + "`", std::to_string(d->intValue)});
          return false;
        }
        td.value = d->intValue;
      } else if (d->kind == ExprKind::Name) {
        uint32_t dimSym = st_.symbolOf(d.get());
        if (dimSym == UINT32_MAX) return false;
        const Symbol &sym = st_.A.symbols[dimSym];
        if (sym.kind == SymbolKind::AutotuneParam) {
          td.value = *frame().bindings[dimSym].value.ints.c;
        } else if (sym.kind == SymbolKind::SizeSymbol) {
          auto it = sizeOfSymbol.find(dimSym);
          if (it == sizeOfSymbol.end()) {
            kir::SizeSym ss{sym.name, 1};
            for (auto &[id, expr] : kd.aligned)
              if (id.name == sym.name) {
                auto v = constInt(*expr, "the block of `@aligned`");
                if (!v) return false;
                if (*v <= 0) {
                  report(DiagKind::DecoratorArgs, expr->range, {"aligned", "the block must be positive"});
                  return false;
                }
                ss.alignedTo = *v;
              }
            it = sizeOfSymbol.emplace(dimSym, static_cast<uint32_t>(k_->sizes.size())).first;
            k_->sizes.push_back(ss);
            Binding b;
            b.kind = Binding::Kind::Value;
            b.value.type = Type::scalar(Elem::I32);
            auto e = node(kir::ExprKind::SizeArg, b.value.type, d->range);
            e->index = it->second;
            b.value.expr = e;
            b.value.ints.axis = -2;
            b.value.ints.div = ss.alignedTo;
            b.value.ints.extentSize = static_cast<int>(it->second);
            b.type = b.value.type;
            b.isLet = true;
            b.what = "the size `" + sym.name + "`";
            frame().bindings[dimSym] = b;
          }
          td.size = it->second;
        } else {
          report(DiagKind::NotCompileTime, d->range, {"a tensor dimension", text(d->range)});
          return false;
        }
      } else {
        report(DiagKind::NotCompileTime, d->range, {"a tensor dimension (a size name or an integer)", text(d->range)});
        return false;
      }
      dims.push_back(Dim{td.sym, td.value});
      tp.dims.push_back(td);
    }
    k_->params.push_back({true, static_cast<uint32_t>(k_->tensors.size())});
    Binding b;
    b.kind = Binding::Kind::Tensor;
    b.tensor = static_cast<int>(k_->tensors.size());
    b.type = Type::tensor(elem, dims);
    b.what = "the tensor `" + p.name.name + "`";
    k_->tensors.push_back(tp);
    frame().bindings[ps->second] = b;
    recordSymbolType(ps->second, b.type, false);
  }
  return true;
}

void Elaborator::inferGrid() {
  const KernelDecorators &kd = st_.decorators[&decl_];
  static const char *axisName[3] = {"x", "y", "z"};
  if (kd.grid) {
    for (size_t a = 0; a < 3; ++a) {
      kir::GridAxis g;
      k_->gridText[a] = "1";
      if (a < kd.grid->args.size() && kd.grid->args[a].kind == DecoratorArg::Kind::Expr) {
        const Expr &e = *kd.grid->args[a].values[0];
        const Expr *num = &e;
        int64_t div = 1;
        if (e.kind == ExprKind::Binary && e.binOp == BinOp::Div) {
          auto d = constInt(*e.operands[1], "the divisor in `@grid`");
          if (!d || *d <= 0) continue;
          div = *d;
          num = e.operands[0].get();
        }
        Val v = intExpr(*num, "an axis of `@grid`");
        if (v.isError()) continue;
        if (v.ints.c) {
          g.constant = (*v.ints.c + div - 1) / div;
        } else if (v.ints.extentSize >= 0) {
          g.fromSize = true;
          g.size = v.ints.extentSize;
          g.divisor = div;
        } else {
          report(DiagKind::DecoratorArgs, e.range, {"grid", "an axis is an integer, a size, or `N / B`"});
          continue;
        }
        k_->gridText[a] = text(e.range);
      }
      k_->grid[a] = g;
    }
    return;
  }
  for (int a = 0; a < 3; ++a) {
    kir::GridAxis g;
    k_->gridText[a] = "1";
    auto &cands = gridCands_[a];
    if (!axisUsed_[a]) {
      k_->grid[a] = g;
      continue;
    }
    if (cands.empty()) {
      report(DiagKind::GridInference, axisUse_[a],
             {std::string("ctx.block.") + axisName[a],
              "no tensor slice of the form `X[ctx.block." + std::string(axisName[a]) + " * S :+ S, ...]` uses it"});
      continue;
    }
    const GridCandidate &c0 = cands[0];
    bool conflict = false;
    for (auto &c : cands) {
      bool same = c.divisor == c0.divisor && c.size == c0.size && (c.size >= 0 || c.extent == c0.extent);
      if (!same) {
        auto span = [](const GridCandidate &g) {
          std::string n = g.size >= 0 ? g.sym : std::to_string(g.extent);
          return g.divisor == 1 ? n : "ceil(" + n + " / " + g.divSym + ")";
        };
        auto &d = report(DiagKind::GridConflict, c.where, {axisName[a], span(c), span(c0)});
        d.notes.push_back({c0.where, "first used here"});
        conflict = true;
        break;
      }
    }
    if (conflict) continue;
    if (c0.size >= 0) {
      g.fromSize = true;
      g.size = static_cast<uint32_t>(c0.size);
      g.divisor = c0.divisor;
      k_->gridText[a] = c0.divisor == 1 ? c0.sym : "ceil(" + c0.sym + " / " + c0.divSym + ")";
    } else {
      g.constant = (c0.extent + c0.divisor - 1) / c0.divisor;
      k_->gridText[a] = std::to_string(g.constant);
    }
    k_->grid[a] = g;
  }
}

std::shared_ptr<kir::Kernel> Elaborator::run() {
  if (!setupParams()) {
    ++errors_;
    return nullptr;
  }
  out_ = &k_->body;
  stmts(decl_.body, k_->body);
  inferGrid();
  for (size_t i = 0; i < varTypes_.size(); ++i) {
    k_->vars[i].type = ktype(varTypes_[i]);
    recordSymbolType(varSymbol_[i], varTypes_[i], tensorcore_ && varFromDot_[i]);
  }
  if (errors_) return nullptr;
  return k_;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

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
  case StmtKind::ExprStmt: {
    const Expr &e = *s.value;
    if (e.kind != ExprKind::Call) {
      if (e.kind != ExprKind::Error) report(DiagKind::UselessExpression, e.range, {});
      break;
    }
    const std::string &n = e.name.name;
    if (auto f = st_.functions.find(n); f != st_.functions.end()) {
      inlineCall(e, *f->second, out);
    } else if (n == "mask_cols" || n == "causal_mask") {
      expr(e);
    } else if (isBuiltinFunction(n)) {
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
  k_->vars.push_back(v);
  varTypes_.push_back(t);
  varFromDot_.push_back(false);
  varSymbol_.push_back(sym);
  return static_cast<uint32_t>(k_->vars.size() - 1);
}

Type Elaborator::declaredType(const TypeExpr &t) {
  Elem elem;
  if (!t.elem.valid() || !parseElem(t.elem.name, elem)) return Type::error();
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
          if (st_.A.symbols[xs].kind != SymbolKind::Parameter) {
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
  auto symIt = st_.stmtSymbol.find(&s);
  uint32_t sym = symIt == st_.stmtSymbol.end() ? UINT32_MAX : symIt->second;
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
    if (sym != UINT32_MAX) frame().bindings[sym] = b;
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
    if (sym != UINT32_MAX) frame().bindings[sym] = b;
    return;
  }
  if (v.type.isTensor()) {
    report(DiagKind::TensorArithmetic, s.value->range, {text(s.value->range)});
    b.kind = Binding::Kind::Error;
    if (sym != UINT32_MAX) frame().bindings[sym] = b;
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
  if (sym != UINT32_MAX) frame().bindings[sym] = b;
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
  v = convert(v, t.elem, s.value ? s.value->range : s.range);
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
  v = convert(v, t.elem, valueRange);
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
  v = convert(v, elem, valueRange);
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
  bool viaFnParam = rootSym != UINT32_MAX && st_.A.symbols[rootSym].kind == SymbolKind::Parameter &&
                    !frame().decl->isKernel;
  bool kernelParam = rootSym != UINT32_MAX && st_.A.symbols[rootSym].kind == SymbolKind::Parameter &&
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
  auto symIt = st_.stmtSymbol.find(&s);
  uint32_t sym = symIt == st_.stmtSymbol.end() ? UINT32_MAX : symIt->second;
  uint32_t var = newVar(s.name.name, Type::scalar(Elem::I32), true, s.name.range, sym);
  LoopInfo li;
  li.loDiv = lo.ints.c ? (*lo.ints.c == 0 ? 0 : *lo.ints.c) : lo.ints.div;
  li.step = *step.ints.c;
  li.hiSize = hi.ints.extentSize;
  li.hiStatic = hi.ints.extentStatic >= 0 ? hi.ints.extentStatic : -1;
  loops_[var] = li;
  Binding b;
  b.kind = Binding::Kind::Var;
  b.var = var;
  b.type = Type::scalar(Elem::I32);
  b.isLet = true;
  b.what = "the loop variable `" + s.name.name + "`";
  if (sym != UINT32_MAX) frame().bindings[sym] = b;
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
    auto ps = st_.paramSymbol.find(&fn.params[i]);
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
          b.slices = slices;
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
          b.slices = slices;
          b.type = Type::tile(varTypes_[base.var].elem, dims);
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
    if (ps != st_.paramSymbol.end()) {
      nf.bindings[ps->second] = b;
      Type shown = b.kind == Binding::Kind::Value ? b.value.type : b.type;
      if (b.kind == Binding::Kind::Var) shown = varTypes_[b.var];
      recordSymbolType(ps->second, shown, b.kind == Binding::Kind::Var && tensorcore_ && varFromDot_[b.var]);
    }
  }
  frames_.push_back(std::move(nf));
  stmts(fn.body, out);
  frames_.pop_back();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

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
  return convert(v, Elem::I32, e.range);
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
    int64_t x = *a.c, y = *b.c, v = 0;
    switch (op) {
    case kir::Op::Add: v = x + y; break;
    case kir::Op::Sub: v = x - y; break;
    case kir::Op::Mul: v = x * y; break;
    case kir::Op::Div: v = y ? x / y : 0; break;
    case kir::Op::Rem: v = y ? x % y : 0; break;
    default: break;
    }
    r.c = v;
    r.div = v;
    r.axis = -1;
    r.offset = v;
    return r;
  }
  auto affine = [](const IntFacts &f) { return f.axis >= -1; };
  switch (op) {
  case kir::Op::Add:
  case kir::Op::Sub: {
    int64_t s = op == kir::Op::Sub ? -1 : 1;
    r.div = gcd64(a.div, b.div);
    if (affine(a) && affine(b) && !(a.axis >= 0 && b.axis >= 0)) {
      r.axis = a.axis >= 0 ? a.axis : b.axis;
      r.coef = a.axis >= 0 ? a.coef : s * b.coef;
      r.offset = a.offset + s * b.offset;
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
    }
    break;
  }
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
  Val r;
  r.fromDot = a.fromDot || b.fromDot;
  if (a.type.isScalar() && b.type.isScalar()) {
    if (a.type.isInteger() && b.type.isInteger()) {
      IntFacts f = combineInts(op, a.ints, b.ints);
      if (f.c) return intConst(*f.c, loc);
      r.ints = f;
      elem = Elem::I32;
    } else if (op == kir::Op::Rem) {
      report(DiagKind::TypeMismatch, loc, {"integers for `%`", a.type.symbolic() + " % " + b.type.symbolic()});
      return errorVal();
    } else if (a.type.elem == Elem::FloatLit && b.type.elem == Elem::FloatLit) {
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
    if (op == kir::Op::Rem) {
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
    if (elem == Elem::I32) elem = Elem::F32; // integer scalars meeting tiles are converted
    r.type = Type::tile(elem, dims);
  }
  Elem opElem = r.type.elem;
  a = convert(a, opElem, a.expr ? a.expr->loc : loc);
  b = convert(b, opElem, b.expr ? b.expr->loc : loc);
  auto n = node(kir::ExprKind::Binary, r.type, loc);
  n->op = op;
  n->operands = {a.expr, b.expr};
  r.expr = n;
  (void)e;
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
    if (a.type.isInteger()) {
      Val zero = intConst(0, e.range);
      return binary(e, kir::Op::Sub, zero, a, e.range, "negate");
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
    kir::Op op = e.binOp == BinOp::Add ? kir::Op::Add : e.binOp == BinOp::Sub ? kir::Op::Sub
                 : e.binOp == BinOp::Mul ? kir::Op::Mul : e.binOp == BinOp::Div ? kir::Op::Div : kir::Op::Rem;
    const char *verb = op == kir::Op::Add ? "add" : op == kir::Op::Sub ? "subtract" : op == kir::Op::Mul ? "multiply"
                       : "divide";
    return binary(e, op, a, b, e.range, verb);
  }
  case ExprKind::Call: return call(e, accumulate);
  case ExprKind::Index: return index(e);
  }
  return errorVal();
}

Val Elaborator::call(const Expr &e, std::optional<Elem> accumulate) {
  if (!e.name.valid()) return errorVal();
  const std::string &n = e.name.name;
  if (isBuiltinFunction(n)) return builtinCall(e, n, accumulate);
  if (st_.functions.count(n)) {
    report(DiagKind::FnCallNotValue, e.range, {n});
    return errorVal();
  }
  return errorVal(); // unknown: reported by the resolver
}

Val Elaborator::builtinCall(const Expr &e, const std::string &n, std::optional<Elem> accumulate) {
  int arity = builtinArity(n);
  if (arity >= 0 && e.operands.size() != static_cast<size_t>(arity)) return errorVal();
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
  if (n == "dot" || n == "dot_t") {
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
    a = convert(a, opElem, e.operands[0]->range);
    b = convert(b, opElem, e.operands[1]->range);
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
  if (n == "rowmax" || n == "rowsum") {
    Val a = expr(*e.operands[0]);
    if (!tile2d(a, *e.operands[0])) return errorVal();
    Val r;
    r.type = Type::tile(a.type.elem, {a.type.dims[0], Dim{"1", 1}});
    auto nd = node(kir::ExprKind::RowReduce, r.type, e.range);
    nd->op = n == "rowmax" ? kir::Op::Max : kir::Op::Sum;
    nd->operands = {a.expr};
    r.expr = nd;
    r.fromDot = a.fromDot;
    return r;
  }
  if (n == "tmax" || n == "tmin") {
    Val a = expr(*e.operands[0]);
    Val b = expr(*e.operands[1]);
    return binary(e, n == "tmax" ? kir::Op::Max : kir::Op::Min, a, b, e.range, "take the elementwise extremum of");
  }
  if (n == "exp" || n == "exp2" || n == "log" || n == "sqrt" || n == "rsqrt" || n == "abs") {
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
    Elem el = a.type.elem;
    if (el == Elem::I32 || el == Elem::IntLit || el == Elem::FloatLit) el = Elem::F32;
    a = convert(a, el, e.operands[0]->range);
    Val r = a;
    r.isDot = false;
    auto nd = node(kir::ExprKind::Unary, a.type, e.range);
    nd->op = n == "exp" ? kir::Op::Exp : n == "exp2" ? kir::Op::Exp2 : n == "log" ? kir::Op::Log
             : n == "sqrt" ? kir::Op::Sqrt : n == "rsqrt" ? kir::Op::Rsqrt : kir::Op::Abs;
    nd->operands = {a.expr};
    r.expr = nd;
    return r;
  }
  if (n == "mask_cols" || n == "causal_mask") {
    const Expr &target = *e.operands[0];
    const Binding *b = target.kind == ExprKind::Name ? bindingOf(target) : nullptr;
    Val s = expr(target);
    if (s.isError()) return errorVal();
    if (!b || b->kind != Binding::Kind::Var || !varTypes_[b->var].isTile()) {
      report(DiagKind::NotInPlaceTarget, target.range, {n, "`" + text(target.range) + "` (" + s.type.symbolic() + ")"});
      return errorVal();
    }
    if (!tile2d(s, target)) return errorVal();
    if (b->isLet) {
      report(DiagKind::AssignToLet, target.range, {k_->vars[b->var].name});
      return errorVal();
    }
    std::vector<ExprPtr> ops = {s.expr};
    if (n == "mask_cols") {
      Val cols = intExpr(*e.operands[1], "the column count of `mask_cols`");
      Val v = expr(*e.operands[2]);
      if (cols.isError() || v.isError()) return errorVal();
      if (!v.type.isScalar()) {
        report(DiagKind::ScalarExpected, e.operands[2]->range, {"the value of `mask_cols`", v.type.symbolic()});
        return errorVal();
      }
      v = convert(v, s.type.elem, e.operands[2]->range);
      ops.push_back(cols.expr);
      ops.push_back(v.expr);
    } else {
      Val row = intExpr(*e.operands[1], "the row of `causal_mask`");
      Val col = intExpr(*e.operands[2], "the column of `causal_mask`");
      if (row.isError() || col.isError()) return errorVal();
      ops.push_back(row.expr);
      ops.push_back(col.expr);
    }
    auto nd = node(n == "mask_cols" ? kir::ExprKind::MaskCols : kir::ExprKind::CausalMask, s.type, e.range);
    nd->operands = ops;
    Val masked;
    masked.type = s.type;
    masked.expr = nd;
    masked.fromDot = s.fromDot;
    assignVar(b->var, masked, e.range, target.range, *out_);
    Val r;
    r.type = Type::voidType();
    return r;
  }
  if (n == "extent") {
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
  if (n == "range") {
    report(DiagKind::TypeMismatch, e.range, {"a value", "range(...)` outside `for"});
    return errorVal();
  }
  return errorVal();
}

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
    // ctx.block.a over a dimension the grid is inferred from stays inside it.
    return explicitGrid_ || !(f.axis >= 0 && f.coef == 1 && f.offset == 0);
  }
  bool blocksTile = aligned % len == 0;
  if (!blocksTile) return true;
  // `ctx.block.a * len + c*len :+ len`: the grid along a is ceil(N / len).
  if (!explicitGrid_ && f.axis >= 0 && f.coef == len && f.offset == 0) return false;
  // `for i in range(lo, extent(T, d), len)` with lo a multiple of len.
  if (f.loopVar >= 0) {
    const LoopInfo &li = loops_[static_cast<uint32_t>(f.loopVar)];
    bool hiIsDim = extent >= 0 ? li.hiStatic == extent : li.hiSize == static_cast<int>(dim.size);
    if (hiIsDim && li.step == len && li.loDiv % len == 0) return false;
  }
  return true;
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
      if (f.axis >= 0 && ((it.kind == SliceItem::Kind::Range && f.coef == len) ||
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

} // namespace

void elaborate(State &st) {
  for (auto &m : st.A.modules) {
    if (m->file != st.A.mainFile) continue;
    for (auto &d : m->decls) {
      if (st.cancelled()) return;
      if (!d->isKernel || !st.declSymbol.count(d.get())) continue;
      const KernelDecorators &kd = st.decorators[d.get()];
      // Every combination of autotune values, in the order they are written.
      std::vector<std::vector<std::pair<std::string, int64_t>>> configs(1);
      for (auto &[id, values] : kd.autotune) {
        std::vector<std::vector<std::pair<std::string, int64_t>>> next;
        for (auto &c : configs)
          for (int64_t v : values) {
            auto c2 = c;
            c2.push_back({id.name, v});
            next.push_back(std::move(c2));
          }
        configs = std::move(next);
      }
      std::vector<std::vector<std::pair<std::string, int64_t>>> kept;
      for (auto &c : configs) {
        bool ok = true;
        for (auto &[fn, fv] : st.options.configFilter)
          for (auto &[n, v] : c)
            if (n == fn && v != fv) ok = false;
        if (ok) kept.push_back(c);
      }
      KernelSummary ks;
      ks.name = d->name.name;
      ks.symbol = st.declSymbol[d.get()];
      ks.nameRange = d->name.range;
      ks.declRange = d->range;
      ks.threads = kd.threads;
      ks.tensorcore = kd.tensorcore;
      for (auto &[id, values] : kd.autotune) {
        if (!ks.autotuneSpace.empty()) ks.autotuneSpace += ", ";
        ks.autotuneSpace += id.name + " in [";
        for (size_t i = 0; i < values.size(); ++i) ks.autotuneSpace += (i ? ", " : "") + std::to_string(values[i]);
        ks.autotuneSpace += "]";
      }
      for (size_t i = 0; i < kept.size(); ++i) {
        if (st.cancelled()) return; // up to 1 024 configurations: a newer edit or `exit` stops them
        Elaborator el(st, *d, i, kept[i]);
        auto k = el.run();
        if (i == 0 && k)
          ks.grid = "(" + k->gridText[0] + ", " + k->gridText[1] + ", " + k->gridText[2] + ")";
        if (k) {
          ks.configs.push_back(k->configName());
          if (st.options.specialise) st.A.specialised.push_back(k);
        }
        if (el.failed()) break; // the other configurations would repeat the same errors
      }
      st.A.kernels.push_back(std::move(ks));
    }
  }
}

} // namespace ph::check
