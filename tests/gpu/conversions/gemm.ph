// Conversions after a tensor-core GEMM (the accumulator in the mma / wgmma layout's
// registers): the inputs are small integers (tests/gpu/conversions/inputs.py), so every sum
// is exact in f32 whatever the order, and what is stored has one right answer: the product by
// 0.375 (exact), by 0.3 (one f32 rounding) and by 1e30 and 3000 (saturating i32, f16 past
// its range) converted to f16, bf16 and i32 by docs/language.md's "Conversions".
@tensorcore
@autotune(BM in [64], BN in [64], BK in [32])
@aligned(N = BM)
kernel gemm_convert(A: tensor<f16>[N, 64], B: tensor<f16>[64, 64], H: tensor<f16>[N, 64], Bf: tensor<bf16>[N, 64],
                    I: tensor<i32>[N, 64], Sat: tensor<i32>[N, 64], Over: tensor<f16>[N, 64]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, 64, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  H[row :+ BM, col :+ BN] = acc * 0.3
  Bf[row :+ BM, col :+ BN] = acc * 0.3
  I[row :+ BM, col :+ BN] = acc * 0.375
  Sat[row :+ BM, col :+ BN] = acc * 1.0e30
  Over[row :+ BM, col :+ BN] = acc * 3000.0
}
