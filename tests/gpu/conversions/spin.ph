// A kernel that runs for ages (n^2 dependent multiply-adds a thread): ph-run's --timeout
// must stop it (tests/gpu/conversions_device.sh; docs/reliability.md, "Safety").
kernel spin(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64], n: i32) {
  let r = ctx.block.x * 8
  var acc: tile<f32>[8, 64] = X[r :+ 8, :]
  for i in range(0, n, 1) {
    for j in range(0, n, 1) {
      acc = acc * 0.999 + 0.001
    }
  }
  Y[r :+ 8, :] = acc
}
