//===- Signatures.cpp - Parameter lists and the call around a cursor ------===//
#include "Signatures.h"

#include <cctype>

namespace ph::lsp {

static std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> signatureParams(std::string_view sig) {
  std::vector<std::string> out;
  size_t open = sig.find('(');
  if (open == std::string_view::npos) return out;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < sig.size(); ++i) {
    char c = sig[i];
    if (c == '(' || c == '[' || c == '<') ++depth;
    else if ((c == ']' || c == '>') && depth > 0) --depth;
    else if (c == ')') {
      if (depth == 0) {
        std::string p = trimmed(sig.substr(start, i - start));
        if (!p.empty()) out.push_back(p);
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(trimmed(sig.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool callAt(std::string_view text, size_t offset, std::string &callee, unsigned &argIndex) {
  if (offset > text.size()) offset = text.size();
  int depth = 0;
  unsigned commas = 0;
  size_t limit = offset > 4000 ? offset - 4000 : 0; // calls do not span pages
  for (size_t i = offset; i-- > limit;) {
    char c = text[i];
    if (c == ')' || c == ']') ++depth;
    else if (c == '[') {
      if (depth == 0) return false; // inside a slice, not a call
      --depth;
    } else if (c == '(') {
      if (depth == 0) {
        size_t end = i;
        while (end > 0 && text[end - 1] == ' ') --end;
        size_t b = end;
        while (b > 0 && (std::isalnum(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '_')) --b;
        if (b == end) return false;
        callee = std::string(text.substr(b, end - b));
        argIndex = commas;
        return true;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      ++commas;
    } else if (c == '{' || c == '}') {
      return false; // left the statement
    }
  }
  return false;
}

} // namespace ph::lsp
