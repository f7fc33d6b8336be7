//===- Transport.cpp - stdio and TCP transports on Boost.Asio -------------===//
#include "Transport.h"
#include "Framing.h"

// Boost 1.74's asio uses std::exchange without including <utility> under C++20.
#include <utility>
#include <boost/asio.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace asio = boost::asio;

namespace ph::lsp {

namespace {

/// Feeds bytes through a FrameReader and hands whole messages on.
void drainFrames(FrameReader &reader, const Transport::Handler &handler) {
  for (;;) {
    FrameReader::Result r = reader.next();
    if (r.kind == FrameReader::Result::NeedMore) return;
    if (r.kind == FrameReader::Result::BadHeader)
      handler({std::string(), r.error});
    else
      handler({std::move(r.body), std::string()});
  }
}

/// One transport over an Asio stream for reading and one for writing (the
/// same socket for TCP). Writes are queued on the io_context so that at most
/// one async_write is in flight and sends from worker threads never interleave.
template <typename ReadStream, typename WriteStream>
class AsioTransport : public Transport {
public:
  AsioTransport(std::unique_ptr<asio::io_context> io, std::unique_ptr<ReadStream> in,
                WriteStream *out, std::unique_ptr<WriteStream> ownedOut = nullptr)
      : io_(std::move(io)), in_(std::move(in)), out_(out), ownedOut_(std::move(ownedOut)) {}

  void run(Handler onMessage) override {
    handler_ = std::move(onMessage);
    startRead();
    io_->run();
  }

  void send(std::string body) override {
    std::string framed = frameMessage(body);
    asio::post(*io_, [this, framed = std::move(framed)]() mutable {
      queue_.push_back(std::move(framed));
      if (queue_.size() == 1) startWrite();
    });
  }

  void stop() override {
    // Let queued replies (the answer to `shutdown`, final diagnostics) go out first.
    asio::post(*io_, [this] {
      stopping_ = true;
      if (queue_.empty()) io_->stop();
    });
  }

private:
  void startRead() {
    in_->async_read_some(asio::buffer(buf_), [this](boost::system::error_code ec, size_t n) {
      if (n) {
        reader_.feed(std::string_view(buf_.data(), n));
        drainFrames(reader_, handler_);
      }
      if (ec) {
        // End of input: flush what is queued, then return from run().
        stopping_ = true;
        if (queue_.empty()) io_->stop();
        return;
      }
      if (!stopping_) startRead();
    });
  }

  void startWrite() {
    asio::async_write(*out_, asio::buffer(queue_.front()), [this](boost::system::error_code ec, size_t) {
      queue_.pop_front();
      if (ec) queue_.clear(); // the peer is gone; nothing more can be written
      if (!queue_.empty())
        startWrite();
      else if (stopping_)
        io_->stop();
    });
  }

  std::unique_ptr<asio::io_context> io_;
  std::unique_ptr<ReadStream> in_;
  WriteStream *out_;
  std::unique_ptr<WriteStream> ownedOut_;
  Handler handler_;
  FrameReader reader_;
  std::array<char, 65536> buf_{};
  std::deque<std::string> queue_; // touched only on the io_context's thread
  bool stopping_ = false;
};

/// stdin that epoll cannot watch (a regular file, e.g. `ph-lsp < transcript`):
/// blocking reads on the calling thread, blocking writes under a mutex.
class BlockingFdTransport : public Transport {
public:
  void run(Handler onMessage) override {
    char buf[65536];
    while (!stopped_) {
      ssize_t n = ::read(0, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      reader_.feed(std::string_view(buf, static_cast<size_t>(n)));
      drainFrames(reader_, onMessage);
    }
  }
  void send(std::string body) override {
    std::string framed = frameMessage(body);
    std::lock_guard<std::mutex> lock(mu_);
    const char *p = framed.data();
    size_t left = framed.size();
    while (left) {
      ssize_t n = ::write(1, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  void stop() override { stopped_ = true; }

private:
  FrameReader reader_;
  std::mutex mu_;
  std::atomic<bool> stopped_{false};
};

bool isRegularFile(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

std::unique_ptr<Transport> createStdioTransport() {
  if (isRegularFile(0) || isRegularFile(1))
    return std::make_unique<BlockingFdTransport>();
  using Desc = asio::posix::stream_descriptor;
  auto io = std::make_unique<asio::io_context>(1);
  // Duplicates, so closing the descriptors at exit never closes fd 0/1 under stdio.
  auto in = std::make_unique<Desc>(*io, ::dup(0));
  auto out = std::make_unique<Desc>(*io, ::dup(1));
  Desc *outPtr = out.get();
  return std::make_unique<AsioTransport<Desc, Desc>>(std::move(io), std::move(in), outPtr, std::move(out));
}

namespace {
/// A TCP socket is both streams; the transport owns it through `in`.
class TcpTransport : public AsioTransport<asio::ip::tcp::socket, asio::ip::tcp::socket> {
  using Base = AsioTransport<asio::ip::tcp::socket, asio::ip::tcp::socket>;

public:
  using Base::Base;
};
} // namespace

std::unique_ptr<Transport> createTcpTransport(const std::string &host, unsigned short port) {
  auto io = std::make_unique<asio::io_context>(1);
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("invalid address `" + host + "`: " + ec.message());
  asio::ip::tcp::acceptor acceptor(*io);
  asio::ip::tcp::endpoint ep(addr, port);
  acceptor.open(ep.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(ep, ec);
  if (ec) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  acceptor.listen(1);
  std::fprintf(stderr, "ph-lsp: listening on %s:%u\n", host.c_str(), acceptor.local_endpoint().port());
  std::fflush(stderr);
  auto sock = std::make_unique<asio::ip::tcp::socket>(*io);
  acceptor.accept(*sock);
  sock->set_option(asio::ip::tcp::no_delay(true));
  auto *raw = sock.get();
  return std::make_unique<TcpTransport>(std::move(io), std::move(sock), raw);
}

} // namespace ph::lsp
