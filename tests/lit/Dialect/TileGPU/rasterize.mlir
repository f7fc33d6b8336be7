// RUN: ph-opt %s --tilegpu-rasterize="group=8" --split-input-file | %FileCheck %s
// RUN: not ph-opt %s --tilegpu-rasterize="group=0" --split-input-file 2>&1 | %FileCheck %s --check-prefix=BAD
// REQUIRES: mlir
// A kernel that uses block x and y gets both from the grouped order of the
// linear launch index: pid = x + y * gridDim.x, groups of 8 x-blocks times
// gridDim.y, the last group with the x-blocks that are left.

// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[BX:.*]] = gpu.block_id  x
// CHECK-DAG: %[[BY:.*]] = gpu.block_id  y
// CHECK-DAG: %[[GX:.*]] = gpu.grid_dim  x
// CHECK-DAG: %[[GY:.*]] = gpu.grid_dim  y
// CHECK: %[[YGX:.*]] = arith.muli %[[BY]], %[[GX]]
// CHECK: %[[PID:.*]] = arith.addi %[[BX]], %[[YGX]]
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[PER:.*]] = arith.muli %[[C8]], %[[GY]]
// CHECK: %[[G:.*]] = arith.divui %[[PID]], %[[PER]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %[[C8]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[GX]], %[[FIRST]]
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[C8]]
// CHECK: %[[IN:.*]] = arith.remui %[[PID]], %[[PER]]
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK: %[[M:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK: %[[N:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK-NOT: tile.block_id 0
// CHECK-NOT: tile.block_id 1
// CHECK: %[[X:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK: %[[Y:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK: tile.block_id 2
// CHECK: return %[[X]], %[[Y]]
func.func @gemm() -> (i32, i32, i32) {
  %x = tile.block_id 0
  %y = tile.block_id 1
  %z = tile.block_id 2
  return %x, %y, %z : i32, i32, i32
}

// -----

// A 1-D grid keeps its order.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: gpu.grid_dim
// CHECK: tile.block_id
func.func @rows() -> i32 {
  %x = tile.block_id 0
  return %x : i32
}

// BAD: tilegpu-rasterize needs group >= 1, not 0
