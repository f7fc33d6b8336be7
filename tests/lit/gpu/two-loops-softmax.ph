// Issue 16's first defect, in its reported shape: two loops in sequence, the second reading
// what the first computed (a two-pass row softmax: each row's maximum and sum in the first
// loop, the normalisation in the second; a layer norm: the sums in the first, the normalised
// rows in the second). They checked clean and ran right on interp and cpu, and `ph build`
// failed with an MLIR verifier error from the GPU lowering (`operand #0 does not dominate this
// use ... (op is neither in a parent nor in a child region)`). Built for sm_80 and sm_90a
// (the legacy SIMT emitter, deleted on 2026-12-06, was built too), and run on the CPU against
// the interpreter.
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t80 2>&1 | %FileCheck %s --check-prefix=SM80
// RUN: ph build %s --target sm_90a -o %t90 2>&1 | %FileCheck %s --check-prefix=SM90
// SM80-DAG: two_pass_softmax [BR=4,BC=64]: sm_80
// SM80-DAG: two_pass_layer_norm [BR=4,BC=64]: sm_80
// SM80-NOT: error
// SM90-DAG: two_pass_softmax [BR=4,BC=64]: sm_90a
// SM90-DAG: two_pass_layer_norm [BR=4,BC=64]: sm_90a
// SM90-NOT: error
// The shape under test: the second loop reads both results of the first.
// RUN: ph emit %s --kernel two_pass_softmax --stage tile | %FileCheck %s --check-prefix=IR
// IR: %[[R:.*]]:2 = scf.for {{.*}} -> (tensor<4x1xf32>, tensor<4x1xf32>)
// IR: scf.for
// IR-DAG: tile.broadcast %[[R]]#0 : tensor<4x1xf32> -> tensor<4x64xf32>
// IR-DAG: tile.broadcast %[[R]]#1 : tensor<4x1xf32> -> tensor<4x64xf32>
// Ragged sizes (a partial last block of rows and of columns), checked against the interpreter.
// RUN: ph run %s --kernel two_pass_softmax --target cpu --size N=13 --size C=150 --seed 1 --check | %FileCheck %s --check-prefix=CPU
// RUN: ph run %s --kernel two_pass_layer_norm --target cpu --size N=13 --size C=150 --seed 2 --check | %FileCheck %s --check-prefix=CPU
// CPU: check Y: {{.*}} ok

@autotune(BR in [4], BC in [64])
kernel two_pass_softmax(X: tensor<f32>[N, C], Y: tensor<f32>[N, C]) {
  let row = ctx.block.x * BR
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for c in range(0, C, BC) {
    var x: tile<f32>[BR, BC] = X[row :+ BR, c :+ BC]
    mask_cols(x, C - c, -1.0e30)
    let mnew = tmax(m, rowmax(x))
    l = l * exp(m - mnew) + rowsum(exp(x - mnew))
    m = mnew
  }
  for c in range(0, C, BC) {
    Y[row :+ BR, c :+ BC] = exp(X[row :+ BR, c :+ BC] - m) / l
  }
}

@autotune(BR in [4], BC in [64])
kernel two_pass_layer_norm(X: tensor<f32>[N, C], Y: tensor<f32>[N, C]) {
  let row = ctx.block.x * BR
  var s: tile<f32>[BR, 1] = 0.0
  var q: tile<f32>[BR, 1] = 0.0
  for c in range(0, C, BC) {
    let x = X[row :+ BR, c :+ BC]
    s += rowsum(x)
    q += rowsum(x * x)
  }
  let mean = s / f32(C)
  let rstd = rsqrt(q / f32(C) - mean * mean + 1.0e-5)
  for c in range(0, C, BC) {
    Y[row :+ BR, c :+ BC] = (X[row :+ BR, c :+ BC] - mean) * rstd
  }
}
