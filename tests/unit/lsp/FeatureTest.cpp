//===- FeatureTest.cpp - Features over annotated sources ------------------===//
//
// Each test analyses a marked-up source with the real frontend and calls one
// feature function directly (no server, no threads), the second tier of
// STYLE.md item 7.
//
//===----------------------------------------------------------------------===//
#include "Annotations.h"
#include "Features.h"
#include "Gpu.h"

#include "ph/Analysis.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace ph;
using namespace ph::lsp;
using ph::lsp::test::Annotations;

namespace {

std::shared_ptr<const Prelude> prelude() {
  static auto p = Prelude::load(PH_STD_DIR_FOR_TESTS);
  return p;
}

std::shared_ptr<Snapshot> snapshotOf(const std::string &code, const std::string &path = "/test/t.ph") {
  auto text = std::make_shared<const std::string>(code);
  auto s = std::make_shared<Snapshot>(pathToUri(path), path, 1, text);
  s->analysis = analyze(std::make_shared<SourceFile>(path, code), prelude());
  return s;
}

json at(const Snapshot &s, uint32_t offset) {
  return {{"textDocument", {{"uri", s.uri}}}, {"position", toJson(s.lines.position(offset))}};
}

json rangeJson(const Snapshot &s, std::pair<uint32_t, uint32_t> r) { return toJson(s.lines.range(r.first, r.second)); }

std::string readFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The seed's flash attention kernel with markers.
const char *kFlash = R"(@tensorcore
@launch(128)
@autotune(D in [64], BR in [64], BC in [32])
@aligned(Nq = BR)
kernel $kname[[flash_attention]](Q: tensor<f16>[Nq, D], K: tensor<f16>[Nk, D], V: tensor<f16>[Nk, D],
                       O: tensor<f16>[Nq, D], scale: f32) {
  let $row[[row]] = ctx.block.x * BR
  let q^ = Q[$rowuse[[row]] :+ BR, :]
  var $acc[[a$accp^cc]]: tile<f32>[BR, D] = 0.0
  $att[[atte$attp^ntion]](acc, q, K, V, scale, BR, BC)
  O[row :+ BR, :] = acc
}
)";

const char *kCausal = R"(@autotune(D in [64], BR in [32], BC in [32])
@aligned(N = BR)
kernel causal_attention(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], V: tensor<f32>[N, D],
                        O: tensor<f32>[N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = $s^s * scale
    $cm[[causal_m$cmp^ask]](s, row, kt)
    $os[[online_so$osp^ftmax]](acc, m, l, s, v)
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
)";

TEST(Hover, StdFunctionAtTheCallShowsSignatureDocAndSource) {
  Annotations a(kCausal);
  auto s = snapshotOf(a.code());
  ASSERT_FALSE(s->analysis->hasErrors());
  json h = hover(*s, at(*s, a.point("osp")), {});
  ASSERT_TRUE(h.is_object()) << h;
  std::string v = h["contents"]["value"];
  EXPECT_NE(v.find("fn online_softmax(acc, m, l, s, v)"), std::string::npos) << v;
  EXPECT_NE(v.find("online softmax"), std::string::npos) << v; // the `///` documentation
  EXPECT_NE(v.find("std/attention.ph:12"), std::string::npos) << v;
  EXPECT_EQ(h["range"], rangeJson(*s, a.range("os")));
}

TEST(Hover, StdMaskIsAFunctionOfStdMasks) {
  // causal_mask is an ordinary std function (std/masks.ph), no longer a builtin.
  Annotations a(kCausal);
  auto s = snapshotOf(a.code());
  ASSERT_FALSE(s->analysis->hasErrors());
  json h = hover(*s, at(*s, a.point("cmp")), {});
  ASSERT_TRUE(h.is_object()) << h;
  std::string v = h["contents"]["value"];
  EXPECT_NE(v.find("fn causal_mask(s, row, col)"), std::string::npos) << v;
  EXPECT_NE(v.find("does not see the keys after it"), std::string::npos) << v; // its `///` lines
  EXPECT_NE(v.find("std/masks.ph:16"), std::string::npos) << v;
  EXPECT_EQ(h["range"], rangeJson(*s, a.range("cm")));
  json d = definition(*s, at(*s, a.point("cmp")));
  ASSERT_TRUE(d.is_array() && d.size() == 1) << d;
  EXPECT_NE(d[0]["uri"].get<std::string>().find("std/masks.ph"), std::string::npos) << d;
  EXPECT_EQ(d[0]["range"]["start"]["line"], 15); // `fn causal_mask` is line 16
}

TEST(Hover, StdFunctionAtItsDefinition) {
  std::string path = std::string(PH_STD_DIR_FOR_TESTS) + "/attention.ph";
  std::string text = readFile(path);
  auto s = snapshotOf(text, path);
  uint32_t off = static_cast<uint32_t>(text.find("fn online_softmax") + 4);
  json h = hover(*s, at(*s, off), {});
  ASSERT_TRUE(h.is_object());
  std::string v = h["contents"]["value"];
  EXPECT_NE(v.find("fn online_softmax"), std::string::npos) << v;
  EXPECT_NE(v.find("running state"), std::string::npos) << v;
}

TEST(Hover, AttentionAndTileVariable) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  json h = hover(*s, at(*s, a.point("attp")), {});
  std::string v = h["contents"]["value"];
  EXPECT_NE(v.find("fn attention(acc, q, K, V, scale, BR, BC)"), std::string::npos) << v;
  EXPECT_NE(v.find("std/attention.ph:30"), std::string::npos) << v;

  h = hover(*s, at(*s, a.point("accp")), {});
  v = h["contents"]["value"];
  EXPECT_NE(v.find("acc: tile<f32>[BR, D]"), std::string::npos) << v;
  EXPECT_NE(v.find("[64, 64]"), std::string::npos) << v;
  // Where it lives is the backend's to say (after a compile: ServerTest's hover).
  EXPECT_EQ(v.find("registers"), std::string::npos) << v;
  EXPECT_NE(v.find("16384 bytes"), std::string::npos) << v; // 64 * 64 * 4
}

TEST(Hover, ScoreTileHasNoPlacementBeforeACompile) {
  Annotations a(kCausal);
  auto s = snapshotOf(a.code());
  std::string v = hover(*s, at(*s, a.point("s")), {})["contents"]["value"];
  EXPECT_NE(v.find("s: tile<f32>[BR, BC]"), std::string::npos) << v;
  EXPECT_NE(v.find("[32, 32]"), std::string::npos) << v;
  // The frontend does not guess where a tile lives: only the build's report says it.
  EXPECT_EQ(v.find("shared memory"), std::string::npos) << v;
}

TEST(Hover, KernelNameShowsGridBlockAndAutotune) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  std::string v = hover(*s, at(*s, a.range("kname").first + 3), {})["contents"]["value"];
  EXPECT_NE(v.find("ceil(Nq / BR)"), std::string::npos) << v;
  EXPECT_NE(v.find("128 threads"), std::string::npos) << v;
  EXPECT_NE(v.find("D in [64], BR in [64], BC in [32]"), std::string::npos) << v;
}

TEST(Hover, BuiltinAndDecorator) {
  Annotations a(R"($dec^@tensorcore
@autotune(BR in [64], BC in [32])
kernel k(Q: tensor<f16>[N, 64], K: tensor<f16>[N, 64], O: tensor<f32>[N, 64]) {
  let r = ctx.block.x * BR
  var s: tile<f32>[BR, BC] = do$dot^t_t(Q[r :+ BR, :], K[0 :+ BC, :])
  var m = row$rm^max(s)
  O[r :+ BR, 0 :+ 1] = m
}
)");
  auto s = snapshotOf(a.code());
  std::string v = hover(*s, at(*s, a.point("dot")), {})["contents"]["value"];
  EXPECT_NE(v.find("dot_t"), std::string::npos) << v;
  v = hover(*s, at(*s, a.point("rm")), {})["contents"]["value"];
  EXPECT_NE(v.find("rowmax"), std::string::npos) << v;
  json h = hover(*s, at(*s, a.point("dec") + 3), {});
  ASSERT_TRUE(h.is_object());
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("tensor"), std::string::npos);
}

TEST(Hover, CtxBlockAxisShowsTheGrid) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  uint32_t x = static_cast<uint32_t>(a.code().find("ctx.block.x") + 10);
  json h = hover(*s, at(*s, x), {});
  ASSERT_TRUE(h.is_object()) << h;
  std::string v = h["contents"]["value"];
  EXPECT_NE(v.find("ctx.block.x: i32"), std::string::npos) << v;
  EXPECT_NE(v.find("(ceil(Nq / BR), 1, 1)"), std::string::npos) << v;
  json c = hover(*s, at(*s, x - 10), {});
  ASSERT_TRUE(c.is_object());
  EXPECT_NE(c["contents"]["value"].get<std::string>().find("launch context"), std::string::npos);
}

TEST(Hover, NothingOnWhitespace) {
  auto s = snapshotOf("\n\n   \n");
  EXPECT_TRUE(hover(*s, at(*s, 3), {}).is_null());
}

TEST(Definition, StdFunctionGoesToItsLine) {
  Annotations a(kCausal);
  auto s = snapshotOf(a.code());
  json d = definition(*s, at(*s, a.point("osp")));
  ASSERT_TRUE(d.is_array() && d.size() == 1) << d;
  EXPECT_NE(d[0]["uri"].get<std::string>().find("std/attention.ph"), std::string::npos);
  EXPECT_EQ(d[0]["range"]["start"]["line"], 11); // `fn online_softmax` is line 12
}

TEST(Definition, LocalGoesToItsLet) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  json d = definition(*s, at(*s, a.range("rowuse").first));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0]["range"], rangeJson(*s, a.range("row")));
  EXPECT_EQ(d[0]["uri"], s->uri);
}

TEST(References, AllUsesOfALocal) {
  Annotations a(R"(kernel k(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  let $d[[t]] = ctx.block.x * 8
  Y[$u1[[t]] :+ 8, :] = X[$u2[[t]] :+ 8, :]
}
)");
  auto s = snapshotOf(a.code());
  json refs = references(*s, at(*s, a.range("u1").first));
  ASSERT_EQ(refs.size(), 3u) << refs;
  json noDecl = references(*s, {{"textDocument", {{"uri", s->uri}}}, {"position", toJson(s->lines.position(a.range("u1").first))},
                                {"context", {{"includeDeclaration", false}}}});
  EXPECT_EQ(noDecl.size(), 2u);
}

TEST(Rename, LocalEverywhereAndRefusesStdFunctions) {
  Annotations a(R"(kernel k(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  let $d[[t]] = ctx.block.x * 8
  Y[$u1[[t]] :+ 8, :] = X[$u2[[t]] :+ 8, :]
}
)");
  auto s = snapshotOf(a.code());
  json p = at(*s, a.range("u2").first);
  p["newName"] = "row";
  json edit = rename(*s, p);
  json edits = edit["changes"][s->uri];
  ASSERT_EQ(edits.size(), 3u);
  for (const json &e : edits) EXPECT_EQ(e["newText"], "row");
  p["newName"] = "let";
  EXPECT_THROW(rename(*s, p), RpcError);
  p["newName"] = "rowmax";
  EXPECT_THROW(rename(*s, p), RpcError);
  EXPECT_EQ(prepareRename(*s, at(*s, a.range("d").first))["placeholder"], "t");

  Annotations c(kCausal);
  auto s2 = snapshotOf(c.code());
  json q = at(*s2, c.point("osp"));
  q["newName"] = "x";
  EXPECT_THROW(rename(*s2, q), RpcError);
  EXPECT_TRUE(prepareRename(*s2, at(*s2, c.point("osp"))).is_null());
}

TEST(Completion, LocalsParamsBuiltinsAndStdSnippets) {
  Annotations a(R"(@autotune(BR in [64])
kernel k(Q: tensor<f16>[N, 64], O: tensor<f32>[N, 64]) {
  let row = ctx.block.x * BR
  var acc: tile<f32>[BR, 64] = 0.0
  ^
}
)");
  auto s = snapshotOf(a.code());
  FeatureOptions o;
  o.snippets = true;
  json items = completion(*s, at(*s, a.point()), o)["items"];
  std::map<std::string, json> byLabel;
  for (const json &i : items) byLabel[i["label"]] = i;
  for (const char *want : {"row", "acc", "Q", "O", "BR", "N", "dot_t", "rowmax", "mask_cols", "online_softmax", "attention", "let", "ctx"})
    EXPECT_TRUE(byLabel.count(want)) << want;
  ASSERT_TRUE(byLabel.count("online_softmax"));
  EXPECT_EQ(byLabel["online_softmax"]["insertText"], "online_softmax(${1:acc}, ${2:m}, ${3:l}, ${4:s}, ${5:v})$0");
  EXPECT_EQ(byLabel["online_softmax"]["insertTextFormat"], 2);
}

TEST(Completion, DecoratorsAndCtx) {
  Annotations a("@^\nkernel k(X: tensor<f32>[N]) {\n  let i = ctx.$b^\n  let j = ctx.block.$x^\n}\n");
  auto s = snapshotOf(a.code());
  auto labels = [&](uint32_t off) {
    std::vector<std::string> out;
    json result = completion(*s, at(*s, off), {}); // keep it alive through the loop
    for (const json &i : result["items"]) out.push_back(i["label"]);
    return out;
  };
  auto decos = labels(a.point());
  for (const char *d : {"tensorcore", "launch", "autotune", "aligned", "grid"})
    EXPECT_NE(std::find(decos.begin(), decos.end(), d), decos.end()) << d;
  EXPECT_EQ(labels(a.point("b")), std::vector<std::string>{"block"});
  EXPECT_EQ(labels(a.point("x")), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(SignatureHelp, ActiveParameter) {
  Annotations a(R"(kernel k(X: tensor<f32>[N, 64]) {
  var s: tile<f32>[8, 64] = X[0 :+ 8, :]
  mask_cols(s, 3, $p^
}
)");
  auto s = snapshotOf(a.code());
  json h = signatureHelp(*s, at(*s, a.point("p")));
  ASSERT_TRUE(h.is_object()) << h;
  EXPECT_NE(h["signatures"][0]["label"].get<std::string>().find("mask_cols"), std::string::npos);
  EXPECT_EQ(h["activeParameter"], 2);
}

TEST(InlayHints, UntypedLetAndVarGetTheirType) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  json hints = inlayHint(*s, {{"textDocument", {{"uri", s->uri}}}});
  bool sawQ = false;
  for (const json &h : hints)
    if (h["label"] == ": tile<f16>[BR, D]") {
      sawQ = true;
      EXPECT_EQ(h["position"], toJson(s->lines.position(a.point())));
    }
  EXPECT_TRUE(sawQ) << hints;
  for (const json &h : hints) EXPECT_NE(h["label"].get<std::string>().find(':'), std::string::npos);
}

TEST(SemanticTokens, ClassifiesNames) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  std::vector<uint32_t> data = semanticTokens(*s, {})["data"];
  ASSERT_EQ(data.size() % 5, 0u);
  // Decode and find `attention` (function, defaultLibrary) and `row` (variable, readonly).
  uint32_t line = 0, ch = 0;
  std::map<std::string, std::pair<uint32_t, uint32_t>> kinds;
  for (size_t i = 0; i < data.size(); i += 5) {
    line += data[i];
    ch = data[i] ? data[i + 1] : ch + data[i + 1];
    uint32_t off = s->lines.offset({line, ch});
    kinds[a.code().substr(off, data[i + 2])] = {data[i + 3], data[i + 4]};
  }
  EXPECT_EQ(kinds["attention"].first, 1u);      // function
  EXPECT_TRUE(kinds["attention"].second & 4u);  // defaultLibrary
  EXPECT_EQ(kinds["kernel"].first, 0u);         // keyword
  EXPECT_EQ(kinds["scale"].first, 2u);          // parameter
  EXPECT_EQ(kinds["row"].first, 3u);            // variable
  EXPECT_TRUE(kinds["row"].second & 2u);        // readonly (let)
  EXPECT_EQ(kinds["128"].first, 4u);            // number
}

TEST(Folding, KernelBodiesAndLoops) {
  Annotations a(kCausal);
  auto s = snapshotOf(a.code());
  json f = foldingRange(*s, {});
  ASSERT_GE(f.size(), 2u) << f;
  bool loop = false;
  for (const json &r : f)
    if (r["startLine"] == 9) loop = true; // the `for` line
  EXPECT_TRUE(loop) << f;
}

TEST(DocumentSymbol, KernelsWithChildren) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  json syms = documentSymbol(*s, {});
  ASSERT_EQ(syms.size(), 1u);
  EXPECT_EQ(syms[0]["name"], "flash_attention");
  EXPECT_EQ(syms[0]["selectionRange"], rangeJson(*s, a.range("kname")));
  bool acc = false;
  for (const json &c : syms[0]["children"])
    if (c["name"] == "acc") acc = true;
  EXPECT_TRUE(acc);
}

TEST(Diagnostics, SameAsFrontendWithUtf16Ranges) {
  // A non-ASCII comment before the error moves UTF-16 columns away from bytes.
  Annotations a("kernel k(X: tensor<f32>[N, 4]) { // ñ 😀\n  let y = // é😀\n $u[[zzz]] + 1.0\n}\n");
  auto s = snapshotOf(a.code());
  auto groups = diagnostics(*s, {});
  ASSERT_GE(groups[0].second.size(), 1u);
  bool found = false;
  for (const json &d : groups[0].second)
    if (d["code"] == "E0201") {
      found = true;
      EXPECT_EQ(d["message"], "unknown name `zzz`");
      EXPECT_EQ(d["range"], rangeJson(*s, a.range("u")));
      EXPECT_EQ(d["source"], "ph");
      EXPECT_EQ(d["severity"], 1);
    }
  EXPECT_TRUE(found) << groups[0].second;
}

TEST(CodeAction, QuickFixesFromDiagnosticFixes) {
  Annotations a(R"(@autotune(D in [64], BR in [64], BC in [32])
kernel bad(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], O: tensor<f32>[N, D]) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  let k = K[row :+ BC, :]
  var s: tile<f32>[BR, BC] = $dot[[dot]](q, k)
  var m = $rm[[rowmx]](s)
  O[row :+ BR, 0 :+ 1] = m
}
)");
  auto s = snapshotOf(a.code());
  json params = {{"textDocument", {{"uri", s->uri}}}, {"range", toJson(Range{{0, 0}, {99, 0}})}, {"context", {{"diagnostics", json::array()}}}};
  json actions = codeAction(*s, params, {});
  std::map<std::string, json> byTitle;
  for (const json &x : actions) byTitle[x["title"]] = x;
  ASSERT_TRUE(byTitle.count("use `dot_t`")) << actions;
  json e = byTitle["use `dot_t`"]["edit"]["changes"][s->uri][0];
  EXPECT_EQ(e["newText"], "dot_t");
  EXPECT_EQ(e["range"], rangeJson(*s, a.range("dot")));
  ASSERT_TRUE(byTitle.count("use `rowmax`")) << actions;
  EXPECT_EQ(byTitle["use `rowmax`"]["kind"], "quickfix");
  EXPECT_EQ(byTitle["use `rowmax`"]["diagnostics"][0]["code"], "E0202");
}

TEST(CodeLens, FourCommandsAndInfoPerKernel) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  json lenses = codeLens(*s, {}, {});
  std::vector<std::string> commands, titles;
  for (const json &l : lenses) commands.push_back(l["command"]["command"]), titles.push_back(l["command"]["title"]);
  EXPECT_EQ(commands, (std::vector<std::string>{"ph.run", "ph.run", "ph.compile", "ph.showIR", ""}));
  EXPECT_EQ(titles[0], "▶ Run on GPU");
  EXPECT_EQ(titles[1], "Benchmark");
  EXPECT_EQ(lenses[0]["command"]["arguments"][0]["kernel"], "flash_attention");
  EXPECT_EQ(lenses[1]["command"]["arguments"][0]["bench"], true);
  EXPECT_NE(titles[4].find("ceil(Nq / BR)"), std::string::npos);
  // The actions sit above the first decorator, the facts above the `kernel` line: two
  // short lens lines, not one line wider than the editor.
  EXPECT_LT(lenses[0]["range"]["start"]["line"].get<int>(), lenses[4]["range"]["start"]["line"].get<int>());
}

TEST(CodeLens, NamedAfterTheTargetWithFiguresOnALensOfTheirOwn) {
  Annotations a(kFlash);
  auto s = snapshotOf(a.code());
  FeatureOptions o;
  o.runTarget = "CPU";
  o.compileFigures["flash_attention"] = "48 regs · 53 KiB smem";
  json lenses = codeLens(*s, {}, o);
  ASSERT_EQ(lenses.size(), 6u) << lenses.dump(1);
  EXPECT_EQ(lenses[0]["command"]["title"], "▶ Run on CPU");
  EXPECT_EQ(lenses[5]["command"]["title"], "48 regs · 53 KiB smem");
  EXPECT_EQ(lenses[5]["command"]["command"], "");
  // Three lines: the actions, the facts (above the last decorator), the figures (above `kernel`).
  EXPECT_LT(lenses[0]["range"]["start"]["line"].get<int>(), lenses[4]["range"]["start"]["line"].get<int>());
  EXPECT_LT(lenses[4]["range"]["start"]["line"].get<int>(), lenses[5]["range"]["start"]["line"].get<int>());
  EXPECT_EQ(runTargetLabel("auto", nullptr), "GPU");
  GpuInfo none;
  EXPECT_EQ(runTargetLabel("auto", &none), "CPU");
  EXPECT_EQ(runTargetLabel("gpu", &none), "GPU");
  GpuInfo h200{true, "NVIDIA H200", "sm_90", ""};
  EXPECT_EQ(runTargetLabel("auto", &h200), "H200");
  EXPECT_EQ(runTargetLabel("interp", &h200), "interpreter");
}

} // namespace

namespace {

TEST(Diagnostics, ErrorInsideAStdFunctionIsShownAtTheCall) {
  Annotations a(R"(@autotune(D in [64], BR in [32], BC in [32])
kernel k(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], V: tensor<f32>[N, D], O: tensor<f32>[N, D]) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  let k = K[0 :+ BC, :]
  let v = V[0 :+ 16, :]
  var s: tile<f32>[BR, BC] = dot_t(q, k)
  $call[[online_softmax(acc, m, l, s, v)]]
  O[row :+ BR, :] = acc
}
)");
  auto s = snapshotOf(a.code());
  // The frontend reports it in std/attention.ph with a note at the call.
  const Diagnostic *d = nullptr;
  for (const Diagnostic &x : s->analysis->diagnostics)
    if (x.range.file != s->analysis->mainFile) d = &x;
  ASSERT_NE(d, nullptr);
  auto groups = diagnostics(*s, {});
  ASSERT_EQ(groups.size(), 1u) << "nothing is published under the std file's URI";
  ASSERT_EQ(groups[0].second.size(), 1u) << groups[0].second;
  json x = groups[0].second[0];
  EXPECT_EQ(x["message"], d->message); // byte for byte
  EXPECT_EQ(x["code"], d->code());
  EXPECT_EQ(x["range"], rangeJson(*s, a.range("call")));
  EXPECT_NE(x["relatedInformation"][0]["location"]["uri"].get<std::string>().find("std/attention.ph"), std::string::npos);
  EXPECT_EQ(x["relatedInformation"][0]["location"]["range"]["start"]["line"], 19); // `acc += dot(s, v)`
}

} // namespace

namespace {

TEST(Diagnostics, BuildDiagnosticsMergeAsOneSource) {
  auto diag = [](const char *code, int line, const char *source) {
    return json{{"code", code}, {"source", source}, {"message", "m"},
                {"range", {{"start", {{"line", line}, {"character", 0}}}, {"end", {{"line", line}, {"character", 1}}}}}};
  };
  json into = json::array({diag("E0303", 4, "ph")});
  // The same error from `ph build`, and one only the backend finds (a spill).
  json build = json::array({diag("E0303", 4, "ph build"), diag("W0502", 2, "ph build")});
  mergeBuildDiagnostics(into, build);
  ASSERT_EQ(into.size(), 2u) << into.dump(1);
  EXPECT_EQ(into[1]["code"], "W0502");
  EXPECT_EQ(into[1]["source"], "ph");
  mergeBuildDiagnostics(into, json());
  EXPECT_EQ(into.size(), 2u);
}

} // namespace

// `@autotune(..., where COND)` and `@launch(T)` in the editor.
namespace {
const char *kWhere = R"(@autotune(D in [64, 128], BR in [1], T in [128, 256], $w^where D * T == 16384)
@launch($t^T)
kernel $kname[[rows]](X: tensor<f32>[N, D], Y: tensor<f32>[N, D]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] + $d^D
}
)";
} // namespace

TEST(AutotuneWhere, HoverOnWhereKernelAndLaunchParameter) {
  Annotations a(kWhere);
  auto s = snapshotOf(a.code());
  json h = hover(*s, at(*s, a.point("w") + 2), {});
  ASSERT_TRUE(h.is_object()) << h;
  std::string v = h["contents"]["value"];
  EXPECT_NE(v.find("where CONDITION"), std::string::npos) << v;
  EXPECT_EQ(v.find("where(c, a, b)"), std::string::npos) << v; // not the builtin `where`
  // The kernel: its space with the condition, the kept configurations, each thread count.
  v = hover(*s, at(*s, a.range("kname").first + 1), {})["contents"]["value"];
  EXPECT_NE(v.find("where D * T == 16384"), std::string::npos) << v;
  EXPECT_NE(v.find("(2 configurations)"), std::string::npos) << v;
  EXPECT_NE(v.find("`T` = 256, 128 threads"), std::string::npos) << v;
  // `T` in `@launch(T)` is the autotune parameter.
  v = hover(*s, at(*s, a.point("t")), {})["contents"]["value"];
  EXPECT_NE(v.find("autotune parameter"), std::string::npos) << v;
  // The code lens says the same.
  json lenses = codeLens(*s, {}, {});
  bool saw = false;
  for (const json &l : lenses)
    saw |= l["command"]["title"].get<std::string>().find("T = 256, 128 threads · 2 configs") != std::string::npos;
  EXPECT_TRUE(saw) << lenses;
}

TEST(AutotuneWhere, CompletionOffersWhereInsideAutotune) {
  Annotations a(R"(@autotune(D in [64], $a^)
kernel k(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ $b^1, :]
}
)");
  auto s = snapshotOf(a.code());
  auto labels = [&](uint32_t off) {
    std::vector<std::string> out;
    json result = completion(*s, at(*s, off), {});
    for (const json &i : result["items"]) out.push_back(i["label"]);
    return out;
  };
  auto in = labels(a.point("a"));
  EXPECT_NE(std::find(in.begin(), in.end(), "where"), in.end());
  EXPECT_NE(std::find(in.begin(), in.end(), "D"), in.end()); // the parameters, for the condition
  // In the body `where` is the builtin function, offered as a call, not the keyword.
  json result = completion(*s, at(*s, a.point("b")), {});
  for (const json &i : result["items"])
    if (i["label"] == "where") {
      EXPECT_NE(i["kind"], 14) << i;
    }
}

TEST(AutotuneWhere, SignatureHelpForAutotuneAndLaunch) {
  Annotations a(R"(@autotune(D $l^in [64, 128], wh$w^ere D > 1)
@launch($t^128)
kernel k(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :]
}
)");
  auto s = snapshotOf(a.code());
  json h = signatureHelp(*s, at(*s, a.point("l")));
  ASSERT_TRUE(h.is_object()) << h;
  EXPECT_NE(h["signatures"][0]["label"].get<std::string>().find("where CONDITION"), std::string::npos) << h;
  EXPECT_EQ(h["activeParameter"], 0); // a list
  h = signatureHelp(*s, at(*s, a.point("w")));
  ASSERT_TRUE(h.is_object()) << h;
  EXPECT_EQ(h["activeParameter"], 2); // `where CONDITION`
  h = signatureHelp(*s, at(*s, a.point("t")));
  ASSERT_TRUE(h.is_object()) << h;
  EXPECT_NE(h["signatures"][0]["label"].get<std::string>().find("@launch(threads)"), std::string::npos) << h;
}
