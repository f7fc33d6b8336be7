//===- DiagnosticRegistryTest.cpp - Every code is unique and tested --------===//
//
// Carbon's coverage test: a code that no test file triggers, or two
// diagnostics that share a code, fails the build's tests.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace ph;

TEST(DiagnosticRegistry, CodesAreUniqueAndWellFormed) {
  std::set<std::string> codes;
  for (size_t i = 0; i < static_cast<size_t>(DiagKind::Count); ++i) {
    const DiagInfo &info = diagInfo(static_cast<DiagKind>(i));
    std::string code = info.code;
    EXPECT_TRUE(codes.insert(code).second) << "two diagnostics share " << code;
    ASSERT_EQ(code.size(), 5u) << code;
    EXPECT_TRUE(code[0] == 'E' || code[0] == 'W') << code;
    EXPECT_EQ(code[0] == 'W', info.severity == Severity::Warning) << code;
    std::string fmt = info.format;
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(fmt[0])) || fmt[0] == '`' || fmt[0] == '{') << code << ": " << fmt;
    EXPECT_NE(fmt.back(), '.') << code << " ends with a period";
    EXPECT_EQ(diagKindFromCode(code), static_cast<DiagKind>(i));
  }
}

TEST(DiagnosticRegistry, EveryCodeIsExercisedByATestFile) {
  // Collect every `[E....]` / `[W....]` a lit test expects.
  std::string all;
  for (auto &entry : std::filesystem::recursive_directory_iterator(std::string(PH_SOURCE_DIR) + "/tests")) {
    if (!entry.is_regular_file()) continue;
    auto ext = entry.path().extension();
    if (ext != ".ph" && ext != ".test" && ext != ".mlir" && ext != ".py" && ext != ".lua" && ext != ".js" &&
        ext != ".cpp" && ext != ".el" && ext != ".ts")
      continue;
    if (entry.path().filename() == "DiagnosticRegistryTest.cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
  }
  for (size_t i = 0; i < static_cast<size_t>(DiagKind::Count); ++i) {
    std::string code = diagInfo(static_cast<DiagKind>(i)).code;
    EXPECT_NE(all.find("[" + code + "]"), std::string::npos)
        << code << " (" << diagInfo(static_cast<DiagKind>(i)).name << ") is not exercised by any test";
  }
}

TEST(DiagnosticRegistry, FormatSubstitutesArguments) {
  EXPECT_EQ(formatDiag(DiagKind::UnknownName, {"rwo"}), "unknown name `rwo`");
}
