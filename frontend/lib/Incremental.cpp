//===- Incremental.cpp - Item-by-item analysis with a cache ---------------===//
//
// Each item is checked in a small analysis of its own ("mini"), whose files are:
//   [0, P)   the prelude (parsed and resolved once, shared)
//   P        stubs: every fn of the document the item does not reach, as `fn f(_0, ..)`
//            with no body, so that names, argument counts and spelling fixes see them
//   P + 1    the item itself (its text, then the next item's first line as look-ahead)
//   P + 2 +j the j-th fn item it calls, directly or not (inlined by the elaborator)
// The resolver and the elaborator run on it unchanged. What comes out is kept in
// those coordinates and moved to the document's (file P, the item's start added)
// when a version is assembled, so an item that only moved is not checked again.
//
//===----------------------------------------------------------------------===//
#include "ph/Incremental.h"
#include "ph/Autotune.h"
#include "ph/Limits.h"

#include "CheckerState.h"
#include "OffsetMap.h"
#include "elab/InlineCache.h"
#include "ph/Lexer.h"
#include "ph/Parser.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ph {
namespace {

constexpr uint32_t kExt = 0x80000000u; // a symbol reference outside the item (ExtRef)

struct DeclInfo {
  bool isKernel = false;
  std::string name;
  size_t arity = 0;
};

/// What the rest of the document needs to know of an item, from its parse.
struct ItemSummary {
  std::string key;       // the item's text, '\0', the look-ahead line
  uint32_t length = 0;   // the item's text (without the look-ahead)
  bool valid = true;     // the parse stopped at the next item
  std::vector<Diagnostic> lexDiags, parseDiags; // file kSelf, item offsets
  std::vector<DeclInfo> decls;
  std::vector<std::string> calls; // called names, sorted, unique
  size_t variants = 0;            // configurations of its kernels (autotune product)
  std::vector<std::pair<std::string, int64_t>> firstConfig;
  bool firstConfigOk = true;      // the kernels agree on each name's first value
  size_t bytes = 0;
};

struct ExtRef {
  enum Kind { Builtin, Prelude, Fn } kind = Fn;
  std::string name;
  FileId file = 0;
  uint32_t begin = 0;
  Symbol builtin; // Builtin: the symbol to add when the document has none yet
};

struct FactGroup {
  std::vector<Symbol> symbols; // containers: indices in this group (or kExt | ext)
  std::vector<ExprFact> exprFacts;
  std::vector<TypeHint> typeHints;
};

/// An item resolved and elaborated: everything in mini coordinates.
struct CheckedItem {
  bool complete = true;
  std::vector<Diagnostic> resolveDiags, elabDiags;
  FactGroup own;
  std::vector<Occurrence> occurrences; // symbols: own index or kExt | ext
  std::vector<KernelSummary> kernels;  // symbol: own index
  std::vector<ExtRef> ext;
  std::vector<FactGroup> deps; // the dep fn items' facts recorded while inlining them
  std::vector<SourceRange> depTextReads; // text of the dep files the check copied (State::textReads)
  size_t variants = 0;
  size_t bytes = 0;
};

struct Item {
  uint32_t start = 0;
  std::shared_ptr<const ItemSummary> summary;
  std::shared_ptr<const CheckedItem> checked;
  std::vector<size_t> deps; // indices of the fn items it reaches, in document order
  /// `checked` is the previous version's: the item's text is unchanged but a fn it calls
  /// changed, and it is not among the callers checked first (Result::staleItems).
  bool stale = false;
};

/// The prelude, parsed and resolved once.
struct Canonical {
  std::vector<std::shared_ptr<const ast::Module>> modules;
  std::vector<Diagnostic> parseDiags, resolveDiags;
  std::vector<Symbol> symbols;
  std::vector<Occurrence> occurrences;
  std::set<std::string> fnNames;
  std::unordered_map<std::string, std::vector<std::string>> stdCalls; // std fn -> the names it calls
  /// (file, begin, name) of each symbol of the prelude's files -> its index in `symbols`.
  std::map<std::tuple<FileId, uint32_t, std::string>, uint32_t> ids;
  /// The prelude's resolution, to start each item's check from (null: std has findings
  /// of its own, so each check resolves what it reaches of std as `analyze` does).
  std::shared_ptr<const check::State::Resolved> seed;
  /// Std's inlining per call shape, shared by every item's check and thread (with the
  /// seed only: then each check's std declarations are these modules' own, which the
  /// cache memoises by address).
  std::shared_ptr<check::elab::InlineCache> inlineCache;
};

/// An item's tree from this update's parse, handed to its check (not cached).
struct Parsed {
  std::shared_ptr<const SourceFile> file;
  std::shared_ptr<const ast::Module> module;
};

size_t stringBytes(const std::string &s) { return s.capacity() > 15 ? s.capacity() : 0; }
size_t diagBytes(const std::vector<Diagnostic> &ds) {
  size_t b = ds.size() * sizeof(Diagnostic);
  for (auto &d : ds) {
    b += stringBytes(d.message) + d.notes.size() * sizeof(DiagNote) + d.fixes.size() * sizeof(DiagFix);
    for (auto &n : d.notes) b += stringBytes(n.message);
  }
  return b;
}
size_t groupBytes(const FactGroup &g) {
  size_t b = g.symbols.size() * sizeof(Symbol) + g.exprFacts.size() * sizeof(ExprFact) + g.typeHints.size() * sizeof(TypeHint);
  for (auto &s : g.symbols) {
    b += stringBytes(s.name) + stringBytes(s.signature) + stringBytes(s.doc) + stringBytes(s.typeSymbolic);
    b += s.typeConcrete.capacity() * sizeof(std::string);
    for (auto &t : s.typeConcrete) b += stringBytes(t);
  }
  for (auto &f : g.exprFacts) {
    b += stringBytes(f.typeSymbolic) + f.typeConcrete.capacity() * sizeof(std::string);
    for (auto &t : f.typeConcrete) b += stringBytes(t);
  }
  for (auto &h : g.typeHints) b += stringBytes(h.label);
  return b;
}

bool identChar(char c) { // ASCII, as the lexer's (no locale call per line)
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool wordAt(std::string_view line, std::string_view w) {
  return line.substr(0, w.size()) == w && (line.size() == w.size() || !identChar(line[w.size()]));
}

/// Where items begin: a line starting with `@`, `kernel` or `fn` that does not
/// follow decorator lines, pulled back over the `///` lines right above it. A
/// wrong guess costs a join (the parse tells), never a wrong result.
std::vector<uint32_t> splitPoints(const std::string &t) {
  std::vector<uint32_t> starts{0};
  size_t docRun = std::string::npos;
  bool afterDecorator = false;
  for (size_t i = 0; i < t.size();) {
    size_t eol = t.find('\n', i);
    if (eol == std::string::npos) eol = t.size();
    std::string_view line(t.data() + i, eol - i);
    bool doc = line.size() >= 3 && line.substr(0, 3) == "///" && (line.size() == 3 || line[3] != '/');
    bool decl = (!line.empty() && line[0] == '@') || wordAt(line, "kernel") || wordAt(line, "fn");
    bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    bool comment = !doc && line.substr(0, 2) == "//";
    if (decl) {
      size_t s = docRun != std::string::npos ? docRun : i;
      if (!afterDecorator && s > starts.back()) starts.push_back(static_cast<uint32_t>(s));
      afterDecorator = line[0] == '@';
      docRun = std::string::npos;
    } else if (doc) {
      if (docRun == std::string::npos) docRun = i;
    } else if (!blank && !comment) {
      docRun = std::string::npos;
      afterDecorator = false;
    } else if (blank) {
      docRun = std::string::npos;
    }
    i = eol + 1;
  }
  return starts;
}

void collectCalls(const ast::Expr &e, std::set<std::string> &out) {
  if (e.kind == ast::ExprKind::Call && e.name.valid()) out.insert(e.name.name);
  for (auto &o : e.operands)
    if (o) collectCalls(*o, out);
  for (auto &s : e.slices) {
    if (s.start) collectCalls(*s.start, out);
    if (s.len) collectCalls(*s.len, out);
  }
}
void collectCalls(const ast::Stmt &s, std::set<std::string> &out) {
  if (s.value) collectCalls(*s.value, out);
  if (s.target) collectCalls(*s.target, out);
  if (s.type)
    for (auto &d : s.type->dims) collectCalls(*d, out);
  for (auto &b : s.body) collectCalls(*b, out);
  for (auto &b : s.elseBody) collectCalls(*b, out);
}

SourceRange translate(SourceRange r, FileId P, const std::vector<uint32_t> &bases) {
  if (r.file == UINT32_MAX || r.file < P) return r;
  size_t g = r.file == P + 1 ? 0 : r.file >= P + 2 ? r.file - P - 1 : SIZE_MAX;
  if (g >= bases.size()) return SourceRange{P, 0, 0};
  return SourceRange{P, bases[g] + r.begin, bases[g] + r.end};
}

Diagnostic translate(const Diagnostic &d, FileId P, const std::vector<uint32_t> &bases) {
  Diagnostic out = d;
  out.range = translate(d.range, P, bases);
  for (auto &n : out.notes) n.range = translate(n.range, P, bases);
  for (auto &f : out.fixes)
    for (auto &e : f.edits) e.range = translate(e.range, P, bases);
  return out;
}

/// Runs fn(0 .. n-1) on up to `maxThreads` threads (the caller's among them), each
/// index once; small batches stay on the caller. Stops handing out indices once
/// `stop` returns true.
void parallelFor(size_t n, unsigned maxThreads, const std::function<void(size_t)> &fn,
                 const std::function<bool()> &stop = {}) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  auto work = [&] {
    for (size_t t; !stopped && (t = next++) < n;) {
      if (stop && stop()) {
        stopped = true;
        break;
      }
      fn(t);
    }
  };
  unsigned threads = std::max(1u, std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), maxThreads));
  if (n < 8) threads = 1;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto &t : pool) t.join();
}


bool samePath(const std::string &a, const std::string &b) {
  std::error_code ec;
  if (a == b) return true;
  auto ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  auto cb = std::filesystem::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

} // namespace

struct IncrementalAnalyzer::Impl {
  std::shared_ptr<const Prelude> prelude;
  AnalyzeOptions options;
  FileId P = 0;
  std::shared_ptr<const Canonical> canonical;
  bool cacheInlining = true; // IncrementalAnalyzer::cacheInlining, for this update
  std::shared_ptr<const SourceFile> stubFile = std::make_shared<SourceFile>("<stubs>", "");
  /// Keyed by a view of the summary's own key (its text), which the entry keeps alive.
  std::unordered_map<std::string_view, std::shared_ptr<const ItemSummary>> summaries;
  /// Keyed by the identities of the summaries it was checked against (the item's and its
  /// deps', kept alive by the entry, so an address is never reused while it is here),
  /// the fn table and the stage.
  struct CheckEntry {
    std::shared_ptr<const CheckedItem> checked;
    std::vector<std::shared_ptr<const ItemSummary>> against;
  };
  std::unordered_map<std::string, CheckEntry> checks;
  std::string lastFnTable; // the fn table `checks` was made under
  mutable std::mutex statsMu;
  std::mutex updateMu;
  IncrementalStats stats;
  std::string lastPath;
  /// The trees a lazy update (first configurations only) parsed, by item summary (kept
  /// alive here, so no other summary can take its address), for the update that follows
  /// with every configuration: it checks the same items again, and re-lexing and
  /// re-parsing each one was a fifth of that update; freeing them was a twentieth of the
  /// first. Each is taken once; whatever the next update does not take is dropped then.
  struct KeptTree {
    std::shared_ptr<const ItemSummary> summary;
    Parsed tree;
  };
  std::unordered_map<const ItemSummary *, KeptTree> keptTrees;
  std::string keptPath; // the path their files carry: taken only under the same path

  void loadPrelude();
  std::shared_ptr<const ItemSummary> summarize(const std::string &path, std::string key, uint32_t length,
                                               Parsed *parsed);
  std::shared_ptr<const CheckedItem> check(const std::string &path, const Item &self, const Parsed &parsed,
                                           const std::vector<Item> &items, const std::vector<DeclInfo> &stubs,
                                           bool allConfigs, size_t &variants);
};

void IncrementalAnalyzer::Impl::loadPrelude() {
  auto c = std::make_shared<Canonical>();
  Analysis A;
  DiagnosticSink diags;
  if (prelude)
    for (auto &f : prelude->files) A.sources.add(f);
  P = static_cast<FileId>(A.sources.size());
  for (FileId id = 0; id < P; ++id) {
    DiagnosticSink fileDiags;
    auto tokens = lex(A.sources.file(id), id, fileDiags);
    auto module = parse(tokens, id, fileDiags);
    A.modules.push_back(std::shared_ptr<const ast::Module>(std::move(module)));
    for (auto &d : fileDiags.take()) c->parseDiags.push_back(std::move(d));
  }
  A.mainFile = P; // no such file: nothing is elaborated
  AnalyzeOptions o;
  o.specialise = false;
  check::State st(A, diags, o);
  check::resolve(st);
  c->resolveDiags = diags.take();
  // Every item's check starts from this resolution of std instead of resolving the std
  // functions it reaches again (a tenth of a first analysis). Only when std resolves
  // without a finding on its own: then each of its names is bound inside std or to a
  // builtin, and no name of the document can change that (a fn named like a std
  // function or a builtin sends the document through `analyze` whole).
  if (c->resolveDiags.empty()) {
    auto seed = std::make_shared<check::State::Resolved>(st.resolved(P));
    // A check keeps nothing of std's symbols but where they are (ExtRef) and the checker
    // reads their kind, name and container only: their text stays in `symbols` below,
    // and each check copies less. Builtins are copied whole into the items (ExtRef).
    for (Symbol &s : seed->symbols)
      if (s.def.file != UINT32_MAX) s.doc.clear(), s.doc.shrink_to_fit(), s.signature.clear(), s.signature.shrink_to_fit();
    c->seed = std::move(seed);
    c->inlineCache = std::make_shared<check::elab::InlineCache>();
  }
  c->modules = A.modules;
  c->symbols = A.symbols;
  c->occurrences = A.occurrences;
  for (uint32_t i = 0; i < c->symbols.size(); ++i)
    if (const Symbol &s = c->symbols[i]; s.def.file != UINT32_MAX)
      c->ids.emplace(std::make_tuple(s.def.file, s.def.begin, s.name), i);
  for (auto &m : A.modules)
    for (auto &d : m->decls) {
      if (!d->name.valid()) continue;
      c->fnNames.insert(d->name.name);
      std::set<std::string> calls;
      for (auto &st : d->body) collectCalls(*st, calls);
      c->stdCalls[d->name.name].assign(calls.begin(), calls.end());
    }
  canonical = c;
}

std::shared_ptr<const ItemSummary> IncrementalAnalyzer::Impl::summarize(const std::string &path, std::string key,
                                                                         uint32_t length, Parsed *parsed) {
  auto s = std::make_shared<ItemSummary>();
  s->length = length;
  auto filePtr = std::make_shared<SourceFile>(path, key.substr(0, length) + key.substr(length + 1));
  const SourceFile &file = *filePtr;
  DiagnosticSink lexDiags, parseDiags;
  auto tokens = lex(file, P + 1, lexDiags);
  size_t limit = 0;
  while (limit + 1 < tokens.size() && tokens[limit].range.begin < length) ++limit;
  if (tokens[limit].range.begin < length) limit = tokens.size() - 1; // only Eof left
  size_t end = 0;
  auto m = parseItem(tokens, P + 1, parseDiags, limit, &end);
  bool last = key.size() == length + 1; // nothing after the item: the parse runs to the end
  s->valid = last || end == limit;
  for (auto &d : lexDiags.take())
    if (d.range.begin < length || last) s->lexDiags.push_back(std::move(d));
  s->parseDiags = parseDiags.take();
  std::set<std::string> calls;
  std::map<std::string, int64_t> first;
  for (auto &d : m->decls) {
    s->decls.push_back({d->isKernel, d->name.valid() ? d->name.name : std::string(), d->params.size()});
    for (auto &st : d->body) collectCalls(*st, calls);
    for (auto &p : d->params)
      if (p.type)
        for (auto &dim : p.type->dims) collectCalls(*dim, calls);
    for (auto &dec : d->decorators)
      for (auto &a : dec.args)
        for (auto &v : a.values) collectCalls(*v, calls);
    if (!d->isKernel) continue;
    size_t n = 1;
    for (auto &dec : d->decorators) {
      if (dec.name.name != "autotune") continue;
      // The configurations the full check will elaborate, and the first of them (the
      // one the editor's first diagnostics elaborate alone).
      autotune::Space space = autotune::spaceOf(dec);
      autotune::Count count = autotune::count(space.params, space.where); // as E0601 counts them
      n *= count.count;
      autotune::Config firstKept;
      if (!count.enumerated) {
        for (auto &p : space.params) firstKept.emplace_back(p.name, p.values[0]);
        if (!space.where.empty()) s->firstConfigOk = false;
      } else if (count.kept.empty()) {
        s->firstConfigOk = false; // an error: the full check reports it
      } else {
        firstKept = std::move(count.kept[0]);
      }
      for (auto &[name, v] : firstKept) {
        auto [it, inserted] = first.emplace(name, v);
        if (!inserted && it->second != v) s->firstConfigOk = false;
      }
    }
    s->variants += n;
  }
  s->calls.assign(calls.begin(), calls.end());
  s->firstConfig.assign(first.begin(), first.end());
  s->key = std::move(key);
  if (parsed) *parsed = {filePtr, std::shared_ptr<const ast::Module>(std::move(m))};
  s->bytes = sizeof(ItemSummary) + s->key.capacity() + diagBytes(s->lexDiags) + diagBytes(s->parseDiags) +
             s->decls.size() * sizeof(DeclInfo) + s->calls.size() * 32;
  return s;
}

std::shared_ptr<const CheckedItem> IncrementalAnalyzer::Impl::check(const std::string &path, const Item &self,
                                                                     const Parsed &parsed,
                                                                     const std::vector<Item> &items,
                                                                     const std::vector<DeclInfo> &stubs,
                                                                     bool allConfigs, size_t &variants) {
  Analysis A;
  const Canonical &c = *canonical;
  for (FileId id = 0; id < P; ++id) A.sources.add(prelude->files[id]);
  A.modules = c.modules;
  A.sources.add(stubFile);
  auto stubModule = std::make_unique<ast::Module>();
  stubModule->file = P;
  for (const DeclInfo &s : stubs) {
    auto d = std::make_unique<ast::Decl>();
    d->name = {s.name, {P, 0, 0}};
    for (size_t i = 0; i < s.arity; ++i) d->params.push_back({{"_" + std::to_string(i), {P, 0, 0}}, std::nullopt, {P, 0, 0}});
    stubModule->decls.push_back(std::move(d));
  }
  A.modules.push_back(std::shared_ptr<const ast::Module>(std::move(stubModule)));
  std::vector<std::vector<Token>> keepTokens; // the trees point at nothing in them, but keep them with their files
  auto addItem = [&](const ItemSummary &s, FileId id) {
    auto file = std::make_shared<SourceFile>(path, s.key.substr(0, s.length) + s.key.substr(s.length + 1));
    DiagnosticSink ignored;
    auto tokens = lex(*file, id, ignored);
    size_t limit = 0;
    while (limit + 1 < tokens.size() && tokens[limit].range.begin < s.length) ++limit;
    if (tokens[limit].range.begin < s.length) limit = tokens.size() - 1;
    size_t end = 0;
    auto m = parseItem(tokens, id, ignored, limit, &end);
    A.sources.add(file);
    A.modules.push_back(std::shared_ptr<const ast::Module>(std::move(m)));
  };
  if (parsed.module) {
    A.sources.add(parsed.file);
    A.modules.push_back(parsed.module);
  } else {
    addItem(*self.summary, P + 1);
  }
  for (size_t j = 0; j < self.deps.size(); ++j) addItem(*items[self.deps[j]].summary, P + 2 + static_cast<FileId>(j));
  A.mainFile = P + 1;

  AnalyzeOptions o = options;
  o.specialise = false;
  o.cancelled = nullptr;
  bool partial = !allConfigs && self.summary->firstConfigOk && options.configFilter.empty() && self.summary->variants > 1;
  if (partial) {
    // The first stage is for diagnostics: each expression's type waits for the rest.
    o.configFilter = self.summary->firstConfig;
    o.editorFacts = false;
  }
  // Without the seed: std functions nothing here reaches are declared (their names
  // count) but not resolved.
  std::unordered_set<const ast::Decl *> declareOnly;
  if (!c.seed) {
    std::set<std::string> reached;
    std::vector<std::string> work(self.summary->calls.begin(), self.summary->calls.end());
    for (size_t d : self.deps) work.insert(work.end(), items[d].summary->calls.begin(), items[d].summary->calls.end());
    while (!work.empty()) {
      std::string n = std::move(work.back());
      work.pop_back();
      auto it = c.stdCalls.find(n);
      if (it == c.stdCalls.end() || !reached.insert(n).second) continue;
      work.insert(work.end(), it->second.begin(), it->second.end());
    }
    for (auto &m : c.modules)
      for (auto &d : m->decls)
        if (!d->name.valid() || !reached.count(d->name.name)) declareOnly.insert(d.get());
  }
  // Room for the symbols up front: growing the vector moves every Symbol (a dozen strings)
  // again and again, a twentieth of a first analysis. About one symbol per 12 bytes of
  // the item's and its fns' text, and the prelude's declarations.
  size_t text = self.summary->length;
  for (size_t d : self.deps) text += items[d].summary->length;
  A.symbols.reserve((c.seed ? 0 : c.symbols.size()) + stubs.size() * 4 + text / 12 + 16);
  // Likewise the occurrences: about one per 8 bytes of text (a name every few tokens).
  A.occurrences.reserve(text / 8 + 16);
  DiagnosticSink diags;
  check::State st(A, diags, o, c.seed.get());
  if (!c.seed) st.declareOnly = &declareOnly;
  st.factsFrom = P + 1; // what is kept: the item's and its fns' facts (see below)
  if (c.seed && cacheInlining) {
    st.inlineCache = c.inlineCache.get();
    st.inlineCacheBelow = P;
  }
  std::vector<SourceRange> reads;
  st.textReads = &reads;
  check::resolve(st);
  size_t resolved = diags.all().size();
  check::elaborate(st);

  auto out = std::make_shared<CheckedItem>();
  out->complete = !partial;
  auto all = diags.take();
  for (size_t i = 0; i < all.size(); ++i) {
    if (i < resolved) {
      if (all[i].range.file == P + 1) out->resolveDiags.push_back(std::move(all[i]));
    } else if (all[i].range.file != P) {
      out->elabDiags.push_back(std::move(all[i]));
    }
  }
  // Symbols: each one's group (0 the item, 1 + j dep j, -1 elsewhere) and index there.
  size_t nGroups = 1 + self.deps.size();
  // Ids below st.baseCount are the seed's (std's and builtins: never in a group).
  const uint32_t nSymbols = st.symbolCount();
  std::vector<int> group(nSymbols, -1);
  std::vector<uint32_t> local(nSymbols, UINT32_MAX);
  std::vector<uint32_t> counts(nGroups, 0);
  for (uint32_t i = st.baseCount; i < nSymbols; ++i) {
    FileId f = st.symbol(i).def.file;
    if (f == UINT32_MAX || f < P + 1) continue;
    group[i] = static_cast<int>(f - P - 1);
    local[i] = counts[group[i]]++;
  }
  // One ExtRef per symbol of this State (a builtin or std symbol is made once per name).
  std::vector<uint32_t> extOf(nSymbols, UINT32_MAX);
  auto ref = [&](uint32_t sym, int inGroup) -> uint32_t {
    if (sym == UINT32_MAX || sym >= nSymbols) return UINT32_MAX;
    if (group[sym] == inGroup) return local[sym];
    if (extOf[sym] != UINT32_MAX) return kExt | extOf[sym];
    const Symbol &s = st.symbol(sym);
    ExtRef e;
    if (s.def.file == UINT32_MAX) {
      e.kind = ExtRef::Builtin;
      e.builtin = s;
    } else if (s.def.file < P) {
      e.kind = ExtRef::Prelude;
      e.file = s.def.file;
      e.begin = s.def.begin;
    } else if (s.kind == SymbolKind::Function || s.kind == SymbolKind::Kernel) {
      e.kind = ExtRef::Fn;
    } else {
      return UINT32_MAX;
    }
    e.name = s.name;
    extOf[sym] = static_cast<uint32_t>(out->ext.size());
    out->ext.push_back(std::move(e));
    return kExt | extOf[sym];
  };
  out->deps.resize(self.deps.size());
  auto groupOf = [&](int g) -> FactGroup & { return g == 0 ? out->own : out->deps[g - 1]; };
  // Every ref() (it reads the symbols' names) comes before the symbols move out.
  std::vector<uint32_t> container(nSymbols, UINT32_MAX);
  for (uint32_t i = st.baseCount; i < nSymbols; ++i)
    if (group[i] >= 0) container[i] = ref(st.symbol(i).container, group[i]);
  for (const Occurrence &occ : A.occurrences)
    if (occ.range.file == P + 1) out->occurrences.push_back({occ.range, ref(occ.symbol, 0), occ.isDefinition, occ.isWrite});
  for (ExprFact &f : A.exprFacts)
    if (f.range.file >= P + 1) groupOf(static_cast<int>(f.range.file - P - 1)).exprFacts.push_back(std::move(f));
  for (auto &[stmt, sym] : st.stmtSymbol.own()) { // std's are in the seed (and skipped)
    if (stmt->kind != ast::StmtKind::Let || stmt->type || stmt->name.range.file < P + 1) continue;
    const Symbol &s = st.symbol(sym);
    if (!s.typeSymbolic.empty())
      groupOf(static_cast<int>(stmt->name.range.file - P - 1)).typeHints.push_back({stmt->name.range, ": " + s.typeSymbolic});
  }
  for (KernelSummary &k : A.kernels) {
    k.symbol = ref(k.symbol, 0);
    variants += k.configs.size();
    out->kernels.push_back(std::move(k));
  }
  for (size_t g = 0; g < nGroups; ++g) groupOf(static_cast<int>(g)).symbols.reserve(counts[g]);
  for (uint32_t i = st.baseCount; i < nSymbols; ++i) {
    if (group[i] < 0) continue;
    Symbol &s = groupOf(group[i]).symbols.emplace_back(std::move(st.ownSymbol(i)));
    s.container = container[i];
  }
  // A dep's facts stand for that fn item in the document: in its own coordinates.
  auto own = [&](SourceRange &r) {
    if (r.file >= P + 2 && r.file != UINT32_MAX) r.file = P + 1;
  };
  for (FactGroup &g : out->deps) {
    for (Symbol &s : g.symbols) own(s.def), own(s.declRange), own(s.scope);
    for (ExprFact &f : g.exprFacts) own(f.range);
    for (TypeHint &h : g.typeHints) own(h.nameRange);
  }
  for (const SourceRange &r : reads)
    if (r.file >= P + 2 && r.file != UINT32_MAX) out->depTextReads.push_back(r);
  std::sort(out->depTextReads.begin(), out->depTextReads.end(), [](const SourceRange &a, const SourceRange &b) {
    return std::tie(a.file, a.begin, a.end) < std::tie(b.file, b.begin, b.end);
  });
  out->depTextReads.erase(std::unique(out->depTextReads.begin(), out->depTextReads.end(),
                                      [](const SourceRange &a, const SourceRange &b) {
                                        return a.file == b.file && a.begin == b.begin && a.end == b.end;
                                      }),
                          out->depTextReads.end());
  out->variants = variants;
  out->bytes = sizeof(CheckedItem) + diagBytes(out->resolveDiags) + diagBytes(out->elabDiags) + groupBytes(out->own) +
               out->occurrences.size() * sizeof(Occurrence) + out->kernels.size() * (sizeof(KernelSummary) + 256) +
               out->ext.size() * sizeof(ExtRef) + out->depTextReads.size() * sizeof(SourceRange);
  for (auto &g : out->deps) out->bytes += groupBytes(g);
  return out;
}

IncrementalAnalyzer::IncrementalAnalyzer(std::shared_ptr<const Prelude> prelude, AnalyzeOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->prelude = std::move(prelude);
  impl_->options = std::move(options);
  impl_->options.specialise = false;
  impl_->options.cancelled = nullptr;
  impl_->loadPrelude();
}

IncrementalAnalyzer::~IncrementalAnalyzer() = default;

IncrementalStats IncrementalAnalyzer::stats() const {
  std::lock_guard<std::mutex> lock(impl_->statsMu);
  return impl_->stats;
}

namespace {

/// Which group of symbols and facts stands for each item: a fn item's own, or those
/// the first kernel that inlines it recorded (with their types).
std::vector<const FactGroup *> factGroups(const std::vector<Item> &items) {
  std::vector<const FactGroup *> groups(items.size());
  for (size_t i = 0; i < items.size(); ++i) groups[i] = &items[i].checked->own;
  std::vector<bool> taken(items.size(), false);
  for (size_t k = 0; k < items.size(); ++k)
    for (size_t j = 0; j < items[k].deps.size() && !items[k].stale; ++j) {
      size_t f = items[k].deps[j];
      const FactGroup &g = items[k].checked->deps[j];
      // A group that recorded nothing (a first-configuration check, or an inlining that
      // typed no expression and no symbol) leaves the fn to the next caller, as analyze's
      // first recorder would. A body whose only statement is in error still types the
      // parameters at the call.
      bool typed = !g.exprFacts.empty() ||
                   std::any_of(g.symbols.begin(), g.symbols.end(), [](const Symbol &s) { return !s.typeConcrete.empty(); });
      if (taken[f] || g.symbols.size() != items[f].checked->own.symbols.size() || !typed) continue;
      groups[f] = &g;
      taken[f] = true;
    }
  return groups;
}

/// The type hints of the items that overlap [from, to], in document coordinates and
/// order: what assemble() gives, for those items only.
std::vector<TypeHint> hintsIn(const std::vector<Item> &items, FileId P, uint32_t from, uint32_t to) {
  std::vector<const FactGroup *> groups = factGroups(items);
  std::vector<TypeHint> out;
  for (size_t i = 0; i < items.size(); ++i) {
    uint32_t b = items[i].start, e = b + items[i].summary->length;
    if (e < from || b > to) continue;
    std::vector<uint32_t> bases{b};
    for (const TypeHint &h : groups[i]->typeHints) out.push_back({translate(h.nameRange, P, bases), h.label});
  }
  std::sort(out.begin(), out.end(), [](const TypeHint &a, const TypeHint &b) { return a.nameRange.begin < b.nameRange.begin; });
  return out;
}

/// Builds the Analysis of one version from its items: the whole of it (materialize),
/// or (slice) the items [first, last) with the symbols of the fns they reach and the
/// std and builtin symbols they name, lexing and parsing those items' bytes only.
std::shared_ptr<const Analysis> assemble(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Prelude> prelude,
                                         std::shared_ptr<const Canonical> canonical, const std::vector<Item> &items,
                                         std::shared_ptr<const std::vector<Diagnostic>> diagnostics, FileId P,
                                         const std::function<bool()> &stop, size_t first = 0,
                                         size_t last = SIZE_MAX) {
  auto stopped = [&] { return stop && stop(); };
  last = std::min(last, items.size());
  const bool whole = first == 0 && last == items.size();
  auto A = std::make_shared<Analysis>();
  for (FileId id = 0; id < P; ++id) A->sources.add(prelude->files[id]);
  A->mainFile = A->sources.add(file);
  A->modules = canonical->modules;
  {
    DiagnosticSink ignored;
    if (whole || first >= last) {
      A->tokens = lex(*file, P, ignored);
    } else {
      uint32_t b = items[first].start, e = items[last - 1].start + items[last - 1].summary->length;
      A->tokens = lex(*file, P, ignored, b, e);
    }
    A->modules.push_back(std::shared_ptr<const ast::Module>(parse(A->tokens, P, ignored)));
  }
  A->diagnostics = *diagnostics;
  // The prelude's symbols: all of them for the whole analysis; a slice copies those its
  // items name, on first reference (a copy of every std symbol per slice would cost more
  // than the item).
  const auto &preludeIds = canonical->ids; // both: an index in canonical->symbols
  std::unordered_map<std::string, uint32_t> builtins, fns;
  std::vector<uint32_t> preludeCopy; // a slice: canonical index -> its copy's, UINT32_MAX until named
  if (whole) {
    A->symbols = canonical->symbols;
    A->occurrences = canonical->occurrences;
    for (uint32_t i = 0; i < A->symbols.size(); ++i)
      if (A->symbols[i].def.file == UINT32_MAX) builtins.emplace(A->symbols[i].name, i);
  } else {
    preludeCopy.assign(canonical->symbols.size(), UINT32_MAX);
  }
  std::vector<const FactGroup *> groups = factGroups(items);
  // Whose symbols are in: the items of the range and the fn items they reach.
  std::vector<bool> withSymbols(items.size(), whole);
  for (size_t i = first; i < last; ++i) {
    withSymbols[i] = true;
    for (size_t d : items[i].deps) withSymbols[d] = true;
  }
  std::vector<uint32_t> base(items.size(), UINT32_MAX);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!withSymbols[i]) continue;
    if (stopped()) return nullptr;
    base[i] = static_cast<uint32_t>(A->symbols.size());
    std::vector<uint32_t> bases{items[i].start};
    for (const Symbol &s0 : groups[i]->symbols) {
      Symbol s = s0;
      s.def = translate(s.def, P, bases);
      s.declRange = translate(s.declRange, P, bases);
      s.scope = translate(s.scope, P, bases);
      if (s.kind == SymbolKind::Function) fns.emplace(s.name, static_cast<uint32_t>(A->symbols.size()));
      A->symbols.push_back(std::move(s));
    }
  }
  auto resolveRef = [&](size_t i, uint32_t r) -> uint32_t {
    if (r == UINT32_MAX) return r;
    if (!(r & kExt)) return base[i] + r;
    const ExtRef &e = items[i].checked->ext[r & ~kExt];
    switch (e.kind) {
    case ExtRef::Builtin: {
      auto [it, inserted] = builtins.emplace(e.name, static_cast<uint32_t>(A->symbols.size()));
      if (inserted) A->symbols.push_back(e.builtin);
      return it->second;
    }
    case ExtRef::Prelude: {
      auto it = preludeIds.find(std::make_tuple(e.file, e.begin, e.name));
      if (it == preludeIds.end()) return UINT32_MAX;
      if (whole) return it->second;
      uint32_t &copy = preludeCopy[it->second];
      if (copy == UINT32_MAX) { // a slice's first reference: copy the symbol
        Symbol s = canonical->symbols[it->second];
        s.container = UINT32_MAX;
        copy = static_cast<uint32_t>(A->symbols.size());
        A->symbols.push_back(std::move(s));
      }
      return copy;
    }
    case ExtRef::Fn: {
      auto it = fns.find(e.name);
      return it == fns.end() ? UINT32_MAX : it->second;
    }
    }
    return UINT32_MAX;
  };
  for (size_t i = 0; i < items.size(); ++i) {
    if (!withSymbols[i]) continue;
    for (size_t k = 0; k < groups[i]->symbols.size(); ++k) {
      uint32_t r = groups[i]->symbols[k].container;
      A->symbols[base[i] + k].container = r == UINT32_MAX ? r : (r & kExt) ? UINT32_MAX : base[i] + r;
    }
  }
  for (size_t i = first; i < last; ++i) {
    if (stopped()) return nullptr;
    const CheckedItem &c = *items[i].checked;
    std::vector<uint32_t> bases{items[i].start};
    for (const Occurrence &o : c.occurrences)
      A->occurrences.push_back({translate(o.range, P, bases), resolveRef(i, o.symbol), o.isDefinition, o.isWrite});
    for (const ExprFact &f : groups[i]->exprFacts) {
      ExprFact g = f;
      g.range = translate(f.range, P, bases);
      A->exprFacts.push_back(std::move(g));
    }
    for (const TypeHint &h : groups[i]->typeHints) A->typeHints.push_back({translate(h.nameRange, P, bases), h.label});
    for (KernelSummary k : c.kernels) {
      k.symbol = resolveRef(i, k.symbol);
      k.nameRange = translate(k.nameRange, P, bases);
      k.declRange = translate(k.declRange, P, bases);
      A->kernels.push_back(std::move(k));
    }
  }
  auto byPos = [](const auto &a, const auto &b) {
    if (a.range.file != b.range.file) return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  };
  std::stable_sort(A->occurrences.begin(), A->occurrences.end(), byPos);
  std::stable_sort(A->exprFacts.begin(), A->exprFacts.end(), byPos);
  std::sort(A->typeHints.begin(), A->typeHints.end(),
            [](const TypeHint &a, const TypeHint &b) { return a.nameRange.begin < b.nameRange.begin; });
  return A;
}

/// The items [first, last) that overlap [from, to]: an item is [start, start + length);
/// an offset at or past the end of the file is in the last item.
std::pair<size_t, size_t> itemsOverlapping(const std::vector<Item> &items, uint32_t from, uint32_t to) {
  if (items.empty()) return {0, 0};
  if (to < from) std::swap(from, to);
  size_t first = items.size(), last = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    uint32_t b = items[i].start, e = b + items[i].summary->length;
    bool lastItem = i + 1 == items.size();
    if (b <= to && (e > from || lastItem)) {
      first = std::min(first, i);
      last = i + 1;
    }
  }
  if (first >= last) return {items.size() - 1, items.size()};
  return {first, last};
}

/// A fn item's text as its callers' checks saw it (file P + 2 + j): the item and its look-ahead line.
std::string depText(const ItemSummary &s) { return s.key.substr(0, s.length) + s.key.substr(s.length + 1); }

/// How a caller's check moves from one text of a fn it calls to another (OffsetMap).
struct DepMove {
  std::optional<incremental::OffsetMap> map; // none: the tokens differ, check the caller afresh
  std::string before, after;
};

/// `c`, checked against fn items whose texts changed only between their tokens, moved to
/// their new offsets (moves[j]: dep j; null when unchanged). Null when some offset of the
/// fns has no counterpart or a text the check copied (a message quoting an expression)
/// reads differently now: then the caller is checked afresh, so the result is always
/// what a fresh check gives.
std::shared_ptr<const CheckedItem> moved(const CheckedItem &c, const std::vector<const DepMove *> &moves, FileId P) {
  auto depOf = [&](FileId f) -> const DepMove * {
    if (f == UINT32_MAX || f < P + 2 || f - P - 2 >= moves.size()) return nullptr;
    return moves[f - P - 2];
  };
  for (const SourceRange &r : c.depTextReads) {
    const DepMove *m = depOf(r.file);
    if (!m) continue;
    uint32_t b = r.begin, e = r.end;
    if (!m->map->map(b) || !m->map->map(e) || e < b || e > m->after.size() || r.end > m->before.size() ||
        m->before.compare(r.begin, r.end - r.begin, m->after, b, e - b) != 0)
      return nullptr;
  }
  bool ok = true;
  auto move = [&](SourceRange &r, const DepMove *m) {
    if (m && !(m->map->map(r.begin) && m->map->map(r.end))) ok = false;
  };
  auto moveDiag = [&](Diagnostic &d) {
    move(d.range, depOf(d.range.file));
    for (auto &n : d.notes) move(n.range, depOf(n.range.file));
    for (auto &f : d.fixes)
      for (auto &e : f.edits) move(e.range, depOf(e.range.file));
  };
  auto out = std::make_shared<CheckedItem>(c);
  for (auto &d : out->resolveDiags) moveDiag(d);
  for (auto &d : out->elabDiags) moveDiag(d);
  for (auto &r : out->depTextReads) move(r, depOf(r.file));
  for (size_t j = 0; j < out->deps.size() && j < moves.size(); ++j) {
    const DepMove *m = moves[j];
    if (!m) continue;
    auto inDep = [&](SourceRange &r) {
      if (r.file == P + 1) move(r, m); // a dep group's own ranges (see check())
    };
    FactGroup &g = out->deps[j];
    for (Symbol &s : g.symbols) inDep(s.def), inDep(s.declRange), inDep(s.scope);
    for (ExprFact &f : g.exprFacts) inDep(f.range);
    for (TypeHint &h : g.typeHints) inDep(h.nameRange);
  }
  if (!ok) return nullptr;
  return out;
}

} // namespace

IncrementalAnalyzer::Result IncrementalAnalyzer::update(std::shared_ptr<const SourceFile> file,
                                                        const std::function<bool()> &cancelled, bool allConfigs) {
  Impl &I = *impl_;
  I.cacheInlining = cacheInlining;
  // The first update of the document (nothing cached yet) may take more threads than
  // the later ones: firstThreads.
  const unsigned threads = I.summaries.empty() && I.checks.empty() && firstThreads ? firstThreads : maxThreads;
  std::lock_guard<std::mutex> serial(I.updateMu); // documents sharing a path share the cache
  Result result;
  auto isCancelled = [&] { return cancelled && cancelled(); };
  IncrementalStats stats;
  auto whole = [&]() {
    AnalyzeOptions o = I.options;
    o.cancelled = cancelled;
    result.diagnostics = analyze(file, I.prelude, o);
    result.cancelled = result.diagnostics->cancelled;
    stats.whole = true;
    std::lock_guard<std::mutex> lock(I.statsMu);
    stats.cachedItems = I.summaries.size() + I.checks.size();
    I.stats = stats;
    return result;
  };
  if (file->text().size() > limits::kMaxSourceBytes) return whole(); // E0602 (ph/Limits.h)
  if (I.prelude)
    for (auto &f : I.prelude->files)
      if (samePath(f->path(), file->path())) return whole();

  // 1. Items: split, summarised (from the cache when the text and look-ahead are the same).
  const std::string &text = file->text();
  std::vector<uint32_t> starts = splitPoints(text);
  std::vector<Item> items;
  std::vector<Parsed> parsed; // parallel to items: the trees parsed by this update
  std::vector<bool> changed;  // parallel to items: its text is not the last version's
  std::unordered_map<std::string_view, std::shared_ptr<const ItemSummary>> usedSummaries;
  auto keyOf = [&](size_t i, size_t j) {
    uint32_t b = starts[i], e = j < starts.size() ? starts[j] : static_cast<uint32_t>(text.size());
    std::string key = text.substr(b, e - b);
    key += '\0';
    if (j < starts.size()) {
      size_t eol = text.find('\n', e);
      key.append(text, e, eol == std::string::npos ? std::string::npos : eol + 1 - e);
    }
    return key;
  };
  // Many items as split not in the cache yet (a first analysis, a paste): they are
  // lexed and parsed on a few threads first; the walk below joins items whose parse ran
  // into the next one (rare), summarising the joined text itself.
  struct Fresh {
    std::shared_ptr<const ItemSummary> summary;
    Parsed tree;
  };
  std::unordered_map<std::string_view, Fresh> fresh;
  {
    std::vector<std::pair<size_t, std::string>> missing;
    for (size_t i = 0; i < starts.size(); ++i)
      if (std::string key = keyOf(i, i + 1); !I.summaries.count(key)) missing.emplace_back(i, std::move(key));
    if (missing.size() < 8) missing.clear(); // an edit: the walk below parses the few it needs
    std::vector<Fresh> made(missing.size());
    parallelFor(missing.size(), threads, [&](size_t t) {
      size_t i = missing[t].first;
      uint32_t e = i + 1 < starts.size() ? starts[i + 1] : static_cast<uint32_t>(text.size());
      made[t].summary = I.summarize(file->path(), missing[t].second, e - starts[i], &made[t].tree);
    }, isCancelled);
    if (isCancelled()) {
      result.cancelled = true;
      return result;
    }
    for (auto &f : made) fresh.emplace(std::string_view(f.summary->key), std::move(f));
    stats.itemsParsed += made.size();
  }
  for (size_t i = 0; i < starts.size();) {
    size_t j = i + 1;
    while (true) {
      uint32_t b = starts[i], e = j < starts.size() ? starts[j] : static_cast<uint32_t>(text.size());
      std::string key = keyOf(i, j);
      std::shared_ptr<const ItemSummary> s;
      Parsed tree;
      bool known = false;
      if (auto it = I.summaries.find(key); it != I.summaries.end()) {
        s = it->second;
        known = true;
      } else if (auto f = fresh.find(key); f != fresh.end()) {
        s = f->second.summary;
        tree = std::move(f->second.tree); // a text met twice parses once; the second check re-parses
        f->second.tree = {};
      } else if (auto u = usedSummaries.find(key); u != usedSummaries.end()) {
        s = u->second;
      } else {
        s = I.summarize(file->path(), key, e - b, &tree);
        ++stats.itemsParsed;
      }
      if (!tree.module && file->path() == I.keptPath)
        if (auto k = I.keptTrees.find(s.get()); k != I.keptTrees.end()) {
          tree = std::move(k->second.tree);
          I.keptTrees.erase(k);
          ++stats.treesReused;
        }
      usedSummaries.emplace(std::string_view(s->key), s);
      if (s->valid || j >= starts.size()) {
        Item it;
        it.start = b;
        it.summary = s;
        items.push_back(std::move(it));
        parsed.push_back(std::move(tree));
        changed.push_back(!known);
        break;
      }
      ++j; // the parse ran into the next item: join them
    }
    i = j;
    if (isCancelled()) {
      result.cancelled = true;
      return result;
    }
  }

  // 2. Names: the split reproduces `analyze` only when every name is declared once.
  std::map<std::string, size_t> fnItem; // fn name -> item
  std::set<std::string> names;
  std::string fnTable;
  for (size_t i = 0; i < items.size(); ++i)
    for (const DeclInfo &d : items[i].summary->decls) {
      if (d.name.empty()) continue;
      if (check::isBuiltinFunction(d.name) || I.canonical->fnNames.count(d.name) || !names.insert(d.name).second)
        return whole();
      if (!d.isKernel) fnItem[d.name] = i;
    }
  std::vector<DeclInfo> allFns;
  for (auto &[name, i] : fnItem)
    for (const DeclInfo &d : items[i].summary->decls)
      if (!d.isKernel && d.name == name) {
        allFns.push_back(d);
        fnTable += name + "/" + std::to_string(d.arity) + ";";
      }
  // 3. Dependencies: the fn items each item reaches through calls.
  for (size_t i = 0; i < items.size(); ++i) {
    std::set<size_t> reached;
    std::vector<size_t> work{i};
    while (!work.empty()) {
      size_t k = work.back();
      work.pop_back();
      for (const std::string &c : items[k].summary->calls)
        if (auto f = fnItem.find(c); f != fnItem.end() && f->second != i && reached.insert(f->second).second)
          work.push_back(f->second);
    }
    items[i].deps.assign(reached.begin(), reached.end());
  }
  // 4. Checks: from the cache under the item's text, the fn table and its deps' texts.
  size_t fnTableHash = std::hash<std::string>()(fnTable);
  auto checkKey = [&](const Item &it, bool complete) {
    std::string k = std::to_string(reinterpret_cast<uintptr_t>(it.summary.get())) + ":" + std::to_string(fnTableHash) +
                    ":" + std::to_string(fnTable.size());
    for (size_t d : it.deps) k += "," + std::to_string(reinterpret_cast<uintptr_t>(items[d].summary.get()));
    k += complete ? ":all" : ":first";
    return k;
  };
  std::vector<std::string> fullKeys(items.size());
  for (size_t i = 0; i < items.size(); ++i) fullKeys[i] = checkKey(items[i], true);
  std::unordered_map<std::string, Impl::CheckEntry> usedChecks;
  result.complete = true;
  std::vector<size_t> todo;
  for (size_t i = 0; i < items.size(); ++i) {
    Item &it = items[i];
    if (auto f = I.checks.find(fullKeys[i]); f != I.checks.end()) it.checked = f->second.checked;
    if (!it.checked && !allConfigs)
      if (auto f = I.checks.find(checkKey(it, false)); f != I.checks.end()) it.checked = f->second.checked;
    if (!it.checked) todo.push_back(i);
  }
  // A caller whose text is the same and whose fns changed only between their tokens (a
  // comment, a blank line, indentation) sees the same tree: its previous check is moved
  // to the fns' new offsets instead of being redone (moved() says when it cannot be).
  if (!todo.empty() && fnTable == I.lastFnTable) {
    std::unordered_map<const ItemSummary *, std::vector<const Impl::CheckEntry *>> byItem;
    for (auto &kv : I.checks) {
      auto &v = byItem[kv.second.against[0].get()];
      v.push_back(&kv.second);
      std::stable_sort(v.begin(), v.end(), [](const Impl::CheckEntry *a, const Impl::CheckEntry *b) {
        return a->checked->complete > b->checked->complete;
      });
    }
    std::map<std::pair<const ItemSummary *, const ItemSummary *>, DepMove> depMoves;
    auto moveOf = [&](const ItemSummary *from, const ItemSummary *to) -> const DepMove * {
      auto [it, inserted] = depMoves.try_emplace({from, to});
      if (inserted) {
        it->second.before = depText(*from);
        it->second.after = depText(*to);
        it->second.map = incremental::OffsetMap::between(it->second.before, it->second.after);
      }
      return it->second.map ? &it->second : nullptr;
    };
    std::vector<size_t> still;
    for (size_t i : todo) {
      Item &it = items[i];
      auto cands = byItem.find(it.summary.get());
      for (size_t k = 0; cands != byItem.end() && k < cands->second.size() && !it.checked; ++k) {
        const Impl::CheckEntry &e = *cands->second[k];
        if (e.against.size() != 1 + it.deps.size() || (allConfigs && !e.checked->complete)) continue;
        std::vector<const DepMove *> moves(it.deps.size(), nullptr);
        bool ok = true;
        for (size_t j = 0; j < it.deps.size() && ok; ++j) {
          const ItemSummary *from = e.against[1 + j].get(), *to = items[it.deps[j]].summary.get();
          if (from != to) ok = (moves[j] = moveOf(from, to)) != nullptr;
        }
        if (ok) it.checked = moved(*e.checked, moves, I.P);
      }
      if (it.checked) ++stats.itemsMoved;
      else still.push_back(i);
    }
    todo = std::move(still);
  }
  size_t needed = 0;
  for (size_t i : todo) needed += items[i].summary->variants;
  bool lazy = !allConfigs && needed > lazyVariants && I.options.configFilter.empty();
  // An edit of a fn many kernels call (a large lazy batch): its callers are checked
  // nearest first. The edited items and the `focusItems` callers closest to them (the
  // kernel being read, those on screen) are checked now; the others keep their previous
  // check (their text is the same) until the next update (Result::staleItems). Only under
  // the same fn table (the previous checks saw the same names and arities).
  std::unordered_map<size_t, std::pair<std::string, Impl::CheckEntry>> staleEntries; // item -> its previous entry
  if (lazy && fnTable == I.lastFnTable) {
    std::unordered_map<const ItemSummary *, const std::pair<const std::string, Impl::CheckEntry> *> previous;
    for (auto &kv : I.checks) {
      auto &p = previous[kv.second.against[0].get()];
      if (!p || (kv.second.checked->complete && !p->second.checked->complete)) p = &kv;
    }
    std::vector<uint32_t> edited;
    for (size_t i : todo)
      if (changed[i]) edited.push_back(items[i].start);
    std::vector<std::pair<uint32_t, size_t>> callers; // (distance to the nearest edited item, item)
    for (size_t i : todo) {
      if (changed[i] || !previous.count(items[i].summary.get())) continue;
      uint32_t d = UINT32_MAX;
      for (uint32_t e : edited) d = std::min(d, e > items[i].start ? e - items[i].start : items[i].start - e);
      callers.emplace_back(d, i);
    }
    if (!edited.empty() && callers.size() > focusItems) {
      std::sort(callers.begin(), callers.end());
      for (size_t c = focusItems; c < callers.size(); ++c) {
        size_t i = callers[c].second;
        const auto &prev = *previous.at(items[i].summary.get());
        items[i].checked = prev.second.checked;
        items[i].stale = true;
        staleEntries.emplace(i, prev);
      }
      todo.erase(std::remove_if(todo.begin(), todo.end(), [&](size_t i) { return items[i].stale; }), todo.end());
      stats.itemsStale = staleEntries.size();
    }
  }
  // The items to check are independent: a large batch (a first analysis, an edit of a
  // fn every kernel calls) runs on a few threads.
  std::atomic<size_t> variants{0};
  std::vector<Parsed> keep(lazy ? items.size() : 0); // the trees to keep (KeptTree)
  parallelFor(todo.size(), threads, [&](size_t t) {
    size_t i = todo[t];
    std::vector<DeclInfo> stubs;
    std::set<size_t> real(items[i].deps.begin(), items[i].deps.end());
    real.insert(i);
    for (const DeclInfo &d : allFns)
      if (!real.count(fnItem.at(d.name))) stubs.push_back(d);
    size_t v = 0;
    items[i].checked = I.check(file->path(), items[i], parsed[i], items, stubs, !lazy, v);
    // Only an item checked partially is checked again by the update that completes this.
    if (lazy && items[i].checked && !items[i].checked->complete) keep[i] = std::move(parsed[i]);
    parsed[i] = {};
    variants += v;
  }, isCancelled);
  bool stop = false;
  for (size_t i : todo) stop = stop || !items[i].checked;
  if (stop) {
    result.cancelled = true;
    return result;
  }
  I.keptTrees.clear();
  I.keptPath = file->path();
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i].module) I.keptTrees[items[i].summary.get()] = {items[i].summary, std::move(keep[i])};
  stats.variants = variants;
  stats.itemsChecked = todo.size();
  for (size_t i = 0; i < items.size(); ++i) {
    const auto &c = items[i].checked;
    if (items[i].stale) {
      // Kept under its old key (whose summaries the entry keeps alive, so no new check
      // can have it), so that the next update still finds it as the previous check.
      result.complete = false;
      result.staleItems = true;
      usedChecks.emplace(staleEntries.at(i));
      continue;
    }
    if (!c->complete) result.complete = false;
    Impl::CheckEntry e{c, {items[i].summary}};
    for (size_t d : items[i].deps) e.against.push_back(items[d].summary);
    usedChecks.emplace(c->complete ? fullKeys[i] : checkKey(items[i], false), std::move(e));
  }

  // 5. Diagnostics, in analyze's order: lex and parse, resolve, elaborate; then its
  //    stable sort by position and its de-duplication.
  std::vector<Diagnostic> diags = I.canonical->parseDiags;
  FileId P = I.P;
  auto basesOf = [&](const Item &it) {
    std::vector<uint32_t> b{it.start};
    for (size_t d : it.deps) b.push_back(items[d].start);
    return b;
  };
  for (auto &it : items)
    for (auto &d : it.summary->lexDiags) diags.push_back(translate(d, P, {it.start}));
  for (auto &it : items)
    for (auto &d : it.summary->parseDiags) diags.push_back(translate(d, P, {it.start}));
  for (auto &d : I.canonical->resolveDiags) diags.push_back(d);
  for (auto &it : items)
    for (auto &d : it.checked->resolveDiags) diags.push_back(translate(d, P, {it.start}));
  // A stale item's findings inside the fns it calls were made on their previous text:
  // left out (the callers checked first report what the new text gives).
  auto inOwnText = [P](const Diagnostic &d) {
    auto own = [P](const SourceRange &r) { return r.file == UINT32_MAX || r.file <= P + 1; };
    if (!own(d.range)) return false;
    for (auto &n : d.notes)
      if (!own(n.range)) return false;
    for (auto &f : d.fixes)
      for (auto &e : f.edits)
        if (!own(e.range)) return false;
    return true;
  };
  for (auto &it : items) {
    auto bases = basesOf(it);
    for (auto &d : it.checked->elabDiags)
      if (!it.stale || inOwnText(d)) diags.push_back(translate(d, P, bases));
  }
  auto unique = std::make_shared<std::vector<Diagnostic>>(check::finishDiagnostics(std::move(diags)));
  limits::capDiagnostics(*unique, P); // W0601, as analyze() does

  auto light = std::make_shared<Analysis>();
  for (FileId id = 0; id < P; ++id) light->sources.add(I.prelude->files[id]);
  light->mainFile = light->sources.add(file);
  light->diagnostics = *unique;
  result.diagnostics = light;
  auto shared = std::make_shared<const std::vector<Item>>(std::move(items));
  result.materialize = [file, prelude = I.prelude, canonical = I.canonical, shared, unique,
                        P](const std::function<bool()> &stop) {
    return assemble(file, prelude, canonical, *shared, unique, P, stop);
  };
  result.typeHints = [shared, P](uint32_t from, uint32_t to) { return hintsIn(*shared, P, from, to); };
  result.slice = [file, prelude = I.prelude, canonical = I.canonical, shared, unique,
                  P](uint32_t from, uint32_t to, const std::function<bool()> &stop) {
    auto [first, last] = itemsOverlapping(*shared, from, to);
    return assemble(file, prelude, canonical, *shared, unique, P, stop, first, last);
  };
  {
    auto spans = std::make_shared<std::vector<Result::ItemSpan>>();
    std::vector<const FactGroup *> groups = factGroups(*shared);
    for (size_t i = 0; i < shared->size(); ++i) {
      const Item &it = (*shared)[i];
      Result::ItemSpan sp;
      sp.begin = it.start;
      sp.end = it.start + it.summary->length;
      sp.identity = it.checked;
      // A fn typed by a kernel's inlining: that kernel's check is part of what it shows.
      if (groups[i] != &it.checked->own)
        for (const Item &k : *shared)
          for (const FactGroup &g : k.checked->deps)
            if (&g == groups[i]) sp.typedBy = k.checked;
      spans->push_back(std::move(sp));
    }
    result.items = spans;
  }

  // 6. The cache keeps this version's items only: what an edit replaced goes.
  I.summaries = std::move(usedSummaries);
  I.checks = std::move(usedChecks);
  I.lastFnTable = fnTable;
  stats.items = shared->size();
  stats.preludeSeeded = I.canonical->seed != nullptr;
  if (I.canonical->inlineCache) {
    check::elab::InlineCacheStats ic = I.canonical->inlineCache->stats();
    stats.inlineHits = ic.hits;
    stats.inlineMisses = ic.misses;
    stats.inlineEntries = ic.entries;
  }
  stats.cachedItems = I.summaries.size() + I.checks.size();
  for (auto &[k, s] : I.summaries) stats.cacheBytes += s->bytes;
  for (auto &[k, c] : I.checks) stats.cacheBytes += c.checked->bytes + k.capacity();
  std::lock_guard<std::mutex> lock(I.statsMu);
  I.stats = stats;
  return result;
}

} // namespace ph
