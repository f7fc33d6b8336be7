// Flash attention for bench/gpu/bench_tensorcore.py: the seed's kernel over [B, H, N, D]
// (one head is B = H = 1) with a wider autotune space than the examples, causal and not.
// @launch is not autotuned, so 4 warps (16 or 32 rows each) and 8 warps (16 rows each) are two kernels.

@tensorcore
@launch(128)
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64, 128])
@aligned(N = BR)
kernel attn_w4(Q: tensor<f16>[B, H, N, D], K: tensor<f16>[B, H, N, D], V: tensor<f16>[B, H, N, D],
               O: tensor<f16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[ctx.block.z, ctx.block.y, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K[ctx.block.z, ctx.block.y, :, :], V[ctx.block.z, ctx.block.y, :, :], scale, BR, BC)
  O[ctx.block.z, ctx.block.y, row :+ BR, :] = acc
}

@tensorcore
@launch(256)
@autotune(D in [64, 128], BR in [128], BC in [32, 64, 128])
@aligned(N = BR)
kernel attn_w8(Q: tensor<f16>[B, H, N, D], K: tensor<f16>[B, H, N, D], V: tensor<f16>[B, H, N, D],
               O: tensor<f16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[ctx.block.z, ctx.block.y, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K[ctx.block.z, ctx.block.y, :, :], V[ctx.block.z, ctx.block.y, :, :], scale, BR, BC)
  O[ctx.block.z, ctx.block.y, row :+ BR, :] = acc
}

@tensorcore
@launch(128)
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64, 128])
@aligned(N = BR)
kernel causal_w4(Q: tensor<f16>[B, H, N, D], K: tensor<f16>[B, H, N, D], V: tensor<f16>[B, H, N, D],
                 O: tensor<f16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[ctx.block.z, ctx.block.y, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[ctx.block.z, ctx.block.y, kt :+ BC, :]
    let v = V[ctx.block.z, ctx.block.y, kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    causal_mask(s, row, kt)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[ctx.block.z, ctx.block.y, row :+ BR, :] = acc
}

@tensorcore
@launch(256)
@autotune(D in [64, 128], BR in [128], BC in [32, 64, 128])
@aligned(N = BR)
kernel causal_w8(Q: tensor<f16>[B, H, N, D], K: tensor<f16>[B, H, N, D], V: tensor<f16>[B, H, N, D],
                 O: tensor<f16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[ctx.block.z, ctx.block.y, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[ctx.block.z, ctx.block.y, kt :+ BC, :]
    let v = V[ctx.block.z, ctx.block.y, kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    causal_mask(s, row, kt)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[ctx.block.z, ctx.block.y, row :+ BR, :] = acc
}
