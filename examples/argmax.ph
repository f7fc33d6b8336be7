/// Greedy sampling: the index of the largest logit of each row of `X` (`[N, V]`, any V), as
/// `torch.argmax(x, dim=1, keepdim=True)`: the first one when it occurs more than once. One
/// read of X, `BC` columns at a time: each block's maximum and `rowargmax`, kept where the
/// block's maximum is strictly larger than the best so far (so an earlier column wins a tie).
/// Columns past V are masked with a comparison.
@autotune(BR in [4], BC in [128])
kernel argmax(X: tensor<f16>[N, V], Out: tensor<i32>[N, 1]) {
  let r = ctx.block.x * BR
  var best: tile<f32>[BR, 1] = -1.0e30
  var index: tile<i32>[BR, 1] = 0
  for c in range(0, extent(X, 1), BC) {
    var x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
    x = where(col_ids(x) + c < extent(X, 1), x, -1.0e30)
    let m = rowmax(x)
    index = where(m > best, rowargmax(x) + c, index)
    best = tmax(best, m)
  }
  Out[r :+ BR, 0 :+ 1] = index
}
