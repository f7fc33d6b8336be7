//===- IncrementalTest.cpp - The item cache against the whole analysis -----===//
//
// IncrementalAnalyzer must give exactly analyze's diagnostics (ph check's), on every
// example and after every one of many random edits, while checking only the items
// an edit reached; its materialized analysis must carry the same kernels, hints
// and occurrences.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "ph/Incremental.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

using namespace ph;
using namespace ph::test;

namespace {

std::string show(const SourceRange &r) {
  return std::to_string(r.file) + ":" + std::to_string(r.begin) + "-" + std::to_string(r.end);
}

std::string show(const std::vector<Diagnostic> &ds) {
  std::string out;
  for (const Diagnostic &d : ds) {
    out += std::string(d.code()) + " " + show(d.range) + " " + d.message + "\n";
    for (auto &n : d.notes) out += "  note " + show(n.range) + " " + n.message + "\n";
    for (auto &f : d.fixes) {
      out += "  fix " + f.title;
      for (auto &e : f.edits) out += " " + show(e.range) + "=" + e.text;
      out += "\n";
    }
  }
  return out;
}

std::string showFacts(const Analysis &a) {
  std::string out;
  for (auto &k : a.kernels) {
    out += "kernel " + k.name + " " + show(k.nameRange) + " " + show(k.declRange) + " " + k.grid + " " +
           k.autotuneSpace + " " + std::to_string(k.threads) + (k.tensorcore ? " tc" : "") + " [";
    for (auto &c : k.configs) out += c + ";";
    out += "] " + (k.symbol < a.symbols.size() ? a.symbols[k.symbol].name : std::string("?")) + "\n";
  }
  for (auto &h : a.typeHints) out += "hint " + show(h.nameRange) + h.label + "\n";
  for (auto &o : a.occurrences) {
    if (o.range.file != a.mainFile) continue;
    out += "occ " + show(o.range) + " " + (o.symbol < a.symbols.size() ? a.symbols[o.symbol].name : "?") +
           (o.isDefinition ? " def" : "") + (o.isWrite ? " write" : "") + "\n";
    if (o.symbol < a.symbols.size()) {
      const Symbol &s = a.symbols[o.symbol];
      out += "  " + s.signature + " | " + s.typeSymbolic + " |";
      for (auto &t : s.typeConcrete) out += " " + t;
      out += "\n";
    }
  }
  for (auto &f : a.exprFacts) {
    if (f.range.file != a.mainFile) continue;
    out += "expr " + show(f.range) + " " + f.typeSymbolic;
    for (auto &t : f.typeConcrete) out += " " + t;
    out += "\n";
  }
  return out;
}

/// showFacts of what begins in [b, e) of the main file only, and the tokens there.
std::string showFactsIn(const Analysis &a, uint32_t b, uint32_t e) {
  auto in = [&](const SourceRange &r) { return r.file == a.mainFile && r.begin >= b && r.begin < e; };
  std::string out;
  for (auto &k : a.kernels)
    if (in(k.nameRange))
      out += "kernel " + k.name + " " + show(k.nameRange) + " " + show(k.declRange) + " " + k.grid + " " +
             std::to_string(k.configs.size()) + " " + (k.symbol < a.symbols.size() ? a.symbols[k.symbol].name : "?") + "\n";
  for (auto &h : a.typeHints)
    if (in(h.nameRange)) out += "hint " + show(h.nameRange) + h.label + "\n";
  for (auto &o : a.occurrences) {
    if (!in(o.range)) continue;
    out += "occ " + show(o.range) + (o.isDefinition ? " def" : "") + (o.isWrite ? " write" : "") + "\n";
    if (o.symbol < a.symbols.size()) {
      const Symbol &s = a.symbols[o.symbol];
      out += "  " + s.name + " " + std::to_string(static_cast<int>(s.kind)) + " " + show(s.def) + " " + s.signature +
             " | " + s.typeSymbolic + " |";
      for (auto &t : s.typeConcrete) out += " " + t;
      out += " | " + s.doc + "\n";
      if (s.container < a.symbols.size() && in(s.def))
        out += "  in " + a.symbols[s.container].name + " " + show(a.symbols[s.container].def) + "\n";
    }
  }
  for (auto &f : a.exprFacts) {
    if (!in(f.range)) continue;
    out += "expr " + show(f.range) + " " + f.typeSymbolic;
    for (auto &t : f.typeConcrete) out += " " + t;
    out += "\n";
  }
  for (auto &t : a.tokens)
    if (t.kind != Tok::Eof && in(t.range)) out += "tok " + show(t.range) + " " + std::string(t.text) + "\n";
  if (a.mainFile < a.modules.size() && a.modules[a.mainFile])
    for (auto &d : a.modules[a.mainFile]->decls)
      if (d && in(d->name.range)) out += "decl " + d->name.name + " " + show(d->bodyRange) + "\n";
  return out;
}

/// Every item's slice carries what the whole analysis has in that item.
void expectSlicesMatch(const IncrementalAnalyzer::Result &r, const std::string &what) {
  ASSERT_TRUE(r.slice && r.items) << what;
  auto full = r.materialize({});
  ASSERT_TRUE(full) << what;
  for (const auto &sp : *r.items) {
    auto sl = r.slice(sp.begin, sp.begin, {});
    ASSERT_TRUE(sl) << what;
    EXPECT_EQ(showFactsIn(*sl, sp.begin, sp.end), showFactsIn(*full, sp.begin, sp.end)) << what << " item at " << sp.begin;
    EXPECT_EQ(show(sl->diagnostics), show(full->diagnostics)) << what;
    // Nothing of another item's text (the fns it calls lend their symbols only).
    EXPECT_EQ(showFactsIn(*sl, 0, sp.begin), "") << what << " item at " << sp.begin;
    EXPECT_EQ(showFactsIn(*sl, sp.end, UINT32_MAX), "") << what << " item at " << sp.begin;
    ASSERT_TRUE(sp.identity) << what;
  }
}

std::shared_ptr<const SourceFile> file(const std::string &text) { return std::make_shared<SourceFile>("test.ph", text); }

AnalyzeOptions editorOptions() {
  AnalyzeOptions o;
  o.specialise = false;
  return o;
}

/// 63 copies of mha.ph's kernels under their own names, with a `fn` every kernel calls.
std::string manyKernels(int copies) {
  std::string base = readSource("examples/mha.ph"), out = "fn finish(acc, l) {\n  acc = acc * l\n}\n";
  for (int n = 0; n < copies; ++n) {
    std::string t = base;
    for (const char *k : {"mha_causal_bf16", "mha_causal_f16", "mha_bf16", "mha_f16"}) {
      std::string from = std::string("kernel ") + k + "(", to = std::string("kernel ") + k + "_" + std::to_string(n) + "(";
      for (size_t p = t.find(from); p != std::string::npos; p = t.find(from, p + to.size())) t.replace(p, from.size(), to);
    }
    std::string store = "  O[b, h, row :+ BR, :] = acc\n";
    for (size_t p = t.find(store); p != std::string::npos; p = t.find(store, p + store.size() + 20)) {
      t.insert(p, "  finish(acc, 1.0)\n");
      p += 19;
    }
    out += t;
  }
  return out;
}

} // namespace

TEST(Incremental, ExamplesGiveAnalyzesDiagnosticsAndFacts) {
  for (const char *path : kExamples) {
    std::string text = readSource(path);
    IncrementalAnalyzer inc(prelude());
    auto r = inc.update(file(text));
    ASSERT_TRUE(r.diagnostics) << path;
    auto whole = analyze(file(text), prelude(), editorOptions());
    EXPECT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics)) << path;
    auto full = r.materialize ? r.materialize({}) : r.diagnostics;
    EXPECT_EQ(showFacts(*full), showFacts(*whole)) << path;
    EXPECT_EQ(full->tokens.size(), whole->tokens.size()) << path;
  }
}

TEST(Incremental, RandomEditsAcrossItemsKeepDiagnosticsExact) {
  const char *snippets[] = {"(", ")", "[", "]", "{", "}", " + ", " * ", "let ", "var ", "for ", "kernel ", "fn ",
                            "@", "@autotune(", "\n", "dot_t(", "online_softmax(", ",", "1.0e30", "ctx.block.",
                            "tile<f32>[", "///", "\n/// doc\n", "\nfn g(x) {\n  x = x * 2.0\n}\n", "rowmax(", "x",
                            "0", ";", ":", "\n@tensorcore\n", "finish(acc, 2.0)\n", "\n}\n"};
  std::mt19937 rng(20261201);
  std::vector<std::string> texts = {manyKernels(2), readSource("examples/flash_attention_manual.ph"),
                                    readSource("examples/causal_attention.ph")};
  int steps = 0;
  for (std::string text : texts) {
    IncrementalAnalyzer inc(prelude());
    std::string original = text;
    for (int i = 0; i < 400; ++i, ++steps) {
      size_t a = rng() % (text.size() + 1);
      size_t len = std::min<size_t>(text.size() - a, rng() % 3 == 0 ? rng() % 6 : 0);
      std::string ins = rng() % 5 < 3 ? snippets[rng() % (sizeof(snippets) / sizeof(*snippets))] : "";
      text = text.substr(0, a) + ins + text.substr(a + len);
      if (text.size() < 100 || text.size() > 40000) text = original;
      auto r = inc.update(file(text), {}, i % 3 != 0);
      if (!r.complete) r = inc.update(file(text), {}, true);
      auto whole = analyze(file(text), prelude(), editorOptions());
      ASSERT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics)) << "step " << i << " text:\n" << text;
      if (i % 50 == 0) {
        auto full = r.materialize ? r.materialize({}) : r.diagnostics;
        ASSERT_EQ(full->kernels.size(), whole->kernels.size()) << "step " << i;
      }
    }
  }
  EXPECT_EQ(steps, 1200);
}

TEST(Incremental, AnEditReanalysesTheItemsItReaches) {
  std::string text = manyKernels(3); // 12 kernels calling `finish`
  IncrementalAnalyzer inc(prelude());
  inc.update(file(text));
  EXPECT_EQ(inc.stats().items, 13u);
  EXPECT_EQ(inc.stats().itemsChecked, 13u);
  // Inside one kernel: that kernel only.
  std::string edited = text;
  size_t at = edited.find("let h = ctx.block.y", edited.find("kernel mha_bf16_1("));
  edited.insert(at, "// edit\n  ");
  auto r = inc.update(file(edited));
  EXPECT_EQ(inc.stats().itemsChecked, 1u);
  EXPECT_EQ(inc.stats().itemsParsed, 1u);
  EXPECT_EQ(show(r.diagnostics->diagnostics), show(analyze(file(edited), prelude(), editorOptions())->diagnostics));
  // Inside the fn every kernel calls: the fn and all its callers.
  std::string fnEdit = edited;
  fnEdit.replace(fnEdit.find("acc = acc * l"), 13, "acc = acc * l * 1.0");
  r = inc.update(file(fnEdit));
  EXPECT_EQ(inc.stats().itemsChecked, 13u);
  EXPECT_EQ(show(r.diagnostics->diagnostics), show(analyze(file(fnEdit), prelude(), editorOptions())->diagnostics));
  // An error inside the fn reaches every kernel, with each call's note, as analyze reports it.
  std::string bad = fnEdit;
  bad.replace(bad.find("acc = acc * l * 1.0"), 19, "acc = rowmax(acc, l)");
  r = inc.update(file(bad));
  EXPECT_FALSE(r.diagnostics->diagnostics.empty());
  EXPECT_EQ(show(r.diagnostics->diagnostics), show(analyze(file(bad), prelude(), editorOptions())->diagnostics));
  // The cache holds this version's items only.
  EXPECT_LE(inc.stats().cachedItems, 2 * inc.stats().items);
  EXPECT_GT(inc.stats().cacheBytes, 0u);
}

TEST(Incremental, LargeFirstAnalysisElaboratesTheFirstConfigurationFirst) {
  std::string text = manyKernels(8); // 32 kernels of 7 configurations
  IncrementalAnalyzer inc(prelude());
  auto first = inc.update(file(text), {}, false);
  EXPECT_FALSE(first.complete);
  EXPECT_EQ(inc.stats().variants, 32u);
  auto rest = inc.update(file(text), {}, true);
  EXPECT_TRUE(rest.complete);
  EXPECT_EQ(inc.stats().variants, 224u);
  // The rest checks every item on the tree the first update parsed: none is parsed again.
  EXPECT_EQ(inc.stats().treesReused, inc.stats().itemsChecked);
  EXPECT_GT(inc.stats().treesReused, 0u);
  auto whole = analyze(file(text), prelude(), editorOptions());
  EXPECT_EQ(show(rest.diagnostics->diagnostics), show(whole->diagnostics));
  EXPECT_EQ(showFacts(*rest.materialize({})), showFacts(*whole));
  // A configuration past the first with an error: found by the rest, as by analyze.
  std::string bad = text;
  bad.replace(bad.find("BR in [64, 128]"), 15, "BR in [64, 100]");
  auto b1 = inc.update(file(bad), {}, false);
  auto b2 = b1.complete ? b1 : inc.update(file(bad), {}, true);
  EXPECT_EQ(show(b2.diagnostics->diagnostics), show(analyze(file(bad), prelude(), editorOptions())->diagnostics));
}

TEST(Incremental, OneThreadGivesWhatSeveralGive) {
  // IncrementalAnalyzer::maxThreads (ph-lsp makes it the number of malloc arenas): the
  // batches of a first analysis and of an edit of the fn every kernel calls, on the
  // caller alone, give what several threads give, and what analyze gives.
  std::string text = manyKernels(8), fnEdit = text;
  fnEdit.replace(fnEdit.find("acc = acc * l"), 13, "acc = rowmax(acc, l)");
  IncrementalAnalyzer one(prelude()), many(prelude());
  one.maxThreads = 1;
  many.maxThreads = 8;
  for (const std::string *t : {&text, &fnEdit, &text}) {
    auto whole = analyze(file(*t), prelude(), editorOptions());
    for (bool all : {false, true}) {
      auto a = one.update(file(*t), {}, all), b = many.update(file(*t), {}, all);
      EXPECT_EQ(show(a.diagnostics->diagnostics), show(b.diagnostics->diagnostics));
      EXPECT_EQ(a.complete, b.complete);
      if (all) {
        EXPECT_EQ(show(a.diagnostics->diagnostics), show(whole->diagnostics));
        EXPECT_EQ(showFacts(*a.materialize({})), showFacts(*b.materialize({})));
        EXPECT_EQ(showFacts(*b.materialize({})), showFacts(*whole)) << (t == &fnEdit ? "fn edit" : "text");
      }
    }
    EXPECT_EQ(one.stats().itemsChecked, many.stats().itemsChecked);
  }
}

TEST(Incremental, DuplicateNamesGoThroughTheWholeAnalysis) {
  std::string text = readSource("examples/causal_attention.ph");
  text += "\nfn online_softmax(a) {\n  a = a\n}\nfn rowmax(x) {\n  x = x\n}\n";
  IncrementalAnalyzer inc(prelude());
  auto r = inc.update(file(text));
  EXPECT_TRUE(inc.stats().whole);
  EXPECT_EQ(show(r.diagnostics->diagnostics), show(analyze(file(text), prelude(), editorOptions())->diagnostics));
}

TEST(Incremental, CancelledUpdateStopsBetweenItems) {
  IncrementalAnalyzer inc(prelude());
  auto r = inc.update(file(manyKernels(2)), [] { return true; });
  EXPECT_TRUE(r.cancelled);
}

TEST(Incremental, SlicesCarryTheWholeAnalysisOfTheirItems) {
  // A feature asking about one item (hover, an item's semantic tokens) reads a slice of
  // it: the same facts as the whole analysis, in the document's coordinates.
  std::vector<std::string> texts = {manyKernels(3)};
  for (const char *path : kExamples) texts.push_back(readSource(path));
  for (const std::string &text : texts) {
    IncrementalAnalyzer inc(prelude());
    auto r = inc.update(file(text));
    if (!r.materialize) continue; // went through analyze whole (no items)
    expectSlicesMatch(r, text.substr(0, 60));
  }
  // After edits inside one item and of the fn every kernel calls: the items moved, the
  // edited ones were checked again, and an unchanged item keeps its identity.
  std::string text = manyKernels(3);
  IncrementalAnalyzer inc(prelude());
  auto r0 = inc.update(file(text));
  size_t at = text.find("let h = ctx.block.y", text.size() / 2);
  std::string edited = text.substr(0, at) + "// edit\n  " + text.substr(at);
  auto r1 = inc.update(file(edited));
  expectSlicesMatch(r1, "after an edit in a kernel");
  ASSERT_EQ(r0.items->size(), r1.items->size());
  size_t same = 0;
  for (size_t i = 0; i < r0.items->size(); ++i) same += (*r0.items)[i].identity == (*r1.items)[i].identity;
  EXPECT_EQ(same, r0.items->size() - 1); // only the edited kernel's item was checked again
  size_t fnAt = edited.find("acc = acc * l");
  auto r2 = inc.update(file(edited.substr(0, fnAt) + "acc = acc * l * 1.0" + edited.substr(fnAt + 13)));
  expectSlicesMatch(r2, "after an edit of the fn");
  // A range over two items, and a point past the end (the last item).
  const auto &sp = *r2.items;
  auto two = r2.slice(sp[1].begin, sp[2].begin, {});
  EXPECT_NE(showFactsIn(*two, sp[2].begin, sp[2].end), "");
  EXPECT_NE(showFactsIn(*two, sp[1].begin, sp[1].end), "");
  auto end = r2.slice(UINT32_MAX, UINT32_MAX, {});
  EXPECT_NE(showFactsIn(*end, sp.back().begin, sp.back().end), "");
}

TEST(Incremental, AnEditOfAFnManyKernelsCallChecksTheNearestCallersFirst) {
  // 12 kernels call `finish` (at the top); the last one has an error of its own.
  std::string text = manyKernels(3);
  size_t lastKernel = text.rfind("kernel ");
  size_t typo = text.find("causal_mask(", lastKernel);
  ASSERT_NE(typo, std::string::npos);
  text.replace(typo, 12, "causal_msk(");
  IncrementalAnalyzer inc(prelude());
  inc.lazyVariants = 8; // 12 first configurations to elaborate: lazy
  inc.focusItems = 3;
  auto r = inc.update(file(text), {}, false);
  EXPECT_FALSE(r.staleItems); // a first analysis has no previous checks to show
  r = inc.update(file(text), {}, true);
  ASSERT_TRUE(r.complete);
  // A line inserted into the fn (everything after it moves) and its body changed.
  std::string edited = text;
  edited.replace(edited.find("  acc = acc * l\n"), 16, "  // scaled\n  acc = acc * l * 2.0\n");
  auto r0 = inc.update(file(edited), {}, false);
  EXPECT_TRUE(r0.staleItems);
  EXPECT_FALSE(r0.complete);
  EXPECT_EQ(inc.stats().itemsChecked, 4u); // the fn and its 3 nearest callers
  EXPECT_EQ(inc.stats().itemsStale, 9u);
  // The stale kernel's own error, moved with its text: what analyze finds.
  auto whole = analyze(file(edited), prelude(), editorOptions());
  ASSERT_FALSE(whole->diagnostics.empty());
  EXPECT_EQ(show(r0.diagnostics->diagnostics), show(whole->diagnostics));
  expectSlicesMatch(r0, "stage 0");
  // The fn's facts never come from a stale caller (its were taken on the fn's previous
  // text, before the inserted line): the same as once every caller is checked again.
  auto fnSlice = r0.slice(0, 0, {});
  auto r1 = inc.update(file(edited), {}, false);
  const auto &fnSpan = r1.items->front();
  EXPECT_EQ(showFactsIn(*fnSlice, fnSpan.begin, fnSpan.end), showFactsIn(*r1.slice(0, 0, {}), fnSpan.begin, fnSpan.end));
  EXPECT_FALSE(r1.staleItems);
  EXPECT_EQ(inc.stats().itemsChecked, 9u); // the rest of the callers, first configuration
  EXPECT_EQ(inc.stats().itemsStale, 0u);
  auto r2 = inc.update(file(edited), {}, true);
  EXPECT_TRUE(r2.complete);
  EXPECT_EQ(show(r2.diagnostics->diagnostics), show(whole->diagnostics));
  EXPECT_EQ(showFacts(*r2.materialize({})), showFacts(*whole));
  // An error inside the fn: reported at once through the callers checked first, with
  // the stale kernel's own error; the final diagnostics are analyze's.
  std::string bad = edited;
  bad.replace(bad.find("acc = acc * l * 2.0"), 19, "acc = rowmax(acc, l)");
  auto b0 = inc.update(file(bad), {}, false);
  EXPECT_TRUE(b0.staleItems);
  auto badWhole = analyze(file(bad), prelude(), editorOptions());
  std::string all = show(badWhole->diagnostics), first = show(b0.diagnostics->diagnostics);
  EXPECT_NE(first.find("causal_msk"), std::string::npos) << first;
  size_t fnEnd = bad.find("\n}\n");
  bool inFn = false;
  for (const Diagnostic &d : b0.diagnostics->diagnostics)
    inFn = inFn || (d.range.file == b0.diagnostics->mainFile && d.range.begin < fnEnd);
  EXPECT_TRUE(inFn) << first;
  for (size_t p = 0, q; (q = first.find('\n', p)) != std::string::npos; p = q + 1)
    if (first.compare(p, 7, "  note ") != 0) {
      EXPECT_NE(all.find(first.substr(p, q - p)), std::string::npos) << first.substr(p, q - p);
    }
  auto b1 = inc.update(file(bad), {}, false);
  auto b2 = b1.complete ? b1 : inc.update(file(bad), {}, true);
  EXPECT_EQ(show(b2.diagnostics->diagnostics), all);
}

TEST(Incremental, RandomEditsThroughTheStagesKeepDiagnosticsExact) {
  // Every stage an editor goes through (the nearest callers of an edited fn first, then
  // the others' first configuration, then every configuration) ends on analyze's
  // diagnostics; half the edits land in the fn every kernel calls.
  const char *snippets[] = {"(", ")", "{", "}", " + ", " * 2.0", "let ", "\n", "rowmax(", "x", "0", "\n  // c\n",
                            "acc = acc * l\n", "finish(acc, 2.0)\n", "\nfn g(x) {\n  x = x * 2.0\n}\n"};
  std::mt19937 rng(20261202);
  std::string original = manyKernels(2), text = original;
  IncrementalAnalyzer inc(prelude());
  inc.lazyVariants = 2;
  inc.focusItems = 2;
  int staged = 0;
  for (int i = 0; i < 160; ++i) {
    size_t fnEnd = text.find("\n}\n");
    size_t a = rng() % 2 && fnEnd != std::string::npos ? rng() % (fnEnd + 1) : rng() % (text.size() + 1);
    size_t len = std::min<size_t>(text.size() - a, rng() % 3 == 0 ? rng() % 6 : 0);
    std::string ins = rng() % 5 < 3 ? snippets[rng() % (sizeof(snippets) / sizeof(*snippets))] : "";
    text = text.substr(0, a) + ins + text.substr(a + len);
    if (text.size() < 100 || text.size() > 40000 || i % 8 == 0) text = original; // a fn still intact, often
    auto r = inc.update(file(text), {}, false);
    if (r.staleItems) {
      ++staged;
      if (i % 10 == 0) {
        ASSERT_TRUE(r.materialize) << "step " << i;
        ASSERT_TRUE(r.materialize({})) << "step " << i;
      }
    }
    for (int stage = 0; r.staleItems && stage < 3; ++stage) r = inc.update(file(text), {}, false);
    ASSERT_FALSE(r.staleItems) << "step " << i;
    if (!r.complete) r = inc.update(file(text), {}, true);
    auto whole = analyze(file(text), prelude(), editorOptions());
    ASSERT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics)) << "step " << i << " text:\n" << text;
  }
  EXPECT_GT(staged, 10);
}

TEST(Incremental, AFnEditBetweenItsTokensMovesItsCallersChecks) {
  // 12 kernels call `finish`, whose body has an error that every call reports (with a
  // note at the call); a comment line inserted into it, blank lines, indentation: the
  // tokens are the same, so each caller's check is moved to the fn's new offsets, not
  // redone, and everything is what analyze gives.
  std::string text = manyKernels(3);
  text.replace(text.find("  acc = acc * l\n"), 16, "  acc = rowmax(acc, l)\n  let unused = acc\n");
  IncrementalAnalyzer inc(prelude());
  auto r = inc.update(file(text));
  ASSERT_TRUE(r.complete);
  auto expectExact = [&](const std::string &t, const IncrementalAnalyzer::Result &res, const std::string &what) {
    auto whole = analyze(file(t), prelude(), editorOptions());
    ASSERT_FALSE(whole->diagnostics.empty()) << what;
    EXPECT_EQ(show(res.diagnostics->diagnostics), show(whole->diagnostics)) << what;
    EXPECT_EQ(showFacts(*res.materialize({})), showFacts(*whole)) << what;
    expectSlicesMatch(res, what);
  };
  std::string edited = text;
  edited.insert(edited.find("  acc = rowmax"), "  // a comment\n\n");
  r = inc.update(file(edited));
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(inc.stats().itemsChecked, 1u); // the fn itself
  EXPECT_EQ(inc.stats().itemsMoved, 12u);
  expectExact(edited, r, "a comment line");
  std::string indented = edited;
  indented.replace(indented.find("  let unused"), 2, "      ");
  r = inc.update(file(indented), {}, false); // the editor's first stage: complete at once
  EXPECT_TRUE(r.complete);
  EXPECT_FALSE(r.staleItems);
  EXPECT_EQ(inc.stats().itemsMoved, 12u);
  expectExact(indented, r, "indentation");
  // A token changed: every caller is checked again.
  std::string changed = indented;
  changed.replace(changed.find("let unused"), 10, "let unused2");
  r = inc.update(file(changed));
  EXPECT_EQ(inc.stats().itemsChecked, 13u);
  EXPECT_EQ(inc.stats().itemsMoved, 0u);
  expectExact(changed, r, "a token");
  // A line break between two tokens is not only space (the statement ends): checked again.
  std::string broken = changed;
  broken.replace(broken.find("rowmax(acc, l)"), 14, "rowmax(acc,\n l)");
  r = inc.update(file(broken));
  auto whole = analyze(file(broken), prelude(), editorOptions());
  EXPECT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics));
}

TEST(Incremental, RandomSpaceAndCommentEditsOfAFnKeepDiagnosticsExact) {
  // Messages that quote an expression of the fn (its text, spaces included) must not come
  // from a moved check whose quote was taken before the edit: every step against analyze.
  const char *snippets[] = {" ", "  ", "\n", "\n  // c\n", "// c", "\t", "\n\n", "/// d\n"};
  std::mt19937 rng(20261203);
  std::string original = manyKernels(2);
  original.replace(original.find("  acc = acc * l\n"), 16,
                   "  acc = rowmax(acc,  l)\n  let t = acc  *  l + dot_t(acc, acc)\n  l = 2\n");
  std::string text = original;
  IncrementalAnalyzer inc(prelude());
  inc.update(file(text));
  size_t moved = 0;
  for (int i = 0; i < 120; ++i) {
    size_t fnEnd = text.find("\n}\n");
    size_t a = rng() % (fnEnd + 1);
    if (rng() % 3 == 0 && (text[a] == ' ' || text[a] == '\n')) {
      text.erase(a, 1);
    } else {
      text.insert(a, snippets[rng() % (sizeof(snippets) / sizeof(*snippets))]);
    }
    if (i % 20 == 0) text = original;
    auto r = inc.update(file(text), {}, i % 2 == 0);
    moved += inc.stats().itemsMoved;
    for (int stage = 0; !r.complete && stage < 4; ++stage) r = inc.update(file(text), {}, !r.staleItems);
    ASSERT_TRUE(r.complete) << "step " << i;
    auto whole = analyze(file(text), prelude(), editorOptions());
    ASSERT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics)) << "step " << i << " text:\n" << text.substr(0, 300);
    if (i % 10 == 0) {
      ASSERT_EQ(showFacts(*r.materialize({})), showFacts(*whole)) << "step " << i;
    }
  }
  EXPECT_GT(moved, 100u);
}

TEST(Incremental, TheStdResolutionSeedGivesAnalyzesResultsWithAndWithoutIt) {
  // Each item's check starts from std's resolution, made once per analyzer (State::seed),
  // when std has no findings of its own; a std with one (here an unused variable) makes
  // each check resolve what it reaches of std instead. Both against analyze, on text that
  // reaches every std file (attention, rope, the masks, the KV cache), through random edits.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ph-seed-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (auto &e : fs::directory_iterator(std::string(PH_SOURCE_DIR) + "/std"))
    fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
  std::ofstream(dir / "noisy.ph") << "fn noisy_helper(x) {\n  let unused = 1\n  x = x * 2.0\n}\n";
  auto noisy = Prelude::load(dir.string());
  std::string base = manyKernels(2) + readSource("examples/rotary.ph") + readSource("examples/causal_attention.ph");
  const char *snippets[] = {"(", ")", " + ", "let ", "rope(", "\n", "online_softmax(", ",", "x", "0",
                            "causal_mask(s, row, kt)\n", "\n}\n", "noisy_helper(acc)\n", "mask_cols("};
  for (auto pre : {prelude(), noisy}) {
    std::mt19937 rng(20261202);
    std::string text = base;
    IncrementalAnalyzer inc(pre);
    for (int i = 0; i < 120; ++i) {
      if (i) {
        size_t a = rng() % (text.size() + 1);
        size_t len = std::min<size_t>(text.size() - a, rng() % 3 == 0 ? rng() % 6 : 0);
        text = text.substr(0, a) + snippets[rng() % (sizeof(snippets) / sizeof(*snippets))] + text.substr(a + len);
      }
      if (i % 40 == 0) text = base;
      auto r = inc.update(file(text), {}, i % 2 == 0);
      if (!r.complete) r = inc.update(file(text), {}, true);
      if (!inc.stats().whole) {
        EXPECT_EQ(inc.stats().preludeSeeded, pre == prelude()) << "step " << i;
      }
      auto whole = analyze(file(text), pre, editorOptions());
      ASSERT_EQ(show(r.diagnostics->diagnostics), show(whole->diagnostics)) << "step " << i;
      // The facts on the unedited text (after random edits a fn's facts can differ from
      // analyze's, which merges them over every kernel that inlines it: not the seed's doing).
      if (i % 40 == 0) {
        ASSERT_EQ(showFacts(*(r.materialize ? r.materialize({}) : r.diagnostics)), showFacts(*whole))
            << "step " << i << (pre == prelude() ? " std" : " noisy std");
      }
    }
  }
  fs::remove_all(dir);
}
