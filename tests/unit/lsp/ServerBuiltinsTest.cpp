//===- ServerBuiltinsTest.cpp - Issue 16's builtins over the protocol -----===//
//
// Hover, completion and signature help for the builtins of issue 16 (where,
// row_ids, col_ids, rowargmax, colsum, tanh, erf, ...), the `if`/`else`
// keywords and the element types, through JSON-RPC into the in-process server.
// What each must show is read from the registry (ph/Builtins.h, elemDoc), so a
// builtin whose hover, completion item or signature drops its entry fails.
//
//===----------------------------------------------------------------------===//
#include "ServerClient.h"

#include "ph/Builtins.h"
#include "ph/Types.h"

#include <gtest/gtest.h>

#include <map>

using namespace ph;
using namespace ph::lsp;
using namespace ph::lsp::testing;

namespace {

// Every name below is ASCII, so byte columns are UTF-16 columns.
const char *kUses = "@grid(N / 16, 1, 1)\n"
                    "kernel k(X: tensor<f32>[N, 64], A: tensor<i32>[N, 1], C: tensor<f32>[B, 64],\n"
                    "         Y: tensor<f32>[N, 64]) {\n"
                    "  let r = ctx.block.x * 16\n"
                    "  let x: tile<f32>[16, 64] = X[r :+ 16, :]\n"
                    "  let y = where(col_ids(x) <= row_ids(x) + r, tanh(x), erf(x))\n"
                    "  A[r :+ 16, :] = rowargmax(y)\n"
                    "  C[ctx.block.x :+ 1, :] = colsum(y) + colmax(sigmoid(y))\n"
                    "  Y[r :+ 16, :] = floor(log2(abs(y) + 1.0)) + sin(y) * cos(y) + f32(i32(y))\n"
                    "  \n"
                    "}\n";

json position(const std::string &text, size_t offset) {
  size_t line = 0, start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, start = i + 1;
  return {{"line", line}, {"character", offset - start}};
}

json at(const std::string &text, size_t offset, const char *uri = kFile) {
  return {{"textDocument", {{"uri", uri}}}, {"position", position(text, offset)}};
}

/// The offset of the first `name(` in `text`.
size_t callOf(const std::string &text, const std::string &name) {
  size_t p = text.find(" " + name + "(");
  if (p == std::string::npos) p = text.find("(" + name + "(");
  EXPECT_NE(p, std::string::npos) << name;
  return p + 1;
}

void start(Client &c) {
  c.initialize({{"textDocument",
                 {{"hover", {{"contentFormat", {"markdown", "plaintext"}}}},
                  {"completion", {{"completionItem", {{"snippetSupport", false}}}}}}}});
}

const char *kNew[] = {"where", "row_ids", "col_ids", "rowargmax", "colsum", "colmax",
                      "tanh",  "erf",     "sigmoid", "floor",     "log2",   "sin",    "cos"};

TEST(ServerBuiltins, HoverShowsTheRegistrySignatureAndDocOverTheName) {
  Client c;
  start(c);
  json d = open(c, kUses);
  ASSERT_TRUE(d.is_object());
  ASSERT_TRUE(d["params"]["diagnostics"].empty()) << d; // the uses check clean
  std::string text = kUses;
  for (const char *name : kNew) {
    const Builtin *b = findBuiltinFunction(name);
    ASSERT_NE(b, nullptr) << name;
    size_t p = callOf(text, name);
    json h = c.request("textDocument/hover", at(text, p + 1));
    ASSERT_TRUE(h["result"].is_object()) << name << ": " << h;
    EXPECT_EQ(h["result"]["contents"]["kind"], "markdown") << name;
    std::string v = h["result"]["contents"]["value"];
    EXPECT_NE(v.find(b->signature), std::string::npos) << name << ": " << v;
    EXPECT_NE(v.find(b->doc), std::string::npos) << name << ": " << v;
    // The range is the name, not the call or the line.
    EXPECT_EQ(h["result"]["range"]["start"], position(text, p)) << name;
    EXPECT_EQ(h["result"]["range"]["end"], position(text, p + std::string(name).size())) << name;
  }
}

TEST(ServerBuiltins, CompletionOffersTheBuiltinsKeywordsAndElementTypes) {
  Client c;
  start(c);
  open(c, kUses);
  std::string text = kUses;
  json r = c.request("textDocument/completion", at(text, text.find("  \n}") + 2));
  ASSERT_TRUE(r["result"].is_object()) << r;
  std::map<std::string, json> byLabel;
  for (const json &i : r["result"]["items"]) byLabel[i["label"]] = i;
  for (const char *name : kNew) {
    const Builtin *b = findBuiltinFunction(name);
    ASSERT_TRUE(byLabel.count(name)) << name;
    const json &i = byLabel[name];
    EXPECT_EQ(i["kind"], 3) << name; // Function
    EXPECT_EQ(i["detail"], b->signature) << name;
    EXPECT_EQ(i["documentation"]["value"], b->doc) << name;
  }
  for (const char *kw : {"if", "else"}) {
    ASSERT_TRUE(byLabel.count(kw)) << kw;
    EXPECT_EQ(byLabel[kw]["kind"], 14) << kw; // Keyword
  }
  // The fp8 types are storage types only: offered as types, with their registry doc.
  for (Elem e : {Elem::F8E4M3, Elem::F8E5M2}) {
    std::string name = elemName(e);
    ASSERT_TRUE(byLabel.count(name)) << name;
    EXPECT_EQ(byLabel[name]["kind"], 22) << name; // Struct: a type
    EXPECT_EQ(byLabel[name]["documentation"]["value"], std::string(elemDoc(e))) << name;
  }
  // `i32` is also the conversion `i32(x)`: one item, the builtin's.
  ASSERT_TRUE(byLabel.count("i32"));
  EXPECT_EQ(byLabel["i32"]["kind"], 3);
  EXPECT_EQ(byLabel["i32"]["detail"], findBuiltinFunction("i32")->signature);
  EXPECT_EQ(byLabel["i32"]["documentation"]["value"], findBuiltinFunction("i32")->doc);
  // A prefix narrows the list to the names that start with it (`row` of `rowargmax`).
  r = c.request("textDocument/completion", at(text, callOf(text, "rowargmax") + 3));
  std::vector<std::string> labels;
  for (const json &i : r["result"]["items"]) labels.push_back(i["label"]);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "rowargmax"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "row_ids"), labels.end());
  EXPECT_EQ(std::find(labels.begin(), labels.end(), "colsum"), labels.end());
}

TEST(ServerBuiltins, SignatureHelpIsTheRegistrySignatureWithTheActiveArgument) {
  Client c;
  start(c);
  // Calls being typed: the file does not parse, signature help reads the text.
  std::string text = "kernel k(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {\n"
                     "  let x: tile<f32>[16, 64] = X[0 :+ 16, :]\n"
                     "  Y[0 :+ 16, :] = where(x > 0.0, tanh(x), \n"
                     "  let i = rowargmax(\n"
                     "  let s = colsum(erf(x\n"
                     "}\n";
  open(c, text);
  struct Want {
    size_t offset;
    const char *callee;
    int active;
  } wants[] = {
      {text.find("tanh(x), ") + 9, "where", 2},
      {text.find("x > 0.0") + 1, "where", 0},
      {text.find("tanh(x)") + 5, "tanh", 0},
      {text.find("rowargmax(") + 10, "rowargmax", 0},
      {text.find("erf(x") + 5, "erf", 0},
      {text.find("colsum(") + 7, "colsum", 0},
  };
  for (const Want &w : wants) {
    const Builtin *b = findBuiltinFunction(w.callee);
    ASSERT_NE(b, nullptr) << w.callee;
    json h = c.request("textDocument/signatureHelp", at(text, w.offset));
    ASSERT_TRUE(h["result"].is_object()) << w.callee << ": " << h;
    const json &sig = h["result"]["signatures"][0];
    EXPECT_EQ(sig["label"], b->signature) << w.callee;
    EXPECT_EQ(sig["documentation"]["value"], b->doc) << w.callee;
    EXPECT_EQ(h["result"]["activeParameter"], w.active) << w.callee << " at " << w.offset;
    // where(c, a, b) has three parameters; the one-argument builtins one.
    EXPECT_EQ(sig["parameters"].size(), std::string(w.callee) == "where" ? 3u : 1u) << w.callee << ": " << sig;
  }
}

} // namespace
