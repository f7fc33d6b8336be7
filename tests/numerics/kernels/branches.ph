// `if` / `else if` / `else` on a scalar parameter and on the block's position:
// a tile variable assigned in every branch, and a store inside a branch.
kernel branches(X: tensor<f32>[N, 32], Y: tensor<f32>[N, 32], mode: i32) {
  let r = ctx.block.x * 16
  var x: tile<f32>[16, 32] = X[r :+ 16, :]
  if mode == 1 {
    x = x * 2.0
  } else if mode == 2 {
    x = exp(x)
  } else {
    x = -x
  }
  // The last block of rows (the one holding row N - 1) adds 1.
  if r + 16 >= extent(X, 0) {
    Y[r :+ 16, :] = x + 1.0
  } else {
    Y[r :+ 16, :] = x
  }
}
