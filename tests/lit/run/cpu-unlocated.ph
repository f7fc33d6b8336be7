// CPU failures that no op's location names are registry diagnostics at the kernel, the best
// range there is, with the backend's own words as a note (issue 18), never E0502 or plain
// text. Both are E0506 (CpuLoweringFailed): LLVM's JIT failing ("LLVM's JIT failed: ...")
// with LLVM's error as the note, a pass failing with an error at no op with MLIR's. No valid program does either: the
// test-only PH_TEST_CPU_NO_JIT=1 asks the JIT for an entry the module lacks, and
// PH_TEST_CPU_NO_LOWERING=2 makes the CPU lowering refuse the module at no location.
// REQUIRES: mlir
// RUN: env PH_TEST_CPU_NO_JIT=1 not ph run %s --target cpu --json > %t.jit.json
// RUN: python3 %S/../gpu/Inputs/diag_ranges.py < %t.jit.json | %FileCheck %s --check-prefix=JIT
// RUN: python3 %S/../gpu/Inputs/check_ph_output.py < %t.jit.json | %FileCheck %s --check-prefix=VALID
// RUN: env PH_TEST_CPU_NO_JIT=1 not ph run %s --target cpu 2>&1 | %FileCheck %s --check-prefix=JIT-TEXT
// RUN: env PH_TEST_CPU_NO_LOWERING=2 not ph run %s --target cpu --json > %t.mod.json
// RUN: python3 %S/../gpu/Inputs/diag_ranges.py < %t.mod.json | %FileCheck %s --check-prefix=MODULE
// RUN: env PH_TEST_CPU_NO_LOWERING=2 not ph emit %s --stage llvm --json > %t.emit.json
// RUN: python3 %S/../gpu/Inputs/diag_ranges.py < %t.emit.json | %FileCheck %s --check-prefix=MODULE
// VALID: valid run

// JIT: E0506 cpu-unlocated.ph:[[@LINE+11]]:1-[[@LINE+13]]:2 the CPU lowering cannot lower this: LLVM's JIT failed: Symbols not found: {{.*}}scale_refused_by_PH_TEST_CPU_NO_JIT
// JIT-NEXT: note cpu-unlocated.ph:[[@LINE+10]]:1-[[@LINE+12]]:2 LLVM: Symbols not found: {{.*}}scale_refused_by_PH_TEST_CPU_NO_JIT
// JIT-NOT: {{^E0}}
// JIT-TEXT: cpu-unlocated.ph:[[@LINE+8]]:1: error[E0506]: the CPU lowering cannot lower this: LLVM's JIT failed: Symbols not found
// JIT-TEXT: note: LLVM: Symbols not found
// JIT-TEXT-NOT: E0502
// JIT-TEXT: ph run: the CPU target failed to compile `scale`
// MODULE: E0506 cpu-unlocated.ph:[[@LINE+4]]:1-[[@LINE+6]]:2 the CPU lowering cannot lower this: the module refused by the test-only PH_TEST_CPU_NO_LOWERING=2
// MODULE-NEXT: note cpu-unlocated.ph:[[@LINE+3]]:1-[[@LINE+5]]:2 MLIR: the module refused by the test-only PH_TEST_CPU_NO_LOWERING=2
// MODULE-NOT: {{^E0}}

kernel scale(X: tensor<f32>[8, 8], Y: tensor<f32>[8, 8]) {
  Y[:, :] = X[:, :] * 2.0
}
