//===- VariantKey.h - What a compiled variant depends on, hashed -*- C++ -*-===//
//
// The key of a variant in the build cache: a BLAKE3 hash of the checked,
// specialised kernel (every field of its kir, source locations as the path,
// line and column the backend writes into MLIR locations and PTX), the
// target, and the toolchain (the ph executable itself, ptxas, libdevice,
// environment variables that steer the lowering). Editing one kernel changes
// only the keys of that kernel's variants.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"

#include <string>

namespace ph {
class SourceManager;
}

namespace ph::cache {

/// The compiler's part of every key: its version, the running executable's
/// path, size and modification time (a rebuilt `ph` never reuses an older
/// one's entries), LLVM's version, and every PH_* environment variable
/// (PH_SIMT_*, PH_PTXAS, PH_CUDA_DIR, ...) and CUDA_PATH.
std::string compilerIdentity();

/// "path size mtime" of a file, or "path missing": a cheap identity for a
/// tool such as ptxas (the same check ccache makes by default).
std::string fileIdentity(const std::string &path);

/// A 64-hex-digit key for variant `k` built for `target` by `toolchain`
/// (compilerIdentity() plus whatever the target adds: ptxas, libdevice).
std::string variantKey(const kir::Kernel &k, const SourceManager *sources, const std::string &target,
                       const std::string &toolchain);

/// A 64-hex-digit key for any other content (`kind` keeps kinds apart):
/// ptxas's cubin by its input (GpuTarget.h's PtxasCache).
std::string contentKey(const std::string &kind, const std::string &content);

} // namespace ph::cache
