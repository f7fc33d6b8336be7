// docs/language.md (The grid): a constant `@grid` extent G over a slice `ctx.block.a * S :+ S` of
// a fixed extent E drops the mask only when S divides E and G * S <= E (Slices.cpp, maskNeeded's
// blocksTile, then Grid.cpp, gridInside). The doc once said only `G * S <= E`.
// REQUIRES: mlir
// RUN: ph check %s --dump-kir | %FileCheck %s
// RUN: ph run %s --kernel divides --target cpu --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel not_divides --target cpu --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUNO-NOT: out of range
// RUNO: check    Y: {{.*}} ok

// 16 divides 48, 2 * 16 <= 48: no mask.
// CHECK-LABEL: kernel divides
// CHECK: store Y[mul(block.x, 16) : i32 :+ 16, :] = load X[mul(block.x, 16) : i32 :+ 16, :]
@grid(2)
kernel divides(X: tensor<f32>[48, 4], Y: tensor<f32>[48, 4]) {
  Y[ctx.block.x * 16 :+ 16, :] = X[ctx.block.x * 16 :+ 16, :]
}

// 2 * 16 <= 40, but 16 does not divide 40: the masks stay.
// CHECK-LABEL: kernel not_divides
// CHECK: store Y[mul(block.x, 16) : i32 :+ 16 masked, :] = load X[mul(block.x, 16) : i32 :+ 16 masked, :]
@grid(2)
kernel not_divides(X: tensor<f32>[40, 4], Y: tensor<f32>[40, 4]) {
  Y[ctx.block.x * 16 :+ 16, :] = X[ctx.block.x * 16 :+ 16, :]
}

// 16 divides 32, but 3 * 16 > 32 (negative).
// CHECK-LABEL: kernel too_many
// CHECK: store Y[mul(block.x, 16) : i32 :+ 16 masked, :] = load X[mul(block.x, 16) : i32 :+ 16 masked, :]
@grid(3)
kernel too_many(X: tensor<f32>[32, 4], Y: tensor<f32>[32, 4]) {
  Y[ctx.block.x * 16 :+ 16, :] = X[ctx.block.x * 16 :+ 16, :]
}
