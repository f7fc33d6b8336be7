//===- KernelIR.cpp - Printing specialised kernels --------------------------===//
#include "ph/KernelIR.h"

#include <sstream>

namespace ph::kir {

const char *opName(Op op) {
  switch (op) {
  case Op::None: return "none";
  case Op::Neg: return "neg";
  case Op::Exp: return "exp";
  case Op::Exp2: return "exp2";
  case Op::Log: return "log";
  case Op::Sqrt: return "sqrt";
  case Op::Rsqrt: return "rsqrt";
  case Op::Abs: return "abs";
  case Op::Add: return "add";
  case Op::Sub: return "sub";
  case Op::Mul: return "mul";
  case Op::Div: return "div";
  case Op::Rem: return "rem";
  case Op::Max: return "max";
  case Op::Min: return "min";
  case Op::Sum: return "sum";
  case Op::Log2: return "log2";
  case Op::Tanh: return "tanh";
  case Op::Sigmoid: return "sigmoid";
  case Op::Erf: return "erf";
  case Op::Sin: return "sin";
  case Op::Cos: return "cos";
  case Op::Floor: return "floor";
  case Op::Lt: return "lt";
  case Op::Le: return "le";
  case Op::Gt: return "gt";
  case Op::Ge: return "ge";
  case Op::Eq: return "eq";
  case Op::Ne: return "ne";
  case Op::And: return "and";
  case Op::Or: return "or";
  case Op::Not: return "not";
  }
  return "?";
}

std::string Kernel::configName() const {
  std::string s;
  for (auto &[n, v] : config) s += (s.empty() ? "" : ",") + n + "=" + std::to_string(v);
  return s;
}

namespace {

std::string typeText(const KType &t) {
  std::string s = elemName(t.elem);
  if (t.shape.empty()) return s;
  s += "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? "," : "") + std::to_string(t.shape[i]);
  return s + "]";
}

struct Printer {
  const Kernel &k;
  std::ostringstream os;

  std::string expr(const ExprPtr &e) {
    if (!e) return "<null>";
    switch (e->kind) {
    case ExprKind::IntConst: return std::to_string(e->ival);
    case ExprKind::FloatConst: {
      std::ostringstream f;
      f << e->fval << ":" << elemName(e->type.elem);
      return f.str();
    }
    case ExprKind::ScalarArg: return "%" + k.scalars[e->index].name;
    case ExprKind::SizeArg: return "%" + k.sizes[e->index].name;
    case ExprKind::BlockId: return std::string("block.") + "xyz"[e->index];
    case ExprKind::VarRead: return "$" + std::to_string(e->index) + "." + k.vars[e->index].name;
    case ExprKind::TileSlice: return "$" + std::to_string(e->index) + slices(e->slices);
    case ExprKind::TensorLoad: return "load " + k.tensors[e->index].name + slices(e->slices) + " : " + typeText(e->type);
    case ExprKind::Splat: return "splat(" + expr(e->operands[0]) + ") : " + typeText(e->type);
    case ExprKind::Convert: return "convert(" + expr(e->operands[0]) + ") : " + typeText(e->type);
    case ExprKind::Unary: return std::string(opName(e->op)) + "(" + expr(e->operands[0]) + ")";
    case ExprKind::Binary:
      return std::string(opName(e->op)) + "(" + expr(e->operands[0]) + ", " + expr(e->operands[1]) + ") : " +
             typeText(e->type);
    case ExprKind::Dot:
      return std::string(e->transB ? "dot_t(" : "dot(") + expr(e->operands[0]) + ", " + expr(e->operands[1]) +
             ") : " + typeText(e->type);
    case ExprKind::RowReduce: return std::string("row") + opName(e->op) + "(" + expr(e->operands[0]) + ")";
    case ExprKind::ColReduce: return std::string("col") + opName(e->op) + "(" + expr(e->operands[0]) + ")";
    case ExprKind::MaskCols:
      return "mask_cols(" + expr(e->operands[0]) + ", " + expr(e->operands[1]) + ", " + expr(e->operands[2]) + ")";
    case ExprKind::CausalMask:
      return "causal_mask(" + expr(e->operands[0]) + ", " + expr(e->operands[1]) + ", " + expr(e->operands[2]) + ")";
    case ExprKind::Compare:
      return std::string(opName(e->op)) + "(" + expr(e->operands[0]) + ", " + expr(e->operands[1]) + ") : " +
             typeText(e->type);
    case ExprKind::Select:
      return "select(" + expr(e->operands[0]) + ", " + expr(e->operands[1]) + ", " + expr(e->operands[2]) + ") : " +
             typeText(e->type);
    case ExprKind::IndexTile: return std::string(e->index ? "col_ids" : "row_ids") + " : " + typeText(e->type);
    }
    return "?";
  }
  std::string slices(const std::vector<Slice> &sl) {
    std::string s = "[";
    for (size_t i = 0; i < sl.size(); ++i) {
      if (i) s += ", ";
      switch (sl[i].kind) {
      case Slice::Kind::Full: s += ":"; break;
      case Slice::Kind::Range: s += expr(sl[i].start) + " :+ " + std::to_string(sl[i].len); break;
      case Slice::Kind::Index: s += expr(sl[i].start); break;
      }
      if (sl[i].masked && sl[i].kind != Slice::Kind::Full) s += " masked";
    }
    return s + "]";
  }
  void stmts(const std::vector<StmtPtr> &body, int indent) {
    for (auto &s : body) {
      os << std::string(indent, ' ');
      switch (s->kind) {
      case StmtKind::Decl:
        os << (k.vars[s->var].isLet ? "let $" : "var $") << s->var << "." << k.vars[s->var].name << ": "
           << typeText(k.vars[s->var].type) << " = " << expr(s->value) << "\n";
        break;
      case StmtKind::Assign: os << "$" << s->var << " = " << expr(s->value) << "\n"; break;
      case StmtKind::AssignSlice: os << "$" << s->var << slices(s->slices) << " = " << expr(s->value) << "\n"; break;
      case StmtKind::Store: os << "store " << k.tensors[s->tensor].name << slices(s->slices) << " = " << expr(s->value) << "\n"; break;
      case StmtKind::For:
        os << "for $" << s->var << " in range(" << expr(s->lo) << ", " << expr(s->hi) << ", " << expr(s->step)
           << ") {\n";
        stmts(s->body, indent + 2);
        os << std::string(indent, ' ') << "}\n";
        break;
      case StmtKind::If:
        os << "if " << expr(s->value) << " {\n";
        stmts(s->body, indent + 2);
        os << std::string(indent, ' ') << "}";
        if (!s->elseBody.empty()) {
          os << " else {\n";
          stmts(s->elseBody, indent + 2);
          os << std::string(indent, ' ') << "}";
        }
        os << "\n";
        break;
      }
    }
  }
};

} // namespace

std::string print(const Kernel &k) {
  Printer p{k, {}};
  p.os << "kernel " << k.name;
  if (!k.config.empty()) p.os << " [" << k.configName() << "]";
  p.os << " threads=" << k.threads << (k.tensorcore ? " tensorcore" : "") << "\n";
  for (auto &t : k.tensors) {
    p.os << "  tensor " << t.name << ": " << elemName(t.elem) << "[";
    for (size_t i = 0; i < t.dims.size(); ++i)
      p.os << (i ? ", " : "") << (t.dims[i].value >= 0 ? std::to_string(t.dims[i].value) : t.dims[i].sym);
    p.os << "]\n";
  }
  for (auto &s : k.scalars) p.os << "  scalar " << s.name << ": " << elemName(s.elem) << "\n";
  for (auto &s : k.sizes) p.os << "  size " << s.name << (s.alignedTo > 1 ? " aligned " + std::to_string(s.alignedTo) : "") << "\n";
  p.os << "  grid (" << k.gridText[0] << ", " << k.gridText[1] << ", " << k.gridText[2] << ")\n";
  p.stmts(k.body, 2);
  return p.os.str();
}

} // namespace ph::kir
