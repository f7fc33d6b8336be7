//===- CopyChunks.h - Whether cp.async can move a load -------------------------===//
#pragma once

#include "ph/Dialect/Tile/Divisibility.h"
#include "ph/Dialect/Tile/TileDialect.h"

namespace ph::tilegpu {

/// Whether cp.async can move the load's rows as whole, aligned 16-byte chunks (all that
/// AsyncCopyPattern lowers): the last dimension kept, its length a multiple of a chunk, its
/// start and the tensor's row length known multiples of one. tilegpu-pipeline stages only
/// such loads for mma.sync and FMA dots; tilegpu-assign-layouts takes wgmma only where every
/// operand it reads from shared memory is one (wgmma has no register path for B).
bool copiesInChunks(tile::LoadOp ld);

/// The power of two an index is known to be a multiple of (ph/Dialect/Tile/Divisibility.h).
using ph::tile::divisibility;

} // namespace ph::tilegpu
