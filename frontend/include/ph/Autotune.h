//===- Autotune.h - The configurations an `@autotune` space keeps -*- C++ -*-===//
//
// `@autotune(D in [64, 128], BC in [32, 64], where D * BC == 4096)` is the product
// of its lists, in the order they are written (the last list varies fastest),
// less the configurations a `where` condition rejects. Every consumer (the
// checker's per-configuration elaboration, the editor's first-configuration
// check, `ph build`, `ph bench`, the manifest) enumerates through enumerate().
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/AST.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ph::autotune {

/// One configuration: each autotune parameter with its value, in the order written.
using Config = std::vector<std::pair<std::string, int64_t>>;

struct Param {
  std::string name;
  std::vector<int64_t> values;
};

/// The value of a `where` condition (or a part of one) in `c`: booleans are 0 or 1.
/// Nothing when it cannot be computed: a name `c` lacks, a form a condition does not
/// take (a call, a float), a division by zero or an overflow of 64 bits.
std::optional<int64_t> evaluate(const ast::Expr &e, const Config &c);

/// The configurations of the product of `params` that agree with every entry of
/// `filter` (`--config BR=64`; a name of no parameter is ignored) and for which every
/// condition of `where` evaluates to a non-zero value, in order; at most `limit`.
std::vector<Config> enumerate(const std::vector<Param> &params, const std::vector<const ast::Expr *> &where,
                              const Config &filter = {}, size_t limit = SIZE_MAX);

/// How many configurations a space gives, as E0601 counts them: with `where` conditions and
/// a product of at most limits::kMaxAutotuneProduct, those the conditions keep (enumerated up
/// to limits::kMaxAutotuneConfigs + 1, in `kept`, so `count` past the limit means "too many"),
/// else the lists' product (`enumerated` false, `kept` empty).
struct Count {
  uint64_t product = 0; // saturating at UINT64_MAX
  uint64_t count = 0;
  bool enumerated = false;
  std::vector<Config> kept;
};
Count count(const std::vector<Param> &params, const std::vector<const ast::Expr *> &where);

/// The space of one `@autotune` decorator read from the syntax tree alone (for the
/// editor's summaries, before names are resolved): its well-formed `NAME in [...]`
/// lists (positive integer literals, first of a name) and its `where` conditions.
/// `ok` is false when a list is malformed.
struct Space {
  std::vector<Param> params;
  std::vector<const ast::Expr *> where;
  bool ok = true;
};
Space spaceOf(const ast::Decorator &autotune);

} // namespace ph::autotune
