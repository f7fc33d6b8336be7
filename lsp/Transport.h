//===- Transport.h - Moving framed messages in and out ----------*- C++ -*-===//
//
// The server sees a Transport: a loop that delivers message bodies on the I/O
// thread and a thread-safe send. Implementations: stdio and TCP on Boost.Asio
// (a plain blocking loop when stdin is a regular file, which epoll refuses).
// Tests skip the transport entirely and feed the RPC endpoint in process.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace ph::lsp {

class Transport {
public:
  /// A body, or an error about the framing (bad header) that the endpoint
  /// answers with a ParseError.
  struct Incoming {
    std::string body;
    std::string framingError;
  };
  using Handler = std::function<void(Incoming)>;

  virtual ~Transport() = default;
  /// Reads until end of input, a read error, or stop(); calls `onMessage` on
  /// the calling thread. Returns normally at end of input.
  virtual void run(Handler onMessage) = 0;
  /// Sends one message body (framing is added); callable from any thread.
  virtual void send(std::string body) = 0;
  /// Makes run() return soon; callable from any thread (and from a handler).
  virtual void stop() = 0;
};

/// stdin/stdout.
std::unique_ptr<Transport> createStdioTransport();
/// Accepts one connection on `host:port` (loopback unless the user names
/// another address) and serves it. Prints `listening on HOST:PORT` to stderr
/// once bound (port 0 picks a free one). Throws std::runtime_error on failure.
std::unique_ptr<Transport> createTcpTransport(const std::string &host, unsigned short port);

} // namespace ph::lsp
