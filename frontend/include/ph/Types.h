//===- Types.h - Element types, shapes and value types ----------*- C++ -*-===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ph {

/// Element types. IntLit/FloatLit are the types of literals before they meet
/// another operand, whose type they take. Bool is what comparisons give (a
/// mask for `where`); it is not a storage type. F8E4M3 and F8E5M2 are only
/// storage types: a tensor may hold them, a load widens them to f32 and a
/// store rounds to them (docs/language.md, "fp8").
enum class Elem : uint8_t { F16, BF16, F32, I32, IntLit, FloatLit, Bool, F8E4M3, F8E5M2 };

const char *elemName(Elem e);
bool parseElem(std::string_view name, Elem &out);
bool isFloat(Elem e);
/// f8e4m3 or f8e5m2: tensors only (ph/Fp8.h has their conversions).
bool isFp8(Elem e);
/// The element types a program may name (`f16` ... `f8e5m2`), in the order the
/// docs list them: hover, completion and semantic tokens read this list.
const std::vector<Elem> &namedElems();
/// One-line Markdown documentation of a named element type (hover, completion).
const char *elemDoc(Elem e);
/// Bytes of one element as stored (literals count as their default types).
unsigned elemBytes(Elem e);
/// The type both operands of arithmetic are converted to (ARCHITECTURE.md
/// decision 2): 16-bit with f32 gives f32, a literal takes the other's type.
Elem promote(Elem a, Elem b);

/// One dimension: its symbolic spelling (`BR`, `Nk`, `64`, `extent(x, 1) / 2`)
/// and, when known at compile time, its value.
struct Dim {
  std::string sym;
  int64_t value = -1; // -1: known only at run time (a size symbol)
  bool isStatic() const { return value >= 0; }
  bool operator==(const Dim &) const = default;
};

struct Type {
  enum class Kind : uint8_t { Error, Void, Scalar, Tile, Tensor } kind = Kind::Error;
  Elem elem = Elem::F32;
  std::vector<Dim> dims; // Tile and Tensor

  static Type error() { return {}; }
  static Type voidType() { return {Kind::Void, Elem::F32, {}}; }
  static Type scalar(Elem e) { return {Kind::Scalar, e, {}}; }
  static Type tile(Elem e, std::vector<Dim> d) { return {Kind::Tile, e, std::move(d)}; }
  static Type tensor(Elem e, std::vector<Dim> d) { return {Kind::Tensor, e, std::move(d)}; }

  bool isError() const { return kind == Kind::Error; }
  bool isScalar() const { return kind == Kind::Scalar; }
  bool isTile() const { return kind == Kind::Tile; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isInteger() const { return isScalar() && (elem == Elem::I32 || elem == Elem::IntLit); }
  size_t rank() const { return dims.size(); }

  /// `tile<f32>[BR, BC]`, `f32`, `tensor<f16>[Nq, D]`.
  std::string symbolic() const;
  /// `[64, 32]` (run-time dims print as their symbol).
  std::string concreteShape() const;
  /// Bytes of a tile with static extents (0 otherwise).
  int64_t bytes() const;
};

} // namespace ph
