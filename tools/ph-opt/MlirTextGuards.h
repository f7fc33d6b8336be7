//===- MlirTextGuards.h - Refuse MLIR text that would crash MLIR 22's parser -===//
//
// MLIR's text parser recurses once per nested type, attribute or region, with no
// limit of its own (its developer policy allows recursion), so `(((...i32...)))`
// some 20,000 deep overflows the stack: a crash, not a diagnostic. ph-opt and the
// fuzzer of its path scan the text first and refuse nesting deeper than any real
// IR has, with a location; and the one input known to crash MLIR 22's parser outright
// (`array<index: ...>`). Header-only: ph-opt and fuzz/phopt_fuzzer.cpp share it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ph::opt {

/// A place in the text, 1-based.
struct TextSite {
  unsigned line = 1, column = 1;
};

/// Nesting depth real IR never approaches (the tile dialect's kernels nest < 30).
inline constexpr size_t kMaxMlirNesting = 4096;

/// The first bracket ((, [, {, <) that takes the nesting past `limit`, outside
/// string literals and `//` comments; none when the text stays within it.
inline std::optional<TextSite> findDeepNesting(std::string_view text, size_t limit = kMaxMlirNesting) {
  size_t depth = 0;
  unsigned line = 1, column = 1;
  bool inString = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      column = 1;
      inComment = false;
      inString = false; // MLIR strings do not span lines
      continue;
    }
    if (inComment) {
      ++column;
      continue;
    }
    if (inString) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
        column += 2;
        continue;
      }
      if (c == '"') inString = false;
      ++column;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit) return TextSite{line, column};
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      // `->` is an arrow, not a closing bracket.
      if (!(c == '>' && i > 0 && text[i - 1] == '-')) --depth;
    }
    ++column;
  }
  return std::nullopt;
}

/// Where the text spells `array<index ...>` (whitespace, NUL bytes and `//` comments
/// between the words, as MLIR's lexer skips them): MLIR 22's parser asks an index type for
/// its bit width there and crashes (llvm/llvm-project#179045, fixed upstream by #179075 after
/// 22.1). None when the text has no such attribute.
inline std::optional<TextSite> findIndexDenseArray(std::string_view text) {
  for (size_t at = text.find("array"); at != std::string_view::npos; at = text.find("array", at + 1)) {
    size_t i = at + 5;
    auto skipSpace = [&] {
      while (i < text.size()) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0') {
          ++i;
        } else if (text.compare(i, 2, "//") == 0) {
          while (i < text.size() && text[i] != '\n') ++i;
        } else {
          break;
        }
      }
    };
    skipSpace();
    if (i >= text.size() || text[i] != '<') continue;
    ++i;
    skipSpace();
    if (text.compare(i, 5, "index") != 0) continue;
    TextSite where;
    for (size_t k = 0; k < at; ++k) {
      if (text[k] == '\n') {
        ++where.line;
        where.column = 1;
      } else {
        ++where.column;
      }
    }
    return where;
  }
  return std::nullopt;
}

/// Why the text must not reach MLIR's parser, and where: what ph-opt prints as an error and
/// what the fuzzer skips. None for text the parser can take.
struct Refusal {
  TextSite site;
  std::string reason;
};

inline std::optional<Refusal> refuseMlirText(std::string_view text) {
  if (auto deep = findDeepNesting(text))
    return Refusal{*deep, "nested more than " + std::to_string(kMaxMlirNesting) +
                              " deep; MLIR's parser recurses once a level and would overflow its stack, so "
                              "ph-opt refuses the file"};
  if (auto at = findIndexDenseArray(text))
    return Refusal{*at, "a dense array of `index` elements; MLIR 22's parser crashes on it "
                        "(llvm/llvm-project#179045): use i64"};
  return std::nullopt;
}

} // namespace ph::opt
