/// examples/cross_entropy.ph on 128 or 256 threads (membound_device.sh's `t256` variant), with
/// 4096-column blocks in the space: more warps a row block to hide the loads' latency behind.
@autotune(BR in [1, 4], BC in [1024, 2048, 4096], A in [8], T in [128, 256], where BR * BC <= 8192)
@launch(T)
@aligned(V = A)
kernel cross_entropy(X: tensor<f16>[N, V], L: tensor<i32>[N, 1], Loss: tensor<f32>[N, 1]) {
  let r = ctx.block.x * BR
  let label = L[r :+ BR, 0 :+ 1]
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  var picked: tile<f32>[BR, 1] = 0.0
  let full = extent(X, 1) / BC * BC
  for c in range(0, full, BC) {
    let x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
    picked += rowsum(where(col_ids(x) == label - c, x, 0.0))
    var mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp(x - mnew))
    m = mnew
  }
  if full < extent(X, 1) {
    var x: tile<f32>[BR, BC] = X[r :+ BR, full :+ BC]
    let col = col_ids(x)
    picked += rowsum(where(col == label - full, x, 0.0))
    x = where(col < extent(X, 1) - full, x, -1.0e30)
    var mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp(x - mnew))
    m = mnew
  }
  Loss[r :+ BR, 0 :+ 1] = m + log(l) - picked
}
