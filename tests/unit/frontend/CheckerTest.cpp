//===- CheckerTest.cpp - Types, shapes, symbols, grid and kir --------------===//
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ph;
using namespace ph::test;

namespace {

uint32_t offsetOf(const Analysis &a, const std::string &needle, size_t nth = 0) {
  const std::string &t = a.main().text();
  size_t pos = t.find(needle);
  while (nth-- > 0 && pos != std::string::npos) pos = t.find(needle, pos + 1);
  EXPECT_NE(pos, std::string::npos) << needle;
  return static_cast<uint32_t>(pos);
}

const Symbol *symbolAt(const Analysis &a, uint32_t offset) {
  const Occurrence *o = a.occurrenceAt(a.mainFile, offset);
  return o ? &a.symbols[o->symbol] : nullptr;
}

} // namespace

TEST(Checker, ExamplesCheckClean) {
  for (const char *path : kExamples) {
    auto a = analyzeText(readSource(path), std::string(PH_SOURCE_DIR) + "/" + path);
    for (auto &d : a->diagnostics) ADD_FAILURE() << path << ": " << renderDiagnostic(d, a->sources);
  }
}

TEST(Checker, TypesAreSymbolicAndPerConfiguration) {
  std::string src = readSource("examples/flash_attention_manual.ph");
  // Widen the autotune space: two configurations.
  src.replace(src.find("BR in [64]"), 10, "BR in [64, 128]");
  auto a = analyzeText(src);
  ASSERT_FALSE(a->hasErrors());
  const Symbol *s = symbolAt(*a, offsetOf(*a, "var s:") + 4);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->typeSymbolic, "tile<f32>[BR, BC]");
  ASSERT_EQ(s->typeConcrete.size(), 2u);
  EXPECT_EQ(s->typeConcrete[0], "[64, 32]");
  EXPECT_EQ(s->typeConcrete[1], "[128, 32]");
  EXPECT_EQ(s->bytes, 64 * 32 * 4);
  const Symbol *k = symbolAt(*a, offsetOf(*a, "let k =") + 4);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->typeSymbolic, "tile<f16>[BC, D]");
  const Symbol *mnew = symbolAt(*a, offsetOf(*a, "var mnew") + 4);
  ASSERT_NE(mnew, nullptr);
  EXPECT_EQ(mnew->typeSymbolic, "tile<f32>[BR, 1]");
  EXPECT_EQ(a->specialised.size(), 2u);
  EXPECT_EQ(a->kernels.size(), 1u);
  EXPECT_EQ(a->kernels[0].configs.size(), 2u);
  EXPECT_EQ(a->kernels[0].grid, "(ceil(Nq / BR), 1, 1)");
  // The editor's inlay hint for `var mnew = rowmax(s)`.
  bool hinted = false;
  for (auto &h : a->typeHints) hinted |= h.label == ": tile<f32>[BR, 1]";
  EXPECT_TRUE(hinted);
  // The expression under the cursor: `dot_t(q, k)`.
  const ExprFact *f = a->exprAt(a->mainFile, offsetOf(*a, "dot_t(q, k)") + 9);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->typeSymbolic, "tile<f16>[BC, D]"); // innermost: `k`
}

TEST(Checker, ConfigFilterKeepsMatchingVariants) {
  std::string src = readSource("examples/flash_attention.ph");
  src.replace(src.find("BR in [64]"), 10, "BR in [64, 128]");
  AnalyzeOptions opts;
  opts.configFilter = {{"BR", 128}};
  auto a = analyzeText(src, "f.ph", opts);
  ASSERT_EQ(a->specialised.size(), 1u);
  EXPECT_EQ(a->specialised[0]->configName(), "D=64,BR=128,BC=32");
}

TEST(Checker, StdCallsResolveToTheSeedLines) {
  auto a = analyzeText(readSource("examples/flash_attention.ph"));
  const Symbol *att = symbolAt(*a, offsetOf(*a, "attention(acc") + 2);
  ASSERT_NE(att, nullptr);
  EXPECT_EQ(att->kind, SymbolKind::Function);
  EXPECT_EQ(a->sources.file(att->def.file).lineCol(att->def.begin).line, 30u);
  EXPECT_NE(att->doc.find("softmax(q K^T * scale) V"), std::string::npos);
  EXPECT_EQ(att->signature, "fn attention(acc, q, K, V, scale, BR, BC)");
  for (auto &[name, line] : std::vector<std::pair<std::string, uint32_t>>{
           {"online_softmax", 12}, {"attention", 30}, {"rope", 49}, {"rope_pairs", 62}}) {
    bool found = false;
    for (auto &s : a->symbols)
      if (s.kind == SymbolKind::Function && s.name == name) {
        found = true;
        EXPECT_EQ(a->sources.file(s.def.file).lineCol(s.def.begin).line, line) << name;
        EXPECT_FALSE(s.doc.empty()) << name;
      }
    EXPECT_TRUE(found) << name;
  }
}

TEST(Checker, FlashAttentionThroughStdEqualsWrittenOut) {
  auto a = analyzeText(readSource("examples/flash_attention.ph"));
  auto b = analyzeText(readSource("examples/flash_attention_manual.ph"));
  ASSERT_EQ(a->specialised.size(), 1u);
  ASSERT_EQ(b->specialised.size(), 1u);
  std::string ka = kir::print(*a->specialised[0]), kb = kir::print(*b->specialised[0]);
  ka.replace(ka.find("flash_attention"), std::string("flash_attention").size(), "K");
  kb.replace(kb.find("flash_attention_manual"), std::string("flash_attention_manual").size(), "K");
  EXPECT_EQ(ka, kb);
}

TEST(Checker, GridAndMasks) {
  auto a = analyzeText(readSource("examples/flash_attention.ph"));
  ASSERT_EQ(a->specialised.size(), 1u);
  const kir::Kernel &k = *a->specialised[0];
  ASSERT_TRUE(k.grid[0].fromSize);
  EXPECT_EQ(k.sizes[k.grid[0].size].name, "Nq");
  EXPECT_EQ(k.grid[0].divisor, 64);
  EXPECT_EQ(k.sizes[k.grid[0].size].alignedTo, 64);
  EXPECT_FALSE(k.grid[1].fromSize);
  EXPECT_EQ(k.grid[1].constant, 1);
  // Q is read under @aligned(Nq = BR): unmasked. K is read in a loop over Nk: masked.
  const kir::Stmt &q = *k.body[1];
  ASSERT_EQ(q.kind, kir::StmtKind::Decl);
  ASSERT_EQ(q.value->kind, kir::ExprKind::TensorLoad);
  EXPECT_FALSE(q.value->slices[0].masked);
  const kir::Stmt &loop = *k.body[5];
  ASSERT_EQ(loop.kind, kir::StmtKind::For);
  EXPECT_TRUE(loop.body[0]->value->slices[0].masked);
  // P is rounded to f16 before P·V under @tensorcore.
  std::string printed = kir::print(k);
  EXPECT_NE(printed.find("dot(convert($8.s) : f16[64,32], $7.v) : f32[64,64]"), std::string::npos) << printed;
}

// `@grid(N / BR, H)` is read before the body: ctx.block.y is below H, so gqa_prefill's head index
// into Q and O needs no mask; its row, counted from the end of the ceil(N / BR) blocks, needs one
// unless N is a multiple of BR (`@aligned(N = BR)`), and then neither does the loop over keys up
// to `row + BR`.
TEST(Checker, GridExtentsBoundTheBlockIds) {
  for (bool aligned : {false, true}) {
    std::string src = readSource("examples/gqa_prefill.ph");
    if (aligned) src.replace(src.find("@grid("), 0, "@aligned(N = BR)\n");
    auto a = analyzeText(src);
    ASSERT_FALSE(a->hasErrors());
    ASSERT_EQ(a->specialised.size(), 4u);
    for (auto &kp : a->specialised) {
      const kir::Kernel &k = *kp;
      ASSERT_TRUE(k.grid[0].fromSize && k.grid[1].fromSize);
      EXPECT_EQ(k.sizes[k.grid[0].size].name, "N");
      EXPECT_EQ(k.sizes[k.grid[1].size].name, "H");
      EXPECT_EQ(k.grid[1].divisor, 1);
      const kir::Slice *q = nullptr, *o = nullptr, *kv = nullptr;
      for (auto &s : k.body) {
        if (s->kind == kir::StmtKind::Decl && s->value && s->value->kind == kir::ExprKind::TensorLoad)
          q = s->value->slices.data();
        if (s->kind == kir::StmtKind::Store) o = s->slices.data();
        if (s->kind == kir::StmtKind::For && s->body[0]->value->kind == kir::ExprKind::TensorLoad)
          kv = s->body[0]->value->slices.data();
      }
      ASSERT_TRUE(q && o && kv);
      EXPECT_FALSE(q[0].masked);
      EXPECT_FALSE(o[0].masked);
      EXPECT_EQ(q[1].masked, !aligned);
      EXPECT_EQ(o[1].masked, !aligned);
      EXPECT_TRUE(kv[0].masked); // hk = h / (H / HK): H need not be a multiple of HK
      EXPECT_EQ(kv[1].masked, !aligned);
    }
  }
}

TEST(Checker, RotaryPairsWritesThroughFnParameters) {
  auto a = analyzeText(readSource("examples/rotary_pairs.ph"));
  ASSERT_EQ(a->specialised.size(), 1u);
  const kir::Kernel &k = *a->specialised[0];
  int stores = 0;
  for (auto &s : k.body)
    if (s->kind == kir::StmtKind::Store) {
      ++stores;
      EXPECT_EQ(k.tensors[s->tensor].name, "X");
      EXPECT_EQ(s->slices[2].kind, kir::Slice::Kind::Index);
    }
  EXPECT_EQ(stores, 2);
  EXPECT_TRUE(k.tensors[0].written);
}

TEST(Checker, RopeCopiesHalvesBeforeWriting) {
  auto a = analyzeText(readSource("examples/rotary.ph"));
  ASSERT_EQ(a->specialised.size(), 1u);
  const kir::Kernel &k = *a->specialised[0];
  // var x, then a and b copied out, then the two slice writes.
  ASSERT_GE(k.body.size(), 6u);
  EXPECT_EQ(k.body[2]->kind, kir::StmtKind::Decl);
  EXPECT_EQ(k.body[3]->kind, kir::StmtKind::Decl);
  EXPECT_EQ(k.body[4]->kind, kir::StmtKind::AssignSlice);
  EXPECT_EQ(k.body[5]->kind, kir::StmtKind::AssignSlice);
  EXPECT_EQ(k.gridText[0], "ceil(T / 8)");
}

TEST(Checker, QuickFixesCarryEdits) {
  auto a = analyzeText("@autotune(D in [64], BR in [64], BC in [32])\n"
                       "kernel k(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], O: tensor<f32>[N, BC]) {\n"
                       "  let q = Q[ctx.block.x * BR :+ BR, :]\n"
                       "  let k = K[0 :+ BC, :]\n"
                       "  var s: tile<f32>[BR, BC] = dot(q, k)\n"
                       "  O[ctx.block.x * BR :+ BR, :] = s\n"
                       "}\n");
  ASSERT_EQ(a->diagnostics.size(), 1u);
  const Diagnostic &d = a->diagnostics[0];
  EXPECT_EQ(std::string(d.code()), "E0302");
  EXPECT_EQ(where(*a, d), "5:30");
  ASSERT_EQ(d.fixes.size(), 1u);
  ASSERT_EQ(d.fixes[0].edits.size(), 1u);
  EXPECT_EQ(d.fixes[0].edits[0].text, "dot_t");
  const std::string &t = a->main().text();
  EXPECT_EQ(t.substr(d.fixes[0].edits[0].range.begin, d.fixes[0].edits[0].range.end - d.fixes[0].edits[0].range.begin), "dot");
  // Applying the fix makes the file clean.
  std::string fixed = t;
  fixed.replace(d.fixes[0].edits[0].range.begin, 3, "dot_t");
  EXPECT_FALSE(analyzeText(fixed)->hasErrors());
}

TEST(Checker, AFloatLiteralMeetingAnI32TileIsRefusedAtTheLiteral) {
  // `col_ids(x) * 0.5` would compute in i32 with the literal truncated to 0 (issue 16).
  const char *bodies[] = {"  let y = col_ids(x) * 0.5\n", "  let y = where(x > 0.0, col_ids(x), 2.5)\n",
                          "  let y = where(row_ids(x) < 1.5, x, 0.0)\n", "  let y = n + 0.25\n"};
  const char *literals[] = {"0.5", "2.5", "1.5", "0.25"};
  for (int i = 0; i < 4; ++i) {
    std::string text = std::string("kernel k(X: tensor<f32>[16, 8], n: i32) {\n  let x = X[0 :+ 16, :]\n") + bodies[i] +
                       "}\n";
    auto a = analyzeText(text);
    std::vector<const Diagnostic *> errors;
    for (const Diagnostic &d : a->diagnostics)
      if (d.code()[0] == 'E') errors.push_back(&d);
    ASSERT_EQ(errors.size(), 1u) << bodies[i];
    const Diagnostic &d = *errors[0];
    EXPECT_EQ(std::string(d.code()), "E0322") << bodies[i];
    // The primary range is the literal, exactly.
    EXPECT_EQ(a->main().text().substr(d.range.begin, d.range.end - d.range.begin), literals[i]) << bodies[i];
  }
  // An integer literal, or a float tile, is fine.
  EXPECT_FALSE(analyzeText("kernel k(X: tensor<f32>[16, 8]) {\n  let x = X[0 :+ 16, :]\n"
                           "  var f: tile<f32>[16, 8] = col_ids(x)\n  X[0 :+ 16, :] = x + f * 0.5 + col_ids(x) * 2\n}\n")
                   ->hasErrors());
}

TEST(Checker, IfConditionsAreRefusedAtTheConditionWithTheirCode) {
  // (body, code, the primary range's text)
  struct Case {
    const char *body, *code, *range;
  } cases[] = {
      {"  if x > 0.0 {\n    x = -x\n  }\n", "E0323", "x > 0.0"},
      {"  if n + 1 {\n  }\n", "E0308", "n + 1"},
      {"  if n > 0 {\n    let y = x\n  }\n  x = y\n", "E0201", "y"},
      {"  let c = colmax(n)\n", "E0311", "n"},
      {"  let h = i32(x < 1.0)\n", "E0308", "x < 1.0"},
      {"  let h = rowargmax(x > 1.0)\n", "E0308", "x > 1.0"},
  };
  for (const Case &c : cases) {
    std::string text = std::string("kernel k(X: tensor<f32>[16, 8], n: i32) {\n  var x = X[0 :+ 16, :]\n") + c.body +
                       "  X[0 :+ 16, :] = x\n}\n";
    auto a = analyzeText(text);
    std::vector<const Diagnostic *> errors;
    for (const Diagnostic &d : a->diagnostics)
      if (d.code()[0] == 'E') errors.push_back(&d);
    ASSERT_EQ(errors.size(), 1u) << c.body;
    EXPECT_EQ(std::string(errors[0]->code()), c.code) << c.body;
    EXPECT_EQ(a->main().text().substr(errors[0]->range.begin, errors[0]->range.end - errors[0]->range.begin), c.range)
        << c.body;
  }
}

TEST(Checker, IfElseBecomesOneKirIfWithBothBranches) {
  auto a = analyzeText("kernel k(X: tensor<f32>[16, 8], n: i32) {\n  var x = X[0 :+ 16, :]\n"
                       "  if n > 0 {\n    x = x * 2.0\n  }\n  else if n < -1 {\n    x = exp(x)\n  } else {\n"
                       "    X[0 :+ 16, :] = x\n  }\n  X[0 :+ 16, :] = x\n}\n");
  ASSERT_FALSE(a->hasErrors());
  ASSERT_EQ(a->specialised.size(), 1u);
  const kir::Kernel &k = *a->specialised[0];
  const kir::Stmt *ifs = nullptr;
  for (auto &s : k.body)
    if (s->kind == kir::StmtKind::If) ifs = s.get();
  ASSERT_NE(ifs, nullptr);
  EXPECT_EQ(ifs->value->type.elem, Elem::Bool);
  ASSERT_EQ(ifs->body.size(), 1u);
  EXPECT_EQ(ifs->body[0]->kind, kir::StmtKind::Assign);
  ASSERT_EQ(ifs->elseBody.size(), 1u);
  ASSERT_EQ(ifs->elseBody[0]->kind, kir::StmtKind::If); // else if
  EXPECT_EQ(ifs->elseBody[0]->elseBody.at(0)->kind, kir::StmtKind::Store);
}

TEST(Checker, OpeningStdItselfDoesNotDuplicateIt) {
  auto a = analyze(std::make_shared<SourceFile>(std::string(PH_SOURCE_DIR) + "/std/attention.ph",
                                                readSource("std/attention.ph")),
                   prelude());
  EXPECT_TRUE(a->diagnostics.empty());
  // Symbols in an uncalled fn are still resolved (hover on `mnew` in std).
  const Symbol *m = symbolAt(*a, offsetOf(*a, "var mnew") + 4);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind, SymbolKind::Local);
}

TEST(Checker, ACancelledAnalysisStopsEarlyAndSaysSo) {
  int polls = 0;
  AnalyzeOptions opts;
  opts.cancelled = [&] { return ++polls > 1; };
  auto a = analyzeText(readSource("examples/mha.ph"), "mha.ph", opts);
  EXPECT_TRUE(a->cancelled);
  EXPECT_TRUE(a->specialised.empty());
  EXPECT_GE(polls, 2);
  opts.cancelled = [] { return false; };
  auto b = analyzeText(readSource("examples/mha.ph"), "mha.ph", opts);
  EXPECT_FALSE(b->cancelled);
  EXPECT_FALSE(b->specialised.empty());
}
