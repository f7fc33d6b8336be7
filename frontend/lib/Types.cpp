//===- Types.cpp - Element types and the spelling of types -----------------===//
#include "ph/Types.h"

#include <charconv>

#include <string_view>

namespace ph {

const char *elemName(Elem e) {
  switch (e) {
  case Elem::F16: return "f16";
  case Elem::BF16: return "bf16";
  case Elem::F32: return "f32";
  case Elem::I32: return "i32";
  case Elem::IntLit: return "i32";
  case Elem::FloatLit: return "f32";
  case Elem::Bool: return "bool";
  case Elem::F8E4M3: return "f8e4m3";
  case Elem::F8E5M2: return "f8e5m2";
  }
  return "?";
}

bool parseElem(std::string_view name, Elem &out) {
  if (name == "f16") out = Elem::F16;
  else if (name == "bf16") out = Elem::BF16;
  else if (name == "f32") out = Elem::F32;
  else if (name == "i32") out = Elem::I32;
  else if (name == "f8e4m3") out = Elem::F8E4M3;
  else if (name == "f8e5m2") out = Elem::F8E5M2;
  else return false;
  return true;
}

bool isFloat(Elem e) {
  return e == Elem::F16 || e == Elem::BF16 || e == Elem::F32 || e == Elem::FloatLit || isFp8(e);
}

bool isFp8(Elem e) { return e == Elem::F8E4M3 || e == Elem::F8E5M2; }

const std::vector<Elem> &namedElems() {
  static const std::vector<Elem> all = {Elem::F16, Elem::BF16, Elem::F32, Elem::I32, Elem::F8E4M3, Elem::F8E5M2};
  return all;
}

const char *elemDoc(Elem e) {
  switch (e) {
  case Elem::F16: return "IEEE half precision (16 bits: 5 exponent, 10 fraction).";
  case Elem::BF16: return "bfloat16 (16 bits: f32's 8 exponent bits, 7 fraction bits).";
  case Elem::F32: return "IEEE single precision (32 bits).";
  case Elem::I32: return "32-bit signed integer (indices, sizes and loop counters).";
  case Elem::F8E4M3:
    return "8-bit float E4M3 (OCP FP8, no infinity; largest finite 448). A **storage type of tensors** only: a "
           "load widens it exactly to `f32`, a store rounds to nearest even and saturates to ±448 (NaN stays NaN).";
  case Elem::F8E5M2:
    return "8-bit float E5M2 (OCP FP8, with ±inf; largest finite 57344). A **storage type of tensors** only: a "
           "load widens it exactly to `f32`, a store rounds to nearest even and saturates to ±57344 (±inf "
           "included; NaN stays NaN).";
  default: return "";
  }
}

unsigned elemBytes(Elem e) {
  return e == Elem::Bool || isFp8(e) ? 1 : (e == Elem::F16 || e == Elem::BF16) ? 2 : 4;
}

Elem promote(Elem a, Elem b) {
  if (a == b) return a == Elem::IntLit ? Elem::I32 : a == Elem::FloatLit ? Elem::F32 : a;
  if (a == Elem::FloatLit || a == Elem::IntLit) return b == Elem::IntLit ? (a == Elem::FloatLit ? Elem::F32 : Elem::I32) : (b == Elem::FloatLit ? Elem::F32 : b);
  if (b == Elem::FloatLit || b == Elem::IntLit) return a;
  if (a == Elem::F32 || b == Elem::F32) return Elem::F32;
  if (a == Elem::I32) return b;
  if (b == Elem::I32) return a;
  return Elem::F32; // f16 with bf16
}

/// Appends `[BR, BC]` (or, concrete, `[64, 32]`) to `s`: the editor records a type per
/// variable and configuration, so these are built often; one string, grown in place.
static void appendDims(std::string &s, const std::vector<Dim> &dims, bool concrete) {
  s += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    if (concrete && dims[i].isStatic()) {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, dims[i].value);
      s.append(buf, end);
    } else {
      s += dims[i].sym;
    }
  }
  s += ']';
}

std::string Type::symbolic() const {
  switch (kind) {
  case Kind::Error: return "<error>";
  case Kind::Void: return "void";
  case Kind::Scalar: return elem == Elem::IntLit ? "int" : elem == Elem::FloatLit ? "float" : elemName(elem);
  case Kind::Tile:
  case Kind::Tensor: {
    std::string s;
    s.reserve(24 + dims.size() * 8);
    s += kind == Kind::Tile ? "tile<" : "tensor<";
    s += elemName(elem);
    s += '>';
    appendDims(s, dims, false);
    return s;
  }
  }
  return "?";
}

std::string Type::concreteShape() const {
  std::string s;
  s.reserve(2 + dims.size() * 6);
  appendDims(s, dims, true);
  return s;
}

int64_t Type::bytes() const {
  if (kind != Kind::Tile) return 0;
  int64_t n = elemBytes(elem);
  for (const Dim &d : dims) {
    if (!d.isStatic()) return 0;
    n *= d.value;
  }
  return n;
}

} // namespace ph
