//===- OffsetMap.cpp - Offsets of one text in another with the same tokens ===//
#include "OffsetMap.h"

#include "ph/Lexer.h"

#include <algorithm>

namespace ph::incremental {

std::optional<OffsetMap> OffsetMap::between(const std::string &before, const std::string &after) {
  SourceFile a("<before>", before), b("<after>", after);
  DiagnosticSink ignored;
  std::vector<Token> ta = lex(a, 0, ignored), tb = lex(b, 0, ignored);
  OffsetMap m;
  m.points_.reserve(2 * ta.size());
  auto pair = [&](const Token &x, const Token &y) {
    m.points_.push_back({x.range.begin, y.range.begin, y.range.begin, x.range.end - x.range.begin});
    m.points_.push_back({x.range.end, y.range.end, 0, 0});
  };
  size_t i = 0, j = 0;
  while (i < ta.size() && j < tb.size()) {
    size_t ra = 0, rb = 0;
    while (i + ra < ta.size() && ta[i + ra].kind == Tok::Newline) ++ra;
    while (j + rb < tb.size() && tb[j + rb].kind == Tok::Newline) ++rb;
    if ((ra == 0) != (rb == 0)) return std::nullopt; // a line break added or removed between two tokens
    for (size_t k = 0; k < std::min(ra, rb); ++k) pair(ta[i + k], tb[j + k]);
    i += ra, j += rb;
    if (i == ta.size() || j == tb.size()) break;
    if (ta[i].kind != tb[j].kind || ta[i].text != tb[j].text) return std::nullopt;
    pair(ta[i], tb[j]);
    ++i, ++j;
  }
  if (i != ta.size() || j != tb.size()) return std::nullopt;
  // One point per old offset: a boundary two tokens share (`f(`) maps only if they still do.
  std::stable_sort(m.points_.begin(), m.points_.end(), [](const Point &p, const Point &q) { return p.from < q.from; });
  std::vector<Point> merged;
  merged.reserve(m.points_.size());
  for (const Point &p : m.points_) {
    if (merged.empty() || merged.back().from != p.from) {
      merged.push_back(p);
      continue;
    }
    Point &q = merged.back();
    if (q.to != p.to) q.to = UINT32_MAX;
    if (p.length > q.length) q.length = p.length, q.tokenTo = p.tokenTo;
  }
  m.points_ = std::move(merged);
  return m;
}

bool OffsetMap::map(uint32_t &offset) const {
  auto it = std::upper_bound(points_.begin(), points_.end(), offset, [](uint32_t o, const Point &p) { return o < p.from; });
  if (it == points_.begin()) return false;
  const Point &p = *--it;
  if (p.from == offset) {
    if (p.to == UINT32_MAX) return false;
    offset = p.to;
    return true;
  }
  if (offset - p.from < p.length) {
    offset = p.tokenTo + (offset - p.from);
    return true;
  }
  return false;
}

} // namespace ph::incremental
