// Kernels: decorators, autotune, @aligned, grid inference.
// RUN: not ph check %s 2>&1 | %FileCheck %s

// CHECK: kernels.ph:[[@LINE+2]]:2: error[E0401]: unknown decorator `@autotun`
// CHECK: help: use `@autotune`
@autotun(BR in [16])
kernel unknown_decorator(X: tensor<f32>[N, 8]) {
  X[0 :+ 8, :] = X[0 :+ 8, :]
}

// CHECK: kernels.ph:[[@LINE+1]]:22: error[E0402]: bad arguments to `@autotune`: autotune values are positive integers, found `0`
@autotune(BR in [16, 0])
// CHECK: kernels.ph:[[@LINE+1]]:1: error[E0403]: decorator `@autotune` is given twice
@autotune(BC in [16])
kernel bad_args(X: tensor<f32>[N, 8]) {
  X[0 :+ 8, :] = X[0 :+ 8, :]
}

// CHECK: kernels.ph:[[@LINE+1]]:11: error[E0404]: `@autotune` names `BQ`, which no parameter shape or body uses
@autotune(BQ in [16])
// CHECK: kernels.ph:[[@LINE+1]]:10: error[E0405]: `@aligned` names `M`, which is not a size of any parameter
@aligned(M = 16)
kernel unused_names(X: tensor<f32>[N, 8]) {
  X[0 :+ 8, :] = X[0 :+ 8, :]
}

kernel no_grid(X: tensor<f32>[N, 8]) {
  // CHECK: kernels.ph:[[@LINE+1]]:11: error[E0406]: cannot infer the grid along `ctx.block.y`: no tensor slice of the form `X[ctx.block.y * S :+ S, ...]` uses it; give it with `@grid(...)`
  let b = ctx.block.y + 1
  X[b :+ 8, :] = X[0 :+ 8, :]
}

kernel conflict(X: tensor<f32>[N, 8], Y: tensor<f32>[M, 8]) {
  let t = ctx.block.x * 8
  // CHECK: kernels.ph:[[@LINE+2]]:5: error[E0407]: `ctx.block.x` spans `ceil(M / 8)` here but `ceil(N / 8)` where it is first used; give the grid with `@grid(...)`
  // CHECK: note: first used here
  Y[t :+ 8, :] = X[t :+ 8, :]
}

@grid(N / 8)
kernel explicit_grid(X: tensor<f32>[N, 8], Y: tensor<f32>[M, 8]) {
  let t = ctx.block.x * 8
  Y[t :+ 8, :] = X[t :+ 8, :]
}

// CHECK: kernels.ph:[[@LINE+1]]:9: error[E0408]: `@launch` takes a thread count that is a multiple of 32 between 32 and 1024, found 100
@launch(100)
kernel bad_launch(X: tensor<f32>[N, 8]) {
  X[0 :+ 8, :] = X[0 :+ 8, :]
}

// CHECK-NOT: explicit_grid
