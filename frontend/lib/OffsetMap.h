//===- OffsetMap.h - Offsets of one text in another with the same tokens -*- C++ -*-===//
//
// The incremental analysis (Incremental.cpp) reuses a caller's check when a fn it
// inlines changed only between its tokens (a comment, a blank line, indentation):
// the tokens are the same in the same order, so the resolver and the elaborator see
// the same tree and decide the same things; only the offsets inside the fn differ.
// An OffsetMap moves an offset of the old text to the new one: a token's begin or end
// to the same token's, an offset inside a token by as much. Runs of newlines may differ
// in length (a line inserted or removed): their first newlines are paired, the others
// have no counterpart. An offset without one (between tokens, at an unpaired newline,
// at a boundary that two tokens shared and no longer do) does not map, and the caller
// is checked afresh: the map never guesses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ph::incremental {

class OffsetMap {
public:
  /// The map from `before` to `after`, or nothing when their tokens differ (kind,
  /// spelling, or where a line ends).
  static std::optional<OffsetMap> between(const std::string &before, const std::string &after);

  /// `offset` of the old text in the new one; false when it has no counterpart.
  bool map(uint32_t &offset) const;

private:
  struct Point {
    uint32_t from, to;      // an old boundary and its new place (UINT32_MAX: two, so none)
    uint32_t tokenTo, length; // a token begins at `from`: offsets inside it move with it
  };
  std::vector<Point> points_; // sorted by `from`; an ambiguous `from` has to = UINT32_MAX
};

} // namespace ph::incremental
