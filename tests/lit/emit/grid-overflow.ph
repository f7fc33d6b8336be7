// `(N + q - 1) / q` is ceil(N / q) only while N + q - 1 fits i32, the kernel's integers: the
// block counted from the end under `@grid(N / q)` drops masks on that fact (Grid.cpp,
// mirrorBlock), so the launch, shared by every target, refuses a size N with N + q - 1 above
// 2^31 - 1 for a `@grid` axis `N / q`, naming the size and the axis (Launch.cpp, bindLaunch).
// Before, `--size N=8` here wrapped N + 2147483646 to a negative i32, and the row read below 0:
// "unmasked load ... out of range".
// REQUIRES: mlir

// RUN: not ph run %s --kernel huge_divisor --target interp --size N=8 2>&1 | %FileCheck %s --check-prefix=HUGE
// RUN: not ph run %s --kernel huge_divisor --target cpu --size N=8 2>&1 | %FileCheck %s --check-prefix=HUGE
// HUGE-NOT: out of range
// HUGE: size `N` = 8 (from `--size N=8`) is too large for the grid's axis x, `N / 2147483647` (`@grid` or inferred): ceil(N / 2147483647) is `(N + 2147483646) / 2147483647` in the kernel's i32, and N + 2147483646 = 2147483654 is above 2147483647 (N may be at most 1)
// The one size that fits runs, with no read out of range.
// RUN: ph run %s --kernel huge_divisor --target interp --size N=1 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel huge_divisor --target cpu --size N=1 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUNO-NOT: out of range
// RUNO: check    Y: {{.*}} ok
@grid(N / 2147483647)
kernel huge_divisor(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  let r = (N + 2147483646) / 2147483647 - 1 - ctx.block.x
  Y[0, :] = X[r, :]
}

// An ordinary divisor, along y: the last 15 sizes below 2^31 are refused, before the tensors
// are allocated (X would take 8 GiB, within the limit on a run's bytes, checked first).
// RUN: not ph run %s --kernel rows_from_end --target interp --size N=2147483633 2>&1 | %FileCheck %s --check-prefix=ROWS
// ROWS: size `N` = 2147483633 (from `--size N=2147483633`) is too large for the grid's axis y, `N / 16` (`@grid` or inferred): ceil(N / 16) is `(N + 15) / 16` in the kernel's i32, and N + 15 = 2147483648 is above 2147483647 (N may be at most 2147483632)
// RUN: ph run %s --kernel rows_from_end --target interp --size N=77 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel rows_from_end --target cpu --size N=77 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
@grid(1, N / 16)
kernel rows_from_end(X: tensor<f32>[N], Y: tensor<f32>[16]) {
  let i = (N + 15) / 16 - 1 - ctx.block.y
  Y[0] = X[i]
}
