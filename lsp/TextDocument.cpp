//===- TextDocument.cpp - UTF-16 positions and incremental edits ----------===//
#include "TextDocument.h"

#include <algorithm>

namespace ph::lsp {

/// Length in bytes of the UTF-8 sequence starting with `c`, and its UTF-16 units.
static void utf8Seq(unsigned char c, unsigned &bytes, unsigned &units) {
  if (c < 0x80) { bytes = 1; units = 1; }
  else if ((c & 0xE0) == 0xC0) { bytes = 2; units = 1; }
  else if ((c & 0xF0) == 0xE0) { bytes = 3; units = 1; }
  else if ((c & 0xF8) == 0xF0) { bytes = 4; units = 2; }
  else { bytes = 1; units = 1; } // a stray continuation or invalid byte
}

uint32_t utf16Length(std::string_view s) {
  uint32_t units = 0;
  for (size_t i = 0; i < s.size();) {
    unsigned b, u;
    utf8Seq(static_cast<unsigned char>(s[i]), b, u);
    i += std::min<size_t>(b, s.size() - i);
    units += u;
  }
  return units;
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') lineStarts_.push_back(static_cast<uint32_t>(i + 1));
    else if (c >= 0x80) ascii_ = false;
  }
}

Position LineIndex::position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - lineStarts_.begin()) - 1;
  uint32_t start = lineStarts_[line];
  if (ascii_) return {line, offset - start};
  return {line, utf16Length(text_.substr(start, offset - start))};
}

uint32_t LineIndex::offset(Position p) const {
  if (p.line >= lineStarts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t start = lineStarts_[p.line];
  uint32_t end = p.line + 1 < lineStarts_.size() ? lineStarts_[p.line + 1] - 1 : static_cast<uint32_t>(text_.size());
  if (end > start && text_[end - 1] == '\r') --end; // CRLF: the line ends before `\r`
  if (ascii_) return start + std::min(p.character, end - start);
  uint32_t units = 0, i = start;
  while (i < end) {
    unsigned b, u;
    utf8Seq(static_cast<unsigned char>(text_[i]), b, u);
    if (units + u > p.character) break; // inside a surrogate pair: stay before it
    units += u;
    i += std::min<uint32_t>(b, end - i);
  }
  return i;
}

void applyChanges(std::string &text, const json &changes) {
  for (const json &change : changes) {
    const std::string &newText = change.at("text").get_ref<const std::string &>();
    if (!change.contains("range") || change["range"].is_null()) {
      text = newText;
      continue;
    }
    Range r = rangeFromJson(change["range"]);
    LineIndex index(text);
    uint32_t b = index.offset(r.start), e = index.offset(r.end);
    if (e < b) std::swap(b, e);
    text.replace(b, e - b, newText);
  }
}

} // namespace ph::lsp
