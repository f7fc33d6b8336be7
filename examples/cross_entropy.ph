/// Cross-entropy forward of each row of logits `X` (`[N, V]`, any V) against its label in `L`
/// (`[N, 1]`, i32): `loss = logsumexp(x) - x[label]`, as `torch.nn.functional.cross_entropy`
/// with `reduction="none"`. One read of X: the online softmax's running maximum `m` and
/// denominator `l` over blocks of `BC` columns. The full blocks run in a loop without a column
/// mask (its end, whole blocks of V, lets the compiler read them unmasked too); the ragged last
/// block, if any, runs once after it with `col < extent - c`. The label's logit is one scalar
/// read a row after the loops, `X[r + i, L[r + i, 0]]` (a label outside `[0, V)` reads 0: that
/// row's loss is its logsumexp, where PyTorch's `ignore_index` would give 0), not
/// picked out of every block with a compare and a select an element: 0.91 -> 0.94 of the copy
/// bandwidth on an H100 (docs/tilegpu.md, "Cross-entropy's label read once").
/// `A = 8`: 16-byte loads where V is a multiple of 8 (softmax.ph).
@autotune(BR in [1, 4], BC in [1024, 2048, 4096], A in [1, 8], where BR * BC <= 8192)
@aligned(V = A)
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
