/// examples/cross_entropy.ph with the label's logit kept per element through the loop and
/// summed once after it (layer_norm.ph's rule: one row reduction a block fewer, two barriers
/// and some twenty instructions a thread a block), and blocks up to 4,096 columns (32 a thread
/// at 128 threads, so the two reductions left cost half as much an element). A bench variant
/// (membound_device.sh's `pe`).
@autotune(BR in [1, 4], BC in [1024, 2048, 4096], A in [1, 8], T in [128, 256],
          where BR * BC <= 8192 && (BC == 1024 && T == 128 || BC > 1024))
@launch(T)
@aligned(V = A)
kernel cross_entropy(X: tensor<f16>[N, V], L: tensor<i32>[N, 1], Loss: tensor<f32>[N, 1]) {
  let r = ctx.block.x * BR
  let label = L[r :+ BR, 0 :+ 1]
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  var picked: tile<f32>[BR, BC] = 0.0
  for c in range(0, extent(X, 1), BC) {
    var x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
    let col = col_ids(x)
    picked += where(col == label - c, x, 0.0)
    x = where(col < extent(X, 1) - c, x, -1.0e30)
    var mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp(x - mnew))
    m = mnew
  }
  Loss[r :+ BR, 0 :+ 1] = m + log(l) - rowsum(picked)
}
