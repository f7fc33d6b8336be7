//===- Protocol.h - JSON-RPC and LSP vocabulary shared by the server -*- C++ -*-===//
//
// Only lsp/ knows the protocol: error codes, positions in the editor's terms
// (0-based line, UTF-16 column) and file URIs. Everything here is plain data
// over nlohmann::json so the frontend never sees JSON.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace ph::lsp {

using json = nlohmann::json;

/// JSON-RPC 2.0 and LSP 3.17 error codes.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

/// An error a handler returns instead of a result.
struct RpcError {
  ErrorCode code = ErrorCode::InternalError;
  std::string message;
  json data; // optional, null when absent
};

/// A position in the editor's terms: 0-based line, UTF-16 code units.
struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
  bool operator==(const Position &) const = default;
  auto operator<=>(const Position &) const = default;
};

struct Range {
  Position start, end;
  bool operator==(const Range &) const = default;
};

json toJson(Position p);
json toJson(const Range &r);
/// Throws nlohmann::json::exception on a malformed value (handlers turn that
/// into InvalidParams).
Position positionFromJson(const json &j);
Range rangeFromJson(const json &j);

/// `file:///a/b%20c.ph` -> `/a/b c.ph`; other schemes are returned unchanged.
std::string uriToPath(std::string_view uri);
/// `/a/b c.ph` -> `file:///a/b%20c.ph`.
std::string pathToUri(std::string_view path);

} // namespace ph::lsp
