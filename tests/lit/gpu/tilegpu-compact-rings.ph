// A @tensorcore kernel whose rings at their default depth do not fit the CTA's shared memory
// (an operand loaded once beside a deepened K ring; two K loops in sequence, whose rings add
// up) is lowered again with every ring at 2 stages, as the deleted legacy tensor-core emitter
// had them, before the SIMT fallback, which needs more shared memory still (E0501). Found by a
// review of the deletion: both were E0501 on sm_80 (and `t` on sm_90a) in between.
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t80 2>&1 | %FileCheck %s --check-prefix=SM80 --implicit-check-not=error
// RUN: ph build %s --target sm_90a -o %t90 2>&1 | %FileCheck %s --check-prefix=SM90A --implicit-check-not=error
// SM80-DAG: h []: sm_80, {{.*}}, 104448 B shared memory, {{.*}}(TileGPU, mma.sync)
// SM80-DAG: t []: sm_80, {{.*}}, 147456 B shared memory, {{.*}}(TileGPU, mma.sync)
// SM90A-DAG: h []: sm_90a, {{.*}}(TileGPU, wgmma)
// SM90A-DAG: t []: sm_90a, {{.*}}, 131072 B shared memory, {{.*}}(TileGPU, wgmma)

@tensorcore
@launch(256)
@aligned(M = 128, N = 128)
kernel h(A: tensor<f16>[M, 128], B: tensor<f16>[N, 128], O: tensor<f32>[M, 128]) {
  let r = ctx.block.x * 128
  let a = A[r :+ 128, :]
  var acc: tile<f32>[128, 128] = 0.0
  for k in range(0, extent(B, 0), 128) {
    let b = B[k :+ 128, :]
    acc += dot_t(a, b)
  }
  O[r :+ 128, :] = acc
}

@tensorcore
@launch(256)
@aligned(M = 128, N = 128, K = 64)
kernel t(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f16>[M, K], D: tensor<f16>[N, K], O: tensor<f32>[M, N]) {
  let r = ctx.block.x * 128
  let c = ctx.block.y * 128
  var acc: tile<f32>[128, 128] = 0.0
  for k in range(0, extent(A, 1), 64) {
    acc += dot_t(A[r :+ 128, k :+ 64], B[c :+ 128, k :+ 64])
  }
  var acc2: tile<f32>[128, 128] = 0.0
  for k in range(0, extent(C, 1), 64) {
    acc2 += dot_t(C[r :+ 128, k :+ 64], D[c :+ 128, k :+ 64])
  }
  O[r :+ 128, c :+ 128] = acc + acc2
}
