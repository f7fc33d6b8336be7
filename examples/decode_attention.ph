// Flash-decoding with grouped-query attention: one new query per sequence and head attends to
// the first Lens[b] entries of the key-value cache. The cache is split S ways so that even one
// sequence fills the GPU; decode_split writes each split's partial results and decode_combine
// merges them. The G query heads that share a key-value head are processed together.

@autotune(D in [128], G in [4, 1], BC in [64], S in [16, 8])
@grid(S, HK, B)
kernel decode_split(Q: tensor<f16>[B, H, D], K: tensor<f16>[B, HK, N, D], V: tensor<f16>[B, HK, N, D],
                    Lens: tensor<i32>[B], Op: tensor<f32>[B, H, S, D], Mp: tensor<f32>[B, H, S],
                    Lp: tensor<f32>[B, H, S], scale: f32) {
  let split = ctx.block.x
  let kvh = ctx.block.y
  let b = ctx.block.z
  let len = Lens[b]
  // Each split takes an equal share of the cache, a whole number of key blocks.
  let chunk = (len + S * BC - 1) / (S * BC) * BC
  let lo = split * chunk
  // Converted once: the scores read q at every key block.
  var q: tile<f32>[G, D] = Q[b, kvh * G :+ G, :]
  var acc: tile<f32>[G, D] = 0.0
  var m: tile<f32>[G, 1] = -1.0e30
  var l: tile<f32>[G, 1] = 0.0
  decode_attention(acc, m, l, q, K[b, kvh, :, :], V[b, kvh, :, :], scale, lo, lo + chunk, len, G, BC)
  Op[b, kvh * G :+ G, split, :] = acc
  Mp[b, kvh * G :+ G, split :+ 1] = m
  Lp[b, kvh * G :+ G, split :+ 1] = l
}

@autotune(D in [128], S in [16, 8])
kernel decode_combine(Op: tensor<f32>[B, H, S, D], Mp: tensor<f32>[B, H, S], Lp: tensor<f32>[B, H, S],
                      O: tensor<f16>[B, H, D]) {
  let h = ctx.block.x
  let b = ctx.block.y
  var o: tile<f32>[1, D] = 0.0
  combine_splits(o, Op[b, h, :, :], Mp[b, h :+ 1, :], Lp[b, h :+ 1, :])
  O[b, h :+ 1, :] = o
}
