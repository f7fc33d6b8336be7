//===- Source.h - Source files, offsets and ranges ---------------*- C++ -*-===//
//
// Every token and node carries a SourceRange (file id + byte offsets); line and
// column are computed only when something is shown to a person or an editor.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ph {

using FileId = uint32_t;

/// A half-open byte range [begin, end) in one file.
struct SourceRange {
  FileId file = 0;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool contains(uint32_t offset) const { return begin <= offset && offset < end; }
  /// True for a cursor placed at the end of the range too (editors' convention).
  bool touches(uint32_t offset) const { return begin <= offset && offset <= end; }
  bool operator==(const SourceRange &) const = default;
  static SourceRange join(SourceRange a, SourceRange b) {
    return {a.file, a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
  }
};

/// 1-based line and column (column counted in bytes).
struct LineCol {
  uint32_t line = 1;
  uint32_t col = 1;
};

/// One immutable source text. Shared between analyses by shared_ptr.
class SourceFile {
public:
  SourceFile(std::string path, std::string text);

  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  LineCol lineCol(uint32_t offset) const;
  /// Byte offset of the start of a 0-based line (clamped to the end of the text).
  uint32_t lineStart(uint32_t line0) const;
  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }
  /// The text of a 0-based line, without its newline.
  std::string_view lineText(uint32_t line0) const;

private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
};

/// The files of one analysis: id 0.. are the prelude (std/*.ph), then the user's files.
class SourceManager {
public:
  FileId add(std::shared_ptr<const SourceFile> file) {
    files_.push_back(std::move(file));
    return static_cast<FileId>(files_.size() - 1);
  }
  const SourceFile &file(FileId id) const { return *files_.at(id); }
  std::shared_ptr<const SourceFile> fileShared(FileId id) const { return files_.at(id); }
  size_t size() const { return files_.size(); }

private:
  std::vector<std::shared_ptr<const SourceFile>> files_;
};

} // namespace ph
