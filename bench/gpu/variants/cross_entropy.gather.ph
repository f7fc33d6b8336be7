/// examples/cross_entropy.ph with the label's logit read once, after the loops, as one scalar
/// `X[r, L[r, 0]]` (BR of them, in a loop over the rows), instead of picked out of every block with a compare and a
/// select an element: three instructions an element fewer (membound_device.sh's `gather`).
@autotune(BR in [1, 4], BC in [1024, 2048, 4096], A in [8], T in [128, 256], where BR * BC <= 8192 && (BR == 1 || T == 128))
@aligned(V = A)
@launch(T)
kernel cross_entropy(X: tensor<f16>[N, V], L: tensor<i32>[N, 1], Loss: tensor<f32>[N, 1]) {
  let r = ctx.block.x * BR
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  let full = extent(X, 1) / BC * BC
  for c in range(0, full, BC) {
    let x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
    var mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp(x - mnew))
    m = mnew
  }
  if full < extent(X, 1) {
    var x: tile<f32>[BR, BC] = X[r :+ BR, full :+ BC]
    x = where(col_ids(x) < extent(X, 1) - full, x, -1.0e30)
    var mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp(x - mnew))
    m = mnew
  }
  var picked: tile<f32>[BR, 1] = 0.0
  for i in range(0, BR, 1) {
    picked = where(row_ids(picked) == i, f32(X[r + i, L[r + i, 0]]), picked)
  }
  Loss[r :+ BR, 0 :+ 1] = m + log(l) - picked
}
