// A scalar read from a tensor (`Lens[b]`) goes through a shared-memory word that every thread
// reads; a barrier must follow that read before the word is reused by the next tile, or a
// fast thread's K-block load overwrites it while a slow one still reads it (found by
// compute-sanitizer's racecheck on kv_append and decode_split).
// That was the legacy SIMT emitter (deleted on 2026-12-06). The TileGPU SIMT policy reads the
// scalar from global memory in every thread (a register, no shared word, no barrier to
// forget), then the tile.
// REQUIRES: mlir
// RUN: ph emit %s --kernel step --stage gpu | %FileCheck %s --implicit-check-not=gpu.barrier

// CHECK-LABEL: gpu.func @step
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: llvm.store %{{.*}} : vector<8xf16>, !llvm.ptr<1>
kernel step(Knew: tensor<f16>[B, 1, 128], Kcache: tensor<f16>[B, N, 128], Lens: tensor<i32>[B]) {
  let b = ctx.block.x
  let pos = Lens[b]
  Kcache[b, pos :+ 1, :] = Knew[b, :, :]
}
