// tests/lit/gpu/lowering/short-k.ph's kernel, for gpu-lowering.test: its dot is 8 deep in K,
// which the mma.sync layout policy refuses (m16n8k16 reads K 16 deep).
@tensorcore
@aligned(M = 64, N = 16, K = 8)
kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f32>[M, N]) {
  let row = ctx.block.x * 64
  let col = ctx.block.y * 16
  var acc: tile<f32>[64, 16] = 0.0
  for k in range(0, K, 8) {
    acc += dot(A[row :+ 64, k :+ 8], B[k :+ 8, col :+ 16])
  }
  O[row :+ 64, col :+ 16] = acc
}
