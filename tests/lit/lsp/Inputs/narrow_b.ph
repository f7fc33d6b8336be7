// tests/lit/gpu/lowering/narrow-b.ph's kernel, for gpu-lowering.test: its dot's B
// operand is one 8-column block per warp, which the mma.sync layout policy refuses.
@tensorcore
@aligned(M = 64, N = 8, K = 32)
kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f32>[M, N]) {
  let row = ctx.block.x * 64
  let col = ctx.block.y * 8
  var acc: tile<f32>[64, 8] = 0.0
  for k in range(0, K, 32) {
    acc += dot(A[row :+ 64, k :+ 32], B[k :+ 32, col :+ 8])
  }
  O[row :+ 64, col :+ 8] = acc
}
