//===- Lexer.h - Turns source text into tokens -------------------*- C++ -*-===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/Token.h"

#include <vector>

namespace ph {

/// Lexes the whole file. Never fails: bad characters become Tok::Error tokens
/// with a diagnostic. `//` comments are dropped, `///` lines kept as
/// DocComment tokens, newlines kept (they end statements). Ends with Eof.
std::vector<Token> lex(const SourceFile &file, FileId id, DiagnosticSink &diags);
/// Lexes the bytes [begin, end) of the file only (ranges stay the file's; Eof at `end`):
/// the language server's view of one item. `begin` must start a line (items do).
std::vector<Token> lex(const SourceFile &file, FileId id, DiagnosticSink &diags, uint32_t begin, uint32_t end);

} // namespace ph
