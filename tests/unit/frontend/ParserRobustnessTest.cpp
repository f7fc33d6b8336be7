//===- ParserRobustnessTest.cpp - No input crashes or hangs the frontend ---===//
//
// Every prefix of every example, and thousands of random byte edits, go
// through lex + parse + check; the test passes when each returns (the
// sanitizer build turns any memory error into a failure).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <random>

using namespace ph;
using namespace ph::test;

TEST(ParserRobustness, EveryPrefixOfEveryExample) {
  for (const char *path : kExamples) {
    std::string text = readSource(path);
    ASSERT_FALSE(text.empty()) << path;
    for (size_t n = 0; n <= text.size(); ++n) {
      auto a = analyzeText(text.substr(0, n), "prefix.ph");
      ASSERT_NE(a, nullptr);
      // A truncated kernel is reported, never silently accepted, unless the cut
      // falls after the last closing brace.
      if (n < text.find_last_of('}') && text.substr(0, n).find("\nkernel ") != std::string::npos) {
        EXPECT_TRUE(a->hasErrors() || !a->diagnostics.empty()) << path << " cut at " << n;
      }
    }
  }
}

TEST(ParserRobustness, RandomByteEdits) {
  std::mt19937 rng(std::random_device{}());
  const std::string alphabet = "()[]{}<>:+-*/=,.@ \n\tabcxyzBRDk0123456789letvarforinkernelfnctxblock\xff\xc3";
  for (const char *path : kExamples) {
    std::string text = readSource(path);
    for (int iter = 0; iter < 300; ++iter) {
      std::string t = text;
      int edits = 1 + rng() % 8;
      for (int e = 0; e < edits && !t.empty(); ++e) {
        size_t pos = rng() % t.size();
        switch (rng() % 3) {
        case 0: t.erase(pos, 1 + rng() % 4); break;
        case 1: t.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: t[pos] = alphabet[rng() % alphabet.size()]; break;
        }
      }
      auto a = analyzeText(t, "mutated.ph");
      ASSERT_NE(a, nullptr);
      for (const Diagnostic &d : a->diagnostics) {
        ASSERT_LE(d.range.begin, d.range.end);
        ASSERT_LE(d.range.end, a->sources.file(d.range.file).text().size());
      }
    }
  }
}

TEST(ParserRobustness, DeepNestingIsADiagnostic) {
  std::string deep = "kernel k(X: tensor<f32>[N, 8]) {\n  let a = " + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + "\n}\n";
  auto a = analyzeText(deep);
  bool found = false;
  for (auto &d : a->diagnostics) found |= d.kind == DiagKind::NestingTooDeep;
  EXPECT_TRUE(found);
  std::string blocks = "kernel k(X: tensor<f32>[N, 8]) {\n" + std::string(50000, '{') + std::string(50000, '}') + "\n}\n";
  auto b = analyzeText(blocks);
  EXPECT_TRUE(b->hasErrors());
  std::string unary = "kernel k(X: tensor<f32>[N, 8]) {\n  let a = " + std::string(100000, '-') + "1\n}\n";
  auto c = analyzeText(unary);
  EXPECT_TRUE(c->hasErrors());
}

TEST(ParserRobustness, SeveralIndependentErrorsAreAllReported) {
  std::string text = "kernel k(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {\n"
                     "  let t = ctx.block.x * 8\n"
                     "  var x = X[t :+ 8, :\n"   // missing `]`
                     "  var y = rowmx(x)\n"      // misspelt builtin
                     "  let z = (x + 1.0\n"      // missing `)`
                     "  Y[t :+ 8, :] = qq\n"     // unknown name
                     "}\n";
  auto a = analyzeText(text);
  std::set<std::string> got;
  for (auto &d : a->diagnostics) got.insert(std::string(d.code()) + "@" + where(*a, d));
  EXPECT_TRUE(got.count("E0102@4:3")) << "missing bracket";
  EXPECT_TRUE(got.count("E0202@4:11")) << "rowmx";
  EXPECT_TRUE(got.count("E0102@6:3")) << "missing paren";
  EXPECT_TRUE(got.count("E0201@6:18")) << "qq";
}
