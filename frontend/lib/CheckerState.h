//===- CheckerState.h - State shared by the resolver and elaborator -*- C++ -*-===//
//
// Checking runs in two passes over the modules: the resolver binds every name
// to a symbol (scopes, occurrences, unknown names, `let` assignments), then the
// elaborator specialises each kernel per autotune configuration, inlining `fn`
// calls, computing types and shapes and building kir::Kernels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Analysis.h"
#include "ph/Autotune.h"

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ph::check {

struct KernelDecorators {
  int threads = 128;
  bool launchGiven = false; // `@launch(...)` written: the GPU target keeps its count (else it may choose)
  /// `@launch(T)` with `T` an autotune parameter: its name (each configuration's value
  /// is its thread count, checked by the resolver); empty for `@launch(128)`.
  std::string threadsParam;
  const ast::Expr *threadsExpr = nullptr; // `@launch(NAME)`, resolved with the parameters
  bool tensorcore = false;
  std::vector<std::pair<ast::Ident, std::vector<int64_t>>> autotune;
  /// The lists of `autotune` as autotune::enumerate and autotune::count take them.
  std::vector<autotune::Param> autotuneParams() const {
    std::vector<autotune::Param> params;
    params.reserve(autotune.size());
    for (auto &[id, values] : autotune) params.push_back({id.name, values});
    return params;
  }
  /// `where` conditions of `@autotune`: as written (`whereArgs`), and those that check
  /// (`where`: names of autotune parameters, a condition, keeping some configuration),
  /// the ones autotune::enumerate applies.
  std::vector<const ast::DecoratorArg *> whereArgs;
  std::vector<const ast::Expr *> where;
  std::vector<std::pair<ast::Ident, const ast::Expr *>> aligned; // N = B
  const ast::Decorator *grid = nullptr;
};

/// A map that reads through to a fixed base (a seeded State's: std's resolution, made
/// once per document) under the entries it adds itself, so that starting a check from
/// that resolution does not copy it. Writing an entry of the base copies that entry in.
template <class K, class V> class SeededMap {
public:
  using Map = std::unordered_map<K, V>;
  const V *find(const K &k) const {
    if (auto it = own_.find(k); it != own_.end()) return &it->second;
    if (base_)
      if (auto it = base_->find(k); it != base_->end()) return &it->second;
    return nullptr;
  }
  bool count(const K &k) const { return find(k) != nullptr; }
  const V &at(const K &k) const {
    if (const V *v = find(k)) return *v;
    throw std::out_of_range("SeededMap::at");
  }
  V &operator[](const K &k) {
    if (auto it = own_.find(k); it != own_.end()) return it->second;
    if (base_)
      if (auto it = base_->find(k); it != base_->end()) return own_.emplace(k, it->second).first->second;
    return own_[k];
  }
  /// The entries added on top of the base (every entry when there is none).
  const Map &own() const { return own_; }
  /// The base and the entries on top, as one map.
  Map flat() const {
    Map m = base_ ? *base_ : Map();
    for (auto &[k, v] : own_) m[k] = v;
    return m;
  }
  void setBase(const Map *base) { base_ = base; }
  /// Calls f(key, value) for every entry, once per key (the base's first, in its order).
  template <class F> void forEach(F f) const {
    if (base_)
      for (auto &[k, v] : *base_)
        if (!own_.count(k)) f(k, v);
    for (auto &[k, v] : own_) f(k, v);
  }

private:
  Map own_;
  const Map *base_ = nullptr;
};

namespace elab {
class InlineCache;
}

struct State {
  Analysis &A;
  DiagnosticSink &diags;
  const AnalyzeOptions &options;
  SeededMap<std::string, const ast::Decl *> functions; // every `fn` by name
  SeededMap<const ast::Decl *, uint32_t> declSymbol;
  /// Name exprs and Call callees -> symbol, indexed by [file][expr id] (hash maps were a hot spot).
  std::vector<std::vector<uint32_t>> exprSymbols;
  std::vector<std::vector<uint32_t>> exprFactIndex; // [file][expr id] -> index in A.exprFacts
  uint32_t symbolOf(const ast::Expr *e) const {
    const auto &bySymbol = e->range.file < baseFiles ? *baseExprSymbols : exprSymbols;
    if (e->range.file >= bySymbol.size() || e->id >= bySymbol[e->range.file].size()) return UINT32_MAX;
    return bySymbol[e->range.file][e->id];
  }
  void setSymbol(const ast::Expr *e, uint32_t sym) {
    // A seed's files are resolved already (the resolver skips them): nothing to set there.
    if (e->range.file >= baseFiles && e->range.file < exprSymbols.size() && e->id < exprSymbols[e->range.file].size())
      exprSymbols[e->range.file][e->id] = sym;
  }
  SeededMap<const ast::Stmt *, uint32_t> stmtSymbol;   // Let and For
  SeededMap<const ast::Param *, uint32_t> paramSymbol;
  SeededMap<std::string, uint32_t> builtinSymbol;
  SeededMap<const ast::Decl *, KernelDecorators> decorators;
  /// The symbols of each kernel's autotune names, in `KernelDecorators::autotune` order.
  SeededMap<const ast::Decl *, std::vector<uint32_t>> autotuneSymbols;
  SeededMap<std::string, const ast::Decl *> kernels;
  /// Declared but not resolved (the incremental analysis: std functions an item does
  /// not reach, whose bodies nothing inlines). Null: resolve everything.
  const std::unordered_set<const ast::Decl *> *declareOnly = nullptr;
  /// The elaborator records expression and symbol types (hover, inlay hints) only in
  /// files from this one on: the incremental analysis keeps those of the item and the
  /// fns it inlines, never std's or the stubs', so it does not compute them.
  FileId factsFrom = 0;

  /// Inlined calls of fns in files below this one (the prelude) go through this cache
  /// (elab/InlineCache.h; the incremental analysis's, one per prelude). Null: none.
  elab::InlineCache *inlineCache = nullptr;
  FileId inlineCacheBelow = 0;

  /// The resolver leaves the modules of files below this alone: they were resolved
  /// before and their results put in this State by seed().
  FileId resolvedFiles = 0;

  /// What resolving the first `files` files (the prelude) left in a State: enough to
  /// start another State over the same modules, followed by other files, as if the
  /// resolver had just done them (seed()). The incremental analysis resolves std once per
  /// document this way, instead of once per item it checks.
  struct Resolved {
    FileId files = 0;
    std::vector<Symbol> symbols;
    std::vector<std::vector<uint32_t>> exprSymbols;
    std::unordered_map<std::string, const ast::Decl *> functions, kernels;
    std::unordered_map<const ast::Decl *, uint32_t> declSymbol;
    std::unordered_map<const ast::Stmt *, uint32_t> stmtSymbol;
    std::unordered_map<const ast::Param *, uint32_t> paramSymbol;
    std::unordered_map<std::string, uint32_t> builtinSymbol;
    std::unordered_map<const ast::Decl *, KernelDecorators> decorators;
    std::unordered_map<const ast::Decl *, std::vector<uint32_t>> autotuneSymbols;
  };
  /// This State's resolution of its files below `files`; every symbol it made must be
  /// theirs or a builtin (resolve() ran on those modules alone).
  Resolved resolved(FileId files) const;
  /// Starts from `r`: its symbols first (A.symbols must be empty; they stay in `r`, ids
  /// below baseCount), its maps (read through, not copied: `r` must outlive this State),
  /// and the resolver skipping its files. The modules of those files must be the same
  /// objects.
  void seed(const Resolved &r);

  /// With `seed`, starts from it (seed()); its files then get no tables of their own
  /// here (their symbols are read through from the seed, and facts are never recorded
  /// in them: a seeded check keeps its own files' facts only).
  State(Analysis &a, DiagnosticSink &d, const AnalyzeOptions &o, const Resolved *seedFrom = nullptr)
      : A(a), diags(d), options(o) {
    if (seedFrom) seed(*seedFrom);
    for (auto &m : A.modules) {
      if (m->file < baseFiles) continue;
      if (exprSymbols.size() <= m->file) exprSymbols.resize(m->file + 1);
      exprSymbols[m->file].assign(m->exprCount, UINT32_MAX);
      if (exprFactIndex.size() <= m->file) exprFactIndex.resize(m->file + 1);
      exprFactIndex[m->file].assign(m->exprCount, UINT32_MAX);
    }
  }

  /// Symbol ids below `baseCount` are the seed's (std's resolution, read through, never
  /// copied: copying them into every item's check was a twentieth of a first analysis);
  /// id `baseCount + i` is `A.symbols[i]`. Without a seed `baseCount` is 0 and an id is
  /// an index in `A.symbols`.
  const std::vector<Symbol> *baseSymbols = nullptr;
  uint32_t baseCount = 0;
  /// The seed's files (ids below this) and their expressions' symbols, read through.
  FileId baseFiles = 0;
  const std::vector<std::vector<uint32_t>> *baseExprSymbols = nullptr;
  uint32_t symbolCount() const { return baseCount + static_cast<uint32_t>(A.symbols.size()); }
  const Symbol &symbol(uint32_t id) const { return id < baseCount ? (*baseSymbols)[id] : A.symbols[id - baseCount]; }
  /// A symbol this State made (only those change while checking).
  Symbol &ownSymbol(uint32_t id) { return A.symbols[id - baseCount]; }
  uint32_t addSymbol(Symbol s) {
    A.symbols.push_back(std::move(s));
    return baseCount + static_cast<uint32_t>(A.symbols.size() - 1);
  }
  void addOccurrence(SourceRange r, uint32_t sym, bool def, bool write = false) {
    A.occurrences.push_back({r, sym, def, write});
  }
  uint32_t builtin(const std::string &name);
  bool cancelled() const { return options.cancelled && options.cancelled(); }
  /// Where the checker copied source text into a message, signature or type (the
  /// incremental analysis: a check moved to a fn's new offsets must have read the same).
  std::vector<SourceRange> *textReads = nullptr;
  std::string text(SourceRange r) const {
    if (textReads) textReads->push_back(r);
    return A.sources.file(r.file).text().substr(r.begin, r.end - r.begin);
  }
};

/// The closest of `candidates` to `name` by edit distance (at most 2 edits, or
/// a third of the name), or "".
std::string closestName(const std::string &name, const std::vector<std::string> &candidates);

/// A builtin function of the registry (ph/Builtins.h), not a decorator.
bool isBuiltinFunction(const std::string &name);

void resolve(State &st);
void elaborate(State &st);

/// What analyze does to the diagnostics of every phase, in the order they were
/// reported: a stable sort by file and position, then one of each finding. The
/// incremental analysis (Incremental.cpp) merges its items' in the same order and
/// ends with this too, so both give the same list.
std::vector<Diagnostic> finishDiagnostics(std::vector<Diagnostic> diags);

} // namespace ph::check
