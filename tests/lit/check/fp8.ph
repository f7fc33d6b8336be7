// fp8 is a storage type of tensors (docs/language.md, "fp8"): a load widens it to f32, a store
// rounds to it; a tile or a scalar of fp8 is E0324 at the type name, with `f32` as the fix.
// RUN: not ph check %s 2>&1 | %FileCheck %s --implicit-check-not=error
// RUN: not ph check --json %s | %FileCheck %s --check-prefix=JSON

// A clean kernel: loads of both formats are f32 tiles, stores round (a literal too).
kernel ok(X: tensor<f8e4m3>[N, 64], Y: tensor<f8e5m2>[N, 64], O: tensor<f8e4m3>[N, 64], F: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 4
  let x: tile<f32>[4, 64] = X[r :+ 4, :]
  F[r :+ 4, :] = x + Y[r :+ 4, :] * 0.5
  O[r :+ 4, :] = rowmax(x) - x
  O[r :+ 4, 0 :+ 1] = 1000.0
}

// CHECK: fp8.ph:[[@LINE+1]]:43: error[E0324]: `f8e5m2` is a storage type of tensors, not of scalars: a load of a `f8e5m2` tensor gives `f32` and a store into one rounds to nearest even; use `f32` here
kernel scalar(X: tensor<f8e4m3>[N, 8], s: f8e5m2) {
}

kernel local(X: tensor<f8e4m3>[N, 64], Y: tensor<f32>[N, 64]) {
  // CHECK: fp8.ph:[[@LINE+1]]:15: error[E0324]: `f8e4m3` is a storage type of tensors, not of tiles
  var t: tile<f8e4m3>[4, 64] = X[0 :+ 4, :]
  Y[0 :+ 4, :] = X[0 :+ 4, :]
}

// CHECK: fp8.ph:[[@LINE+1]]:23: error[E0208]: unknown type `f8e4n3`
kernel typo(X: tensor<f8e4n3>[N, 64]) {
}
// JSON: "code": "E0324"
// JSON: "text": "f32"
