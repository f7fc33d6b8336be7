// A failure of the CPU lowering is a registry diagnostic at the op that failed, as the
// GPU target's are (tests/lit/gpu/lowering/short-k.ph): E0506 (CpuLoweringFailed) at the
// op's range, from the MLIR location the op carries, with "in kernel `scale`" at the
// kernel as a note; never E0502 at the kernel with the op's `file:line:col` inside the
// message. No valid program makes the CPU lowering fail, so the test-only
// PH_TEST_CPU_NO_LOWERING=1 makes it refuse the kernel's first tile op (the load of X).
// REQUIRES: mlir
// RUN: env PH_TEST_CPU_NO_LOWERING=1 not ph run %s --target cpu --json > %t.run.json
// RUN: python3 %S/../gpu/Inputs/diag_ranges.py < %t.run.json | %FileCheck %s
// RUN: env PH_TEST_CPU_NO_LOWERING=1 not ph emit %s --stage cpu --json > %t.emit.json
// RUN: python3 %S/../gpu/Inputs/diag_ranges.py < %t.emit.json | %FileCheck %s
// RUN: env PH_TEST_CPU_NO_LOWERING=1 not ph emit %s --stage llvm-ir --json > %t.ir.json
// RUN: python3 %S/../gpu/Inputs/diag_ranges.py < %t.ir.json | %FileCheck %s
// For people, as `ph check` prints a diagnostic:
// RUN: env PH_TEST_CPU_NO_LOWERING=1 not ph run %s --target cpu 2>&1 | %FileCheck %s --check-prefix=TEXT
// RUN: env PH_TEST_CPU_NO_LOWERING=1 not ph emit %s --stage llvm 2>&1 | %FileCheck %s --check-prefix=TEXT
// Without the switch the same kernel lowers and runs.
// RUN: ph run %s --target cpu --check | %FileCheck %s --check-prefix=OK
// OK: check    Y: {{.*}} ok

// CHECK: E0506 cpu-lowering.ph:[[@LINE+6]]:13-[[@LINE+6]]:20 the CPU lowering cannot lower this: `tile.load` refused by the test-only PH_TEST_CPU_NO_LOWERING=1
// CHECK-NEXT: note cpu-lowering.ph:[[@LINE+4]]:1-[[@LINE+6]]:2 in kernel `scale`
// CHECK-NOT: {{^E0}}
// TEXT: cpu-lowering.ph:[[@LINE+3]]:13: error[E0506]: the CPU lowering cannot lower this: `tile.load` refused by the test-only PH_TEST_CPU_NO_LOWERING=1
// TEXT: note: in kernel `scale`
kernel scale(X: tensor<f32>[8, 8], Y: tensor<f32>[8, 8]) {
  Y[:, :] = X[:, :] * 2.0
}
