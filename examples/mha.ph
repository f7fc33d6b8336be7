// Batched multi-head flash attention over [B, H, N, D] tensors: one CTA per block of BR
// queries of one head of one sequence (grid: ceil(N / BR) x H x B). D is 64 or 128; the
// launch picks the variant whose D matches the tensors. Blocks of BC keys with D * BC = 4096
// (64 keys at D = 64, 32 at D = 128: what one warpgroup holds in registers), and 128 x 128
// blocks at either D, which the GPU target runs on two warpgroups of 64 query rows
// (docs/tilegpu.md, "Two warpgroups where one would hold too much") and, on sm_90a, on wgmma
// (128 keys a block reach its N = 128). At D = 64 also 64 x 128 blocks on one warpgroup: on one
// head ([1, 1, 16384, 64]) their 256 CTAs keep every SM busy twice over where 128 query blocks
// of 128 rows leave a CTA alone on its SM (docs/tilegpu.md, "Query blocks of 64 rows for one
// head"). A configuration a target cannot hold (128 x 128 at D = 128 on sm_80's shared memory)
// is left out there (W0503).

@tensorcore
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64, 128], where D * BC == 4096 || BC == 128 && (BR == 128 || D == 64))
@aligned(N = BR)
kernel mha_f16(Q: tensor<f16>[B, H, N, D], K: tensor<f16>[B, H, N, D], V: tensor<f16>[B, H, N, D],
               O: tensor<f16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let h = ctx.block.y
  let b = ctx.block.z
  let q = Q[b, h, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K[b, h, :, :], V[b, h, :, :], scale, BR, BC)
  O[b, h, row :+ BR, :] = acc
}

@tensorcore
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64, 128], where D * BC == 4096 || BC == 128 && (BR == 128 || D == 64))
@aligned(N = BR)
kernel mha_bf16(Q: tensor<bf16>[B, H, N, D], K: tensor<bf16>[B, H, N, D], V: tensor<bf16>[B, H, N, D],
                O: tensor<bf16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let h = ctx.block.y
  let b = ctx.block.z
  let q = Q[b, h, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K[b, h, :, :], V[b, h, :, :], scale, BR, BC)
  O[b, h, row :+ BR, :] = acc
}

@tensorcore
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64, 128], where D * BC == 4096 || BC == 128 && (BR == 128 || D == 64))
@aligned(N = BR)
kernel mha_causal_f16(Q: tensor<f16>[B, H, N, D], K: tensor<f16>[B, H, N, D], V: tensor<f16>[B, H, N, D],
                      O: tensor<f16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let h = ctx.block.y
  let b = ctx.block.z
  let q = Q[b, h, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  // Keys past the block's last query never count.
  for kt in range(0, row + BR, BC) {
    let k = K[b, h, kt :+ BC, :]
    let v = V[b, h, kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    causal_mask(s, row, kt)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc * (1.0 / l)
  O[b, h, row :+ BR, :] = acc
}

@tensorcore
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64, 128], where D * BC == 4096 || BC == 128 && (BR == 128 || D == 64))
@aligned(N = BR)
kernel mha_causal_bf16(Q: tensor<bf16>[B, H, N, D], K: tensor<bf16>[B, H, N, D], V: tensor<bf16>[B, H, N, D],
                       O: tensor<bf16>[B, H, N, D], scale: f32) {
  let row = ctx.block.x * BR
  let h = ctx.block.y
  let b = ctx.block.z
  let q = Q[b, h, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[b, h, kt :+ BC, :]
    let v = V[b, h, kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    causal_mask(s, row, kt)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc * (1.0 / l)
  O[b, h, row :+ BR, :] = acc
}
