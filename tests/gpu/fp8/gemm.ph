// fp8 meeting the tensor cores (tests/gpu/fp8_device.sh; docs/language.md, "fp8"): an e4m3
// operand of a @tensorcore dot is its f32 widening, which meeting an f16 operand is rounded to
// f16, exactly (every e4m3 value is an f16 value); the tensor cores then multiply f16 by f16.
// Compared with the interpreter within --check's tolerance (a sum's order differs), not bit for bit.
@tensorcore
@autotune(BM in [64], BN in [64], BK in [32])
@aligned(M = BM, N = BN, K = BK)
kernel gemm_fp8(A: tensor<f8e4m3>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  O[row :+ BM, col :+ BN] = acc
}
