// A tile the TileGPU mma policy cannot lay out (24 rows: no split of 4 warps into 16-row
// blocks) is E0503 at the dot that makes it, under PH_GPU_LOWERING=tilegpu (no fallback
// to the SIMT policy); issue 18: the op's range, not the kernel's.
// REQUIRES: mlir
// RUN: env PH_GPU_LOWERING=tilegpu not ph build %s --target sm_90 -o %t --no-cache --json > %t.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.json | %FileCheck %s
// RUN: python3 %S/../Inputs/check_ph_output.py < %t.json | %FileCheck %s --check-prefix=VALID
// RUN: env PH_GPU_LOWERING=tilegpu not ph build %s --target sm_90 -o %t --no-cache 2>&1 | %FileCheck %s --check-prefix=TEXT
// VALID: valid build
@tensorcore
kernel small_dot(Q: tensor<f16>[N, 16], K: tensor<f16>[16, 24], O: tensor<f32>[N, 24]) {
  let r = ctx.block.x * 24
  let a = Q[r :+ 24, :]
  // CHECK: E0503 small-dot.ph:[[@LINE+3]]:30-[[@LINE+3]]:51 the TileGPU lowering cannot lay out this tile: tile 'tensor<24x24xf32>' cannot take the mma.sync register layout: no split of the 4 warps into 16-row and 8-column blocks fits every dot
  // CHECK-NEXT: note small-dot.ph:10:1-{{.*}} in kernel `small_dot`
  // CHECK-NEXT: note small-dot.ph:10:1-{{.*}} PH_GPU_LOWERING=tilegpu: the SIMT policy may not take it instead
  var s: tile<f32>[24, 24] = dot(a, K[0 :+ 16, :])
  // TEXT: small-dot.ph:[[@LINE-1]]:30: error[E0503]: the TileGPU lowering cannot lay out this tile
  // TEXT-NOT: error[
  O[r :+ 24, :] = s
}
