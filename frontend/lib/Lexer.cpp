//===- Lexer.cpp - Turns source text into tokens ---------------------------===//
#include "ph/Lexer.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include <cctype>
#include <cstring>
#include <cstdlib>
#include <string>

namespace ph {

const char *tokSpelling(Tok kind) {
  switch (kind) {
  case Tok::Eof: return "end of file";
  case Tok::Error: return "invalid token";
  case Tok::Ident: return "identifier";
  case Tok::IntLit: return "integer";
  case Tok::FloatLit: return "number";
  case Tok::DocComment: return "`///` comment";
  case Tok::KwKernel: return "`kernel`";
  case Tok::KwFn: return "`fn`";
  case Tok::KwLet: return "`let`";
  case Tok::KwVar: return "`var`";
  case Tok::KwFor: return "`for`";
  case Tok::KwIn: return "`in`";
  case Tok::KwTensor: return "`tensor`";
  case Tok::KwTile: return "`tile`";
  case Tok::KwIf: return "`if`";
  case Tok::KwElse: return "`else`";
  case Tok::LParen: return "`(`";
  case Tok::RParen: return "`)`";
  case Tok::LBracket: return "`[`";
  case Tok::RBracket: return "`]`";
  case Tok::LBrace: return "`{`";
  case Tok::RBrace: return "`}`";
  case Tok::LAngle: return "`<`";
  case Tok::RAngle: return "`>`";
  case Tok::Comma: return "`,`";
  case Tok::Colon: return "`:`";
  case Tok::ColonPlus: return "`:+`";
  case Tok::Dot: return "`.`";
  case Tok::At: return "`@`";
  case Tok::Semi: return "`;`";
  case Tok::Newline: return "end of line";
  case Tok::Plus: return "`+`";
  case Tok::Minus: return "`-`";
  case Tok::Star: return "`*`";
  case Tok::Slash: return "`/`";
  case Tok::Percent: return "`%`";
  case Tok::Assign: return "`=`";
  case Tok::PlusAssign: return "`+=`";
  case Tok::MinusAssign: return "`-=`";
  case Tok::StarAssign: return "`*=`";
  case Tok::SlashAssign: return "`/=`";
  case Tok::LessEq: return "`<=`";
  case Tok::GreaterEq: return "`>=`";
  case Tok::EqEq: return "`==`";
  case Tok::NotEq: return "`!=`";
  case Tok::AndAnd: return "`&&`";
  case Tok::OrOr: return "`||`";
  case Tok::Bang: return "`!`";
  }
  return "token";
}

static Tok keyword(std::string_view s) {
  if (s == "kernel") return Tok::KwKernel;
  if (s == "fn") return Tok::KwFn;
  if (s == "let") return Tok::KwLet;
  if (s == "var") return Tok::KwVar;
  if (s == "for") return Tok::KwFor;
  if (s == "in") return Tok::KwIn;
  if (s == "tensor") return Tok::KwTensor;
  if (s == "tile") return Tok::KwTile;
  if (s == "if") return Tok::KwIf;
  if (s == "else") return Tok::KwElse;
  return Tok::Ident;
}

// ASCII only, as the language is (any other byte is invalid), from one table: the
// <cctype> calls went through the locale for every character of every identifier
// (1 % of a first analysis), and a table answers in one load.
enum : uint8_t { kLetter = 1, kDigit = 2 };
static constexpr auto kCharClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kLetter;
  t['_'] = kLetter;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  return t;
}();
static bool isAsciiDigit(unsigned char c) { return kCharClass[c] == kDigit; }
static bool isIdentStart(unsigned char c) { return kCharClass[c] == kLetter; }
static bool isIdentChar(unsigned char c) { return kCharClass[c] != 0; }
/// A byte that cannot start or continue any token: non-ASCII (continuation bytes
/// included) or ASCII that no token uses.
static bool isInvalidByte(unsigned char c) {
  if (c >= 0x80) return true;
  if (isIdentChar(c) || c == ' ' || c == '\t' || c == '\r' || c == '\n') return false;
  return !std::strchr("()[]{}<>,.@;%:+-*/=", c) || c == 0;
}

std::vector<Token> lex(const SourceFile &file, FileId id, DiagnosticSink &diags) {
  return lex(file, id, diags, 0, static_cast<uint32_t>(file.text().size()));
}

std::vector<Token> lex(const SourceFile &file, FileId id, DiagnosticSink &diags, uint32_t begin, uint32_t end) {
  const std::string &t = file.text();
  const uint32_t n = std::min(end, static_cast<uint32_t>(t.size()));
  std::vector<Token> out;
  out.reserve((n - std::min(begin, n)) / 3 + 1);
  // Inlined at each use, without substr's bounds check (b <= e <= n always): a call per
  // token was a third of the lexer's instructions.
  const char *data = t.data();
  auto push = [&](Tok k, uint32_t b, uint32_t e) __attribute__((always_inline)) {
    out.push_back(Token{k, SourceRange{id, b, e}, std::string_view(data + b, e - b)});
  };
  uint32_t i = begin;
  while (i < n) {
    unsigned char c = t[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '\n') {
      push(Tok::Newline, i, i + 1);
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      uint32_t b = i;
      while (i < n && t[i] != '\n') ++i;
      // `///` documents the declaration below; `////...` is a plain comment.
      if (i - b >= 3 && t[b + 2] == '/' && (i - b == 3 || t[b + 3] != '/')) push(Tok::DocComment, b, i);
      continue;
    }
    if (isIdentStart(c)) {
      uint32_t b = i;
      while (i < n && isIdentChar(t[i])) ++i;
      push(keyword(std::string_view(t).substr(b, i - b)), b, i);
      continue;
    }
    if (isAsciiDigit(c) || (c == '.' && i + 1 < n && isAsciiDigit(static_cast<unsigned char>(t[i + 1])))) {
      uint32_t b = i;
      bool isFloatLit = false, bad = false;
      while (i < n && isAsciiDigit(static_cast<unsigned char>(t[i]))) ++i;
      if (i < n && t[i] == '.' && !(i + 1 < n && t[i + 1] == '.')) {
        isFloatLit = true;
        ++i;
        while (i < n && isAsciiDigit(static_cast<unsigned char>(t[i]))) ++i;
      }
      if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        isFloatLit = true;
        ++i;
        if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
        if (i >= n || !isAsciiDigit(static_cast<unsigned char>(t[i]))) bad = true;
        while (i < n && isAsciiDigit(static_cast<unsigned char>(t[i]))) ++i;
      }
      // A number running into letters (`12ab`) is one malformed literal.
      while (i < n && isIdentChar(t[i])) {
        bad = true;
        ++i;
      }
      if (bad) {
        diags.report(DiagKind::MalformedNumber, {id, b, i}, {t.substr(b, i - b)});
        push(Tok::Error, b, i);
        continue;
      }
      if (!isFloatLit) {
        // 2^31 - 1 is the largest i32; longer spellings are checked without overflow.
        std::string_view digits = std::string_view(t).substr(b, i - b);
        if (digits.size() > 10 || std::strtoll(std::string(digits).c_str(), nullptr, 10) > 2147483647LL) {
          diags.report(DiagKind::IntegerTooLarge, {id, b, i}, {std::string(digits)});
          push(Tok::Error, b, i);
          continue;
        }
      }
      push(isFloatLit ? Tok::FloatLit : Tok::IntLit, b, i);
      continue;
    }
    uint32_t b = i;
    auto two = [&](char next) { return i + 1 < n && t[i + 1] == next; };
    Tok k = Tok::Error;
    uint32_t len = 1;
    switch (c) {
    case '(': k = Tok::LParen; break;
    case ')': k = Tok::RParen; break;
    case '[': k = Tok::LBracket; break;
    case ']': k = Tok::RBracket; break;
    case '{': k = Tok::LBrace; break;
    case '}': k = Tok::RBrace; break;
    case '<':
      if (two('=')) k = Tok::LessEq, len = 2;
      else k = Tok::LAngle;
      break;
    case '>':
      // `>=` only where an expression goes on: `tile<f32>=` is not written.
      if (two('=')) k = Tok::GreaterEq, len = 2;
      else k = Tok::RAngle;
      break;
    case '!':
      if (two('=')) k = Tok::NotEq, len = 2;
      else k = Tok::Bang;
      break;
    case '&':
      if (two('&')) k = Tok::AndAnd, len = 2;
      break;
    case '|':
      if (two('|')) k = Tok::OrOr, len = 2;
      break;
    case ',': k = Tok::Comma; break;
    case '.': k = Tok::Dot; break;
    case '@': k = Tok::At; break;
    case ';': k = Tok::Semi; break;
    case '%': k = Tok::Percent; break;
    case ':':
      if (two('+')) k = Tok::ColonPlus, len = 2;
      else k = Tok::Colon;
      break;
    case '+':
      if (two('=')) k = Tok::PlusAssign, len = 2;
      else k = Tok::Plus;
      break;
    case '-':
      if (two('=')) k = Tok::MinusAssign, len = 2;
      else k = Tok::Minus;
      break;
    case '*':
      if (two('=')) k = Tok::StarAssign, len = 2;
      else k = Tok::Star;
      break;
    case '/':
      if (two('=')) k = Tok::SlashAssign, len = 2;
      else k = Tok::Slash;
      break;
    case '=':
      if (two('=')) k = Tok::EqEq, len = 2;
      else k = Tok::Assign;
      break;
    default: break;
    }
    if (k == Tok::Error) {
      // One diagnostic for a run of bad characters (a line of 10 000 emoji is one
      // finding, not 10 000), quoting its first few.
      ++i;
      while (i < n && isInvalidByte(static_cast<unsigned char>(t[i]))) ++i;
      std::string quote = t.substr(b, i - b);
      if (quote.size() > 24) {
        size_t cut = 16;
        while (cut > 0 && (static_cast<unsigned char>(quote[cut]) & 0xC0) == 0x80) --cut;
        quote = quote.substr(0, cut) + "...";
      }
      diags.report(DiagKind::InvalidCharacter, {id, b, i}, {quote});
      push(Tok::Error, b, i);
      continue;
    }
    i += len;
    push(k, b, i);
  }
  push(Tok::Eof, n, n);
  return out;
}

} // namespace ph
