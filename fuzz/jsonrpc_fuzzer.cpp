//===- jsonrpc_fuzzer.cpp - Bytes to the server's message layer ------------===//
//
// Feeds arbitrary bytes, in arbitrary chunks, to the Content-Length framing
// and every framed body to the JSON-RPC endpoint (with a request and a
// notification handler registered). Nothing may crash; every request that
// parses gets exactly the answers the protocol allows.
//
//===----------------------------------------------------------------------===//
#include "Framing.h"
#include "JsonRpc.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  size_t sent = 0;
  ph::lsp::Endpoint endpoint([&](std::string body) {
    ++sent;
    (void)ph::lsp::json::parse(body); // what the server sends is always valid JSON
  });
  endpoint.onRequest("echo", [](const ph::lsp::json &params, ph::lsp::Reply reply) { reply(params); });
  endpoint.onNotification("note", [](const ph::lsp::json &) {});
  ph::lsp::FrameReader reader;
  // The first byte picks the chunk size, so splits across reads are explored too.
  size_t chunk = size ? 1 + data[0] % 64 : 1;
  for (size_t i = 0; i < bytes.size(); i += chunk) {
    reader.feed(bytes.substr(i, chunk));
    for (;;) {
      auto r = reader.next();
      if (r.kind == ph::lsp::FrameReader::Result::NeedMore) break;
      if (r.kind == ph::lsp::FrameReader::Result::Message) endpoint.handleBody(r.body);
    }
  }
  return 0;
}
