// The configurations `where` keeps, in the order written (the last list fastest),
// and `@launch(T)`'s count per configuration.
// RUN: ph check --dump-kir %s | %FileCheck %s

// CHECK-LABEL: kernel k [D=64,BR=64,BC=64] threads=128
// CHECK-NOT: kernel k [D=64,BR=64,BC=32]
// CHECK: kernel k [D=64,BR=128,BC=64] threads=128
// CHECK: kernel k [D=128,BR=64,BC=32] threads=128
// CHECK: kernel k [D=128,BR=128,BC=32] threads=128
// CHECK-NOT: kernel k [
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64], where D * BC == 4096, where BR <= 128 && !(D > 128))
kernel k(X: tensor<f32>[N, D], Y: tensor<f32>[N, D]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] + BC
}

// CHECK-LABEL: kernel rows [BR=1,BC=2048,T=128] threads=128
// CHECK: kernel rows [BR=1,BC=2048,T=256] threads=256
// CHECK: kernel rows [BR=1,BC=2048,T=512] threads=512
@autotune(BR in [1], BC in [2048], T in [128, 256, 512])
@launch(T)
kernel rows(X: tensor<f32>[N, BC], Y: tensor<f32>[N, BC]) {
  let r = ctx.block.x * BR
  let x = X[r :+ BR, :]
  Y[r :+ BR, :] = x - rowmax(x)
}
