// Tiles whose extents are neither a multiple nor a divisor of their layout's pass
// ([6, 24] under 16-byte vectors and 4 warps) build on the TileGPU path: a blocked
// layout covers any extent, wrapping around (positions modulo the extent), and a
// reduced dimension is covered exactly. They were refused ("has no register layout on
// the GPU"), and before that ran out of memory; 97 of the 2,000 programs of the last
// GPU differential run had such a tile (docs/reliability.md, bug 7).
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// RUN: ph build %s --target sm_90a -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// BUILD-DAG: cols []: sm_{{80|90a}}
// BUILD-DAG: ids []: sm_{{80|90a}}
// BUILD-DAG: fine []: sm_{{80|90a}}
// BUILD-DAG: part []: sm_{{80|90a}}
// RUN: ph emit %s --kernel cols --stage tilegpu --target sm_80 | %FileCheck %s --check-prefix=COLS
// COLS: #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]}>
// COLS: tile.colsum
// 16-bit reductions shuffle 32-bit values (nvvm.shfl.sync takes no f16): widened, rounded once.
// RUN: ph emit %s --kernel fine --stage gpu --target sm_80 | %FileCheck %s --check-prefix=HALF
// HALF: arith.extf %{{.*}} : f16 to f32
// HALF: gpu.shuffle xor {{.*}} : f32
// HALF: arith.truncf %{{.*}} : f32 to f16
// A part of a tile and a partial assignment in a kernel with index tiles (which only the
// TileGPU lowering takes): through a shared buffer (difftest `tilegpu-iota-insert`).
// RUN: ph emit %s --kernel part --stage gpu --target sm_80 | %FileCheck %s --check-prefix=PART --implicit-check-not=tile.insert --implicit-check-not=tile.extract
// PART-LABEL: gpu.func @part
// PART: llvm.store {{.*}} : f32, !llvm.ptr<3>
// PART: gpu.barrier
// PART: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// PART: gpu.return

kernel cols(X: tensor<f16>[N, 24], Y: tensor<f32>[1, 24]) {
  let x = X[0 :+ 6, :]
  Y[0 :+ 1, :] = colsum(x)
}

kernel ids(X: tensor<f16>[N, 24], Y: tensor<f32>[N, 24]) {
  let x = X[0 :+ 6, :]
  Y[0 :+ 6, :] = where(col_ids(x) < 3, x, 0.0)
}

kernel fine(X: tensor<f16>[N, 32], Y: tensor<f32>[1, 32]) {
  let x = X[0 :+ 8, :]
  Y[0 :+ 1, :] = colsum(x) + colmax(x)
}

kernel part(X: tensor<f32>[N, 16], Y: tensor<f32>[N, 16]) {
  let x = X[0 :+ 8, :]
  var y: tile<f32>[8, 16] = where(row_ids(x) < 3, x, 1.0)
  y[:, 5 :+ 4] = x[:, 0 :+ 4] * 2.0
  Y[0 :+ 8, :] = y
}
