// `@grid` axes below 1: a divisor `N / q` with q <= 0, or a constant extent below 1, is E0402
// at the axis (the launch once made such an axis 1, or launched nothing); the other axes and
// the body are elaborated as usual, and nothing else is reported.
// RUN: not ph check %s 2>&1 | %FileCheck %s --implicit-check-not=error

// CHECK: grid-axes.ph:[[@LINE+3]]:7: error[E0402]: bad arguments to `@grid`: the divisor of an axis `N / B` is a positive integer, found `0`
// CHECK-NEXT: {{^}}  @grid(N / 0, H)
// CHECK-NEXT: {{^ +\^~~~~$}}
@grid(N / 0, H)
kernel div_zero(X: tensor<f32>[H, N], Y: tensor<f32>[H, N]) {
  Y[ctx.block.y, ctx.block.x] = X[ctx.block.y, ctx.block.x]
}

// CHECK: grid-axes.ph:[[@LINE+3]]:7: error[E0402]: bad arguments to `@grid`: the divisor of an axis `N / B` is a positive integer, found `-4`
// CHECK-NEXT: {{^}}  @grid(N / -4)
// CHECK-NEXT: {{^ +\^~~~~~$}}
@grid(N / -4)
kernel div_negative(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  Y[ctx.block.x, :] = X[ctx.block.x, :]
}

// CHECK: grid-axes.ph:[[@LINE+3]]:7: error[E0402]: bad arguments to `@grid`: an axis is at least 1, found `0`
// CHECK-NEXT: {{^}}  @grid(0)
// CHECK-NEXT: {{^ +\^$}}
@grid(0)
kernel zero(X: tensor<f32>[4, 4], Y: tensor<f32>[4, 4]) {
  Y[ctx.block.x, :] = X[ctx.block.x, :]
}

// CHECK: grid-axes.ph:[[@LINE+3]]:7: error[E0402]: bad arguments to `@grid`: an axis is at least 1, found `-2`
// CHECK-NEXT: {{^}}  @grid(-2)
// CHECK-NEXT: {{^ +\^~$}}
@grid(-2)
kernel negative(X: tensor<f32>[4, 4], Y: tensor<f32>[4, 4]) {
  Y[ctx.block.x, :] = X[ctx.block.x, :]
}

// The second axis, and values an `@autotune` constant gives: the text and its value.
// CHECK: grid-axes.ph:[[@LINE+7]]:10: error[E0402]: bad arguments to `@grid`: the divisor of an axis `N / B` is a positive integer, found `(BR - 16)` = 0
// CHECK-NEXT: {{^}}  @grid(4, N / (BR - 16), 0 / 4)
// CHECK-NEXT: {{^ +\^~~~~~~~~~~~~$}}
// CHECK: grid-axes.ph:[[@LINE+4]]:25: error[E0402]: bad arguments to `@grid`: an axis is at least 1, found `0 / 4` = 0
// CHECK-NEXT: {{^}}  @grid(4, N / (BR - 16), 0 / 4)
// CHECK-NEXT: {{^ +\^~~~~$}}
@autotune(BR in [16])
@grid(4, N / (BR - 16), 0 / 4)
kernel autotuned(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  Y[ctx.block.y, :] = X[ctx.block.y, :]
}

// Fine: an axis of 1, and a divisor of 1.
@grid(1, N / 1)
kernel fine(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  Y[ctx.block.y, :] = X[ctx.block.y, :]
}
