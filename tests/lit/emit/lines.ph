// `ph emit --json`'s `lines`: for each op with a source location, the line of `text` the
// MLIR printer put it on (its own location map, not a re-reading of `loc(...)`) and the
// frontend's range. A loop and the kernel's function are at their header lines; the
// script fails when an entry's line does not print its op.
// REQUIRES: mlir
// RUN: ph emit %s --stage tile --json | python3 %S/Inputs/ir_lines.py | %FileCheck %s
// RUN: ph emit %s --stage tile --json --debug-info | python3 %S/Inputs/ir_lines.py | %FileCheck %s
// RUN: ph emit %s --stage cpu --json --debug-info | python3 %S/Inputs/ir_lines.py | %FileCheck %s --check-prefix=CPU
// RUN: ph emit %s --stage gpu --target sm_90 --json | python3 %S/Inputs/ir_lines.py | %FileCheck %s --check-prefix=GPU
// A stage that is not MLIR (PTX) has no lines; the key is there, empty.
// RUN: ph emit %s --stage ptx --target sm_90 --json | python3 -c "import json,sys; print('lines', json.load(sys.stdin)['lines'])" | %FileCheck %s --check-prefix=PTX
// PTX: lines []

// CHECK: func.func @lines.ph:[[@LINE+2]]:1-{{[0-9]+}}:2 | func.func @sum_rows(
// GPU: gpu.func @lines.ph:[[@LINE+1]]:1-{{.*}} | gpu.func @sum_rows(
kernel sum_rows(X: tensor<f32>[R, C], Y: tensor<f32>[R, 8]) {
  let row = ctx.block.x * 8
  var acc: tile<f32>[8, 8] = 0.0
  // CHECK: scf.for @lines.ph:[[@LINE+2]]:3-{{.*}} | %{{.*}} = scf.for
  // CPU: scf.for @lines.ph:[[@LINE+1]]:3-{{.*}} | {{.*}}scf.for
  for c in range(0, C, 8) {
    // CHECK: tile.load @lines.ph:[[@LINE+1]]:12-[[@LINE+1]]:{{[0-9]+}} | %{{.*}} = tile.load
    acc += X[row :+ 8, c :+ 8]
  }
  // CHECK: tile.store @lines.ph:[[@LINE+1]]:3-{{.*}} | tile.store
  Y[row :+ 8, :] = acc
}
