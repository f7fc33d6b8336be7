// RUN: ph-opt %s -split-input-file --tile-to-linalg -verify-diagnostics
// REQUIRES: mlir
// Negative: tile-to-linalg refuses kernels it cannot give the CPU ABI.

// Negative: a kernel returns nothing; its results go to tensors.
// expected-error @+1 {{'func.func' op is a kernel and must return nothing (results are stored into tensors)}}
func.func @returns(%x: f32) -> f32 {
  return %x : f32
}
