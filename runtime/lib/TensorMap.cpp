//===- TensorMap.cpp - The cuTensorMapEncodeTiled arguments of a manifest's map ---===//
#include "ph/Runtime/TensorMap.h"

namespace ph::rt {

namespace {
// CUtensorMapDataType (cuda.h; the driver ABI's values).
enum : int { kU8 = 0, kF16 = 6, kF32 = 7, kI32 = 3, kBF16 = 9 };
// CUtensorMapL2promotion.
enum : int { kL2Promote128 = 2, kL2Promote256 = 3 };

/// The driver's data type and bytes per element, or false for a type TMA cannot name.
bool dataTypeOf(Elem e, int &type, int &bytes) {
  switch (e) {
  case Elem::F16: type = kF16; bytes = 2; return true;
  case Elem::BF16: type = kBF16; bytes = 2; return true;
  case Elem::F32: type = kF32; bytes = 4; return true;
  case Elem::I32: type = kI32; bytes = 4; return true;
  case Elem::F8E4M3:
  case Elem::F8E5M2: type = kU8; bytes = 1; return true; // the cubins see fp8 as bytes
  default: return false;
  }
}
} // namespace

std::string tensorMapParams(const TmaDescriptor &d, const kir::TensorParam &t, const std::vector<int64_t> &sizes,
                            TensorMapParams &out) {
  out = TensorMapParams();
  size_t rank = t.dims.size();
  if (rank < 1 || rank > 5) return "a TMA map of `" + t.name + "`: rank " + std::to_string(rank) + " (TMA takes 1 to 5)";
  if (d.box.size() != rank)
    return "a TMA map of `" + t.name + "`: a box of " + std::to_string(d.box.size()) + " dimensions for a rank-" +
           std::to_string(rank) + " tensor";
  int bytes = 0;
  if (!dataTypeOf(t.elem, out.dataType, bytes)) return "a TMA map of `" + t.name + "`: no TMA element type for it";
  switch (d.swizzleBytes) {
  case 0: out.swizzle = 0; break;
  case 32: out.swizzle = 1; break;
  case 64: out.swizzle = 2; break;
  case 128: out.swizzle = 3; break;
  default: return "a TMA map of `" + t.name + "`: swizzle of " + std::to_string(d.swizzleBytes) + " bytes";
  }
  out.rank = uint32_t(rank);
  // Innermost first: the driver's dimension 0 is the tensor's last.
  uint64_t pitch = uint64_t(bytes);
  for (size_t i = 0; i < rank; ++i) {
    const kir::TensorDim &dim = t.dims[rank - 1 - i];
    int64_t extent = dim.value >= 0 ? dim.value : dim.size < sizes.size() ? sizes[dim.size] : -1;
    if (extent < 1 || uint64_t(extent) > (uint64_t(1) << 32))
      return "a TMA map of `" + t.name + "`: extent " + std::to_string(extent) + " of dimension `" + dim.sym + "`";
    out.dims[i] = uint64_t(extent);
    if (i > 0) {
      // Strides are multiples of 16 bytes below 2^40: rows that @aligned keeps whole 16-byte chunks.
      if (pitch % 16 != 0 || pitch >= (uint64_t(1) << 40))
        return "a TMA map of `" + t.name + "`: rows of " + std::to_string(pitch) +
               " bytes, not a multiple of 16 (TMA needs @aligned rows)";
      out.strides[i - 1] = pitch;
    }
    pitch *= uint64_t(extent);
    int64_t box = d.box[rank - 1 - i];
    if (box < 1 || box > 256) return "a TMA map of `" + t.name + "`: a box of " + std::to_string(box) + " (1 to 256)";
    out.box[i] = uint32_t(box);
    out.elementStrides[i] = 1;
  }
  // The box's inner row is whole 16-byte chunks, and with a swizzle no wider than it.
  uint64_t inner = uint64_t(out.box[0]) * uint64_t(bytes);
  if (inner % 16 != 0) return "a TMA map of `" + t.name + "`: a box row of " + std::to_string(inner) + " bytes";
  if (d.swizzleBytes && inner > uint64_t(d.swizzleBytes))
    return "a TMA map of `" + t.name + "`: a box row of " + std::to_string(inner) + " bytes under a " +
           std::to_string(d.swizzleBytes) + "-byte swizzle";
  out.l2Promotion = inner >= 128 ? kL2Promote256 : kL2Promote128;
  return "";
}

} // namespace ph::rt
