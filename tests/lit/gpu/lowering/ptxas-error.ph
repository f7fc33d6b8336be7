// ptxas refusing the PTX is E0505 at the kernel (ptxas knows PTX lines, not Ph ones), its
// message ptxas's first error, a note with ptxas's words per error line, and the configuration
// as a note (not its whole -v log). ptxas-line.ph has the real ptxas and a PTX line.
// REQUIRES: mlir
// RUN: env PH_PTXAS=%S/../Inputs/ptxas-too-much-shared.sh PH_FAKE_PTXAS_KERNEL=scale not ph build %s --target sm_90 -o %t --no-cache --json > %t.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.json | %FileCheck %s
// RUN: python3 %S/../Inputs/check_ph_output.py < %t.json | %FileCheck %s --check-prefix=VALID
// VALID: valid build
// CHECK: E0505 ptxas-error.ph:[[@LINE+4]]:1-[[@LINE+8]]:2 ptxas cannot assemble kernel `scale` for sm_90: Entry function 'scale' uses too much shared data (0x493e0 bytes, 0xc000 max){{$}}
// CHECK-NEXT: note ptxas-error.ph:[[@LINE+3]]:1-[[@LINE+7]]:2 ptxas: Entry function 'scale' uses too much shared data (0x493e0 bytes, 0xc000 max)
// CHECK-NEXT: note ptxas-error.ph:[[@LINE+2]]:1-{{.*}} in configuration BR=32
// CHECK-NOT: {{^E0}}
@autotune(BR in [32])
kernel scale(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] * 2.0
}
