/// cross_entropy.gather.ph with exp(x - m) written exp2(x log2e - m log2e): with
/// PH_GPU_FP_FUSION=1 one fma and one ex2 an element instead of a subtract, a multiply and an ex2
/// (membound_device.sh's `gather2_fuse`). A row whose running maximum is still -1.0e30 when a
/// masked -1.0e30 arrives would not be safe in this form; a cross-entropy row never has one.
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
    l = l * exp(m - mnew) + rowsum(exp2(x * 1.4426950408889634 - mnew * 1.4426950408889634))
    m = mnew
  }
  if full < extent(X, 1) {
    var x: tile<f32>[BR, BC] = X[r :+ BR, full :+ BC]
    x = where(col_ids(x) < extent(X, 1) - full, x, -1.0e30)
    var mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp2(x * 1.4426950408889634 - mnew * 1.4426950408889634))
    m = mnew
  }
  var picked: tile<f32>[BR, 1] = 0.0
  for i in range(0, BR, 1) {
    picked = where(row_ids(picked) == i, f32(X[r + i, L[r + i, 0]]), picked)
  }
  Loss[r :+ BR, 0 :+ 1] = m + log(l) - picked
}
