// A dot over K = 8 (mma.sync m16n8k16 reads K 16 deep) is refused by the mma.sync layout
// policy: E0503 (LayoutUnsupported) at the dot's range, from the location the op carries,
// under PH_GPU_LOWERING=tilegpu. Without it, the kernel is built another way (the AUTO build).
// With the test-only PH_TEST_TILEGPU_UNCHECKED_K=1 the policy keeps the dot, and the op the
// TileGPU conversion then refuses (the ldmatrix of the 8-deep A slice) is E0504 at that op:
// the conversion's legalization failure, at the A slice's range (the UNLOWERED build).
// REQUIRES: mlir
// RUN: env PH_GPU_LOWERING=tilegpu not ph build %s --target sm_80 -o %t --no-cache --json > %t.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.json | %FileCheck %s
// RUN: ph build %s --target sm_80 -o %t.auto --no-cache 2>&1 | %FileCheck %s --check-prefix=AUTO
// RUN: env PH_GPU_LOWERING=tilegpu PH_TEST_TILEGPU_UNCHECKED_K=1 not ph build %s --target sm_80 -o %t.u --no-cache --json > %t.u.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.u.json | %FileCheck %s --check-prefix=UNLOWERED
// `ph emit` of the GPU stages gives the same registry diagnostics, never MLIR's text:
// RUN: env PH_GPU_LOWERING=tilegpu not ph emit %s --stage gpu --target sm_80 --json > %t.emit.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.emit.json | %FileCheck %s
// RUN: env PH_GPU_LOWERING=tilegpu PH_TEST_TILEGPU_UNCHECKED_K=1 not ph emit %s --stage ptx --target sm_80 --json > %t.emit.u.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.emit.u.json | %FileCheck %s --check-prefix=UNLOWERED
// AUTO: g []: sm_80
@tensorcore
@aligned(M = 64, N = 16, K = 8)
kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f32>[M, N]) {
  let row = ctx.block.x * 64
  let col = ctx.block.y * 16
  var acc: tile<f32>[64, 16] = 0.0
  for k in range(0, K, 8) {
    // CHECK: E0503 short-k.ph:[[@LINE+6]]:12-[[@LINE+6]]:{{[0-9]+}} the TileGPU lowering cannot lay out this tile: a dot over K = 8 cannot run on mma.sync m16n8k16: K must be a multiple of 16
    // CHECK-NEXT: note short-k.ph:19:1-{{.*}} in kernel `g`
    // CHECK-NOT: {{^E0}}
    // UNLOWERED: E0504 short-k.ph:[[@LINE+3]]:16-[[@LINE+3]]:{{[0-9]+}} the GPU lowering cannot lower this: failed to legalize operation 'tilegpu.local_load'
    // UNLOWERED-NEXT: note short-k.ph:19:1-{{.*}} in kernel `g`
    // UNLOWERED-NOT: {{^E0}}
    acc += dot(A[row :+ 64, k :+ 8], B[k :+ 8, col :+ 16])
    // The same failure as `ph build` prints it for people (one more build: the lines above stay put).
    // RUN: env PH_GPU_LOWERING=tilegpu PH_TEST_TILEGPU_UNCHECKED_K=1 not ph build %s --target sm_80 -o %t.ut --no-cache 2>&1 | %FileCheck %s --check-prefix=UNLOWERED-TEXT
    // RUN: env PH_GPU_LOWERING=tilegpu PH_TEST_TILEGPU_UNCHECKED_K=1 not ph emit %s --stage gpu-llvm --target sm_80 2>&1 | %FileCheck %s --check-prefix=UNLOWERED-TEXT
    // UNLOWERED-TEXT: short-k.ph:[[@LINE-4]]:16: error[E0504]: the GPU lowering cannot lower this: failed to legalize operation 'tilegpu.local_load'
  }
  O[row :+ 64, col :+ 16] = acc
}

// A failed dialect conversion leaked 51 ops (LeakSanitizer, mlir::Operation::create): the
// guarded async copy's branch was filled by a builder the conversion did not see, so rolling
// the `if` back freed its block, not those ops. They go through the rewriter now, and the two
// UNCHECKED_K runs keep leak detection on (scripts/sanitize.sh) to show it.
