// `@autotune(..., where COND)` and `@launch(T)` over an autotune parameter: one
// case per diagnostic, each at its range.
// RUN: not ph check %s 2>&1 | %FileCheck %s

// An unknown name in a condition: E0201, with the nearest autotune parameter.
// CHECK: autotune-where.ph:[[@LINE+2]]:48: error[E0201]: unknown name `BQ`
// CHECK: help: use `BC`
@autotune(D in [64], BC in [32, 64], where D * BQ == 4096)
kernel unknown_name(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// A size, known only at launch, is no autotune parameter: E0409, with where it is defined.
// CHECK: autotune-where.ph:[[@LINE+2]]:44: error[E0409]: a `where` condition may use only `@autotune` parameters and integers: `N` is a size, known only at launch
// CHECK: note: `N` is defined here
@autotune(D in [64], BC in [32, 64], where N > BC)
kernel not_autotune(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// A condition no configuration satisfies: E0410 on that condition.
// CHECK: autotune-where.ph:[[@LINE+1]]:49: error[E0410]: `where D * BC == 1000` keeps none of the 4 configuration(s) of `@autotune`
@autotune(D in [64, 128], BC in [32, 64], where D * BC == 1000)
kernel keeps_nothing(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// Several conditions: the one that leaves nothing of what the others keep, with a note on those.
// CHECK: autotune-where.ph:[[@LINE+2]]:71: error[E0410]: `where BC == 32` keeps none of the 1 configuration(s) of `@autotune`
// CHECK: note: the configurations this condition keeps
@autotune(D in [64, 128], BC in [32, 64], where D * BC == 8192, where BC == 32)
kernel keeps_nothing_together(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// An integer where a condition belongs: E0411.
// CHECK: autotune-where.ph:[[@LINE+1]]:44: error[E0411]: a `where` condition must be true or false (a comparison, `&&`, `||` or `!`), found the integer `D % BC`
@autotune(D in [64], BC in [32, 64], where D % BC)
kernel not_a_condition(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// A condition where an integer belongs: E0308 at the operand.
// CHECK: autotune-where.ph:[[@LINE+1]]:44: error[E0308]: expected an integer, found `(D > 1)`
@autotune(D in [64], BC in [32, 64], where (D > 1) + 1 == 2)
kernel condition_as_integer(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// A call is no part of a condition: E0402.
// CHECK: autotune-where.ph:[[@LINE+1]]:44: error[E0402]: bad arguments to `@autotune`: a `where` condition is made of `@autotune` parameters, integers, `+ - * / %`, comparisons, `&& || !` and parentheses, found `tmax(D, BC)`
@autotune(D in [64], BC in [32, 64], where tmax(D, BC) == 64)
kernel call_in_condition(X: tensor<f32>[N, D]) {
  X[0 :+ 1, :] = X[0 :+ 1, :] + BC
}

// `where` belongs to `@autotune` alone.
// CHECK: autotune-where.ph:[[@LINE+1]]:7: error[E0402]: bad arguments to `@grid`: a `where` condition belongs to `@autotune`
@grid(where N > 1)
// CHECK-NOT: expected an integer, a size or `N / B`
kernel where_in_grid(X: tensor<f32>[N, 4]) {
  X[0 :+ 1, :] = X[0 :+ 1, :]
}

// `@launch(T)`: each kept configuration's count is checked (E0408 once per bad value,
// at the argument); 100 is dropped by the condition.
// CHECK: autotune-where.ph:[[@LINE+3]]:9: error[E0408]: `@launch` takes a thread count that is a multiple of 32 between 32 and 1024, found 2048 (`T` in the configuration BR=1,T=2048)
// CHECK-NOT: found 100
@autotune(BR in [1], T in [128, 2048, 100], where T != 100)
@launch(T)
kernel launch_param(X: tensor<f32>[N, 4]) {
  X[0 :+ BR, :] = X[0 :+ BR, :]
}

// `@launch(N)` with a size: E0402.
// CHECK: autotune-where.ph:[[@LINE+1]]:9: error[E0402]: bad arguments to `@launch`: the thread count is an integer or an `@autotune` parameter; `N` is a size, known only at launch
@launch(N)
kernel launch_size(X: tensor<f32>[N, 4]) {
  X[0 :+ 1, :] = X[0 :+ 1, :]
}

// `@launch(Q)` with an unknown name: E0201.
// CHECK: autotune-where.ph:[[@LINE+2]]:9: error[E0201]: unknown name `Q`
// CHECK: help: use `T`
@launch(Q)
@autotune(T in [128])
kernel launch_unknown(X: tensor<f32>[N, 4]) {
  X[0 :+ T / 128, :] = X[0 :+ 1, :]
}
