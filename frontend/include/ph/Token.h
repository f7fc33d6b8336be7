//===- Token.h - Tokens of the Ph language ----------------------*- C++ -*-===//
#pragma once

#include "ph/Source.h"

#include <string_view>

namespace ph {

enum class Tok : uint8_t {
  Eof,
  Error,     // an invalid character; the lexer has reported it
  Ident,
  IntLit,
  FloatLit,
  DocComment, // `///` line: kept so the parser can attach documentation
  // Keywords.
  KwKernel, KwFn, KwLet, KwVar, KwFor, KwIn, KwTensor, KwTile, KwIf, KwElse,
  // Punctuation.
  LParen, RParen, LBracket, RBracket, LBrace, RBrace, LAngle, RAngle,
  Comma, Colon, ColonPlus, Dot, At, Semi, Newline,
  Plus, Minus, Star, Slash, Percent,
  Assign, PlusAssign, MinusAssign, StarAssign, SlashAssign,
  // Comparisons and logic (`<` and `>` are LAngle and RAngle).
  LessEq, GreaterEq, EqEq, NotEq, AndAnd, OrOr, Bang,
};

const char *tokSpelling(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  SourceRange range;
  std::string_view text; // points into the SourceFile's text
};

} // namespace ph
