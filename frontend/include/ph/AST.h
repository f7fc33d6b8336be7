//===- AST.h - The syntax tree of a Ph file ---------------------*- C++ -*-===//
//
// The parser never fails: what it cannot read becomes an Error node, so every
// later phase walks a structurally valid tree. Every node has a range.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Source.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ph::ast {

struct Ident {
  std::string name;
  SourceRange range;
  bool valid() const { return !name.empty(); }
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind { Error, IntLit, FloatLit, Name, Member, Unary, Binary, Call, Index };
enum class BinOp { Add, Sub, Mul, Div, Rem, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
enum class UnOp { Neg, Plus, Not };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// One item of a slice list: `:`, `start :+ len`, or an integer index.
struct SliceItem {
  enum class Kind { Full, Range, Index } kind = Kind::Full;
  ExprPtr start; // Range: the start; Index: the index
  ExprPtr len;   // Range only
  SourceRange range;
};

struct Expr {
  ExprKind kind = ExprKind::Error;
  SourceRange range;
  uint32_t id = 0; // unique within the module: keys the checker's per-expression facts

  // IntLit / FloatLit
  int64_t intValue = 0;
  double floatValue = 0;
  std::string text; // literal spelling
  // Name (name), Member (base.name), Call (callee name)
  Ident name;
  // Unary / Binary
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  // Unary: operands[0]; Binary: lhs, rhs; Member: base; Call: args; Index: base
  std::vector<ExprPtr> operands;
  // Index
  std::vector<SliceItem> slices;
  SourceRange bracketRange; // Index: `[ ... ]`; Call: `( ... )`
};

//===----------------------------------------------------------------------===//
// Types written in source
//===----------------------------------------------------------------------===//

struct TypeExpr {
  enum class Kind { Error, Scalar, Tensor, Tile } kind = Kind::Error;
  Ident elem;                // f16, bf16, f32, i32
  std::vector<ExprPtr> dims; // Tensor, Tile
  SourceRange range;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind { Error, Let, Assign, ExprStmt, For, Block, If };
enum class AssignOp { Set, Add, Sub, Mul, Div };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::Error;
  SourceRange range;

  // Let: `let`/`var` name (: type)? (= value)?
  bool isVar = false;
  Ident name;                      // Let, For (the induction variable)
  std::optional<TypeExpr> type;    // Let
  ExprPtr value;                   // Let init, Assign rhs, ExprStmt expr, For range call, If condition
  ExprPtr target;                  // Assign
  AssignOp assignOp = AssignOp::Set;
  SourceRange opRange;             // Assign: the operator
  std::vector<StmtPtr> body;       // For, Block, If (the `then` block)
  SourceRange bodyRange;           // For, Block, If: `{ ... }`
  // If: `else { ... }` (hasElse); `else if c { }` is an else block holding one If.
  bool hasElse = false;
  std::vector<StmtPtr> elseBody;
  SourceRange elseRange;           // the else block's `{ ... }` (or the inner If's range)
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// `@name(args)`; args are `NAME in [e, ...]`, `NAME = e`, `where e` or a plain expression.
struct DecoratorArg {
  enum class Kind { Expr, In, Eq, Where } kind = Kind::Expr;
  Ident name;                  // In, Eq: the name; Where: the word `where`
  std::vector<ExprPtr> values; // In: the list; Eq, Where and Expr: one value
  SourceRange range;
};

struct Decorator {
  Ident name;
  std::vector<DecoratorArg> args;
  bool hasParens = false;
  SourceRange range;
};

struct Param {
  Ident name;
  std::optional<TypeExpr> type;
  SourceRange range;
};

struct Decl {
  bool isKernel = false;
  Ident name;
  std::vector<Decorator> decorators;
  std::vector<Param> params;
  std::vector<StmtPtr> body;
  SourceRange bodyRange;
  SourceRange range;     // from the first decorator (or keyword) to the closing brace
  SourceRange keywordRange;
  std::string doc;       // the `///` lines above, without the slashes (Markdown)
  SourceRange docRange;
};

struct Module {
  FileId file = 0;
  std::vector<std::unique_ptr<Decl>> decls;
  uint32_t exprCount = 0; // ids 0..exprCount-1 are used by this module's expressions
};

} // namespace ph::ast
