//===- TextDocumentTest.cpp - UTF-16 positions and incremental edits ------===//
#include "TextDocument.h"

#include <gtest/gtest.h>

using namespace ph::lsp;

namespace {

TEST(LineIndex, AsciiRoundTrip) {
  std::string text = "ab\ncde\n\nf";
  LineIndex idx(text);
  EXPECT_EQ(idx.lineCount(), 4u);
  for (uint32_t off = 0; off <= text.size(); ++off) EXPECT_EQ(idx.offset(idx.position(off)), off) << off;
  EXPECT_EQ(idx.position(4), (Position{1, 1}));
  EXPECT_EQ(idx.position(7), (Position{2, 0}));
}

TEST(LineIndex, NonAsciiColumnsAreUtf16) {
  // "é" is 2 bytes / 1 unit; "😀" is 4 bytes / 2 units (a surrogate pair); "中" 3 bytes / 1 unit.
  std::string text = "let é = 1\n// 😀 x 中 y\n";
  LineIndex idx(text);
  size_t x = text.find(" x ") + 1;
  EXPECT_EQ(idx.position(static_cast<uint32_t>(x)), (Position{1, 6})); // "// " 3 + emoji 2 + " " 1
  EXPECT_EQ(idx.offset({1, 6}), x);
  size_t y = text.find(" y") + 1;
  EXPECT_EQ(idx.position(static_cast<uint32_t>(y)), (Position{1, 10}));
  size_t eq = text.find('=');
  EXPECT_EQ(idx.position(static_cast<uint32_t>(eq)), (Position{0, 6}));
}

TEST(LineIndex, InsideASurrogatePairClampsToItsStart) {
  std::string text = "a😀b";
  LineIndex idx(text);
  EXPECT_EQ(idx.offset({0, 2}), 1u); // between the two halves: before the emoji
  EXPECT_EQ(idx.offset({0, 3}), 5u); // after it: "b"
}

TEST(LineIndex, PastTheEndClamps) {
  std::string text = "ab\r\ncd";
  LineIndex idx(text);
  EXPECT_EQ(idx.offset({0, 99}), 2u); // before "\r\n"
  EXPECT_EQ(idx.offset({9, 0}), text.size());
  EXPECT_EQ(idx.position(999), (Position{1, 2}));
}

TEST(LineIndex, Utf16Length) {
  EXPECT_EQ(utf16Length("abc"), 3u);
  EXPECT_EQ(utf16Length("é"), 1u);
  EXPECT_EQ(utf16Length("😀"), 2u);
  EXPECT_EQ(utf16Length("\xFF"), 1u); // invalid byte: one unit, no crash
}

json change(Position a, Position b, const std::string &text) {
  return {{"range", toJson(Range{a, b})}, {"text", text}};
}

TEST(ApplyChanges, IncrementalInsertReplaceDelete) {
  std::string text = "let x = 1\nlet y = 2\n";
  applyChanges(text, json::array({change({0, 4}, {0, 5}, "abc")}));
  EXPECT_EQ(text, "let abc = 1\nlet y = 2\n");
  applyChanges(text, json::array({change({1, 0}, {1, 0}, "// c\n")}));
  EXPECT_EQ(text, "let abc = 1\n// c\nlet y = 2\n");
  applyChanges(text, json::array({change({0, 11}, {1, 4}, "")}));
  EXPECT_EQ(text, "let abc = 1\nlet y = 2\n");
}

TEST(ApplyChanges, SeveralChangesApplyInOrder) {
  std::string text = "ab";
  applyChanges(text, json::array({change({0, 1}, {0, 1}, "X"), change({0, 0}, {0, 1}, "Y")}));
  EXPECT_EQ(text, "YXb");
}

TEST(ApplyChanges, NonAsciiPositionsCountUtf16) {
  std::string text = "// 😀é\nlet s = 1\n";
  // Replace "é" (after the emoji: UTF-16 column 5) with "e".
  applyChanges(text, json::array({change({0, 5}, {0, 6}, "e")}));
  EXPECT_EQ(text, "// 😀e\nlet s = 1\n");
  // Insert a non-ASCII name, then edit after it on the same line.
  applyChanges(text, json::array({change({1, 4}, {1, 5}, "σ")}));
  EXPECT_EQ(text, "// 😀e\nlet σ = 1\n");
  applyChanges(text, json::array({change({1, 8}, {1, 9}, "2")}));
  EXPECT_EQ(text, "// 😀e\nlet σ = 2\n");
}

TEST(ApplyChanges, FullReplacement) {
  std::string text = "old";
  applyChanges(text, json::array({{{"text", "new"}}}));
  EXPECT_EQ(text, "new");
}

TEST(ApplyChanges, MalformedChangeThrows) {
  std::string text = "x";
  EXPECT_THROW(applyChanges(text, json::array({{{"range", 3}, {"text", "y"}}})), json::exception);
  EXPECT_THROW(applyChanges(text, json::array({{{"nottext", 1}}})), json::exception);
}

TEST(Uri, RoundTrip) {
  EXPECT_EQ(uriToPath("file:///a/b%20c.ph"), "/a/b c.ph");
  EXPECT_EQ(pathToUri("/a/b c.ph"), "file:///a/b%20c.ph");
  EXPECT_EQ(uriToPath(pathToUri("/tmp/ünï cödé/x.ph")), "/tmp/ünï cödé/x.ph");
  EXPECT_EQ(uriToPath("untitled:Untitled-1"), "untitled:Untitled-1");
}

} // namespace
