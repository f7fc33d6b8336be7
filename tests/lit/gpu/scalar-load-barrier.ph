// A scalar read from a tensor (`Lens[b]`) goes through a shared-memory word that every thread
// reads; a barrier must follow that read before the word is reused by the next tile, or a
// fast thread's K-block load overwrites it while a slow one still reads it (found by
// compute-sanitizer's racecheck on kv_append and decode_split).
// The legacy SIMT emitter (PH_GPU_LOWERING=legacy; by default the TileGPU SIMT policy takes these kernels).
// REQUIRES: mlir
// RUN: env PH_GPU_LOWERING=legacy ph emit %s --kernel step --stage gpu | %FileCheck %s

// CHECK-LABEL: gpu.func @step
// The scalar: one thread stores it, a barrier, every thread loads it, a barrier.
// CHECK: memref.store %{{.*}}, %[[W:[a-z_0-9]+]][%{{.*}}] : memref<1xi32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[W]][%{{.*}}] : memref<1xi32
// CHECK-NEXT: gpu.barrier
// Only then the first tile is loaded into shared memory.
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<8xf16>
kernel step(Knew: tensor<f16>[B, 1, 128], Kcache: tensor<f16>[B, N, 128], Lens: tensor<i32>[B]) {
  let b = ctx.block.x
  let pos = Lens[b]
  Kcache[b, pos :+ 1, :] = Knew[b, :, :]
}
