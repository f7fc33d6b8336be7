//===- EditorSyntaxTest.cpp - The editors' syntax files know every builtin -===//
//
// VS Code's TextMate grammar, Neovim's syntax file and Emacs's mode colour builtin calls from
// lists of their own (they cannot read the registry); this test keeps those lists complete,
// so a new builtin is coloured in every editor the day it is added (2026-12-06: fourteen of
// issue 16's builtins were missing from all three).
//
//===----------------------------------------------------------------------===//
#include "ph/Builtins.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string readSource(const std::string &rel) {
  std::ifstream in(std::string(PH_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The line of `text` that holds `marker`: the builtin list of that editor.
std::string lineWith(const std::string &text, const std::string &marker) {
  size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  size_t begin = text.rfind('\n', at);
  size_t end = text.find('\n', at);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end == std::string::npos ? std::string::npos : end - begin);
}

/// Whether `name` appears in `list` as a whole word.
bool hasWord(const std::string &list, const std::string &name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = list.find(name); at != std::string::npos; at = list.find(name, at + 1)) {
    bool before = at == 0 || !word(list[at - 1]);
    bool after = at + name.size() >= list.size() || !word(list[at + name.size()]);
    if (before && after) return true;
  }
  return false;
}

TEST(EditorSyntax, EveryBuiltinFunctionIsColouredInEveryEditor) {
  std::string grammar = readSource("vscode-extension/syntaxes/ph.tmLanguage.json");
  size_t at = grammar.find("\"support.function.builtin.ph\"");
  ASSERT_NE(at, std::string::npos);
  std::string vscode = grammar.substr(at, grammar.find('}', at) - at);
  std::string nvim = lineWith(readSource("nvim/syntax/ph.vim"), "syn match   phBuiltin");
  std::string emacsText = readSource("emacs/ph-mode.el");
  size_t e = emacsText.find("(defconst ph--builtins");
  ASSERT_NE(e, std::string::npos);
  std::string emacs = emacsText.substr(e, emacsText.find("))", e) - e);
  ASSERT_FALSE(nvim.empty());
  int checked = 0;
  for (const ph::Builtin &b : ph::allBuiltins()) {
    // Decorators are coloured as decorators; f16(x) and the like as types.
    if (b.isDecorator || b.kind == ph::BuiltinKind::Convert) continue;
    EXPECT_TRUE(hasWord(vscode, b.name)) << b.name << " is missing from VS Code's grammar";
    EXPECT_TRUE(hasWord(nvim, b.name)) << b.name << " is missing from nvim/syntax/ph.vim";
    EXPECT_TRUE(hasWord(emacs, b.name)) << b.name << " is missing from emacs/ph-mode.el";
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

} // namespace
