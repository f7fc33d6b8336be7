//===- Protocol.cpp - JSON conversions and file URIs ----------------------===//
#include "Protocol.h"

namespace ph::lsp {

json toJson(Position p) { return {{"line", p.line}, {"character", p.character}}; }

json toJson(const Range &r) { return {{"start", toJson(r.start)}, {"end", toJson(r.end)}}; }

Position positionFromJson(const json &j) {
  // Negative numbers are not positions; get<uint32_t> would wrap them.
  int64_t line = j.at("line").get<int64_t>(), ch = j.at("character").get<int64_t>();
  if (line < 0 || ch < 0)
    throw json::type_error::create(302, "negative position", &j);
  return {static_cast<uint32_t>(line), static_cast<uint32_t>(ch)};
}

Range rangeFromJson(const json &j) {
  return {positionFromJson(j.at("start")), positionFromJson(j.at("end"))};
}

static int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string uriToPath(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.substr(0, scheme.size()) != scheme)
    return std::string(uri);
  std::string_view rest = uri.substr(scheme.size());
  // `file://localhost/x` names the same file as `file:///x`.
  if (rest.substr(0, 9) == "localhost") rest.remove_prefix(9);
  std::string out;
  out.reserve(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size()) {
      int hi = hexValue(rest[i + 1]), lo = hexValue(rest[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(rest[i]);
  }
  return out;
}

std::string pathToUri(std::string_view path) {
  static const char *hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

} // namespace ph::lsp
