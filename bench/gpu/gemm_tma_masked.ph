// A GEMM whose every operand slice may pass an extent (M, N and K ragged) while its rows stay
// whole 16-byte chunks (K and N multiples of 8): on sm_90a with PH_TILEGPU_TMA=1 its rings are
// filled by TMA, whose boxes read zeros past the extents, so the masks cost nothing
// (bench/gpu/tma_device.sh checks it against the interpreter; docs/tilegpu.md, "TMA").
@tensorcore
@launch(256)
@autotune(BM in [128], BN in [128, 256], BK in [64])
@aligned(K = 8, N = 8)
kernel gemm_masked_w8(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  O[row :+ BM, col :+ BN] = acc
}
