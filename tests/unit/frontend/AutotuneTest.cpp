//===- AutotuneTest.cpp - `@autotune` where conditions and `@launch(T)` ----===//
#include "TestUtil.h"

#include "ph/Autotune.h"
#include "ph/Incremental.h"
#include "ph/KernelIR.h"
#include "ph/Lexer.h"
#include "ph/Parser.h"

#include <gtest/gtest.h>

using namespace ph;
using namespace ph::test;

namespace {

struct Parsed {
  std::shared_ptr<SourceFile> file;
  std::vector<Token> tokens;
  DiagnosticSink diags;
  std::unique_ptr<ast::Module> module;
};

std::unique_ptr<Parsed> parseText(const std::string &text) {
  auto p = std::make_unique<Parsed>();
  p->file = std::make_shared<SourceFile>("t.ph", text);
  p->tokens = lex(*p->file, 0, p->diags);
  p->module = parse(p->tokens, 0, p->diags);
  return p;
}

const char *kRows = R"(@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64], where D * BC == 4096)
kernel k(X: tensor<f32>[N, D], Y: tensor<f32>[N, D]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] + BC
}
)";

std::string codes(const Analysis &a) {
  std::string out;
  for (auto &d : a.diagnostics) out += std::string(d.code()) + "@" + where(a, d) + " ";
  return out;
}

} // namespace

TEST(AutotuneParser, WhereIsAnArgumentOfItsOwnKind) {
  auto p = parseText("@autotune(D in [64], where D * 2 == 128, where (D + 1) % 2 == 1)\nkernel k() {}\n");
  ASSERT_TRUE(p->diags.all().empty());
  const ast::Decorator &d = p->module->decls[0]->decorators[0];
  ASSERT_EQ(d.args.size(), 3u);
  EXPECT_EQ(d.args[0].kind, ast::DecoratorArg::Kind::In);
  EXPECT_EQ(d.args[1].kind, ast::DecoratorArg::Kind::Where);
  EXPECT_EQ(d.args[1].name.name, "where");
  ASSERT_EQ(d.args[1].values.size(), 1u);
  EXPECT_EQ(d.args[1].values[0]->kind, ast::ExprKind::Binary);
  EXPECT_EQ(d.args[1].values[0]->binOp, ast::BinOp::Eq);
  // `where (` starts a condition too, not a call of the builtin `where`.
  EXPECT_EQ(d.args[2].kind, ast::DecoratorArg::Kind::Where);
  EXPECT_EQ(d.args[2].values[0]->binOp, ast::BinOp::Eq);
  // The argument's range covers `where` and the condition.
  EXPECT_EQ(p->file->text().substr(d.args[1].range.begin, d.args[1].range.end - d.args[1].range.begin),
            "where D * 2 == 128");
}

TEST(AutotuneParser, WhereAsANameIsNotACondition) {
  // `where = 2` and `where in [...]` keep their old meaning (and their old errors).
  auto p = parseText("@aligned(where = 2)\n@autotune(where in [1])\nkernel k() {}\n");
  const auto &decs = p->module->decls[0]->decorators;
  EXPECT_EQ(decs[0].args[0].kind, ast::DecoratorArg::Kind::Eq);
  EXPECT_EQ(decs[1].args[0].kind, ast::DecoratorArg::Kind::In);
}

TEST(AutotuneSpace, EnumerateKeepsWhatTheConditionsAllowInOrder) {
  auto p = parseText("@autotune(D in [64, 128], BC in [32, 64], where D * BC == 4096, where D >= 64 && !(BC > 64))\n"
                     "kernel k() {}\n");
  autotune::Space s = autotune::spaceOf(p->module->decls[0]->decorators[0]);
  ASSERT_TRUE(s.ok);
  ASSERT_EQ(s.params.size(), 2u);
  ASSERT_EQ(s.where.size(), 2u);
  auto kept = autotune::enumerate(s.params, s.where);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0], (autotune::Config{{"D", 64}, {"BC", 64}}));
  EXPECT_EQ(kept[1], (autotune::Config{{"D", 128}, {"BC", 32}}));
  // A filter, then a limit.
  EXPECT_EQ(autotune::enumerate(s.params, s.where, {{"D", 128}}).size(), 1u);
  EXPECT_EQ(autotune::enumerate(s.params, s.where, {}, 1).size(), 1u);
  // Without conditions: the whole product, the last list fastest.
  auto all = autotune::enumerate(s.params, {});
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[1], (autotune::Config{{"D", 64}, {"BC", 64}}));
}

TEST(AutotuneSpace, EvaluateShortCircuitsAndRefusesDivisionByZero) {
  auto p = parseText("@autotune(A in [0, 2], where A != 0 && 8 / A == 4, where 8 % A == 0)\nkernel k() {}\n");
  autotune::Space s = autotune::spaceOf(p->module->decls[0]->decorators[0]);
  autotune::Config zero{{"A", 0}}, two{{"A", 2}};
  EXPECT_EQ(autotune::evaluate(*s.where[0], zero), 0);
  EXPECT_EQ(autotune::evaluate(*s.where[0], two), 1);
  EXPECT_EQ(autotune::evaluate(*s.where[1], zero), std::nullopt); // not kept
  EXPECT_EQ(autotune::evaluate(*s.where[1], autotune::Config{}), std::nullopt); // no `A`
}

TEST(AutotuneChecker, WhereKeepsOnlyTheConfigurationsItAllows) {
  AnalyzeOptions o;
  o.specialise = true;
  auto a = analyzeText(kRows, "t.ph", o);
  ASSERT_FALSE(a->hasErrors()) << codes(*a);
  ASSERT_EQ(a->kernels.size(), 1u);
  EXPECT_EQ(a->kernels[0].configs,
            (std::vector<std::string>{"D=64,BR=64,BC=64", "D=64,BR=128,BC=64", "D=128,BR=64,BC=32",
                                      "D=128,BR=128,BC=32"}));
  EXPECT_EQ(a->kernels[0].autotuneSpace, "D in [64, 128], BR in [64, 128], BC in [32, 64], where D * BC == 4096");
  EXPECT_EQ(a->specialised.size(), 4u);
  // `--config` narrows what the condition keeps.
  o.configFilter = {{"D", 128}};
  auto f = analyzeText(kRows, "t.ph", o);
  EXPECT_EQ(f->kernels[0].configs, (std::vector<std::string>{"D=128,BR=64,BC=32", "D=128,BR=128,BC=32"}));
}

TEST(AutotuneChecker, ConditionErrorsHaveCodesAndRanges) {
  std::string src = "@autotune(D in [64, 128], BC in [32], where D < Q, where N > 1, where D + 1, where D > 1 && BC)\n"
                    "kernel k(X: tensor<f32>[N, D]) {\n"
                    "  X[0 :+ 1, :] = X[0 :+ 1, :] + BC\n"
                    "}\n";
  auto a = analyzeText(src);
  EXPECT_EQ(codes(*a), "E0201@1:49 E0409@1:58 E0411@1:71 E0308@1:93 ");
  // The unknown name's fix names an autotune parameter.
  auto b = analyzeText("@autotune(D in [64], BC in [32], where BQ == 32)\n"
                       "kernel k(X: tensor<f32>[N, D]) {\n  X[0 :+ 1, :] = X[0 :+ 1, :] + BC\n}\n");
  ASSERT_EQ(b->diagnostics.size(), 1u);
  ASSERT_EQ(b->diagnostics[0].fixes.size(), 1u);
  EXPECT_EQ(b->diagnostics[0].fixes[0].edits[0].text, "BC");
}

TEST(AutotuneChecker, AConditionThatKeepsNothingIsAnError) {
  std::string src = "@autotune(D in [64, 128], BC in [32, 64], where D == 64, where D * BC == 8192)\n"
                    "kernel k(X: tensor<f32>[N, D]) {\n"
                    "  X[0 :+ 1, :] = X[0 :+ 1, :] + BC\n"
                    "}\n";
  auto a = analyzeText(src);
  ASSERT_EQ(a->diagnostics.size(), 1u) << codes(*a);
  const Diagnostic &d = a->diagnostics[0];
  EXPECT_EQ(std::string(d.code()), "E0410");
  EXPECT_EQ(where(*a, d), "1:64");
  EXPECT_EQ(d.message, "`where D * BC == 8192` keeps none of the 2 configuration(s) of `@autotune`");
  ASSERT_EQ(d.notes.size(), 1u); // the condition before it
  // The checker goes on without it: every configuration the others keep.
  EXPECT_EQ(a->kernels[0].configs.size(), 2u);
}

TEST(AutotuneChecker, LaunchTakesAnAutotuneParameterPerConfiguration) {
  std::string src = "@autotune(BR in [1], BC in [2048], T in [128, 256, 512])\n"
                    "@launch(T)\n"
                    "kernel rows(X: tensor<f32>[N, BC], Y: tensor<f32>[N, BC]) {\n"
                    "  let r = ctx.block.x * BR\n"
                    "  Y[r :+ BR, :] = X[r :+ BR, :]\n"
                    "}\n";
  AnalyzeOptions o;
  o.specialise = true;
  auto a = analyzeText(src, "t.ph", o);
  ASSERT_FALSE(a->hasErrors()) << codes(*a);
  ASSERT_EQ(a->specialised.size(), 3u);
  EXPECT_EQ(a->specialised[0]->threads, 128);
  EXPECT_EQ(a->specialised[1]->threads, 256);
  EXPECT_EQ(a->specialised[2]->threads, 512);
  EXPECT_EQ(a->kernels[0].threadsParam, "T");
  EXPECT_EQ(a->kernels[0].threadCounts, (std::vector<int>{128, 256, 512}));
  // `T` is used (no E0404) and `@launch(T)` resolves to it.
  const Occurrence *occ = a->occurrenceAt(a->mainFile, static_cast<uint32_t>(src.find("@launch(T)") + 8));
  ASSERT_NE(occ, nullptr);
  EXPECT_EQ(a->symbols[occ->symbol].kind, SymbolKind::AutotuneParam);
}

TEST(AutotuneChecker, LaunchParameterValuesAreChecked) {
  std::string src = "@autotune(BR in [1], T in [128, 2048, 100, 2048], where T != 100)\n"
                    "@launch(T)\n"
                    "kernel rows(X: tensor<f32>[N, 8]) {\n"
                    "  X[0 :+ BR, :] = X[0 :+ BR, :]\n"
                    "}\n"
                    "@launch(N)\n"
                    "kernel sizes(X: tensor<f32>[N, 8]) {\n"
                    "  X[0 :+ 1, :] = X[0 :+ 1, :]\n"
                    "}\n";
  auto a = analyzeText(src);
  // 2048 once (at the argument), 100 not at all (the condition drops it); `N` is a size.
  EXPECT_EQ(codes(*a), "E0408@2:9 E0402@6:9 ");
  EXPECT_NE(a->diagnostics[0].message.find("found 2048 (`T` in the configuration BR=1,T=2048)"), std::string::npos)
      << a->diagnostics[0].message;
}

TEST(AutotuneIncremental, TheEditorsFirstConfigurationIsOneTheConditionKeeps) {
  // The document path elaborates the first configuration alone before the rest: it
  // must be the first one `where` keeps (D=64,BC=64), not the product's first.
  IncrementalAnalyzer inc(prelude());
  inc.lazyVariants = 1; // elaborate the first configuration alone
  auto r = inc.update(std::make_shared<SourceFile>("t.ph", kRows), {}, false);
  ASSERT_TRUE(r.diagnostics);
  EXPECT_FALSE(r.complete);
  EXPECT_FALSE(r.diagnostics->hasErrors()) << codes(*r.diagnostics);
  auto whole = [](const IncrementalAnalyzer::Result &res) {
    return res.materialize ? res.materialize([] { return false; }) : res.diagnostics;
  };
  auto a = whole(r);
  ASSERT_EQ(a->kernels.size(), 1u);
  EXPECT_EQ(a->kernels[0].configs, (std::vector<std::string>{"D=64,BR=64,BC=64"}));
  // The full update: every kept configuration.
  auto full = whole(inc.update(std::make_shared<SourceFile>("t.ph", kRows), {}, true));
  EXPECT_EQ(full->kernels[0].configs.size(), 4u);
}
