//===- Autotune.cpp - The configurations an `@autotune` space keeps --------===//
#include "ph/Autotune.h"
#include "ph/Limits.h"

namespace ph::autotune {

using namespace ast;

std::optional<int64_t> evaluate(const Expr &e, const Config &c) {
  switch (e.kind) {
  case ExprKind::IntLit: return e.intValue;
  case ExprKind::Name:
    for (auto &[n, v] : c)
      if (n == e.name.name) return v;
    return std::nullopt;
  case ExprKind::Unary: {
    if (e.operands.empty() || !e.operands[0]) return std::nullopt;
    auto v = evaluate(*e.operands[0], c);
    if (!v) return std::nullopt;
    switch (e.unOp) {
    case UnOp::Neg: return *v == INT64_MIN ? std::nullopt : std::optional<int64_t>(-*v);
    case UnOp::Plus: return v;
    case UnOp::Not: return *v == 0 ? 1 : 0;
    }
    return std::nullopt;
  }
  case ExprKind::Binary: {
    if (e.operands.size() != 2 || !e.operands[0] || !e.operands[1]) return std::nullopt;
    auto a = evaluate(*e.operands[0], c);
    if (!a) return std::nullopt;
    // `&&` and `||` short-circuit, so `BC != 0 && D / BC == 2` never divides by zero.
    if (e.binOp == BinOp::And && *a == 0) return 0;
    if (e.binOp == BinOp::Or && *a != 0) return 1;
    auto b = evaluate(*e.operands[1], c);
    if (!b) return std::nullopt;
    int64_t r = 0;
    switch (e.binOp) {
    case BinOp::Add: if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt; return r;
    case BinOp::Sub: if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt; return r;
    case BinOp::Mul: if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt; return r;
    case BinOp::Div:
      if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
      return *a / *b;
    case BinOp::Rem:
      if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
      return *a % *b;
    case BinOp::Lt: return *a < *b;
    case BinOp::Le: return *a <= *b;
    case BinOp::Gt: return *a > *b;
    case BinOp::Ge: return *a >= *b;
    case BinOp::Eq: return *a == *b;
    case BinOp::Ne: return *a != *b;
    case BinOp::And:
    case BinOp::Or: return *b != 0;
    }
    return std::nullopt;
  }
  default: return std::nullopt;
  }
}

std::vector<Config> enumerate(const std::vector<Param> &params, const std::vector<const Expr *> &where,
                              const Config &filter, size_t limit) {
  std::vector<Config> out;
  if (limit == 0) return out;
  // Each list filtered first: `--config` (and the editor's first-configuration check)
  // keeps one value of many, and building the product to drop it costs.
  std::vector<std::vector<int64_t>> allowed(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    for (int64_t v : params[i].values) {
      bool ok = true;
      for (auto &[fn, fv] : filter)
        if (fn == params[i].name && fv != v) ok = false;
      if (ok) allowed[i].push_back(v);
    }
    if (allowed[i].empty()) return out;
  }
  // An odometer over the lists, the last one fastest.
  std::vector<size_t> at(params.size(), 0);
  Config c;
  c.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) c.emplace_back(params[i].name, allowed[i][0]);
  while (true) {
    bool keep = true;
    for (const Expr *w : where) {
      auto v = w ? evaluate(*w, c) : std::nullopt;
      if (!v || *v == 0) {
        keep = false;
        break;
      }
    }
    if (keep) {
      out.push_back(c);
      if (out.size() >= limit) return out;
    }
    size_t i = params.size();
    while (i > 0) {
      --i;
      if (++at[i] < allowed[i].size()) {
        c[i].second = allowed[i][at[i]];
        break;
      }
      at[i] = 0;
      c[i].second = allowed[i][0];
      if (i == 0) return out;
    }
    if (params.empty()) return out;
  }
}

Count count(const std::vector<Param> &params, const std::vector<const Expr *> &where) {
  Count c;
  std::vector<size_t> lens;
  for (auto &p : params) lens.push_back(p.values.size());
  c.product = c.count = limits::configCount(lens);
  if (where.empty() || c.product > limits::kMaxAutotuneProduct) return c;
  c.enumerated = true;
  c.kept = enumerate(params, where, {}, limits::kMaxAutotuneConfigs + 1);
  c.count = c.kept.size();
  return c;
}

Space spaceOf(const Decorator &autotune) {
  Space s;
  for (auto &a : autotune.args) {
    if (a.kind == DecoratorArg::Kind::Where) {
      if (!a.values.empty() && a.values[0]) s.where.push_back(a.values[0].get());
      continue;
    }
    if (a.kind != DecoratorArg::Kind::In || a.values.empty()) {
      s.ok = false;
      continue;
    }
    bool dup = false;
    for (auto &p : s.params) dup = dup || p.name == a.name.name;
    if (dup) continue;
    Param p{a.name.name, {}};
    for (auto &v : a.values) {
      if (!v || v->kind != ExprKind::IntLit || v->intValue <= 0) {
        s.ok = false;
        p.values.clear();
        break;
      }
      p.values.push_back(v->intValue);
    }
    if (!p.values.empty()) s.params.push_back(std::move(p));
  }
  return s;
}

} // namespace ph::autotune
