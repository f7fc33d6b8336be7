//===- ServerItemsTest.cpp - Features that read the analysis item by item ------===//
//
// Issue 21: after an edit the whole Analysis of the version is built only when a
// feature needs it; inlay hints read the items in the requested range instead. Their
// answer must be the one the whole analysis gives, and asking must not build it.
//
//===----------------------------------------------------------------------===//
#include "ServerClient.h"

#include <gtest/gtest.h>

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

TEST(ServerItems, InlayHintsFromTheItemsEqualTheWholeAnalysisAndDoNotBuildIt) {
  Client c;
  c.initialize();
  json d = open(c, kTwoKernels);
  ASSERT_TRUE(d["params"]["diagnostics"].empty()) << d;
  json all = hints(c, 0, 100), second = hints(c, 10, 15);
  EXPECT_FALSE(built(c)); // read from the items
  ASSERT_GE(all.size(), 5u) << all;
  // The same version through the whole analysis (a hover builds it).
  c.request("textDocument/hover", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 5}, {"character", 7}}}});
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
  c.request("textDocument/hover", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 5}, {"character", 7}}}});
  ASSERT_TRUE(built(c));
  EXPECT_EQ(hints(c, 0, 100), edited);
}

} // namespace
