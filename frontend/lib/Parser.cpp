//===- Parser.cpp - Recursive descent with recovery ------------------------===//
//
// Every loop consumes a token or stops, so the parser runs in linear time;
// nesting is bounded by kMaxNesting, so no input overflows the stack.
//
//===----------------------------------------------------------------------===//
#include "ph/Parser.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace ph {
namespace {

using namespace ast;

class Parser {
public:
  Parser(const std::vector<Token> &toks, FileId file, DiagnosticSink &diags)
      : toks_(toks), file_(file), diags_(diags) {}

  std::unique_ptr<Module> parseModule();
  size_t limit_ = SIZE_MAX; // parseItem: the top level stops at this token
  size_t position() const { return pos_; }

private:
  const std::vector<Token> &toks_;
  FileId file_;
  DiagnosticSink &diags_;
  size_t pos_ = 0;
  unsigned nlSkip_ = 0; // > 0 inside ( [ <: newlines do not end anything there
  unsigned depth_ = 0;
  uint32_t nextExprId_ = 0;
  bool depthReported_ = false;
  unsigned blockDepth_ = 0;
  bool blockDepthReported_ = false;
  bool keepDocs_ = false; // at top level `///` lines are documentation, not trivia

  // --- Token access ----------------------------------------------------------
  /// Skips tokens that never matter here: doc comments inside bodies, and
  /// newlines inside delimiters.
  void skipTrivia() {
    // Every peek comes here (a few million times in a large file's first analysis):
    // most tokens are neither, so say so with one load.
    if (Tok k = toks_[pos_].kind; k != Tok::DocComment && k != Tok::Newline) return;
    while (pos_ + 1 < toks_.size() &&
           ((toks_[pos_].kind == Tok::DocComment && !keepDocs_) || (nlSkip_ > 0 && toks_[pos_].kind == Tok::Newline)))
      ++pos_;
  }
  const Token &peek() {
    skipTrivia();
    return toks_[pos_];
  }
  Tok kind() { return peek().kind; }
  bool at(Tok k) { return kind() == k; }
  const Token &advance() {
    skipTrivia();
    const Token &t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  /// True when a newline separates the current token from the previous one.
  bool newlineBefore() {
    peek();
    for (size_t i = pos_; i > 0; --i) {
      Tok k = toks_[i - 1].kind;
      if (k == Tok::Newline) return true;
      if (k != Tok::DocComment) return false;
    }
    return false;
  }
  SourceRange prevRange() const {
    size_t i = pos_;
    while (i > 0) {
      --i;
      if (toks_[i].kind != Tok::Newline && toks_[i].kind != Tok::DocComment) return toks_[i].range;
    }
    return toks_[0].range;
  }
  std::string describe(const Token &t) {
    switch (t.kind) {
    case Tok::Ident: return "`" + std::string(t.text) + "`";
    case Tok::IntLit:
    case Tok::FloatLit: return "`" + std::string(t.text) + "`";
    default: return tokSpelling(t.kind);
    }
  }
  void expected(const std::string &what) {
    const Token &t = peek();
    if (t.kind == Tok::Error) return; // the lexer has reported it
    diags_.report(DiagKind::ExpectedToken, t.range, {what, describe(t)});
  }
  bool expect(Tok k) {
    if (accept(k)) return true;
    expected(tokSpelling(k));
    return false;
  }
  /// A token that starts a new statement or declaration: recovery stops here.
  bool atSyncPoint() {
    switch (kind()) {
    case Tok::KwLet: case Tok::KwVar: case Tok::KwFor: case Tok::KwIf: case Tok::KwFn: case Tok::KwKernel:
    case Tok::At: case Tok::LBrace: case Tok::RBrace: case Tok::Eof:
      return true;
    default:
      return false;
    }
  }
  bool atDeclStart() {
    Tok k = kind();
    return k == Tok::KwFn || k == Tok::KwKernel || k == Tok::At || k == Tok::Eof;
  }
  ExprPtr makeExpr(ExprKind k, SourceRange r) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->range = r;
    e->id = nextExprId_++;
    return e;
  }
  Ident parseIdent(const char *what) {
    if (at(Tok::Ident)) {
      const Token &t = advance();
      return Ident{std::string(t.text), t.range};
    }
    expected(what);
    return Ident{"", peek().range};
  }

  /// Reports an unclosed delimiter opened at `open`, pointing at where the
  /// closer was expected.
  void unclosed(const Token &open, Tok closer) {
    const Token &t = peek();
    auto &d = diags_.report(DiagKind::UnclosedDelimiter, t.range,
                            {std::string(open.text), std::string(tokSpelling(closer)).substr(1, 1), describe(t)});
    d.notes.push_back({open.range, "the delimiter opened here"});
  }

  /// Parses `open item (, item)* close`. `item` must consume a token or
  /// return false. Returns the range of the whole list.
  template <typename F> SourceRange parseList(Tok openTok, Tok closeTok, F item) {
    const Token &open = advance(); // caller checked
    ++nlSkip_;
    SourceRange r = open.range;
    while (true) {
      if (at(closeTok)) {
        r = SourceRange::join(r, advance().range);
        break;
      }
      if (at(Tok::Eof) || (newlineBefore() && !at(Tok::Comma) && pos_ > 0 && atSyncPoint()) ||
          at(Tok::LBrace) || at(Tok::RBrace)) {
        unclosed(open, closeTok);
        break;
      }
      size_t before = pos_;
      item();
      if (accept(Tok::Comma)) continue;
      if (at(closeTok)) continue;
      if (newlineBefore() || atSyncPoint()) {
        unclosed(open, closeTok);
        break;
      }
      expected(std::string("`,` or ") + tokSpelling(closeTok));
      // Skip the rest of this item quietly: one error per bad item.
      if (pos_ == before) advance();
      while (!at(Tok::Comma) && !at(closeTok) && !at(Tok::Eof) && !atSyncPoint() && !newlineBefore()) advance();
    }
    --nlSkip_;
    return SourceRange::join(r, prevRange());
  }

  // --- Expressions -----------------------------------------------------------
  ExprPtr parseExpr();
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseUnary();
  ExprPtr parsePostfix(ExprPtr base);
  ExprPtr parsePrimary();
  SliceItem parseSliceItem();
  bool enter() {
    if (depth_ >= kMaxNesting) {
      if (!depthReported_) diags_.report(DiagKind::NestingTooDeep, peek().range, {std::to_string(kMaxNesting)});
      depthReported_ = true;
      return false;
    }
    ++depth_;
    return true;
  }
  /// Skips an expression too deep to parse: up to the closer of the bracket it sits in,
  /// which is left for that bracket's parser (skipping to the end of the statement left
  /// every enclosing `(` unclosed: a wrong E0102 after the E0106), keeping the brackets
  /// it opens itself balanced; outside brackets, to the end of the line.
  void skipTooDeep() {
    size_t open = 0;
    while (!at(Tok::Eof) && !at(Tok::RBrace)) {
      if (at(Tok::LParen) || at(Tok::LBracket)) {
        ++open;
      } else if (at(Tok::RParen) || at(Tok::RBracket)) {
        if (open == 0) return;
        --open;
      } else if (open == 0 && nlSkip_ == 0 && at(Tok::Newline)) {
        return;
      }
      advance();
    }
  }
  /// Skips to the end of the current line or block at this nesting.
  void skipToStatementEnd() {
    while (!at(Tok::Eof) && !at(Tok::RBrace)) {
      if (nlSkip_ == 0 && at(Tok::Newline)) return;
      if (nlSkip_ == 0 && atSyncPoint() && newlineBefore()) return;
      advance();
    }
  }

  // --- Types, statements, declarations ---------------------------------------
  TypeExpr parseType();
  StmtPtr parseStatement();
  std::vector<StmtPtr> parseBlock(SourceRange &range);
  void parseIf(Stmt &s);
  std::unique_ptr<Decl> parseDecl(std::string doc, SourceRange docRange);
  Decorator parseDecorator();
};

ExprPtr Parser::parseExpr() { return parseBinary(0); }

// C's order: || below && below comparisons below + - below * / %.
static int precedence(Tok k) {
  switch (k) {
  case Tok::OrOr: return 1;
  case Tok::AndAnd: return 2;
  case Tok::EqEq: case Tok::NotEq: return 3;
  case Tok::LAngle: case Tok::RAngle: case Tok::LessEq: case Tok::GreaterEq: return 4;
  case Tok::Plus: case Tok::Minus: return 5;
  case Tok::Star: case Tok::Slash: case Tok::Percent: return 6;
  default: return -1;
  }
}

static BinOp binOpOf(Tok k) {
  switch (k) {
  case Tok::Plus: return BinOp::Add;
  case Tok::Minus: return BinOp::Sub;
  case Tok::Star: return BinOp::Mul;
  case Tok::Slash: return BinOp::Div;
  case Tok::LAngle: return BinOp::Lt;
  case Tok::LessEq: return BinOp::Le;
  case Tok::RAngle: return BinOp::Gt;
  case Tok::GreaterEq: return BinOp::Ge;
  case Tok::EqEq: return BinOp::Eq;
  case Tok::NotEq: return BinOp::Ne;
  case Tok::AndAnd: return BinOp::And;
  case Tok::OrOr: return BinOp::Or;
  default: return BinOp::Rem;
  }
}

ExprPtr Parser::parseBinary(int minPrec) {
  ExprPtr lhs = parseUnary();
  while (true) {
    Tok k = kind();
    int prec = precedence(k);
    if (prec < 0 || prec < minPrec) return lhs;
    // Outside delimiters a newline ends the expression.
    if (nlSkip_ == 0 && newlineBefore()) return lhs;
    advance();
    ExprPtr rhs = parseBinary(prec + 1);
    auto e = makeExpr(ExprKind::Binary, SourceRange::join(lhs->range, rhs->range));
    e->binOp = binOpOf(k);
    e->operands.push_back(std::move(lhs));
    e->operands.push_back(std::move(rhs));
    lhs = std::move(e);
  }
}

ExprPtr Parser::parseUnary() {
  if (!enter()) {
    SourceRange r = peek().range;
    skipTooDeep();
    return makeExpr(ExprKind::Error, r);
  }
  ExprPtr result;
  if (at(Tok::Minus) || at(Tok::Plus) || at(Tok::Bang)) {
    const Token &op = advance();
    ExprPtr operand = parseUnary();
    // Fold `-literal` so that `-1.0e30` is one literal, as users read it.
    if (op.kind == Tok::Minus && (operand->kind == ExprKind::FloatLit || operand->kind == ExprKind::IntLit)) {
      operand->range = SourceRange::join(op.range, operand->range);
      operand->intValue = -operand->intValue;
      operand->floatValue = -operand->floatValue;
      operand->text = "-" + operand->text;
      result = std::move(operand);
    } else {
      result = makeExpr(ExprKind::Unary, SourceRange::join(op.range, operand->range));
      result->unOp = op.kind == Tok::Minus ? UnOp::Neg : op.kind == Tok::Bang ? UnOp::Not : UnOp::Plus;
      result->operands.push_back(std::move(operand));
    }
  } else {
    result = parsePostfix(parsePrimary());
  }
  --depth_;
  return result;
}

ExprPtr Parser::parsePrimary() {
  const Token &t = peek();
  switch (t.kind) {
  case Tok::IntLit: {
    advance();
    auto e = makeExpr(ExprKind::IntLit, t.range);
    e->intValue = std::strtoll(std::string(t.text).c_str(), nullptr, 10);
    e->floatValue = static_cast<double>(e->intValue);
    e->text = std::string(t.text);
    return e;
  }
  case Tok::FloatLit: {
    advance();
    auto e = makeExpr(ExprKind::FloatLit, t.range);
    e->floatValue = std::strtod(std::string(t.text).c_str(), nullptr);
    e->text = std::string(t.text);
    return e;
  }
  case Tok::Ident: {
    advance();
    auto e = makeExpr(ExprKind::Name, t.range);
    e->name = Ident{std::string(t.text), t.range};
    return e;
  }
  case Tok::LParen: {
    const Token &open = advance();
    ++nlSkip_;
    ExprPtr inner = parseExpr();
    if (!accept(Tok::RParen)) unclosed(open, Tok::RParen);
    --nlSkip_;
    inner->range = SourceRange::join(open.range, prevRange());
    return inner;
  }
  default: {
    if (t.kind != Tok::Error) diags_.report(DiagKind::ExpectedExpression, t.range, {describe(t)});
    // Consume the offending token unless it can start or end something else.
    if (!atSyncPoint() && !at(Tok::Newline) && !at(Tok::RParen) && !at(Tok::RBracket) && !at(Tok::Comma))
      advance();
    return makeExpr(ExprKind::Error, t.range);
  }
  }
}

SliceItem Parser::parseSliceItem() {
  SliceItem item;
  SourceRange begin = peek().range;
  if (at(Tok::Colon)) {
    item.kind = SliceItem::Kind::Full;
    item.range = advance().range;
    return item;
  }
  item.start = parseExpr();
  if (accept(Tok::ColonPlus)) {
    item.kind = SliceItem::Kind::Range;
    item.len = parseExpr();
    item.range = SourceRange::join(begin, item.len->range);
  } else {
    item.kind = SliceItem::Kind::Index;
    item.range = item.start->range;
  }
  return item;
}

ExprPtr Parser::parsePostfix(ExprPtr base) {
  while (true) {
    // Outside delimiters, `(` or `[` on the next line starts something new.
    if (nlSkip_ == 0 && newlineBefore()) return base;
    if (at(Tok::LParen)) {
      auto call = makeExpr(ExprKind::Call, base->range);
      if (base->kind == ExprKind::Name) {
        call->name = base->name;
      } else {
        call->name = Ident{"", base->range};
        call->operands.push_back(std::move(base)); // a call of something that is not a name; the checker reports it
      }
      call->operands.reserve(call->operands.size() + 4);
      call->bracketRange = parseList(Tok::LParen, Tok::RParen, [&] { call->operands.push_back(parseExpr()); });
      call->range = SourceRange::join(call->range, call->bracketRange);
      base = std::move(call);
      continue;
    }
    if (at(Tok::LBracket)) {
      auto idx = makeExpr(ExprKind::Index, base->range);
      idx->operands.push_back(std::move(base));
      idx->slices.reserve(4); // tensors have up to four dims: one allocation, not three
      idx->bracketRange = parseList(Tok::LBracket, Tok::RBracket, [&] { idx->slices.push_back(parseSliceItem()); });
      idx->range = SourceRange::join(idx->range, idx->bracketRange);
      base = std::move(idx);
      continue;
    }
    if (at(Tok::Dot)) {
      advance();
      auto m = makeExpr(ExprKind::Member, base->range);
      m->name = parseIdent("a member name");
      m->range = SourceRange::join(base->range, m->name.valid() ? m->name.range : prevRange());
      m->operands.push_back(std::move(base));
      base = std::move(m);
      continue;
    }
    return base;
  }
}

TypeExpr Parser::parseType() {
  TypeExpr ty;
  SourceRange begin = peek().range;
  if (at(Tok::KwTensor) || at(Tok::KwTile)) {
    ty.kind = at(Tok::KwTensor) ? TypeExpr::Kind::Tensor : TypeExpr::Kind::Tile;
    advance();
    if (at(Tok::LAngle)) {
      const Token &open = advance();
      ty.elem = parseIdent("an element type (`f16`, `bf16`, `f32`, `i32`, `f8e4m3`, `f8e5m2`)");
      if (!accept(Tok::RAngle)) unclosed(open, Tok::RAngle);
    } else {
      expected("`<`");
    }
    if (at(Tok::LBracket)) {
      ty.dims.reserve(4);
      parseList(Tok::LBracket, Tok::RBracket, [&] { ty.dims.push_back(parseExpr()); });
    } else {
      expected("`[` and the shape");
    }
  } else if (at(Tok::Ident)) {
    ty.kind = TypeExpr::Kind::Scalar;
    ty.elem = parseIdent("a type");
  } else {
    expected("a type");
    ty.kind = TypeExpr::Kind::Error;
  }
  ty.range = SourceRange::join(begin, prevRange());
  if (ty.range.end < ty.range.begin) ty.range = begin;
  return ty;
}

/// `if c { } else if d { } else { }`: the condition is an expression up to the
/// block's `{` (no expression form takes a brace); `else if` nests an If.
void Parser::parseIf(Stmt &s) {
  advance();
  s.kind = StmtKind::If;
  s.value = parseExpr();
  s.body = parseBlock(s.bodyRange);
  // `else` may start the next line (`}` newline `else {`).
  size_t save = pos_;
  while (pos_ + 1 < toks_.size() && (toks_[pos_].kind == Tok::Newline || toks_[pos_].kind == Tok::DocComment)) ++pos_;
  if (!at(Tok::KwElse)) {
    pos_ = save;
    return;
  }
  advance();
  s.hasElse = true;
  if (at(Tok::KwIf)) {
    auto inner = std::make_unique<Stmt>();
    SourceRange ib = peek().range;
    parseIf(*inner);
    inner->range = SourceRange::join(ib, prevRange());
    s.elseRange = inner->range;
    s.elseBody.push_back(std::move(inner));
  } else {
    s.elseBody = parseBlock(s.elseRange);
  }
}

std::vector<StmtPtr> Parser::parseBlock(SourceRange &range) {
  std::vector<StmtPtr> body;
  if (!at(Tok::LBrace)) {
    expected("`{`");
    range = peek().range;
    return body;
  }
  const Token &open = advance();
  range = open.range;
  bool blockFits = blockDepth_ < kMaxBlockNesting;
  if (!blockFits && !blockDepthReported_) {
    diags_.report(DiagKind::BlocksTooDeep, open.range, {std::to_string(kMaxBlockNesting)});
    blockDepthReported_ = true;
  }
  if (!blockFits || !enter()) {
    // Too deep: skip the block's tokens by counting braces (no recursion).
    unsigned level = 1;
    while (!at(Tok::Eof) && level > 0) {
      Tok k = advance().kind;
      if (k == Tok::LBrace) ++level;
      if (k == Tok::RBrace) --level;
    }
    range = SourceRange::join(range, prevRange());
    return body;
  }
  ++blockDepth_;
  unsigned savedSkip = nlSkip_;
  nlSkip_ = 0;
  while (true) {
    while (accept(Tok::Newline) || accept(Tok::Semi)) {
    }
    if (at(Tok::RBrace)) {
      range = SourceRange::join(range, advance().range);
      break;
    }
    if (at(Tok::Eof) || at(Tok::KwFn) || at(Tok::KwKernel) || (at(Tok::At) && newlineBefore())) {
      unclosed(open, Tok::RBrace);
      range = SourceRange::join(range, prevRange());
      break;
    }
    size_t before = pos_;
    StmtPtr s = parseStatement();
    if (s) body.push_back(std::move(s));
    // A statement ends at a newline, `;` or `}`.
    if (!at(Tok::Newline) && !at(Tok::Semi) && !at(Tok::RBrace) && !at(Tok::Eof)) {
      // After an unclosed delimiter the next statement may already be here.
      if (pos_ != before && newlineBefore()) continue;
      if (pos_ != before) expected("end of line");
      skipToStatementEnd();
      if (pos_ == before) advance();
    }
  }
  nlSkip_ = savedSkip;
  --depth_;
  --blockDepth_;
  return body;
}

StmtPtr Parser::parseStatement() {
  auto s = std::make_unique<Stmt>();
  SourceRange begin = peek().range;
  if (at(Tok::KwLet) || at(Tok::KwVar)) {
    s->kind = StmtKind::Let;
    s->isVar = advance().kind == Tok::KwVar;
    s->name = parseIdent("a variable name");
    if (accept(Tok::Colon)) s->type = parseType();
    if (accept(Tok::Assign)) s->value = parseExpr();
    else if (!s->type) expected("`=` or `:` and a type");
  } else if (at(Tok::KwFor)) {
    advance();
    s->kind = StmtKind::For;
    s->name = parseIdent("a loop variable");
    if (!accept(Tok::KwIn)) expected("`in`");
    s->value = parseExpr();
    s->body = parseBlock(s->bodyRange);
  } else if (at(Tok::KwIf)) {
    parseIf(*s);
  } else if (at(Tok::LBrace)) {
    s->kind = StmtKind::Block;
    s->body = parseBlock(s->bodyRange);
  } else if (at(Tok::Ident) || at(Tok::IntLit) || at(Tok::FloatLit) || at(Tok::LParen) || at(Tok::Minus) ||
             at(Tok::Bang)) {
    ExprPtr e = parseExpr();
    Tok k = kind();
    if (k == Tok::Assign || k == Tok::PlusAssign || k == Tok::MinusAssign || k == Tok::StarAssign ||
        k == Tok::SlashAssign) {
      s->kind = StmtKind::Assign;
      s->opRange = advance().range;
      s->assignOp = k == Tok::Assign ? AssignOp::Set : k == Tok::PlusAssign ? AssignOp::Add
                    : k == Tok::MinusAssign ? AssignOp::Sub : k == Tok::StarAssign ? AssignOp::Mul : AssignOp::Div;
      s->target = std::move(e);
      s->value = parseExpr();
    } else {
      s->kind = StmtKind::ExprStmt;
      s->value = std::move(e);
    }
  } else {
    diags_.report(DiagKind::ExpectedStatement, peek().range, {describe(peek())});
    s->kind = StmtKind::Error;
    skipToStatementEnd();
  }
  s->range = SourceRange::join(begin, prevRange());
  if (s->range.end < s->range.begin) s->range = begin;
  return s;
}

Decorator Parser::parseDecorator() {
  Decorator d;
  const Token &at_ = advance(); // `@`
  d.name = parseIdent("a decorator name");
  if (at(Tok::LParen) && !newlineBefore()) {
    d.hasParens = true;
    parseList(Tok::LParen, Tok::RParen, [&] {
      DecoratorArg arg;
      SourceRange b = peek().range;
      if (at(Tok::Ident)) {
        // Look ahead: `NAME in [...]`, `NAME = e` or `where e` (`where` followed by
        // anything that can start an expression, `(` included: a call of the builtin
        // `where` is no decorator argument).
        size_t save = pos_;
        Ident name{std::string(peek().text), peek().range};
        advance();
        if (name.name == "where" && !at(Tok::KwIn) && !at(Tok::Assign) && !at(Tok::Comma) && !at(Tok::RParen) &&
            !at(Tok::Eof)) {
          arg.kind = DecoratorArg::Kind::Where;
          arg.name = name;
          arg.values.push_back(parseExpr());
        } else if (accept(Tok::KwIn)) {
          arg.kind = DecoratorArg::Kind::In;
          arg.name = name;
          if (at(Tok::LBracket)) parseList(Tok::LBracket, Tok::RBracket, [&] { arg.values.push_back(parseExpr()); });
          else expected("`[` and a list of values");
        } else if (accept(Tok::Assign)) {
          arg.kind = DecoratorArg::Kind::Eq;
          arg.name = name;
          arg.values.push_back(parseExpr());
        } else {
          pos_ = save;
          arg.values.push_back(parseExpr());
        }
      } else {
        arg.values.push_back(parseExpr());
      }
      arg.range = SourceRange::join(b, prevRange());
      d.args.push_back(std::move(arg));
    });
  }
  d.range = SourceRange::join(at_.range, prevRange());
  return d;
}

std::unique_ptr<Decl> Parser::parseDecl(std::string doc, SourceRange docRange) {
  auto decl = std::make_unique<Decl>();
  decl->doc = std::move(doc);
  decl->docRange = docRange;
  SourceRange begin = peek().range;
  while (at(Tok::At)) {
    decl->decorators.push_back(parseDecorator());
    if (!at(Tok::Newline) && !at(Tok::At) && !at(Tok::KwKernel) && !at(Tok::KwFn)) {
      expected("end of line after the decorator");
      while (!at(Tok::Newline) && !at(Tok::Eof) && !at(Tok::KwKernel) && !at(Tok::KwFn)) advance();
    }
    while (accept(Tok::Newline) || at(Tok::DocComment)) {
    }
  }
  if (!at(Tok::KwKernel) && !at(Tok::KwFn)) {
    expected("`kernel` or `fn` after the decorators");
    decl->range = SourceRange::join(begin, prevRange());
    decl->name = Ident{"", peek().range};
    return decl;
  }
  decl->isKernel = at(Tok::KwKernel);
  decl->keywordRange = advance().range;
  decl->name = parseIdent(decl->isKernel ? "the kernel's name" : "the function's name");
  if (at(Tok::LParen)) {
    parseList(Tok::LParen, Tok::RParen, [&] {
      Param p;
      SourceRange b = peek().range;
      p.name = parseIdent("a parameter name");
      if (!p.name.valid()) {
        if (!at(Tok::Comma) && !at(Tok::RParen)) advance();
        return;
      }
      if (accept(Tok::Colon)) p.type = parseType();
      p.range = SourceRange::join(b, prevRange());
      decl->params.push_back(std::move(p));
    });
  } else {
    expected("`(` and the parameters");
  }
  decl->body = parseBlock(decl->bodyRange);
  decl->range = SourceRange::join(begin, prevRange());
  return decl;
}

std::unique_ptr<Module> Parser::parseModule() {
  auto m = std::make_unique<Module>();
  m->file = file_;
  std::string doc;
  SourceRange docRange{file_, 0, 0};
  keepDocs_ = true;
  while (!at(Tok::Eof) && pos_ < limit_) {
    // Doc comments are trivia inside bodies but documentation here.
    const Token &t = toks_[pos_];
    if (t.kind == Tok::DocComment) {
      std::string_view line = t.text.substr(3);
      if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
      if (doc.empty()) docRange = t.range;
      else docRange = SourceRange::join(docRange, t.range);
      doc += std::string(line) + "\n";
      ++pos_;
      continue;
    }
    if (t.kind == Tok::Newline) {
      // A blank line between `///` and the declaration detaches the comment.
      if (pos_ > 0 && toks_[pos_ - 1].kind == Tok::Newline) doc.clear();
      ++pos_;
      continue;
    }
    if (at(Tok::At) || at(Tok::KwKernel) || at(Tok::KwFn)) {
      size_t before = pos_;
      keepDocs_ = false;
      m->decls.push_back(parseDecl(std::move(doc), docRange));
      keepDocs_ = true;
      doc.clear();
      if (pos_ == before) advance();
      continue;
    }
    diags_.report(DiagKind::ExpectedDeclaration, peek().range, {describe(peek())});
    // Skip to the next line that can start a declaration.
    advance();
    while (!at(Tok::Eof) && !((at(Tok::At) || at(Tok::KwKernel) || at(Tok::KwFn)) && newlineBefore())) advance();
    doc.clear();
  }
  m->exprCount = nextExprId_;
  return m;
}

} // namespace

std::unique_ptr<ast::Module> parse(const std::vector<Token> &tokens, FileId file, DiagnosticSink &diags) {
  Parser p(tokens, file, diags);
  return p.parseModule();
}

std::unique_ptr<ast::Module> parseItem(const std::vector<Token> &tokens, FileId file, DiagnosticSink &diags,
                                       size_t limit, size_t *end) {
  Parser p(tokens, file, diags);
  p.limit_ = limit;
  auto m = p.parseModule();
  if (end) *end = p.position();
  return m;
}

} // namespace ph
