//===- Grid.cpp - The grid: `@grid`, its facts, inference from slices -------===//
//
// `@grid(...)` when given, read before the body: its extents bound ctx.block there
// (gridInside for Slices.cpp's maskNeeded; the block counted from the end, mirrorBlock;
// blocks within a size, blockWithinSize). Else each axis is inferred from the slices that
// use `ctx.block` (E0406 when none does, E0407 when two disagree).
//
//===----------------------------------------------------------------------===//
#include "Elaborator.h"

namespace ph::check::elab {

void Elaborator::explicitGrid() {
  const KernelDecorators &kd = st_.decorators[&decl_];
  // `0`, or `BR - 16` = 0 where the text is not the value (an `@autotune` constant).
  auto shown = [&](const Expr &x, int64_t v) {
    std::string t = text(x.range), n = std::to_string(v);
    return "`" + t + "`" + (t == n ? "" : " = " + n);
  };
  for (size_t a = 0; a < 3; ++a) {
    kir::GridAxis g;
    k_->gridText[a] = "1";
    if (a < kd.grid->args.size() && kd.grid->args[a].kind == DecoratorArg::Kind::Expr) {
      const Expr &e = *kd.grid->args[a].values[0];
      const Expr *num = &e;
      int64_t div = 1;
      if (e.kind == ExprKind::Binary && e.binOp == BinOp::Div) {
        auto d = constInt(*e.operands[1], "the divisor in `@grid`");
        if (!d) continue;
        // A divisor below 1 would make the axis 1 (the launch's old fallback): refuse it, and
        // leave the axis unknown (gridKnown_ false) so that no fact reads it.
        if (*d <= 0) {
          report(DiagKind::DecoratorArgs, e.range,
                 {"grid", "the divisor of an axis `N / B` is a positive integer, found " + shown(*e.operands[1], *d)});
          continue;
        }
        div = *d;
        num = e.operands[0].get();
      }
      Val v = intExpr(*num, "an axis of `@grid`");
      if (v.isError()) continue;
      if (v.ints.c) {
        // A constant extent below 1 launches no block along the axis: nothing would run.
        if (*v.ints.c < 1) {
          report(DiagKind::DecoratorArgs, e.range, {"grid", "an axis is at least 1, found " + shown(e, *v.ints.c)});
          continue;
        }
        g.constant = (*v.ints.c + div - 1) / div;
      } else if (v.ints.extentSize >= 0) {
        g.fromSize = true;
        g.size = v.ints.extentSize;
        g.divisor = div;
      } else {
        report(DiagKind::DecoratorArgs, e.range, {"grid", "an axis is an integer, a size, or `N / B`"});
        continue;
      }
      k_->gridText[a] = text(e.range);
    }
    k_->grid[a] = g;
    gridKnown_[a] = true;
  }
}

bool Elaborator::gridInside(int axis, const kir::TensorDim &dim, int64_t len) const {
  if (axis < 0 || axis > 2 || !gridKnown_[axis]) return false;
  const kir::GridAxis &g = k_->grid[axis];
  // The last block ends at extent * len: a constant extent against a static dimension.
  if (!g.fromSize) return dim.value >= 0 && g.constant * len <= dim.value;
  // ceil(N / q) blocks of len over the dimension N: with q a multiple of len, the last ends at
  // ceil(N / q) * len <= ceil(N / len) * len, which is N when len divides N (its alignment).
  // `@grid(N / BR)` over `ctx.block.x * BR :+ BR` and `@grid(H)` over the index `ctx.block.y`.
  return dim.value < 0 && g.size == dim.size && g.divisor % len == 0 &&
         k_->sizes[dim.size].alignedTo % len == 0;
}

void Elaborator::mirrorBlock(const IntFacts &a, const IntFacts &b, IntFacts &r) const {
  // a = ceil(N / q) + p (a size is ceil(N / 1) + 0, `N + p` the same plus p), b = block + o.
  int size = a.ceilSize;
  int64_t by = a.ceilBy, plus = a.ceilPlus;
  if (size < 0) {
    size = a.extentSize >= 0 ? a.extentSize : a.sumSize;
    by = 1;
    plus = a.extentSize >= 0 ? 0 : a.sumPlus;
  }
  if (size < 0 || b.axis < 0 || b.mirror || b.coef != 1 || !gridKnown_[b.axis]) return;
  const kir::GridAxis &g = k_->grid[b.axis];
  if (!g.fromSize || g.size != static_cast<uint32_t>(size) || g.divisor != by) return;
  // a - b = (G - 1 - block) + (p + 1 - o) with G = ceil(N / q) the axis's extent.
  r.axis = b.axis;
  r.coef = 1;
  r.offset = plus + 1 - b.offset;
  r.mirror = true;
}

void Elaborator::blockWithinSize(IntFacts &f) const {
  // coef*B + offset with B in [0, G) and G = ceil(N / q), q a multiple of coef and coef dividing N:
  // G <= N / coef, so the value is in [offset, N - coef + offset], inside [0, N] when 0 <= offset
  // <= coef. gqa_prefill's loop end `row + BR` under `@aligned(N = BR)` (Slices.cpp, maskNeeded).
  if (f.axis < 0 || f.leSize >= 0 || f.coef <= 0 || f.offset < 0 || f.offset > f.coef || !gridKnown_[f.axis])
    return;
  const kir::GridAxis &g = k_->grid[f.axis];
  if (g.fromSize && g.divisor % f.coef == 0 && k_->sizes[g.size].alignedTo % f.coef == 0)
    f.leSize = static_cast<int>(g.size);
}

void Elaborator::inferGrid() {
  static const char *axisName[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    kir::GridAxis g;
    k_->gridText[a] = "1";
    auto &cands = gridCands_[a];
    if (!axisUsed_[a]) {
      k_->grid[a] = g;
      continue;
    }
    if (cands.empty()) {
      // After an error in this kernel, a slice that would have given the axis
      // may be the one that failed (`X[r :+ BR, :, 0]` of a rank-2 X): the
      // error is reported once, at its cause, and this one stays quiet.
      if (errors_ > 0) continue;
      report(DiagKind::GridInference, axisUse_[a],
             {std::string("ctx.block.") + axisName[a],
              "no tensor slice of the form `X[ctx.block." + std::string(axisName[a]) + " * S :+ S, ...]` uses it"});
      continue;
    }
    const GridCandidate &c0 = cands[0];
    bool conflict = false;
    for (auto &c : cands) {
      bool same = c.divisor == c0.divisor && c.size == c0.size && (c.size >= 0 || c.extent == c0.extent);
      if (!same) {
        auto span = [](const GridCandidate &g) {
          std::string n = g.size >= 0 ? g.sym : std::to_string(g.extent);
          return g.divisor == 1 ? n : "ceil(" + n + " / " + g.divSym + ")";
        };
        auto &d = report(DiagKind::GridConflict, c.where, {axisName[a], span(c), span(c0)});
        d.notes.push_back({c0.where, "first used here"});
        conflict = true;
        break;
      }
    }
    if (conflict) continue;
    if (c0.size >= 0) {
      g.fromSize = true;
      g.size = static_cast<uint32_t>(c0.size);
      g.divisor = c0.divisor;
      k_->gridText[a] = c0.divisor == 1 ? c0.sym : "ceil(" + c0.sym + " / " + c0.divSym + ")";
    } else {
      g.constant = (c0.extent + c0.divisor - 1) / c0.divisor;
      k_->gridText[a] = std::to_string(g.constant);
    }
    k_->grid[a] = g;
  }
}


} // namespace ph::check::elab
