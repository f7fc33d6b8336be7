//===- CodegenText.h - What the GPU lowerings say about types and places -*- C++ -*-===//
//
// Private to backend/lib/Conversion/TileToGPU: element sizes, and the spelling of
// a type and a source location in the messages and placement notes that both the
// SIMT and the tensor-core lowering write (E0501's largest tile, W0501's reason,
// "`tensor<64x32xf32>` at f.ph:3:5: registers").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace ph::simt {

inline int64_t elemBytes(mlir::Type t) { return std::max<int64_t>(1, (t.getIntOrFloatBitWidth() + 7) / 8); }

inline std::string typeText(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// `file:line:col` of the first file location in `loc` (through names and fusions); empty
/// when it has none.
inline std::string locText(mlir::Location loc) {
  using namespace mlir;
  if (auto fl = dyn_cast<FileLineColRange>(loc))
    return (fl.getFilename().getValue() + ":" + llvm::Twine(fl.getStartLine()) + ":" + llvm::Twine(fl.getStartColumn())).str();
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return (fl.getFilename().getValue() + ":" + llvm::Twine(fl.getLine()) + ":" + llvm::Twine(fl.getColumn())).str();
  if (auto nl = dyn_cast<NameLoc>(loc)) return locText(nl.getChildLoc());
  if (auto fu = dyn_cast<FusedLoc>(loc))
    for (Location l : fu.getLocations())
      if (std::string t = locText(l); !t.empty()) return t;
  return "";
}

} // namespace ph::simt
