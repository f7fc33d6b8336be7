//===- Framing.cpp - Content-Length framing -------------------------------===//
#include "Framing.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ph::lsp {

std::string frameMessage(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

static std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

static bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

FrameReader::Result FrameReader::next() {
  Result r;
  if (!pendingLength_) {
    // Headers end at an empty line; accept a bare "\n\n" too (hand-typed input).
    std::string_view view(buffer_);
    view.remove_prefix(pos_);
    // Skip stray line breaks between messages (some clients send "\r\n" after a body).
    size_t skip = 0;
    while (skip < view.size() && (view[skip] == '\r' || view[skip] == '\n')) ++skip;
    view.remove_prefix(skip);
    pos_ += skip;
    size_t end = std::string_view::npos, endLen = 0;
    for (size_t i = 0; i < view.size(); ++i) {
      if (view[i] != '\n') continue;
      if (i + 1 < view.size() && view[i + 1] == '\n') { end = i; endLen = 2; break; }
      if (i + 2 < view.size() && view[i + 1] == '\r' && view[i + 2] == '\n') { end = i; endLen = 3; break; }
    }
    if (end == std::string_view::npos) {
      // A header block that never ends would grow the buffer without bound.
      if (view.size() > 64 * 1024) {
        buffer_.clear();
        pos_ = 0;
        r.kind = Result::BadHeader;
        r.error = "header block longer than 64 KiB";
      }
      return r;
    }
    std::string_view headers = view.substr(0, end);
    pos_ += end + endLen;
    std::optional<size_t> length;
    size_t tooLong = 0; // a valid length over the limit: its body is skipped
    std::string error;
    while (!headers.empty()) {
      size_t nl = headers.find('\n');
      std::string_view line = trim(headers.substr(0, nl));
      headers = nl == std::string_view::npos ? std::string_view() : headers.substr(nl + 1);
      if (line.empty()) continue;
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) {
        error = "malformed header line `" + std::string(line.substr(0, 80)) + "`";
        continue;
      }
      std::string_view name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
      if (!equalsIgnoreCase(name, "Content-Length")) continue; // Content-Type etc.
      size_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || p != value.data() + value.size())
        error = "invalid Content-Length `" + std::string(value.substr(0, 40)) + "`";
      else if (n > maxBodySize) {
        error = "Content-Length " + std::to_string(n) + " exceeds the limit of " +
                std::to_string(maxBodySize >> 20) + " MiB; the message is skipped";
        tooLong = n;
      }
      else
        length = n;
    }
    if (!length && tooLong) {
      // Discard what of the body is already here; feed() drops the rest.
      size_t here = std::min(tooLong, buffer_.size() - pos_);
      buffer_.erase(0, pos_ + here);
      pos_ = 0;
      skipRemaining_ = tooLong - here;
    }
    if (!length) {
      r.kind = Result::BadHeader;
      r.error = error.empty() ? "missing Content-Length header" : error;
      return r;
    }
    pendingLength_ = length;
  }
  if (buffer_.size() - pos_ < *pendingLength_)
    return r;
  r.kind = Result::Message;
  r.body = buffer_.substr(pos_, *pendingLength_);
  pos_ += *pendingLength_;
  pendingLength_.reset();
  // Drop consumed bytes now and then rather than after every message.
  if (pos_ > 4096 && pos_ * 2 > buffer_.size()) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return r;
}

} // namespace ph::lsp
