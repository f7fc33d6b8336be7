//===- TextDocument.h - UTF-16 positions and incremental edits --*- C++ -*-===//
//
// The frontend counts bytes; LSP counts UTF-16 code units per line. LineIndex
// converts between the two over one text (a character outside the BMP is two
// units; a position inside a code point or past the line's end clamps).
// applyChanges() applies didChange's content changes in order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Protocol.h"

#include <string>
#include <string_view>
#include <vector>

namespace ph::lsp {

class LineIndex {
public:
  /// `text` must outlive the index.
  explicit LineIndex(std::string_view text);

  /// Byte offset -> position (clamped to the text).
  Position position(uint32_t offset) const;
  /// Position -> byte offset. A line past the end gives the text's end; a
  /// character past the line's end gives the line's end (before its newline).
  uint32_t offset(Position p) const;
  Range range(uint32_t begin, uint32_t end) const { return {position(begin), position(end)}; }
  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }
  std::string_view text() const { return text_; }

private:
  std::string_view text_;
  std::vector<uint32_t> lineStarts_;
  bool ascii_ = true; // all-ASCII text: columns are bytes (the fast path)
};

/// UTF-16 length of a UTF-8 string (invalid bytes count one unit each).
uint32_t utf16Length(std::string_view utf8);

/// Applies `contentChanges` of a didChange (each with a `range`, or a whole
/// new text) to `text`. Throws nlohmann::json::exception on malformed changes.
void applyChanges(std::string &text, const json &contentChanges);

} // namespace ph::lsp
