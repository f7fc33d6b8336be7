// The real ptxas refusing the PTX (here a copy whose first `ret;` is `ret.bogus;`, made by
// Inputs/ptxas-broken-ret.sh standing in as PH_PTXAS) is E0505 at the kernel: PTX carries no
// `.loc`, so the kernel's range is the nearest source. Its message is ptxas's first error; a
// note per error keeps ptxas's words, the PTX line it names and that line's text (from the
// PTX ph gave it: `ret;`), then how to print that PTX, then the configuration.
// REQUIRES: mlir
// RUN: env PH_PTXAS=%S/../Inputs/ptxas-broken-ret.sh not ph build %s --target sm_90 -o %t --no-cache --json > %t.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.json | %FileCheck %s
// RUN: env PH_PTXAS=%S/../Inputs/ptxas-broken-ret.sh not ph build %s --target sm_90 -o %t.text --no-cache 2>&1 | %FileCheck %s --check-prefix=TEXT
// RUN: ph emit %s --stage ptx --target sm_90 --kernel scale --config BR=32 > %t.ptx
// RUN: python3 %S/../Inputs/ptx_line.py %t.json %t.ptx | %FileCheck %s --check-prefix=EMIT
// EMIT: emitted line {{[0-9]+}}: ret;{{$}}
// CHECK: E0505 ptxas-line.ph:[[@LINE+8]]:1-[[@LINE+12]]:2 ptxas cannot assemble kernel `scale` for sm_90: Unknown modifier '.bogus'{{$}}
// CHECK-NEXT: note ptxas-line.ph:[[@LINE+7]]:1-[[@LINE+11]]:2 ptxas, line {{[1-9][0-9]*}} of the PTX (`ret;`): Unknown modifier '.bogus'
// CHECK-NEXT: note {{.*}} `ph emit --stage ptx --target sm_90 --kernel scale --config BR=32` prints that PTX, with the same line numbers
// CHECK-NEXT: note {{.*}} in configuration BR=32
// CHECK-NOT: {{^E0}}
// TEXT: ptxas-line.ph:[[@LINE+3]]:1: error[E0505]: ptxas cannot assemble kernel `scale` for sm_90: Unknown modifier '.bogus'
// TEXT: ptxas, line {{[0-9]+}} of the PTX (`ret;`)
// TEXT-NOT: k.ptx
@autotune(BR in [32])
kernel scale(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] * 2.0
}
