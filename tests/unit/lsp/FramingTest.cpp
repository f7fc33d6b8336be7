//===- FramingTest.cpp - Content-Length framing ---------------------------===//
#include "Framing.h"

#include <gtest/gtest.h>

using namespace ph::lsp;

namespace {

std::vector<std::string> drain(FrameReader &r, std::vector<std::string> *errors = nullptr) {
  std::vector<std::string> out;
  for (;;) {
    auto res = r.next();
    if (res.kind == FrameReader::Result::NeedMore) break;
    if (res.kind == FrameReader::Result::BadHeader) {
      if (errors) errors->push_back(res.error);
      continue;
    }
    out.push_back(res.body);
  }
  return out;
}

TEST(Framing, RoundTrip) {
  FrameReader r;
  r.feed(frameMessage(R"({"a":1})"));
  auto msgs = drain(r);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0], R"({"a":1})");
}

TEST(Framing, SeveralMessagesInOneRead) {
  FrameReader r;
  r.feed(frameMessage("{}") + frameMessage("[1]") + frameMessage("\"x\""));
  EXPECT_EQ(drain(r), (std::vector<std::string>{"{}", "[1]", "\"x\""}));
}

TEST(Framing, ByteAtATime) {
  // Bodies and headers split at every possible point.
  std::string stream = frameMessage(R"({"jsonrpc":"2.0","method":"é"})") + frameMessage("{}");
  FrameReader r;
  std::vector<std::string> got;
  for (char c : stream) {
    r.feed(std::string_view(&c, 1));
    for (auto &m : drain(r)) got.push_back(m);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], R"({"jsonrpc":"2.0","method":"é"})");
  EXPECT_EQ(got[1], "{}");
}

TEST(Framing, LengthCountsBytesNotCharacters) {
  std::string body = "{\"t\":\"\xF0\x9F\x98\x80\"}"; // an emoji: 4 bytes, 2 UTF-16 units
  std::string framed = frameMessage(body);
  EXPECT_NE(framed.find("Content-Length: " + std::to_string(body.size())), std::string::npos);
  FrameReader r;
  r.feed(framed);
  EXPECT_EQ(drain(r), std::vector<std::string>{body});
}

TEST(Framing, OtherHeadersAndCaseAreAccepted) {
  FrameReader r;
  r.feed("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
  EXPECT_EQ(drain(r), std::vector<std::string>{"{}"});
}

TEST(Framing, BareNewlinesAreAccepted) {
  FrameReader r;
  r.feed("Content-Length: 2\n\n{}");
  EXPECT_EQ(drain(r), std::vector<std::string>{"{}"});
}

TEST(Framing, MissingLengthIsReportedAndReadingResumes) {
  FrameReader r;
  std::vector<std::string> errors;
  r.feed("Content-Type: x\r\n\r\n" + frameMessage("{}"));
  auto msgs = drain(r, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("missing Content-Length"), std::string::npos);
  EXPECT_EQ(msgs, std::vector<std::string>{"{}"});
}

TEST(Framing, InvalidLengthIsReported) {
  FrameReader r;
  std::vector<std::string> errors;
  r.feed("Content-Length: abc\r\n\r\n" + frameMessage("{}"));
  auto msgs = drain(r, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("invalid Content-Length"), std::string::npos);
  EXPECT_EQ(msgs, std::vector<std::string>{"{}"});
}

TEST(Framing, HugeLengthIsRefused) {
  FrameReader r;
  std::vector<std::string> errors;
  r.feed("Content-Length: 99999999999\r\n\r\n");
  drain(r, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("exceeds"), std::string::npos);
}

TEST(Framing, OverLimitBodyIsSkippedWithoutBuffering) {
  // A 100 MB body arriving in 1 MiB reads: one error, nothing buffered, and
  // the message after it is read normally.
  FrameReader r;
  std::vector<std::string> errors;
  size_t n = 100u << 20;
  r.feed("Content-Length: " + std::to_string(n) + "\r\n\r\n" + std::string(1000, 'x'));
  std::string chunk(1u << 20, 'x');
  size_t sent = 1000, peak = 0;
  while (sent < n) {
    size_t k = std::min(chunk.size(), n - sent);
    r.feed(std::string_view(chunk).substr(0, k));
    sent += k;
    EXPECT_TRUE(drain(r, &errors).empty());
    peak = std::max(peak, r.buffered());
  }
  r.feed(frameMessage("{}"));
  EXPECT_EQ(drain(r, &errors), std::vector<std::string>{"{}"});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("exceeds the limit"), std::string::npos);
  EXPECT_LT(peak, 4096u);
}

TEST(Framing, IncompleteBodyWaits) {
  FrameReader r;
  r.feed("Content-Length: 10\r\n\r\n{\"a\":");
  EXPECT_TRUE(drain(r).empty());
  r.feed("12}  ");
  EXPECT_EQ(drain(r), std::vector<std::string>{"{\"a\":12}  "});
}

TEST(Framing, ManyMessagesCompactTheBuffer) {
  FrameReader r;
  for (int i = 0; i < 2000; ++i) {
    r.feed(frameMessage("{\"i\":" + std::to_string(i) + "}"));
    auto m = drain(r);
    ASSERT_EQ(m.size(), 1u);
  }
  EXPECT_LT(r.buffered(), 8192u);
}

} // namespace
