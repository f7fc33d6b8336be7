// Flash attention written out by hand, with the last key block masked: the same kernel as
// flash_attention.ph, and it compiles to the same MLIR at every stage.
@tensorcore
@launch(128)
@autotune(D in [64], BR in [64], BC in [32])
@aligned(Nq = BR)
kernel flash_attention_manual(Q: tensor<f16>[Nq, D], K: tensor<f16>[Nk, D], V: tensor<f16>[Nk, D],
                              O: tensor<f16>[Nq, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, extent(K, 0), BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    // Keys past Nk in the last block must not count.
    mask_cols(s, extent(K, 0) - kt, -1.0e30)
    var mnew = rowmax(s)
    mnew = tmax(m, mnew)
    s = exp(s - mnew)
    var corr = exp(m - mnew)
    l = l * corr
    l += rowsum(s)
    acc = acc * corr
    acc += dot(s, v)
    m = mnew
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
