// Flash-decoding with grouped-query attention on the tensor cores. The G query heads that
// share a key-value head are too few rows for mma.sync's 16, so each CTA (one warp) takes
// GP = 16 query rows starting at its group's first: the rows past the group compute scores
// nobody reads (and rows past H load as zeros), which costs nothing next to reading the
// cache. Partial results are kept for the group's G rows only ([B, HK, G, S, D]): the store
// of the GP rows into a dimension of G writes nothing past it, so the padding costs no
// memory traffic. Same function as decode_attention.ph's kernels.

@tensorcore
@launch(32)
@autotune(D in [128], G in [4], GP in [16], BC in [32, 64], S in [8, 12, 16, 32])
@grid(S, HK, B)
kernel decode_split_tc(Q: tensor<f16>[B, H, D], K: tensor<f16>[B, HK, N, D], V: tensor<f16>[B, HK, N, D],
                       Lens: tensor<i32>[B], Op: tensor<f32>[B, HK, G, S, D], Mp: tensor<f32>[B, HK, G, S],
                       Lp: tensor<f32>[B, HK, G, S], scale: f32) {
  let split = ctx.block.x
  let kvh = ctx.block.y
  let b = ctx.block.z
  let len = Lens[b]
  // Each split takes an equal share of the cache, a whole number of key blocks.
  let chunk = (len + S * BC - 1) / (S * BC) * BC
  let lo = split * chunk
  let q = Q[b, kvh * G :+ GP, :]
  var acc: tile<f32>[GP, D] = 0.0
  var m: tile<f32>[GP, 1] = -1.0e30
  var l: tile<f32>[GP, 1] = 0.0
  decode_attention(acc, m, l, q, K[b, kvh, :, :], V[b, kvh, :, :], scale, lo, lo + chunk, len, GP, BC)
  Op[b, kvh, 0 :+ GP, split, :] = acc
  Mp[b, kvh, 0 :+ GP, split :+ 1] = m
  Lp[b, kvh, 0 :+ GP, split :+ 1] = l
}

@autotune(D in [128], G in [4], S in [8, 12, 16, 32])
@grid(H, B)
kernel decode_combine_tc(Op: tensor<f32>[B, HK, G, S, D], Mp: tensor<f32>[B, HK, G, S],
                         Lp: tensor<f32>[B, HK, G, S], O: tensor<f16>[B, H, D]) {
  let h = ctx.block.x
  let b = ctx.block.y
  let kvh = h / G
  let g = h - kvh * G
  var o: tile<f32>[1, D] = 0.0
  combine_splits(o, Op[b, kvh, g, :, :], Mp[b, kvh, g :+ 1, :], Lp[b, kvh, g :+ 1, :])
  O[b, h :+ 1, :] = o
}
