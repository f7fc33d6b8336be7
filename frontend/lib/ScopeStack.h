//===- ScopeStack.h - The resolver's nested scopes of names -----*- C++ -*-===//
//
// The names visible in a declaration: one flat list, newest last, and where each open
// scope begins in it. A declaration has a few dozen names, so a backwards scan finds
// the innermost binding faster than hashing the name, and opening or closing a block
// allocates nothing (a hash map per scope was a tenth of the resolver's work, most of
// it allocation). Names are views: the tree that holds them outlives the stack.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ph::check {

class ScopeStack {
public:
  /// Forgets every name and scope.
  void clear() {
    names_.clear();
    starts_.clear();
  }
  void open() { starts_.push_back(names_.size()); }
  void close() {
    names_.resize(starts_.back());
    starts_.pop_back();
  }
  size_t depth() const { return starts_.size(); }

  /// The symbol the innermost scope binds `name` to, or null.
  const uint32_t *lookup(std::string_view name) const {
    for (size_t i = names_.size(); i-- > 0;)
      if (names_[i].first == name) return &names_[i].second;
    return nullptr;
  }
  /// The symbol the current (innermost) scope itself binds `name` to, or null.
  const uint32_t *lookupInCurrent(std::string_view name) const {
    for (size_t i = names_.size(); i-- > starts_.back();)
      if (names_[i].first == name) return &names_[i].second;
    return nullptr;
  }
  /// Binds `name` in the innermost scope (over an earlier binding there, as a map would).
  void declare(std::string_view name, uint32_t symbol) { bind(starts_.size() - 1, name, symbol); }
  /// Binds `name` in the outermost scope, under every scope opened since.
  void declareOutermost(std::string_view name, uint32_t symbol) { bind(0, name, symbol); }

  /// Every bound name, outer scopes first (a name bound in two scopes comes twice).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(names_.size());
    for (auto &[n, _] : names_) out.emplace_back(n);
    return out;
  }

private:
  void bind(size_t scope, std::string_view name, uint32_t symbol) {
    size_t end = scope + 1 < starts_.size() ? starts_[scope + 1] : names_.size();
    for (size_t i = starts_[scope]; i < end; ++i)
      if (names_[i].first == name) {
        names_[i].second = symbol;
        return;
      }
    names_.insert(names_.begin() + static_cast<std::ptrdiff_t>(end), {name, symbol});
    for (size_t s = scope + 1; s < starts_.size(); ++s) ++starts_[s];
  }

  std::vector<std::pair<std::string_view, uint32_t>> names_;
  std::vector<size_t> starts_;
};

} // namespace ph::check
