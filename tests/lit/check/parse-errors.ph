// The parser recovers: one missing bracket does not hide the next error.
// RUN: not ph check %s 2>&1 | %FileCheck %s

kernel one(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let t = ctx.block.x * 8
  // CHECK: parse-errors.ph:[[@LINE+3]]:3: error[E0102]: unclosed `[`: expected `]` before `var`
  // CHECK: note: the delimiter opened here
  var x = X[t :+ 8, :
  var y = x * 2.0 +
  // CHECK: parse-errors.ph:[[@LINE-1]]:20: error[E0103]: expected an expression, found end of line
  Y[t :+ 8, :] = y
}

// CHECK: parse-errors.ph:[[@LINE+1]]:1: error[E0104]: expected `kernel`, `fn` or a decorator at top level, found `let`
let stray = 1

fn f(a) {
  // CHECK: parse-errors.ph:[[@LINE+1]]:3: error[E0105]: expected a statement, found `)`
  ) a = a
}

// CHECK: parse-errors.ph:[[@LINE+2]]:12: error[E0213]: kernel parameter `X` needs a type
// CHECK: parse-errors.ph:[[@LINE+1]]:14: error[E0101]: expected `,` or `)`, found `:+`
kernel two(X :+ 3) {
}

// CHECK: parse-errors.ph:[[@LINE+1]]:1: error[E0107]: decorator `@launch` applies only to a `kernel`, not to a `fn`
@launch(64)
fn g(a) {
  a = a
}
