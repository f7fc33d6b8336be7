// The scalar integer folder (Expressions.cpp, combineInts) folds what the kernel computes in i32,
// tmax and tmin included (`tmax(48, 16)` once folded to 0, so `X[tmax(48, 16) + 8 :+ 16, :]`
// loaded rows 8..23, unmasked); what it cannot fold (a division by zero, a result outside
// i32) stays an expression for the run, never a 0.
// REQUIRES: mlir

// RUN: ph check %s --dump-kir | %FileCheck %s --check-prefix=KIR
// KIR-LABEL: kernel folds
// KIR: store Y[0 :+ 16, :] = load X[56 :+ 16, :]
// KIR: store Z[0 :+ 16, :] = load X[24 :+ 16, :]
// KIR: store W[0 :+ 8, :] = load X[3 :+ 8, :]
// KIR-LABEL: kernel literal
// KIR-LABEL: kernel not_folded
// KIR: store Y[{{.*}}div{{.*}} :+ 16 masked, :]
// KIR: store Z[{{.*}}mul{{.*}} :+ 16 masked, :]

// The values, on the interpreter and the CPU: `folds` writes what `literal` (the constants
// written out) does, with the same inputs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ph run %s --kernel folds --target interp --seed 3 --out Y=%t/y.npy --out Z=%t/z.npy --out W=%t/w.npy
// RUN: ph run %s --kernel literal --target interp --seed 3 --out Y=%t/y0.npy --out Z=%t/z0.npy --out W=%t/w0.npy
// RUN: cmp %t/y.npy %t/y0.npy && cmp %t/z.npy %t/z0.npy && cmp %t/w.npy %t/w0.npy
// RUN: ph run %s --kernel folds --target cpu --seed 3 --out Y=%t/yc.npy --out Z=%t/zc.npy --out W=%t/wc.npy
// RUN: cmp %t/yc.npy %t/y0.npy && cmp %t/zc.npy %t/z0.npy && cmp %t/wc.npy %t/w0.npy
kernel folds(X: tensor<f32>[80, 4], Y: tensor<f32>[16, 4], Z: tensor<f32>[16, 4], W: tensor<f32>[8, 4]) {
  Y[0 :+ 16, :] = X[tmax(48, 16) + 8 :+ 16, :]
  Z[0 :+ 16, :] = X[tmin(48, 16) + 8 :+ 16, :]
  W[0 :+ 8, :] = X[(-7) / 2 + 17 % 5 + tmax(-1, -9) + 5 :+ 8, :]
}

kernel literal(X: tensor<f32>[80, 4], Y: tensor<f32>[16, 4], Z: tensor<f32>[16, 4], W: tensor<f32>[8, 4]) {
  Y[0 :+ 16, :] = X[56 :+ 16, :]
  Z[0 :+ 16, :] = X[24 :+ 16, :]
  W[0 :+ 8, :] = X[3 :+ 8, :]
}

// A division by zero fails at run time, as the unfolded division does on every target; a product
// past i32 wraps there. Neither is a constant the compiler reasons over.
// RUN: not ph run %s --kernel not_folded --target interp 2>&1 | %FileCheck %s --check-prefix=DIV0
// DIV0: integer division by zero
kernel not_folded(X: tensor<f32>[80, 4], Y: tensor<f32>[80, 4], Z: tensor<f32>[80, 4]) {
  Y[8 / 0 :+ 16, :] = X[0 :+ 16, :]
  Z[65536 * 65536 :+ 16, :] = X[0 :+ 16, :]
}
