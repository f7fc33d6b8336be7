//===- InlineCacheTest.cpp - std's inlining cached per call shape ----------===//
//
// The incremental analysis replays a std fn's inlining when a call has the same key
// (elab/InlineCache.h): it must give analyze's diagnostics and facts, with and without
// the cache; hit for the same argument shapes, miss when an argument's shape, aliasing
// or the fn's text changes, never keep a call whose body reported something, and stay
// within its capacity.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "CheckerState.h"
#include "elab/InlineCache.h"
#include "ph/Incremental.h"
#include "ph/Lexer.h"
#include "ph/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ph;
using namespace ph::test;

namespace {

std::string show(const std::vector<Diagnostic> &ds) {
  std::string out;
  for (const Diagnostic &d : ds) {
    out += std::string(d.code()) + " " + std::to_string(d.range.file) + ":" + std::to_string(d.range.begin) + " " +
           d.message + "\n";
    for (auto &n : d.notes) out += "  note " + std::to_string(n.range.begin) + " " + n.message + "\n";
  }
  return out;
}

/// Kernels, symbols with their types per configuration, and expression types.
std::string showFacts(const Analysis &a) {
  std::string out;
  for (auto &k : a.kernels) {
    out += "kernel " + k.name + " " + k.grid + " [";
    for (auto &c : k.configs) out += c + ";";
    out += "]\n";
  }
  // Symbols in the order of their place (the incremental analysis numbers them by item).
  std::vector<std::string> symbols;
  for (auto &s : a.symbols) {
    if (s.def.file != a.mainFile) continue;
    std::string line = std::to_string(s.def.begin) + " sym " + s.name + " " + s.signature + " | " + s.typeSymbolic + " |";
    for (auto &t : s.typeConcrete) line += " " + t;
    symbols.push_back(line + "\n");
  }
  std::sort(symbols.begin(), symbols.end());
  for (auto &l : symbols) out += l;
  for (auto &f : a.exprFacts) {
    if (f.range.file != a.mainFile) continue;
    out += "expr " + std::to_string(f.range.begin) + " " + f.typeSymbolic;
    for (auto &t : f.typeConcrete) out += " " + t;
    out += "\n";
  }
  for (auto &h : a.typeHints) out += "hint " + std::to_string(h.nameRange.begin) + h.label + "\n";
  return out;
}

std::shared_ptr<const SourceFile> file(const std::string &text) { return std::make_shared<SourceFile>("test.ph", text); }

AnalyzeOptions editorOptions() {
  AnalyzeOptions o;
  o.specialise = false;
  return o;
}

/// `copies` copies of mha.ph's kernels under names of their own (the scale batch's file).
std::string mhaCopies(int copies) {
  std::string base = readSource("examples/mha.ph"), out;
  for (int n = 0; n < copies; ++n) {
    std::string t = base;
    for (const char *k : {"mha_causal_bf16", "mha_causal_f16", "mha_bf16", "mha_f16"}) {
      std::string from = std::string("kernel ") + k + "(", to = std::string("kernel ") + k + "_" + std::to_string(n) + "(";
      for (size_t p = t.find(from); p != std::string::npos; p = t.find(from, p + to.size())) t.replace(p, from.size(), to);
    }
    out += t;
  }
  return out;
}

/// A prelude of one file (`std/t.ph`): `fn` bodies the tests call with shapes of their choosing.
std::shared_ptr<const Prelude> smallPrelude(const std::string &text) {
  auto p = std::make_shared<Prelude>();
  p->files.push_back(std::make_shared<SourceFile>("std/t.ph", text));
  return p;
}

const char *kStd = "fn add_to(a, b) {\n  a = a + b\n}\n"
                   "fn scale_rows(acc, s) {\n  let t = acc * s\n  acc = t\n}\n";

/// A kernel whose tile `x` is [R, C] and `y` [R, C2], calling `call` on them.
std::string kernel(const std::string &name, int r, int c, int c2, const std::string &call) {
  return "kernel " + name + "(O: tensor<f32>[" + std::to_string(r) + ", " + std::to_string(c) + "]) {\n" +
         "  var x: tile<f32>[" + std::to_string(r) + ", " + std::to_string(c) + "] = 1.0\n" +
         "  var y: tile<f32>[" + std::to_string(r) + ", " + std::to_string(c2) + "] = 2.0\n  " + call + "\n" +
         "  O[:, :] = x\n}\n";
}

IncrementalStats analyseFully(IncrementalAnalyzer &inc, const std::string &text, const std::shared_ptr<const Prelude> &p,
                              bool cache = true) {
  auto r = inc.update(file(text), {}, false);
  while (!r.complete) r = inc.update(file(text), {}, !r.staleItems);
  auto whole = analyze(file(text), p, editorOptions());
  EXPECT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics)) << text;
  auto full = r.materialize ? r.materialize({}) : r.diagnostics;
  EXPECT_EQ(showFacts(*full), showFacts(*whole)) << text;
  return inc.stats();
}

} // namespace

TEST(InlineCache, ManyKernelsReplayStdWithAnalyzesResults) {
  std::string text = mhaCopies(6);
  IncrementalAnalyzer cached(prelude()), plain(prelude());
  plain.cacheInlining = false;
  IncrementalStats s = analyseFully(cached, text, prelude());
  analyseFully(plain, text, prelude());
  // 24 kernels x 7 configurations, each inlining std's attention (and online_softmax
  // in it) or causal_mask and online_softmax: a few shapes per configuration (54 misses for
  // mha.ph's 7), not per kernel (24 x 7 x 2 calls without the cache).
  EXPECT_GT(s.inlineHits, 100u);
  EXPECT_LT(s.inlineMisses, 60u);
  EXPECT_EQ(plain.stats().inlineHits + plain.stats().inlineMisses, 0u);
  // And on every example, the same as the whole analysis.
  for (const char *path : kExamples) {
    IncrementalAnalyzer inc(prelude());
    analyseFully(inc, readSource(path), prelude());
  }
}

TEST(InlineCache, TheSameShapesHitAnotherShapeOrAliasingMisses) {
  auto p = smallPrelude(kStd);
  std::string text = kernel("k0", 64, 32, 32, "scale_rows(x, 2.0)") + kernel("k1", 64, 32, 32, "scale_rows(x, 2.0)") +
                     kernel("k2", 64, 32, 32, "scale_rows(x, 2.0)");
  IncrementalAnalyzer inc(p);
  IncrementalStats s = analyseFully(inc, text, p);
  EXPECT_EQ(s.inlineMisses, 1u);
  EXPECT_EQ(s.inlineHits, 2u);
  EXPECT_EQ(s.inlineEntries, 1u);

  // k1's tile becomes [64, 16]: a new shape, one miss (the items checked again around
  // it hit); back to [64, 32]: hits only.
  std::string other = kernel("k0", 64, 32, 32, "scale_rows(x, 2.0)") + kernel("k1", 64, 16, 16, "scale_rows(x, 2.0)") +
                      kernel("k2", 64, 32, 32, "scale_rows(x, 2.0)");
  s = analyseFully(inc, other, p);
  EXPECT_EQ(s.inlineMisses, 2u);
  EXPECT_EQ(s.inlineEntries, 2u);
  size_t hits = s.inlineHits;
  s = analyseFully(inc, text, p);
  EXPECT_EQ(s.inlineMisses, 2u);
  EXPECT_GT(s.inlineHits, hits);

  // Another literal is another value: a miss.
  s = analyseFully(inc, kernel("k0", 64, 32, 32, "scale_rows(x, 3.0)"), p);
  EXPECT_EQ(s.inlineMisses, 3u);

  // add_to(x, x) and add_to(x, y) with x and y of one type: the body reads one variable
  // or two, so they have keys of their own.
  IncrementalAnalyzer alias(p);
  s = analyseFully(alias, kernel("a0", 64, 32, 32, "add_to(x, x)") + kernel("a1", 64, 32, 32, "add_to(x, y)") +
                              kernel("a2", 64, 32, 32, "add_to(x, x)"),
                   p);
  EXPECT_EQ(s.inlineMisses, 2u);
  EXPECT_EQ(s.inlineHits, 1u);
}

TEST(InlineCache, ACallWhoseBodyReportsIsNeverKept) {
  auto p = smallPrelude(kStd);
  // y is [64, 16]: `a + b` inside add_to reports a shape mismatch, with the call's note.
  std::string bad = kernel("k0", 64, 32, 16, "add_to(x, y)") + kernel("k1", 64, 32, 16, "add_to(x, y)");
  IncrementalAnalyzer inc(p);
  IncrementalStats s = analyseFully(inc, bad, p);
  EXPECT_EQ(s.inlineHits, 0u);
  EXPECT_EQ(s.inlineMisses, 2u);
  EXPECT_EQ(s.inlineEntries, 0u);
  // The finding inside add_to, at its line in std with a note at the call (one of each:
  // analyze's de-duplication).
  auto whole = analyze(file(bad), p, editorOptions());
  ASSERT_EQ(whole->diagnostics.size(), 1u);
  EXPECT_EQ(whole->diagnostics[0].range.file, 0u);
  EXPECT_EQ(whole->diagnostics[0].notes.size(), 1u);
}

TEST(InlineCache, AFnWhoseTextChangesGetsAnotherId) {
  check::elab::InlineCache cache;
  EXPECT_EQ(cache.textId("fn f(a) {}"), cache.textId("fn f(a) {}"));
  EXPECT_NE(cache.textId("fn f(a) {}"), cache.textId("fn f(b) {}"));
  // Through the declarations: the same text gives the same id; a fn whose body (or a
  // fn it calls) reads differently gets another, so no entry of the old one is found.
  struct Checked {
    Analysis A;
    DiagnosticSink diags;
    AnalyzeOptions o;
    std::unique_ptr<check::State> st;
    explicit Checked(const std::string &text) {
      A.sources.add(std::make_shared<SourceFile>("std/t.ph", text));
      A.modules.push_back(std::shared_ptr<const ast::Module>(parse(lex(A.sources.file(0), 0, diags), 0, diags)));
      A.mainFile = 1;
      st = std::make_unique<check::State>(A, diags, o);
      check::resolve(*st);
    }
    const ast::Decl &fn(const std::string &name) { return *st->functions.at(name); }
  };
  Checked a(kStd), same(kStd), body(std::string(kStd).replace(std::string(kStd).find("a + b"), 5, "a - b"));
  EXPECT_EQ(cache.fnId(*a.st, a.fn("add_to")), cache.fnId(*same.st, same.fn("add_to")));
  EXPECT_NE(cache.fnId(*a.st, a.fn("add_to")), cache.fnId(*body.st, body.fn("add_to")));
  // scale_rows does not call add_to: its text is the same in both.
  EXPECT_EQ(cache.fnId(*a.st, a.fn("scale_rows")), cache.fnId(*body.st, body.fn("scale_rows")));
  // A fn that calls an edited fn changes with it.
  std::string calls = "fn outer(a, b) {\n  add_to(a, b)\n}\n";
  Checked c1(kStd + calls), c2(std::string(kStd).replace(std::string(kStd).find("a + b"), 5, "a - b") + calls);
  EXPECT_NE(cache.fnId(*c1.st, c1.fn("outer")), cache.fnId(*c2.st, c2.fn("outer")));
}

TEST(InlineCache, StaysWithinItsCapacity) {
  check::elab::InlineCache cache(4);
  auto fx = std::make_shared<const check::elab::InlineEffects>();
  for (int i = 0; i < 10; ++i) cache.insert("key" + std::to_string(i), fx);
  check::elab::InlineCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 4u);
  EXPECT_EQ(s.stored, 10u);
  EXPECT_EQ(s.evicted, 6u);
  // The oldest went first.
  EXPECT_EQ(cache.find("key0"), nullptr);
  EXPECT_EQ(cache.find("key5"), nullptr);
  EXPECT_NE(cache.find("key6"), nullptr);
  EXPECT_NE(cache.find("key9"), nullptr);
  EXPECT_EQ(cache.stats().hits, 2u);
  EXPECT_EQ(cache.stats().misses, 2u);
  // A key inserted twice is kept once.
  cache.insert("key9", fx);
  EXPECT_EQ(cache.stats().entries, 4u);
}
