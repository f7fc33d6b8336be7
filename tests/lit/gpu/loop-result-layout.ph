// A loop-carried tile with one layout inside the loop and wanted in another after it
// (docs/reliability.md, differential bug 14; seed 301271): the SIMT dot anchors the carried
// accumulator in its FMA layout, and the row sum after the loop anchored the loop's result
// in a row layout, so the scf.for returned a type its body does not yield and the lowering
// stopped at "LLVM Translation failed for operation: builtin.unrealized_conversion_cast".
// (The other half of bug 14, a fused `acc + dot` whose accumulator another anchor placed, is
// guarded by tests/differential/cases/seed301279-gpu-layout and seed300837-gpu-layout.)
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s
// RUN: ph build %s --target sm_90a -o %t90 2>&1 | %FileCheck %s
// RUN: ph emit %s --kernel carried --stage tilegpu --target sm_80 | %FileCheck %s --check-prefix=IR
// CHECK: carried [BR=32,BC=16,D=16]: sm_
// CHECK-NOT: error
// The loop yields and returns one layout; the result is converted after the loop.
// IR: %[[R:.*]] = scf.for {{.*}} -> (tensor<32x16xf32, #[[L:[a-z0-9]+]]>)
// IR: scf.yield {{.*}} : tensor<32x16xf32, #[[L]]>
// IR: tilegpu.convert_layout %[[R]] : tensor<32x16xf32, #[[L]]> -> tensor<32x16xf32,

@launch(192)
@autotune(BR in [32], BC in [16], D in [16])
@aligned(M = BR)
kernel carried(X: tensor<f16>[M, K], Y: tensor<f16>[D, K], O: tensor<f32>[M, D]) {
  let row = ctx.block.x * BR
  var acc: tile<f32>[BR, D] = 0.0
  for k in range(0, K, BC) {
    acc += dot_t(X[row :+ BR, k :+ BC], Y[0 :+ D, k :+ BC])
  }
  acc += where(col_ids(acc) != row_ids(acc), acc, acc - rowsum(acc))
  O[row :+ BR, :] = acc
}

