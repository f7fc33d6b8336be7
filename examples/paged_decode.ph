// Decode attention over a paged key-value cache (vLLM's layout): the keys and values of every
// sequence live in fixed-size pages of a shared pool, and a block table lists each sequence's
// pages. One CTA per sequence and key-value head; the G query heads of the group are its rows.

@autotune(D in [128], G in [4], PS in [16])
@grid(HK, B)
kernel paged_decode(Q: tensor<f16>[B, H, D], Kp: tensor<f16>[P, HK, PS, D], Vp: tensor<f16>[P, HK, PS, D],
                    Table: tensor<i32>[B, NP], Lens: tensor<i32>[B], O: tensor<f16>[B, H, D], scale: f32) {
  let kvh = ctx.block.x
  let b = ctx.block.y
  let len = Lens[b]
  let q = Q[b, kvh * G :+ G, :]
  var acc: tile<f32>[G, D] = 0.0
  var m: tile<f32>[G, 1] = -1.0e30
  var l: tile<f32>[G, 1] = 0.0
  paged_decode_attention(acc, m, l, q, Kp[:, kvh, :, :], Vp[:, kvh, :, :], Table[b, :], scale,
                         0, (len + PS - 1) / PS, len, G, PS)
  acc = acc / l
  O[b, kvh * G :+ G, :] = acc
}
