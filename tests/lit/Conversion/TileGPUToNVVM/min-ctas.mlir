// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// `tilegpu.min_ctas` (the CTAs per SM the kernel's registers are fitted to) becomes
// NVVM's `nvvm.minctasm`, which the NVPTX backend writes as `.minnctapersm`: ptxas then
// keeps the registers within 65,536 / (threads x CTAs). A kernel without it gets none.

// CHECK: gpu.func @fitted() kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: nvvm.minctasm = 3 : i32
func.func @fitted() attributes {tile.threads = 128 : i32, tilegpu.min_ctas = 3 : i32} {
  return
}

// CHECK: gpu.func @free() kernel
// CHECK-NOT: nvvm.minctasm
func.func @free() attributes {tile.threads = 128 : i32} {
  return
}
