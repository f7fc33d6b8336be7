// Wider key blocks for attention on two warpgroups (issue 15: "tile sizes up to 128x176"):
// attention_tc.ph's attn_w8 and causal_w8 with BC beyond 128. A block of BC keys that does not
// divide N leaves the last block masked. Measured in docs/tilegpu.md, "Tried and left out: wider key
// blocks, two-stage rings at D = 128": slower than 128 everywhere.

@tensorcore
@launch(256)
@autotune(D in [64, 128], BR in [128], BC in [128, 144, 176, 192])
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
@launch(256)
@autotune(D in [64, 128], BR in [128], BC in [128, 144, 176, 192])
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
