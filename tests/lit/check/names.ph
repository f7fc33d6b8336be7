// Names: unknown names and functions with a suggested fix, arity, redefinition, `let`.
// RUN: not ph check %s 2>&1 | %FileCheck %s

@autotune(BR in [16])
kernel names(X: tensor<f32>[N, 16], Y: tensor<f32>[N, 16]) {
  let row = ctx.block.x * BR
  var x = X[row :+ BR, :]
  // CHECK: names.ph:[[@LINE+2]]:11: error[E0202]: unknown function `rowmx`
  // CHECK-NEXT: {{^}}  var m = rowmx(x)
  var m = rowmx(x)
  // CHECK: help: use `rowmax`
  // CHECK: names.ph:[[@LINE+1]]:11: error[E0201]: unknown name `rwo`
  let z = rwo + 1
  // CHECK: names.ph:[[@LINE+1]]:11: error[E0203]: `exp` takes 1 argument(s), but 2 were given
  x = x + exp(x, x)
  // CHECK: names.ph:[[@LINE+1]]:7: error[E0205]: `x` is already defined in this scope
  var x = x
  // CHECK: names.ph:[[@LINE+1]]:3: error[E0204]: cannot assign to `row`: it is bound with `let`
  row = 3
  // CHECK: names.ph:[[@LINE+1]]:11: error[E0212]: `online_softmax` is a function, not a value
  let f = online_softmax
  // CHECK: names.ph:[[@LINE+1]]:3: error[E0210]: cannot assign to the constant `BR`
  BR = 2
  Y[row :+ BR, :] = x
  // CHECK: names.ph:[[@LINE+1]]:3: error[E0216]: this expression does nothing
  x + 1
  // CHECK: names.ph:[[@LINE+1]]:11: error[E0217]: `rope` is a function: it changes its arguments and gives no value
  var r = rope(x, x, x)
  // CHECK: names.ph:[[@LINE+1]]:21: error[E0209]: `ctx.block` has no member `w`
  let w = ctx.block.w
}

// CHECK: names.ph:[[@LINE+1]]:4: error[E0206]: a `fn` named `online_softmax` is already declared
fn online_softmax(a) {
  a = a
}

// CHECK: names.ph:[[@LINE+1]]:4: error[E0215]: `exp` is a builtin and cannot be redefined
fn exp(a) {
  a = a
}

// CHECK: names.ph:[[@LINE+1]]:16: error[E0213]: kernel parameter `X` needs a type
kernel untyped(X) {
}

// CHECK: names.ph:[[@LINE+1]]:13: error[E0214]: `fn` parameters are untyped: remove `: f32` from `a`
fn typed(a: f32) {
  a = a
}

// CHECK: names.ph:[[@LINE+1]]:26: error[E0208]: unknown type `f31`
kernel badtype(X: tensor<f31>[N]) {
}

fn loops(a) {
  loops(a)
}

kernel recurse(X: tensor<f32>[N, 8]) {
  var x = X[0 :+ 8, :]
  // CHECK: names.ph:[[@LINE-5]]:3: error[E0207]: `loops` calls itself through `loops`: recursion is not allowed
  loops(x)
  X[0 :+ 8, :] = x
}

// CHECK: names.ph:[[@LINE+2]]:7: warning[W0201]: `unused` is never used
kernel warn(X: tensor<f32>[N, 8]) {
  let unused = 1
}
