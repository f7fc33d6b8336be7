//===- Annotations.h - Marked-up sources for feature tests ------*- C++ -*-===//
//
// clangd's Annotations, small: `^` marks a point and `[[...]]` a range, each
// optionally named with `$name`. The markers are removed from the text;
// points and ranges are byte offsets into what is left.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cctype>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ph::lsp::test {

class Annotations {
public:
  explicit Annotations(const std::string &marked) {
    std::vector<std::pair<std::string, size_t>> open;
    for (size_t i = 0; i < marked.size();) {
      std::string name;
      if (marked[i] == '$') {
        size_t j = i + 1;
        while (j < marked.size() && (std::isalnum(static_cast<unsigned char>(marked[j])) || marked[j] == '_')) ++j;
        if (j < marked.size() && (marked[j] == '^' || marked.compare(j, 2, "[[") == 0)) {
          name = marked.substr(i + 1, j - i - 1);
          i = j;
        }
      }
      if (marked[i] == '^') {
        points_[name].push_back(static_cast<uint32_t>(text_.size()));
        ++i;
      } else if (marked.compare(i, 2, "[[") == 0) {
        open.emplace_back(name, text_.size());
        i += 2;
      } else if (marked.compare(i, 2, "]]") == 0 && !open.empty()) {
        ranges_[open.back().first].push_back({static_cast<uint32_t>(open.back().second), static_cast<uint32_t>(text_.size())});
        open.pop_back();
        i += 2;
      } else {
        text_.push_back(marked[i++]);
      }
    }
  }
  const std::string &code() const { return text_; }
  uint32_t point(const std::string &name = "") const { return only(points_, name); }
  std::pair<uint32_t, uint32_t> range(const std::string &name = "") const { return only(ranges_, name); }
  const std::vector<std::pair<uint32_t, uint32_t>> &ranges(const std::string &name = "") const { return ranges_.at(name); }

private:
  template <typename M> static typename M::mapped_type::value_type only(const M &m, const std::string &name) {
    auto it = m.find(name);
    if (it == m.end() || it->second.size() != 1) throw std::logic_error("expected one annotation named `" + name + "`");
    return it->second[0];
  }
  std::string text_;
  std::map<std::string, std::vector<uint32_t>> points_;
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> ranges_;
};

} // namespace ph::lsp::test
