// GEMM with a bias and an activation epilogue: O = act(A·B + bias), 16-bit inputs, f32
// accumulation, 16-bit output. One CTA per BM x BN block of O (grid: ceil(M / BM) x
// ceil(N / BN)); the K loop streams BK-wide slices of A and B.

/// `relu(A·B + bias)` in f16: A [M, K], B [K, N], bias [1, N].
@tensorcore
@autotune(BM in [64, 128], BN in [64, 128], BK in [32, 64])
@aligned(M = BM, N = BN, K = BK)
kernel gemm_relu_f16(A: tensor<f16>[M, K], B: tensor<f16>[K, N], Bias: tensor<f16>[1, N],
                     O: tensor<f16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  acc = acc + Bias[0 :+ 1, col :+ BN]
  O[row :+ BM, col :+ BN] = tmax(acc, 0.0)
}

/// The same on 8 warps (256 threads): a 128x256 CTA tile (on sm_90a two warpgroups of
/// 64x256, CUTLASS's Hopper tile), which halves the operand bytes each multiply-add
/// reads from L2 against 128x128.
@tensorcore
@launch(256)
@autotune(BM in [128], BN in [128, 256], BK in [32, 64])
@aligned(M = BM, N = BN, K = BK)
kernel gemm_relu_f16_w8(A: tensor<f16>[M, K], B: tensor<f16>[K, N], Bias: tensor<f16>[1, N],
                        O: tensor<f16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  acc = acc + Bias[0 :+ 1, col :+ BN]
  O[row :+ BM, col :+ BN] = tmax(acc, 0.0)
}

/// `gelu(A·B + bias)` in bf16, GELU's tanh form written as x·sigmoid(2u):
/// 0.5x(1 + tanh(u)) = x / (1 + exp(-2u)), u = 0.7978845608(x + 0.044715x³).
@tensorcore
@autotune(BM in [64, 128], BN in [64, 128], BK in [32, 64])
@aligned(M = BM, N = BN, K = BK)
kernel gemm_gelu_bf16(A: tensor<bf16>[M, K], B: tensor<bf16>[K, N], Bias: tensor<bf16>[1, N],
                      O: tensor<bf16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  let x = acc + Bias[0 :+ 1, col :+ BN]
  O[row :+ BM, col :+ BN] = x / (1.0 + exp(-1.5957691216 * (x + 0.044715 * x * x * x)))
}

/// `relu(A·B)` in f16 without a bias: the kernel `shared/tools/ph_vs_torch.py` times next to
/// cuBLAS (C = relu(A B)).
@tensorcore
@autotune(BM in [64, 128], BN in [64, 128], BK in [32, 64])
@aligned(M = BM, N = BN, K = BK)
kernel gemm_relu(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  C[row :+ BM, col :+ BN] = tmax(acc, 0.0)
}

/// `relu(A·B + bias)` at any M, N, K (partial blocks masked): the same kernel without
/// `@aligned`, for shapes that are not multiples of the tile.
@tensorcore
@autotune(BM in [64, 128], BN in [64, 128], BK in [32])
kernel gemm_relu_f16_ragged(A: tensor<f16>[M, K], B: tensor<f16>[K, N], Bias: tensor<f16>[1, N],
                            O: tensor<f16>[M, N]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  var acc: tile<f32>[BM, BN] = 0.0
  for k in range(0, K, BK) {
    acc += dot(A[row :+ BM, k :+ BK], B[k :+ BK, col :+ BN])
  }
  acc = acc + Bias[0 :+ 1, col :+ BN]
  O[row :+ BM, col :+ BN] = tmax(acc, 0.0)
}
