/// Cross-entropy forward of each row of logits `X` (`[N, V]`, any V) against its label in `L`
/// (`[N, 1]`, i32): `loss = logsumexp(x) - x[label]`, as `torch.nn.functional.cross_entropy`
/// with `reduction="none"`. One read of X: the online softmax's running maximum `m` and
/// denominator `l` over blocks of `BC` columns, and the label's logit picked out with
/// `where(col_ids(x) == label - c, x, 0.0)`. The full blocks run in a loop without a column
/// mask (its end, whole blocks of V, lets the compiler read them unmasked too); the ragged last
/// block, if any, runs once after it with `col < extent - c` (two instructions an element fewer
/// in a loop of about ten: 0.84 -> 0.90 of the copy bandwidth on an H100, docs/gpu.md). The block's offset `c` sits on the per-row side of each comparison:
/// one subtraction a row instead of an addition an element.
/// `A = 8`: 16-byte loads where V is a multiple of 8 (softmax.ph).
@autotune(BR in [1, 4], BC in [1024, 2048], A in [1, 8])
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
