// A GEMM whose K and N are not `@aligned` (partial blocks masked) on sm_90a: its operand rows
// are not whole 16-byte chunks, which is all cp.async moves into the shared buffers wgmma reads,
// so the TileGPU path takes mma.sync for it; it failed to legalize `tilegpu.async_copy` on wgmma
// and fell back to the legacy emitter (with PH_GPU_LOWERING=tilegpu: an error). The aligned
// twin keeps wgmma. Lit Dialect/TileGPU/assign-layouts-wgmma-unaligned.mlir tests the choice.
// REQUIRES: mlir
// RUN: env PH_GPU_LOWERING=tilegpu ph build %s --target sm_90a -o %t 2>&1 | %FileCheck %s
// RUN: ph build %s --target sm_90a -o %t2 2>&1 | %FileCheck %s
// CHECK-DAG: ragged []: sm_90a, {{.*}}(TileGPU, mma.sync)
// CHECK-DAG: aligned []: sm_90a, {{.*}}(TileGPU, wgmma)

@tensorcore
kernel ragged(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N]) {
  let row = ctx.block.x * 64
  let col = ctx.block.y * 64
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 32) {
    acc += dot(A[row :+ 64, k :+ 32], B[k :+ 32, col :+ 64])
  }
  O[row :+ 64, col :+ 64] = acc
}

@tensorcore
@aligned(K = 32, N = 64)
kernel aligned(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N]) {
  let row = ctx.block.x * 64
  let col = ctx.block.y * 64
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 32) {
    acc += dot(A[row :+ 64, k :+ 32], B[k :+ 32, col :+ 64])
  }
  O[row :+ 64, col :+ 64] = acc
}
