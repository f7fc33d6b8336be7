//===- Resolver.cpp - Binds names to symbols --------------------------------===//
//
// Walks every declaration once, with lexical scopes, and records symbols and
// occurrences for the editor (hover, definition, references, rename) and for
// the elaborator. Reports unknown names and functions (with a fix when a close
// spelling exists), wrong argument counts, redefinitions, assignments to
// `let`, decorator problems and unused variables.
//
//===----------------------------------------------------------------------===//
#include "CheckerState.h"
#include "ph/Autotune.h"
#include "ScopeStack.h"
#include "ph/Limits.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <set>

namespace ph::check {

bool isBuiltinFunction(const std::string &name) { return findBuiltinFunction(name) != nullptr; }

/// The names of the registry's builtin functions or decorators (for suggestions).
static std::vector<std::string> registryNames(bool decorators) {
  std::vector<std::string> names;
  for (const Builtin &b : allBuiltins())
    if (b.isDecorator == decorators) names.push_back(b.name);
  return names;
}

static size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closestName(const std::string &name, const std::vector<std::string> &candidates) {
  std::string best;
  size_t bestD = std::max<size_t>(2, name.size() / 3) + 1;
  for (const std::string &c : candidates) {
    if (c == name || c.empty()) continue;
    size_t d = editDistance(name, c);
    // Ties go to the alphabetically first name, so suggestions do not depend on hash order.
    if (d < bestD || (d == bestD && !best.empty() && c < best)) bestD = d, best = c;
  }
  return best;
}

uint32_t State::builtin(const std::string &name) {
  if (const uint32_t *known = builtinSymbol.find(name)) return *known;
  Symbol s;
  const BuiltinDoc *doc = findBuiltinDoc(name);
  s.kind = doc && doc->isDecorator ? SymbolKind::Decorator : SymbolKind::Builtin;
  s.name = name;
  s.def = SourceRange{UINT32_MAX, 0, 0};
  if (doc) {
    s.signature = doc->signature;
    s.doc = doc->doc;
  }
  uint32_t id = addSymbol(std::move(s));
  builtinSymbol[name] = id;
  return id;
}

State::Resolved State::resolved(FileId files) const {
  Resolved r;
  r.files = files;
  r.symbols = A.symbols;
  r.exprSymbols.assign(exprSymbols.begin(), exprSymbols.begin() + std::min<size_t>(files, exprSymbols.size()));
  r.functions = functions.flat();
  r.kernels = kernels.flat();
  r.declSymbol = declSymbol.flat();
  r.stmtSymbol = stmtSymbol.flat();
  r.paramSymbol = paramSymbol.flat();
  r.builtinSymbol = builtinSymbol.flat();
  r.decorators = decorators.flat();
  r.autotuneSymbols = autotuneSymbols.flat();
  return r;
}

void State::seed(const Resolved &r) {
  baseSymbols = &r.symbols;
  baseCount = static_cast<uint32_t>(r.symbols.size());
  baseFiles = r.files;
  baseExprSymbols = &r.exprSymbols;
  functions.setBase(&r.functions);
  kernels.setBase(&r.kernels);
  declSymbol.setBase(&r.declSymbol);
  stmtSymbol.setBase(&r.stmtSymbol);
  paramSymbol.setBase(&r.paramSymbol);
  builtinSymbol.setBase(&r.builtinSymbol);
  decorators.setBase(&r.decorators);
  autotuneSymbols.setBase(&r.autotuneSymbols);
  resolvedFiles = r.files;
}

namespace {

using namespace ast;

class Resolver {
public:
  explicit Resolver(State &st) : st_(st) {}
  void run();

private:
  State &st_;
  ScopeStack scopes_;
  const Decl *decl_ = nullptr;
  uint32_t declSym_ = 0;
  std::vector<uint32_t> locals_; // of the current declaration, for unused-variable warnings
  /// Uses of each symbol of the current declaration, by symbol (a vector: a hash map
  /// here allocated a node per symbol used).
  std::vector<uint32_t> uses_;
  uint32_t &uses(uint32_t sym) {
    if (sym >= uses_.size()) uses_.resize(sym + 1, 0);
    return uses_[sym];
  }

  void declareDecl(const Decl &d);
  void resolveDecl(const Decl &d);
  void resolveDecorators(const Decl &d);
  void resolveSpace(const Decl &d, KernelDecorators &kd);
  void resolveLaunch(KernelDecorators &kd);
  enum class CondType { Int, Bool, Bad };
  CondType checkCondition(const Expr &e, const Decorator &autotune);
  std::vector<std::string> autotuneNames(const KernelDecorators &kd) const;
  void resolveStmts(const std::vector<StmtPtr> &body, SourceRange scope);
  void resolveStmt(const Stmt &s, SourceRange scopeEnd);
  void resolveExpr(const Expr &e, bool write = false);
  void resolveType(const TypeExpr &t, bool inKernelParams);
  const uint32_t *lookup(const std::string &name) { return scopes_.lookup(name); }
  std::vector<std::string> visibleNames() { return scopes_.names(); }
  uint32_t declare(const Ident &id, Symbol sym, SourceRange visible) {
    if (!id.valid()) return UINT32_MAX;
    // Values and functions are apart: a parameter or local may carry a builtin's
    // name (std's `rope` takes `cos` and `sin`), and a call still reaches the builtin.
    if (const uint32_t *earlier = scopes_.lookupInCurrent(id.name)) {
      auto &d = st_.diags.report(DiagKind::Redefinition, id.range, {id.name});
      const Symbol &prev = st_.symbol(*earlier);
      d.notes.push_back({prev.def, "the earlier definition"});
    }
    sym.name = id.name;
    sym.def = id.range;
    sym.container = declSym_;
    sym.scope = visible;
    uint32_t s = st_.addSymbol(std::move(sym));
    scopes_.declare(id.name, s);
    st_.addOccurrence(id.range, s, true);
    return s;
  }
};

void Resolver::run() {
  // Declarations first, so that a fn may be called before it is defined.
  for (auto &m : st_.A.modules)
    if (m->file >= st_.resolvedFiles)
      for (auto &d : m->decls) declareDecl(*d);
  for (auto &m : st_.A.modules)
    for (auto &d : m->decls) {
      if (st_.cancelled()) return;
      if (m->file < st_.resolvedFiles) break;
      if (st_.declareOnly && st_.declareOnly->count(d.get())) continue;
      resolveDecl(*d);
    }
}

static std::string signatureOf(const Decl &d, const State &st) {
  std::string s = d.isKernel ? "kernel " : "fn ";
  s += d.name.name + "(";
  for (size_t i = 0; i < d.params.size(); ++i) {
    if (i) s += ", ";
    s += d.params[i].name.name;
    if (d.params[i].type) s += ": " + st.text(d.params[i].type->range);
  }
  return s + ")";
}

void Resolver::declareDecl(const Decl &d) {
  if (!d.name.valid()) return;
  if (isBuiltinFunction(d.name.name)) {
    st_.diags.report(DiagKind::ShadowsBuiltin, d.name.range, {d.name.name});
    return;
  }
  if (st_.kernels.count(d.name.name) || st_.functions.count(d.name.name)) {
    st_.diags.report(DiagKind::DuplicateDeclaration, d.name.range, {d.isKernel ? "kernel" : "fn", d.name.name});
    return;
  }
  Symbol s;
  s.kind = d.isKernel ? SymbolKind::Kernel : SymbolKind::Function;
  s.name = d.name.name;
  s.def = d.name.range;
  s.declRange = d.range;
  s.signature = signatureOf(d, st_);
  s.doc = d.doc;
  uint32_t id = st_.addSymbol(std::move(s));
  st_.declSymbol[&d] = id;
  st_.addOccurrence(d.name.range, id, true);
  if (d.isKernel) st_.kernels[d.name.name] = &d;
  else st_.functions[d.name.name] = &d;
}

void Resolver::resolveDecorators(const Decl &d) {
  KernelDecorators &kd = st_.decorators[&d];
  std::vector<std::string_view> seen; // a kernel has a few decorators: no tree of strings
  seen.reserve(d.decorators.size());
  for (const Decorator &dec : d.decorators) {
    const std::string &n = dec.name.name;
    if (!dec.name.valid()) continue;
    const Builtin *entry = findBuiltin(n);
    bool known = entry && entry->isDecorator;
    if (!known) {
      auto &diag = st_.diags.report(DiagKind::UnknownDecorator, dec.name.range, {n});
      std::string fix = closestName(n, registryNames(true));
      if (!fix.empty()) diag.fixes.push_back({"use `@" + fix + "`", {{dec.name.range, fix}}});
      continue;
    }
    st_.addOccurrence(dec.name.range, st_.builtin(n), false);
    if (!d.isKernel) {
      st_.diags.report(DiagKind::DecoratorOnFn, dec.range, {n});
      continue;
    }
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) {
      st_.diags.report(DiagKind::DuplicateDecorator, dec.range, {n});
      continue;
    }
    seen.push_back(n);
    auto bad = [&](SourceRange r, const std::string &why) {
      st_.diags.report(DiagKind::DecoratorArgs, r, {n, why});
    };
    if (n != "autotune" && std::any_of(dec.args.begin(), dec.args.end(), [](const DecoratorArg &a) {
          return a.kind == DecoratorArg::Kind::Where;
        })) {
      for (const DecoratorArg &a : dec.args)
        if (a.kind == DecoratorArg::Kind::Where) bad(a.range, "a `where` condition belongs to `@autotune`");
      continue;
    }
    if (n == "tensorcore") {
      if (dec.hasParens) bad(dec.range, "`@tensorcore` takes no arguments");
      kd.tensorcore = true;
    } else if (n == "launch") {
      kd.launchGiven = true;
      if (dec.args.size() == 1 && dec.args[0].kind == DecoratorArg::Kind::Expr &&
          dec.args[0].values[0]->kind == ExprKind::Name) {
        kd.threadsExpr = dec.args[0].values[0].get(); // an autotune parameter: resolveLaunch
        continue;
      }
      if (dec.args.size() != 1 || dec.args[0].kind != DecoratorArg::Kind::Expr ||
          dec.args[0].values[0]->kind != ExprKind::IntLit) {
        bad(dec.range, "expected one integer or `@autotune` parameter, the threads per CTA");
        continue;
      }
      int64_t t = dec.args[0].values[0]->intValue;
      if (t < 32 || t > 1024 || t % 32) {
        st_.diags.report(DiagKind::LaunchThreads, dec.args[0].range, {std::to_string(t)});
        continue;
      }
      kd.threads = static_cast<int>(t);
    } else if (n == "autotune") {
      if (dec.args.empty()) bad(dec.range, "expected `NAME in [values]`");
      for (const DecoratorArg &a : dec.args) {
        if (a.kind == DecoratorArg::Kind::Where) {
          kd.whereArgs.push_back(&a); // checked once the parameters are declared: resolveSpace
          continue;
        }
        if (a.kind != DecoratorArg::Kind::In) {
          bad(a.range, "expected `NAME in [values]` or `where CONDITION`");
          continue;
        }
        std::vector<int64_t> values;
        bool ok = !a.values.empty();
        for (auto &v : a.values) {
          if (v->kind != ExprKind::IntLit || v->intValue <= 0) {
            bad(v->range, "autotune values are positive integers, found `" + st_.text(v->range) + "`");
            ok = false;
          } else {
            values.push_back(v->intValue);
          }
        }
        if (a.values.empty()) bad(a.range, "the list of values is empty");
        bool dup = false;
        for (auto &[id, _] : kd.autotune)
          if (id.name == a.name.name) dup = true;
        if (dup) {
          bad(a.name.range, "`" + a.name.name + "` is listed twice");
          continue;
        }
        if (ok) kd.autotune.push_back({a.name, values});
      }
      // E0601: the product is counted, never built (3 lists of 1 000 are 10^9 kernels). A
      // product up to kMaxAutotuneProduct with `where` conditions counts what they keep: the
      // limit is on the kernels built, not on the lists' product.
      std::vector<const ast::Expr *> where;
      for (const DecoratorArg *w : kd.whereArgs) where.push_back(w->values[0].get());
      if (autotune::Count c = autotune::count(kd.autotuneParams(), where); c.count > limits::kMaxAutotuneConfigs) {
        // The message names the lists' product (what the conditions keep is over the limit too).
        std::string count = c.product == UINT64_MAX ? "more than 2^64" : limits::groupDigits(c.product);
        st_.diags.report(DiagKind::TooManyConfigs, dec.range, {count, limits::groupDigits(limits::kMaxAutotuneConfigs)});
        for (auto &[id, values] : kd.autotune) values.resize(1); // go on with the first configuration
      }
    } else if (n == "aligned") {
      if (dec.args.empty()) bad(dec.range, "expected `N = B`");
      for (const DecoratorArg &a : dec.args) {
        if (a.kind != DecoratorArg::Kind::Eq) {
          bad(a.range, "expected `N = B`, a size and the block it is a multiple of");
          continue;
        }
        kd.aligned.push_back({a.name, a.values[0].get()});
      }
    } else if (n == "grid") {
      if (dec.args.empty() || dec.args.size() > 3) {
        bad(dec.range, "expected one to three axes: `@grid(x, y, z)`");
        continue;
      }
      for (auto &a : dec.args)
        if (a.kind != DecoratorArg::Kind::Expr) bad(a.range, "expected an integer, a size or `N / B`");
      kd.grid = &dec;
    }
  }
}

std::vector<std::string> Resolver::autotuneNames(const KernelDecorators &kd) const {
  std::vector<std::string> names;
  for (auto &[id, values] : kd.autotune) names.push_back(id.name);
  return names;
}

/// What a symbol is, for E0409: "a size", "a kernel parameter", ...
static std::string symbolWhat(const Symbol &s) {
  switch (s.kind) {
  case SymbolKind::SizeSymbol: return "a size, known only at launch";
  case SymbolKind::Parameter: return "a kernel parameter";
  case SymbolKind::Kernel: return "a kernel";
  case SymbolKind::Function: return "a function";
  case SymbolKind::Builtin: return "a builtin";
  default: return "not an `@autotune` parameter";
  }
}

/// condition := expr over `@autotune` parameters and integer literals with
///   `+ - * / %` (integers), `< <= > >= == !=` (integers to a condition), `&& || !`
///   (conditions) and parentheses. Reports what breaks that; Bad when anything does.
Resolver::CondType Resolver::checkCondition(const Expr &e, const Decorator &autotune) {
  auto mismatch = [&](const Expr &x, CondType want, CondType got) {
    if (got == CondType::Bad) return;
    st_.diags.report(DiagKind::TypeMismatch, x.range,
                     {want == CondType::Int ? "an integer" : "a condition (a comparison, `&&`, `||` or `!`)",
                      st_.text(x.range)});
  };
  switch (e.kind) {
  case ExprKind::Error: return CondType::Bad;
  case ExprKind::IntLit: return CondType::Int;
  case ExprKind::Name: {
    const std::string &n = e.name.name;
    if (const uint32_t *s = lookup(n)) {
      const Symbol &sym = st_.symbol(*s);
      if (sym.kind == SymbolKind::AutotuneParam) {
        st_.setSymbol(&e, *s);
        st_.addOccurrence(e.range, *s, false);
        return CondType::Int;
      }
      auto &d = st_.diags.report(DiagKind::WhereNotAutotune, e.range, {n, symbolWhat(sym)});
      d.notes.push_back({sym.def, "`" + n + "` is defined here"});
      return CondType::Bad;
    }
    // A list of `@autotune` that did not check already has its error.
    for (auto &a : autotune.args)
      if (a.kind == DecoratorArg::Kind::In && a.name.name == n) return CondType::Bad;
    if (st_.functions.count(n) || isBuiltinFunction(n) || st_.kernels.count(n)) {
      st_.diags.report(DiagKind::WhereNotAutotune, e.range,
                       {n, st_.kernels.count(n) ? "a kernel" : isBuiltinFunction(n) ? "a builtin" : "a function"});
      return CondType::Bad;
    }
    auto &d = st_.diags.report(DiagKind::UnknownName, e.range, {n});
    std::string fix = closestName(n, autotuneNames(st_.decorators[decl_]));
    if (!fix.empty()) d.fixes.push_back({"use `" + fix + "`", {{e.range, fix}}});
    return CondType::Bad;
  }
  case ExprKind::Unary: {
    CondType t = checkCondition(*e.operands[0], autotune);
    CondType want = e.unOp == UnOp::Not ? CondType::Bool : CondType::Int;
    if (t != want) {
      mismatch(*e.operands[0], want, t);
      return CondType::Bad;
    }
    return want;
  }
  case ExprKind::Binary: {
    CondType a = checkCondition(*e.operands[0], autotune);
    CondType b = checkCondition(*e.operands[1], autotune);
    bool logical = e.binOp == BinOp::And || e.binOp == BinOp::Or;
    bool comparison = e.binOp == BinOp::Lt || e.binOp == BinOp::Le || e.binOp == BinOp::Gt ||
                      e.binOp == BinOp::Ge || e.binOp == BinOp::Eq || e.binOp == BinOp::Ne;
    CondType want = logical ? CondType::Bool : CondType::Int;
    bool ok = true;
    if (a != want) mismatch(*e.operands[0], want, a), ok = false;
    if (b != want) mismatch(*e.operands[1], want, b), ok = false;
    if (!ok) return CondType::Bad;
    return logical || comparison ? CondType::Bool : CondType::Int;
  }
  default:
    st_.diags.report(DiagKind::DecoratorArgs, e.range,
                     {"autotune", "a `where` condition is made of `@autotune` parameters, integers, `+ - * / %`, "
                                  "comparisons, `&& || !` and parentheses, found `" +
                                      st_.text(e.range) + "`"});
    return CondType::Bad;
  }
}

void Resolver::resolveSpace(const Decl &d, KernelDecorators &kd) {
  if (kd.whereArgs.empty()) return;
  const Decorator *autotune = nullptr;
  for (const Decorator &dec : d.decorators)
    if (dec.name.name == "autotune" && !autotune) autotune = &dec;
  std::vector<autotune::Param> params = kd.autotuneParams();
  std::vector<const Expr *> checked;
  for (const DecoratorArg *a : kd.whereArgs) {
    const Expr &cond = *a->values[0];
    CondType t = checkCondition(cond, *autotune);
    if (t == CondType::Int)
      st_.diags.report(DiagKind::WhereNotCondition, cond.range, {st_.text(cond.range)});
    if (t != CondType::Bool) continue;
    // E0410 on the condition that leaves nothing of what the ones before it keep.
    checked.push_back(&cond);
    if (!autotune::enumerate(params, checked, {}, 1).empty()) continue;
    checked.pop_back();
    size_t before = autotune::enumerate(params, checked).size();
    auto &diag = st_.diags.report(DiagKind::WhereKeepsNothing, cond.range,
                                  {st_.text(cond.range), std::to_string(before)});
    for (const Expr *c : checked) diag.notes.push_back({c->range, "the configurations this condition keeps"});
  }
  kd.where = std::move(checked);
}

void Resolver::resolveLaunch(KernelDecorators &kd) {
  if (!kd.threadsExpr) return;
  const Expr &e = *kd.threadsExpr;
  const std::string &n = e.name.name;
  const uint32_t *s = lookup(n);
  if (!s) {
    auto &d = st_.diags.report(DiagKind::UnknownName, e.range, {n});
    std::string fix = closestName(n, autotuneNames(kd));
    if (!fix.empty()) d.fixes.push_back({"use `" + fix + "`", {{e.range, fix}}});
    return;
  }
  const Symbol &sym = st_.symbol(*s);
  if (sym.kind != SymbolKind::AutotuneParam) {
    st_.diags.report(DiagKind::DecoratorArgs, e.range,
                     {"launch", "the thread count is an integer or an `@autotune` parameter; `" + n + "` is " +
                                    symbolWhat(sym)});
    return;
  }
  st_.setSymbol(&e, *s);
  st_.addOccurrence(e.range, *s, false);
  uses(*s)++;
  kd.threadsParam = n;
  // Each kept configuration's count, once per value (at the first configuration giving it).
  std::vector<int64_t> reported;
  for (const autotune::Config &c : autotune::enumerate(kd.autotuneParams(), kd.where)) {
    int64_t t = 0;
    std::string name;
    for (auto &[pn, v] : c) {
      if (pn == n) t = v;
      name += (name.empty() ? "" : ",") + pn + "=" + std::to_string(v);
    }
    if ((t >= 32 && t <= 1024 && t % 32 == 0) ||
        std::find(reported.begin(), reported.end(), t) != reported.end())
      continue;
    reported.push_back(t);
    st_.diags.report(DiagKind::LaunchThreads, e.range,
                     {std::to_string(t) + " (`" + n + "` in the configuration " + name + ")"});
  }
}

void Resolver::resolveType(const TypeExpr &t, bool inKernelParams) {
  if (t.kind == TypeExpr::Kind::Error) return;
  Elem e;
  if (t.elem.valid() && !parseElem(t.elem.name, e)) {
    auto &d = st_.diags.report(DiagKind::UnknownType, t.elem.range, {t.elem.name});
    std::string fix = closestName(t.elem.name, {"f16", "bf16", "f32", "i32", "f8e4m3", "f8e5m2"});
    if (!fix.empty()) d.fixes.push_back({"use `" + fix + "`", {{t.elem.range, fix}}});
  }
  for (auto &dim : t.dims) {
    if (inKernelParams && dim->kind == ExprKind::Name) {
      // A name in a parameter's shape is a size symbol (or an autotune constant).
      const std::string &n = dim->name.name;
      if (const uint32_t *s = lookup(n)) {
        st_.setSymbol(dim.get(), *s);
        st_.addOccurrence(dim->range, *s, false);
        uses(*s)++;
      } else {
        Symbol sym;
        sym.kind = SymbolKind::SizeSymbol;
        sym.typeSymbolic = "i32";
        sym.signature = n + ": size, bound at launch from the tensors' shapes";
        // Size symbols live in the kernel's outermost scope.
        sym.name = n;
        sym.def = dim->range;
        sym.container = declSym_;
        uint32_t id = st_.addSymbol(std::move(sym));
        scopes_.declareOutermost(n, id);
        st_.setSymbol(dim.get(), id);
        st_.addOccurrence(dim->range, id, true);
      }
      continue;
    }
    resolveExpr(*dim);
  }
}

void Resolver::resolveDecl(const Decl &d) {
  const uint32_t *sym = st_.declSymbol.find(&d);
  declSym_ = sym ? *sym : UINT32_MAX;
  decl_ = &d;
  scopes_.clear();
  scopes_.open();
  locals_.clear();
  uses_.clear();
  resolveDecorators(d);
  KernelDecorators &kd = st_.decorators[&d];
  // Autotune names are compile-time constants visible in shapes and bodies.
  for (auto &[id, values] : kd.autotune) {
    Symbol s;
    s.kind = SymbolKind::AutotuneParam;
    s.typeSymbolic = "i32";
    std::string list;
    for (size_t i = 0; i < values.size(); ++i) list += (i ? ", " : "") + std::to_string(values[i]);
    s.signature = id.name + ": autotune constant in [" + list + "]";
    st_.autotuneSymbols[&d].push_back(declare(id, std::move(s), d.range));
  }
  for (const Param &p : d.params) {
    if (d.isKernel && !p.type) st_.diags.report(DiagKind::ParamNeedsType, p.name.range, {p.name.name});
    if (!d.isKernel && p.type)
      st_.diags.report(DiagKind::FnParamTyped, p.type->range, {st_.text(p.type->range), p.name.name});
    if (p.type) resolveType(*p.type, d.isKernel);
  }
  for (const Param &p : d.params) {
    Symbol s;
    s.kind = SymbolKind::Parameter;
    s.signature = p.name.name;
    if (p.type) {
      s.typeSymbolic = st_.text(p.type->range); // read once, for both
      s.signature += ": ";
      s.signature += s.typeSymbolic;
    }
    uint32_t id = declare(p.name, std::move(s), d.range);
    if (id != UINT32_MAX) st_.paramSymbol[&p] = id;
  }
  resolveSpace(d, kd);
  resolveLaunch(kd);
  for (auto &[id, expr] : kd.aligned) {
    if (const uint32_t *s = lookup(id.name); s && st_.symbol(*s).kind == SymbolKind::SizeSymbol) {
      st_.addOccurrence(id.range, *s, false);
    } else {
      st_.diags.report(DiagKind::AlignedUnknown, id.range, {id.name});
    }
    resolveExpr(*expr);
  }
  if (kd.grid)
    for (auto &a : kd.grid->args)
      for (auto &v : a.values) resolveExpr(*v);
  resolveStmts(d.body, d.bodyRange);
  // Autotune names that nothing uses are almost certainly typos.
  for (size_t i = 0; i < kd.autotune.size(); ++i) {
    uint32_t s = st_.autotuneSymbols[&d][i];
    if (s != UINT32_MAX && uses(s) == 0)
      st_.diags.report(DiagKind::AutotuneUnused, kd.autotune[i].first.range, {kd.autotune[i].first.name});
  }
  for (uint32_t l : locals_) {
    const Symbol &s = st_.symbol(l);
    if (uses(l) == 0 && !s.name.empty() && s.name[0] != '_')
      st_.diags.report(DiagKind::UnusedVariable, s.def, {s.name});
  }
}

void Resolver::resolveStmts(const std::vector<StmtPtr> &body, SourceRange scope) {
  scopes_.open();
  for (auto &s : body) resolveStmt(*s, scope);
  scopes_.close();
}

void Resolver::resolveStmt(const Stmt &s, SourceRange scope) {
  switch (s.kind) {
  case StmtKind::Error: return;
  case StmtKind::Let: {
    if (s.type) resolveType(*s.type, false);
    if (s.value) resolveExpr(*s.value);
    Symbol sym;
    sym.kind = SymbolKind::Local;
    sym.isLet = !s.isVar;
    SourceRange visible{s.range.file, s.range.end, scope.end};
    uint32_t id = declare(s.name, std::move(sym), visible);
    if (id != UINT32_MAX) {
      st_.stmtSymbol[&s] = id;
      locals_.push_back(id);
    }
    return;
  }
  case StmtKind::Assign: {
    resolveExpr(*s.value);
    resolveExpr(*s.target, true);
    // The root of the target: `x` in `x`, `x[...]`.
    const Expr *root = s.target.get();
    while (root->kind == ExprKind::Index) root = root->operands[0].get();
    if (root->kind == ExprKind::Name) {
      uint32_t rootSym = st_.symbolOf(root);
      if (rootSym != UINT32_MAX) {
        const Symbol &sym = st_.symbol(rootSym);
        if (sym.kind == SymbolKind::Local && sym.isLet) {
          auto &d = st_.diags.report(DiagKind::AssignToLet, s.target->range, {sym.name});
          d.notes.push_back({sym.def, "`" + sym.name + "` is bound here"});
        } else if (sym.kind == SymbolKind::LoopVar || sym.kind == SymbolKind::SizeSymbol ||
                   sym.kind == SymbolKind::AutotuneParam) {
          st_.diags.report(DiagKind::NotAssignable, s.target->range,
                           {std::string(sym.kind == SymbolKind::LoopVar ? "the loop variable" : "the constant") +
                            " `" + sym.name + "`"});
        }
      }
    } else if (root->kind != ExprKind::Error) {
      st_.diags.report(DiagKind::NotAssignable, s.target->range, {"`" + st_.text(s.target->range) + "`"});
    }
    return;
  }
  case StmtKind::ExprStmt: resolveExpr(*s.value); return;
  case StmtKind::For: {
    if (s.value) resolveExpr(*s.value);
    scopes_.open();
    Symbol sym;
    sym.kind = SymbolKind::LoopVar;
    sym.isLet = true;
    sym.typeSymbolic = "i32";
    sym.signature = s.name.name + ": i32";
    uint32_t id = declare(s.name, std::move(sym), s.bodyRange);
    if (id != UINT32_MAX) st_.stmtSymbol[&s] = id;
    resolveStmts(s.body, s.bodyRange);
    scopes_.close();
    return;
  }
  case StmtKind::Block: resolveStmts(s.body, s.bodyRange); return;
  case StmtKind::If:
    // Each branch is a scope: a name declared in it is not seen after the `if`.
    if (s.value) resolveExpr(*s.value);
    resolveStmts(s.body, s.bodyRange);
    if (s.hasElse) resolveStmts(s.elseBody, s.elseRange);
    return;
  }
}

void Resolver::resolveExpr(const Expr &e, bool write) {
  // Iterative over the left spine of binary chains would be nicer; the parser
  // already bounds nesting, so plain recursion is safe here.
  switch (e.kind) {
  case ExprKind::Error:
  case ExprKind::IntLit:
  case ExprKind::FloatLit: return;
  case ExprKind::Name: {
    const std::string &n = e.name.name;
    if (n == "ctx") return;
    if (const uint32_t *s = lookup(n)) {
      st_.setSymbol(&e, *s);
      st_.addOccurrence(e.range, *s, false, write);
      if (!write) uses(*s)++;
      return;
    }
    if (st_.functions.count(n) || isBuiltinFunction(n)) {
      st_.diags.report(DiagKind::NotAValue, e.range, {n, isBuiltinFunction(n) ? "builtin function" : "function"});
      return;
    }
    auto &d = st_.diags.report(DiagKind::UnknownName, e.range, {n});
    std::string fix = closestName(n, visibleNames());
    if (!fix.empty()) d.fixes.push_back({"use `" + fix + "`", {{e.range, fix}}});
    return;
  }
  case ExprKind::Member: {
    resolveExpr(*e.operands[0]);
    return;
  }
  case ExprKind::Unary: resolveExpr(*e.operands[0]); return;
  case ExprKind::Binary:
    resolveExpr(*e.operands[0]);
    resolveExpr(*e.operands[1]);
    return;
  case ExprKind::Index:
    resolveExpr(*e.operands[0], write);
    for (auto &sl : e.slices) {
      if (sl.start) resolveExpr(*sl.start);
      if (sl.len) resolveExpr(*sl.len);
    }
    return;
  case ExprKind::Call: {
    size_t firstArg = 0;
    if (!e.name.valid()) {
      // Calling something that is not a name, e.g. `(a)(b)`.
      st_.diags.report(DiagKind::UnknownFunction, e.operands[0]->range, {st_.text(e.operands[0]->range)});
      firstArg = 1;
    } else {
      const std::string &n = e.name.name;
      size_t argc = e.operands.size();
      if (isBuiltinFunction(n)) {
        st_.setSymbol(&e, st_.builtin(n));
        st_.addOccurrence(e.name.range, st_.builtin(n), false);
        const Builtin &bi = *findBuiltinFunction(n);
        if (argc < static_cast<size_t>(bi.minArgs) || argc > static_cast<size_t>(bi.maxArgs))
          st_.diags.report(DiagKind::ArgumentCount, e.range,
                           {n,
                            bi.minArgs == bi.maxArgs ? std::to_string(bi.minArgs)
                            : bi.maxArgs == bi.minArgs + 1
                                ? std::to_string(bi.minArgs) + " or " + std::to_string(bi.maxArgs)
                                : std::to_string(bi.minArgs) + " to " + std::to_string(bi.maxArgs),
                            std::to_string(argc)});
      } else if (const ast::Decl *const *f = st_.functions.find(n)) {
        uint32_t sym = st_.declSymbol.at(*f);
        st_.setSymbol(&e, sym);
        st_.addOccurrence(e.name.range, sym, false);
        if ((*f)->params.size() != argc)
          st_.diags.report(DiagKind::ArgumentCount, e.range,
                           {n, std::to_string((*f)->params.size()), std::to_string(argc)});
      } else {
        auto &d = st_.diags.report(DiagKind::UnknownFunction, e.name.range, {n});
        std::vector<std::string> names = registryNames(false);
        st_.functions.forEach([&](const std::string &fn, const ast::Decl *) { names.push_back(fn); });
        std::sort(names.begin(), names.end());
        std::string fix = closestName(n, names);
        if (!fix.empty()) d.fixes.push_back({"use `" + fix + "`", {{e.name.range, fix}}});
      }
    }
    for (size_t i = firstArg; i < e.operands.size(); ++i) resolveExpr(*e.operands[i]);
    return;
  }
  }
}

} // namespace

void resolve(State &st) { Resolver(st).run(); }

} // namespace ph::check
