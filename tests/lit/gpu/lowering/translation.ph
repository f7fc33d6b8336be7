// The LLVM IR translation failing at an op is E0504 at that op's range, as the passes before
// it are (issue 18): the NVPTX codegen (Gpu/NvptxCodegen.cpp) kept its own MLIR handler, which
// took "LLVM Translation failed for operation: ..." before the shared LoweringCapture and
// dropped its location, so it came out as E0502 at the kernel with MLIR's text (differential
// bug 14's symptom). An error at no op is E0504 at the kernel with MLIR's words as a note.
// No valid program fails there since bug 14: the test-only PH_TEST_GPU_NO_TRANSLATION=1 puts
// the op that bug left (`builtin.unrealized_conversion_cast`) at the kernel's first located
// op inside it, =2 the same op without a location. No GPU is needed (ptxas is not reached).
// REQUIRES: mlir
// RUN: env PH_TEST_GPU_NO_TRANSLATION=1 not ph build %s --target sm_80 -o %t --no-cache --json > %t.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.json | %FileCheck %s
// RUN: python3 %S/../Inputs/check_ph_output.py < %t.json | %FileCheck %s --check-prefix=VALID
// RUN: env PH_TEST_GPU_NO_TRANSLATION=1 not ph emit %s --stage ptx --target sm_80 --json > %t.emit.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.emit.json | %FileCheck %s
// RUN: env PH_TEST_GPU_NO_TRANSLATION=1 not ph build %s --target sm_80 -o %t.t --no-cache 2>&1 | %FileCheck %s --check-prefix=TEXT
// RUN: env PH_TEST_GPU_NO_TRANSLATION=2 not ph build %s --target sm_80 -o %t.u --no-cache --json > %t.u.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.u.json | %FileCheck %s --check-prefix=UNLOCATED
// VALID: valid build
// CHECK: E0504 translation.ph:[[@LINE+14]]:35-[[@LINE+14]]:38 the GPU lowering cannot lower this: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
// CHECK-NEXT: note translation.ph:[[@LINE+10]]:1-[[@LINE+14]]:2 in kernel `scale`
// CHECK-NEXT: note translation.ph:[[@LINE+9]]:1-[[@LINE+13]]:2 in configuration BR=32
// CHECK-NOT: {{^E0}}
// TEXT: translation.ph:[[@LINE+10]]:35: error[E0504]: the GPU lowering cannot lower this: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
// TEXT-NOT: E0502
// UNLOCATED: E0504 translation.ph:[[@LINE+5]]:1-[[@LINE+9]]:2 the GPU lowering cannot lower this: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
// UNLOCATED-NEXT: note translation.ph:[[@LINE+4]]:1-[[@LINE+8]]:2 in configuration BR=32
// UNLOCATED-NEXT: note translation.ph:[[@LINE+3]]:1-[[@LINE+7]]:2 MLIR: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
// UNLOCATED-NOT: {{^E0}}

@autotune(BR in [32])
kernel scale(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] * 2.0
}
