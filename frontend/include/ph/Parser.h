//===- Parser.h - Builds the syntax tree -------------------------*- C++ -*-===//
#pragma once

#include "ph/AST.h"
#include "ph/Diagnostic.h"
#include "ph/Token.h"

#include <memory>
#include <vector>

namespace ph {

/// The deepest nesting of expressions and blocks the parser accepts; deeper
/// input gets a diagnostic instead of a deeper stack.
constexpr unsigned kMaxNesting = 200;
/// The deepest nesting of blocks (`for`, bodies): well below kMaxNesting, so that
/// the expressions of a statement at the deepest block still have room (198 nested
/// `for`s used to hit E0106 in a loop header, then gave wrong follow-on errors).
/// A deeper block is skipped whole, by counting braces, after one E0108.
constexpr unsigned kMaxBlockNesting = 100;

/// Parses a whole file. Never fails: returns a valid tree (with Error nodes)
/// and reports what it could not read. Runs in time linear in the tokens.
std::unique_ptr<ast::Module> parse(const std::vector<Token> &tokens, FileId file, DiagnosticSink &diags);

/// Parses one item of a file (the incremental analysis, Incremental.h): the top-level
/// loop stops at token `limit`, the first token of the next item, which the tokens
/// include so that every look-ahead sees the real text. `*end` is where the parser
/// stopped: past `limit` when a declaration ran into the next item (then the split
/// was wrong and the caller joins the two items).
std::unique_ptr<ast::Module> parseItem(const std::vector<Token> &tokens, FileId file, DiagnosticSink &diags,
                                       size_t limit, size_t *end);

} // namespace ph
