//===- Npy.h - Reading and writing NumPy .npy files ------------*- C++ -*-===//
//
// `ph run --in Q=q.npy --out O=o.npy`: format versions 1.0 and 2.0 (3.0 read
// too), C order, little-endian float16 (`<f2`), float32 (`<f4`) and int32
// (`<i4`). NumPy has no bfloat16: a bf16 tensor reads float32 files (rounded
// to nearest even) and is written as float32 (exactly). NumPy has no fp8
// either: an f8e4m3 or f8e5m2 tensor reads and writes uint8 (`|u1`) arrays of
// its bits (ml_dtypes' and PyTorch's encodings: `a.view(ml_dtypes.float8_e4m3fn)`,
// `torch.from_numpy(a).view(torch.float8_e4m3fn)`), and reads float32 or float16
// arrays too (rounded to nearest even, saturating: ph/Fp8.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"
#include "ph/Launch.h"

#include <string>
#include <string_view>

namespace ph::npy {

/// Parses the bytes of a .npy file. Returns "" or an error.
std::string parse(std::string_view bytes, HostTensor &out);
/// Reads a .npy file; errors start with the path.
std::string read(const std::string &path, HostTensor &out);

/// The bytes of a version 1.0 .npy file (2.0 when the header needs it).
std::string serialize(const HostTensor &t);
/// Writes a .npy file; errors start with the path.
std::string write(const std::string &path, const HostTensor &t);

/// Checks an array read from `path` against tensor parameter `p` of kernel
/// `k`: element type and rank, and every static extent. A bf16 parameter
/// accepts a float32 array, converted in place; an fp8 parameter a uint8 array
/// (its bits) or a float32 or float16 array (rounded). Returns "" or an error
/// naming the file, the parameter and its declaration.
std::string fitToParam(HostTensor &t, const kir::Kernel &k, const kir::TensorParam &p,
                       const std::string &path);

/// `float16`, `float32`, `int32`, `bfloat16`, `uint8` (fp8 bits).
const char *dtypeName(Elem e);

} // namespace ph::npy
