//===- ServerItemsTest.cpp - Features that read the analysis item by item ------===//
//
// Issue 21: after an edit the whole Analysis of the version is built only when a
// feature needs it; inlay hints read the items in the requested range, hover,
// definition, highlights and a local's references the item under the cursor, and
// semantic tokens, symbols, folding and lenses are put together item by item (an
// item unchanged since the last version from a cache). Their answers must be the
// ones the whole analysis gives (a server with ServerOptions::itemReads off), and
// asking must not build it.
//
//===----------------------------------------------------------------------===//
#include "ServerClient.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

using namespace ph::lsp;
using namespace ph::lsp::testing;

namespace {

const char *kTwoKernels = "fn twice(x) {\n"
                          "  let y = x + x\n"
                          "  x = y\n"
                          "}\n"
                          "kernel a(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {\n"
                          "  let t = ctx.block.x * 8\n"
                          "  var v = X[t :+ 8, :]\n"
                          "  twice(v)\n"
                          "  Y[t :+ 8, :] = v\n"
                          "}\n"
                          "kernel b(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {\n"
                          "  let u = ctx.block.x * 8\n"
                          "  let w = X[u :+ 8, :] * 2.0\n"
                          "  Y[u :+ 8, :] = w\n"
                          "}\n";

json hints(Client &c, int fromLine, int toLine) {
  json r = c.request("textDocument/inlayHint", {{"textDocument", {{"uri", kFile}}},
                                                {"range", {{"start", {{"line", fromLine}, {"character", 0}}},
                                                           {"end", {{"line", toLine}, {"character", 0}}}}}});
  EXPECT_TRUE(r.contains("result")) << r;
  return r["result"];
}

bool built(Client &c) { return c.server().scheduler().latest(kFile)->analysis.built(); }

/// Completion reads the whole analysis (the names in scope of every item).
void buildWhole(Client &c) {
  c.request("textDocument/completion", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 5}, {"character", 7}}}});
}

/// Doc comments, decorators, a loop, a fn every kernel calls, std calls: every feature has
/// something to say about each item.
const char *kItems = "/// Doubles x.\n"
                     "fn twice(x) {\n"
                     "  let y = x + x\n"
                     "  x = y\n"
                     "}\n"
                     "\n"
                     "/// Kernel a,\n"
                     "/// on two lines.\n"
                     "@autotune(B in [8, 16])\n"
                     "kernel a(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {\n"
                     "  let t = ctx.block.x * B\n"
                     "  var v = X[t :+ B, :]\n"
                     "  for i in range(0, 2, 1) {\n"
                     "    twice(v)\n"
                     "  }\n"
                     "  Y[t :+ B, :] = v\n"
                     "}\n"
                     "kernel b(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {\n"
                     "  let u = ctx.block.x * 8\n"
                     "  var w = X[u :+ 8, :] * 2.0\n"
                     "  twice(w)\n"
                     "  Y[u :+ 8, :] = exp(w - rowmax(w))\n"
                     "}\n";

json ask(Client &c, const std::string &method, json params = json::object()) {
  params["textDocument"] = {{"uri", kFile}};
  json r = c.request(method, params);
  EXPECT_TRUE(r.contains("result")) << method << " " << r;
  return r["result"];
}

/// Folding ranges without repeats: the whole file's parse gives a kernel without `///`
/// lines the doc range of the one before it (a second, identical comment fold), which an
/// item's own parse does not.
json unique(const json &folds) {
  json out = json::array();
  for (const json &f : folds)
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  return out;
}

/// Every answer the per-item reads give: the full-document features, and the
/// position features at the start of every word and one character into it. `readItems`:
/// whether the whole analysis was still unbuilt before the references and highlights
/// (those of a kernel or fn read the whole analysis, by design).
std::vector<std::pair<std::string, json>> answers(Client &c, const std::string &text, bool *readItems = nullptr) {
  std::vector<std::pair<std::string, json>> out;
  for (const char *m : {"textDocument/semanticTokens/full", "textDocument/documentSymbol", "textDocument/foldingRange",
                        "textDocument/codeLens"})
    out.emplace_back(m, ask(c, m));
  out[2].second = unique(out[2].second);
  std::vector<json> positions;
  int line = 0, col = 0;
  for (size_t i = 0; i < text.size(); ++i, ++col) {
    if (text[i] == '\n') {
      ++line, col = -1;
      continue;
    }
    bool word = std::isalpha(static_cast<unsigned char>(text[i])) && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])));
    if (!word) continue;
    for (int d : {0, 1}) positions.push_back({{"position", {{"line", line}, {"character", col + d}}}});
  }
  auto where = [](const json &at) {
    return " " + std::to_string(at["position"]["line"].get<int>()) + ":" + std::to_string(at["position"]["character"].get<int>());
  };
  for (const json &at : positions) {
    out.emplace_back("hover" + where(at), ask(c, "textDocument/hover", at));
    out.emplace_back("definition" + where(at), ask(c, "textDocument/definition", at));
  }
  if (readItems) *readItems = !built(c);
  for (const json &at : positions) {
    out.emplace_back("highlight" + where(at), ask(c, "textDocument/documentHighlight", at));
    json refs = at;
    refs["context"] = {{"includeDeclaration", true}};
    out.emplace_back("references" + where(at), ask(c, "textDocument/references", refs));
  }
  return out;
}

void expectSameAnswers(const std::vector<std::pair<std::string, json>> &got,
                       const std::vector<std::pair<std::string, json>> &want) {
  ASSERT_EQ(got.size(), want.size());
  size_t nonEmpty = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(got[i].second, want[i].second) << got[i].first;
    nonEmpty += !want[i].second.is_null() && !want[i].second.empty();
  }
  EXPECT_GT(nonEmpty, got.size() / 2); // the answers say something
}

void edit(Client &c, int version, int line, const std::string &text) {
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kFile}, {"version", version}}},
            {"contentChanges", {{{"range", {{"start", {{"line", line}, {"character", 0}}}, {"end", {{"line", line}, {"character", 0}}}}},
                                 {"text", text}}}}});
  ASSERT_TRUE(c.diagnosticsFor(kFile, version).is_object());
}

/// With the item cache (an unchanged item's entries kept) and without it (the default:
/// every item computed on its own slice, dropped before the next).
void featuresFromTheItems(bool itemCache) {
  ServerOptions whole = Client::fast(), perItem = Client::fast();
  whole.itemReads = false;
  perItem.itemCache = itemCache;
  Client items(perItem), reference(whole);
  items.initialize();
  reference.initialize();
  std::string text = kItems;
  json d = open(items, text);
  ASSERT_TRUE(d["params"]["diagnostics"].empty()) << d;
  open(reference, text);
  bool fromItems = false;
  auto got = answers(items, text, &fromItems);
  EXPECT_TRUE(fromItems); // every answer before the references from the items
  expectSameAnswers(got, answers(reference, text));
  // Edits: a line inside kernel b (a moves not, b is checked again), then one above
  // kernel a (both move: their cached answers are moved, not recomputed), then a comment
  // line inside the fn every kernel calls (its tokens are the same: the callers' checks
  // are moved to its new offsets), then a statement there (all are checked again).
  struct Edit {
    int line;
    const char *text;
  } edits[] = {{20, "  let z = w * 3.0\n"}, {5, "\n\n"}, {2, "  // why\n\n"}, {5, "  let q = y * y\n"}};
  int version = 1;
  for (const Edit &e : edits) {
    ++version;
    edit(items, version, e.line, e.text);
    edit(reference, version, e.line, e.text);
    size_t at = 0;
    for (int l = 0; l < e.line; ++l) at = text.find('\n', at) + 1;
    text.insert(at, e.text);
    got = answers(items, text, &fromItems);
    EXPECT_TRUE(fromItems) << "version " << version;
    expectSameAnswers(got, answers(reference, text));
  }
  // Once the whole analysis is built, the answers stay the same.
  buildWhole(items);
  ASSERT_TRUE(built(items));
  expectSameAnswers(answers(items, text), answers(reference, text));
}

TEST(ServerItems, FeaturesFromTheItemsEqualTheWholeAnalysisAndDoNotBuildIt) { featuresFromTheItems(false); }
TEST(ServerItems, FeaturesFromTheItemCacheEqualTheWholeAnalysisAndDoNotBuildIt) { featuresFromTheItems(true); }

TEST(ServerItems, InlayHintsFromTheItemsEqualTheWholeAnalysisAndDoNotBuildIt) {
  Client c;
  c.initialize();
  json d = open(c, kTwoKernels);
  ASSERT_TRUE(d["params"]["diagnostics"].empty()) << d;
  json all = hints(c, 0, 100), second = hints(c, 10, 15);
  EXPECT_FALSE(built(c)); // read from the items
  ASSERT_GE(all.size(), 5u) << all;
  // The same version through the whole analysis (completion builds it).
  buildWhole(c);
  ASSERT_TRUE(built(c));
  EXPECT_EQ(hints(c, 0, 100), all);
  EXPECT_EQ(hints(c, 10, 15), second);
  json expected = json::array();
  for (const json &h : all)
    if (h["position"]["line"] >= 10) expected.push_back(h);
  EXPECT_EQ(second, expected);
  // After an edit in kernel b (a new untyped let), the new version again from its items.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kFile}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 13}, {"character", 0}}}, {"end", {{"line", 13}, {"character", 0}}}}},
                                 {"text", "  let z = w * 3.0\n"}}}}});
  ASSERT_TRUE(c.diagnosticsFor(kFile, 2).is_object());
  json edited = hints(c, 0, 100);
  EXPECT_FALSE(built(c));
  EXPECT_EQ(edited.size(), all.size() + 1) << edited;
  buildWhole(c);
  ASSERT_TRUE(built(c));
  EXPECT_EQ(hints(c, 0, 100), edited);
}

} // namespace

TEST(ServerItems, TheDefaultReadsItemsAndCompletionBuildsTheWholeAnalysis) {
  // The default: a hover reads its item, full-document requests each item's slice in
  // turn; completion (the names in scope everywhere) builds the whole analysis.
  Client c;
  c.initialize();
  open(c, kItems);
  json h = ask(c, "textDocument/hover", {{"position", {{"line", 11}, {"character", 7}}}});
  ASSERT_TRUE(h.is_object()) << h;
  EXPECT_NE(h["contents"]["value"].get<std::string>().find("var v"), std::string::npos) << h;
  EXPECT_FALSE(built(c));
  json symbols = ask(c, "textDocument/documentSymbol");
  json tokens = ask(c, "textDocument/semanticTokens/full");
  EXPECT_EQ(symbols.size(), 3u) << symbols; // twice, a, b
  EXPECT_GT(tokens["data"].size(), 100u) << tokens;
  EXPECT_FALSE(built(c));
  buildWhole(c);
  EXPECT_TRUE(built(c));
  EXPECT_EQ(ask(c, "textDocument/documentSymbol"), symbols);
  EXPECT_EQ(ask(c, "textDocument/semanticTokens/full"), tokens);
}
