/// The first form of examples/gqa_prefill.ph, kept as a bench variant (defaults_device.sh's
/// attention step, label `masked`): the causal mask on every key block, one configuration, the
/// blocks of queries in launch order. 0.471 ms against FlexAttention's 0.415 on an H100 (N = 8,192,
/// 8 query heads over 2), where the example's diagonal-only mask took 0.354 against 0.449.
///
/// Grouped-query attention prefill (LLaMA 2 70B, Mistral): `H` query heads over `HK` key-value
/// heads, each key-value head shared by `H / HK` query heads, causal. One CTA per `BR` queries
/// of one query head (`ctx.block.y`); its key-value head is `h / (H / HK)`. Tensors are
/// `[heads, N, D]`; a slice with the head index fixed is an ordinary `[N, D]` view, passed to
/// the loop as one.
@tensorcore
@autotune(D in [64], BR in [64], BC in [32])
kernel gqa_prefill(Q: tensor<f16>[H, N, D], K: tensor<f16>[HK, N, D], V: tensor<f16>[HK, N, D],
                   O: tensor<f16>[H, N, D], scale: f32) {
  let h = ctx.block.y
  let hk = h / (extent(Q, 0) / extent(K, 0))
  let row = ctx.block.x * BR
  let q = Q[h, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[hk, kt :+ BC, :]
    let v = V[hk, kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = where(kt + col_ids(s) <= row + row_ids(s), s * scale, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[h, row :+ BR, :] = acc
}
