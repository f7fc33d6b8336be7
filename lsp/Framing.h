//===- Framing.h - Content-Length framing of JSON-RPC messages --*- C++ -*-===//
//
// The base protocol: `Content-Length: N\r\n` (other headers ignored), an
// empty line, then N bytes of JSON. FrameReader is fed whatever the socket or
// pipe delivered and yields whole bodies, so partial headers, bodies split
// across reads and several messages in one read are all handled in one place.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ph::lsp {

/// Frames one body for sending.
std::string frameMessage(std::string_view body);

class FrameReader {
public:
  /// Bodies larger than this are refused (a bad header must not make the
  /// server allocate gigabytes); the refused body is skipped as it arrives,
  /// never buffered, so a 100 MB message costs no memory.
  static constexpr size_t maxBodySize = 64u << 20;

  void feed(std::string_view bytes) {
    size_t drop = std::min(skipRemaining_, bytes.size());
    skipRemaining_ -= drop;
    buffer_.append(bytes.substr(drop));
  }

  struct Result {
    enum Kind { Message, NeedMore, BadHeader } kind = NeedMore;
    std::string body;   // Message
    std::string error;  // BadHeader: what was wrong (the header block is skipped)
  };
  /// The next whole message, NeedMore, or BadHeader (after which reading
  /// resumes at the next header block, so one broken frame costs one message).
  Result next();

  size_t buffered() const { return buffer_.size(); }

private:
  std::string buffer_;
  size_t pos_ = 0;
  std::optional<size_t> pendingLength_; // header parsed, waiting for the body
  size_t skipRemaining_ = 0;            // bytes of a refused body still to discard
};

} // namespace ph::lsp
