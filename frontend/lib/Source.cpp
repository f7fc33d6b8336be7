//===- Source.cpp - Line tables for source files ---------------------------===//
#include "ph/Source.h"

#include <algorithm>
#include <cstring>

namespace ph {

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  const char *b = text_.data(), *e = b + text_.size();
  for (const char *p = b; (p = static_cast<const char *>(std::memchr(p, '\n', e - p))); ++p)
    lineStarts_.push_back(static_cast<uint32_t>(p - b + 1));
}

LineCol SourceFile::lineCol(uint32_t offset) const {
  if (offset > text_.size()) offset = static_cast<uint32_t>(text_.size());
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line0 = static_cast<uint32_t>(it - lineStarts_.begin()) - 1;
  return {line0 + 1, offset - lineStarts_[line0] + 1};
}

uint32_t SourceFile::lineStart(uint32_t line0) const {
  if (line0 >= lineStarts_.size()) return static_cast<uint32_t>(text_.size());
  return lineStarts_[line0];
}

std::string_view SourceFile::lineText(uint32_t line0) const {
  if (line0 >= lineStarts_.size()) return {};
  uint32_t b = lineStarts_[line0];
  uint32_t e = line0 + 1 < lineStarts_.size() ? lineStarts_[line0 + 1] - 1 : static_cast<uint32_t>(text_.size());
  if (e > b && text_[e - 1] == '\r') --e;
  return std::string_view(text_).substr(b, e - b);
}

} // namespace ph
