//===- Launch.h - Host tensors and binding a launch's arguments -*- C++ -*-===//
//
// What every target (the fp64 interpreter, the CPU JIT, the CUDA runtime)
// needs to run one specialised kernel: host tensors, the size symbols bound
// from their shapes (with @aligned and autotune checks), the scalar
// arguments, and the grid. No MLIR, no CUDA: ph-run links this too.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"
#include "ph/Limits.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ph {

/// A dense, row-major host array of f16/bf16 (stored as raw 16-bit), f8e4m3/f8e5m2
/// (raw 8-bit, ph/Fp8.h), f32 or i32.
struct HostTensor {
  Elem elem = Elem::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t numElements() const;
  double get(int64_t i) const;          // element i converted to double
  void set(int64_t i, double v);        // rounds to nearest even for 16- and 8-bit types
  static HostTensor zeros(Elem e, std::vector<int64_t> shape);
};

uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t b);
/// Rounds `v` to the nearest value of `e`, straight from double (no double
/// rounding through float): ties to even for f16, bf16 and f32; for i32,
/// toward zero and wrapped to 32 bits (non-finite values give INT32_MIN).
double roundToElem(double v, Elem e);

/// The arguments of one launch, in the kernel's own orders
/// (Kernel::tensors, Kernel::sizes, Kernel::scalars).
struct LaunchArgs {
  std::vector<HostTensor *> tensors;
  std::vector<int64_t> sizes;
  std::vector<double> scalars;
  int64_t grid[3] = {1, 1, 1};
};

/// What the user gave on the command line (or the editor in a run request).
struct LaunchRequest {
  std::map<std::string, int64_t> sizes;   // --size N=4096
  std::map<std::string, double> scalars;  // --arg scale=0.125
  std::map<std::string, HostTensor> inputs; // --in Q=q.npy (already read)
  uint64_t seed = 0;
  /// All the tensors together may take at most this many bytes (ph/Limits.h).
  uint64_t maxTensorBytes = limits::kMaxRunTensorBytes;
};

/// Binds every size symbol from the inputs' shapes and `--size`, checks that
/// tensors agree, that @aligned holds and that autotune constants match, then
/// allocates the tensors not given (inputs drawn uniformly from [-1, 1) with
/// the seed, never zeros; outputs poisoned with NaN) and computes the grid.
/// Returns an error message naming the tensors and sizes involved, or "".
std::string bindLaunch(const kir::Kernel &k, const LaunchRequest &req,
                       std::vector<HostTensor> &storage, LaunchArgs &out);

/// A deterministic default for a scalar the user did not give (`scale` gets
/// 1/sqrt(D) when a size or constant named D exists, else 1).
double defaultScalar(const kir::Kernel &k, const std::string &name);
/// The same, also looking at the sizes bound at launch (in Kernel::sizes
/// order), so that `scale` gets 1/sqrt(D) when D is a run-time size.
double defaultScalar(const kir::Kernel &k, const std::string &name,
                     const std::vector<int64_t> &sizes);

/// `--check` (ph run, ph-run, ph bench: the one rule): how close a target's output
/// must be to the reference, as a relative error ||out - ref||_2 / ||ref||_2:
/// 1e-4 for f32 (a GPU's reduction order: 8.9e-6 measured on decode_split), 3e-3
/// for f16 (about 6 units in the last place), 1e-2 for bf16 (8 significant bits:
/// one unit in the last place is 3.9e-3), 3e-2 for f8e4m3 and 6e-2 for f8e5m2 (a
/// quarter of a unit in the last place), exact (0) for i32.
double checkTolerance(Elem e);

/// How one element pair compares when either is not finite (docs/running.md, `--check`):
/// a NaN in both agrees, the same infinity in both agrees (inf - inf is NaN, so these are
/// not subtracted); a NaN or an infinity against anything else disagrees.
enum class NonFinite { No, Agree, Disagree };
NonFinite compareNonFinite(double out, double ref);

struct OutputComparison {
  double maxAbs = 0;       // largest |out - ref| over elements finite in both
  int64_t worst = -1;      // the element where it is (-1: none finite in both)
  double relErr = 0;       // ||out - ref|| / ||ref|| over those (the plain norm when ref is 0)
  double tolerance = 0;    // checkTolerance(out.elem)
  int64_t nanCount = 0;    // elements NaN or infinite in one but not equal in the other: an
                           // unwritten output (NaN), or a NaN or overflow produced
  int64_t agreedNonFinite = 0; // NaN in both, or the same infinity in both
  bool passed = true;      // nanCount == 0 and relErr <= tolerance
};

/// Compares two tensors of one shape element by element: the comparison of every
/// `--check` and `--ref` (ph run, ph-run, ph bench).
OutputComparison compareOutputs(const HostTensor &out, const HostTensor &ref);
/// One line: "rel L2 error 1.9e-05 (tolerance 0.003), max abs error 6.1e-05 at element 37"
/// (what ph-run prints, and tests/gpu scripts grep), or why not.
std::string comparisonSummary(const OutputComparison &c);

} // namespace ph
