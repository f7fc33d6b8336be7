//===- Signatures.h - Reading parameter lists out of signatures -*- C++ -*-===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ph::lsp {

/// `fn attention(acc, q, K, V, scale, BR, BC)` -> {"acc", "q", ...}; typed
/// parameters (`Q: tensor<f16>[Nq, D]`) keep their whole text.
std::vector<std::string> signatureParams(std::string_view signature);
/// The callee and the index of the argument the cursor is in, if `offset` is
/// inside the parentheses of a call.
bool callAt(std::string_view text, size_t offset, std::string &callee, unsigned &argIndex);

} // namespace ph::lsp
