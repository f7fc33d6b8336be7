// The SIMT lowering of a streaming loop (docs/gpu.md): the body's loads issued an iteration
// ahead into registers the loop carries, stored to shared memory 16 bytes at a time; K's
// conversion to f32 read through (no f32 copy of K: no memref<2176xf32>); the single-use
// `s * 0.5` computed where exp reads it; acc updated in its own buffer (no copy back).
// The legacy SIMT emitter (PH_GPU_LOWERING=legacy; by default the TileGPU SIMT policy takes these kernels).
// REQUIRES: mlir
// RUN: env PH_GPU_LOWERING=legacy ph emit %s --kernel stream --stage gpu | %FileCheck %s --implicit-check-not="memref<2176xf32"

// CHECK-LABEL: gpu.func @stream
// acc's buffer, zeroed before the loop.
// CHECK: memref.store %cst{{[_0-9]*}}, %[[ACC:view_[0-9]+]]
// The first iteration's loads, before the loop.
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf16>, vector<8xf16>) : i32 {
// CHECK: llvm.store %arg{{[0-9]+}}, {{.*}} : vector<8xf16>, !llvm.ptr<3>
// CHECK: llvm.store %arg{{[0-9]+}}, {{.*}} : vector<8xf16>, !llvm.ptr<3>
// The next iteration's loads, before this one's dots.
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: gpu.barrier
// CHECK: %[[M:[0-9]+]] = arith.mulf
// CHECK-NEXT: math.exp %[[M]]
// CHECK: %[[OLD:[0-9]+]] = memref.load %[[ACC]]
// CHECK-NEXT: arith.mulf %[[OLD]]
// CHECK: arith.addf
// CHECK: memref.store %{{[0-9]+}}, %[[ACC]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield %{{.*}} : vector<8xf16>, vector<8xf16>
kernel stream(Q: tensor<f32>[1, 64], K: tensor<f16>[N, 64], O: tensor<f32>[1, 64]) {
  let q = Q[0 :+ 1, :]
  var acc: tile<f32>[1, 64] = 0.0
  for kt in range(0, N, 32) {
    let k = K[kt :+ 32, :]
    var s: tile<f32>[1, 32] = dot_t(q, k)
    s = exp(s * 0.5)
    acc = acc * 0.9 + dot(s, k)
  }
  O[0 :+ 1, :] = acc
}
