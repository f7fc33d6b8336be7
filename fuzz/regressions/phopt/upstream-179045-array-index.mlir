// MLIR 22 parser crash, llvm/llvm-project#179045: skipped by the fuzzer, must not crash it.
func.func @f() attributes {a = array<index: 1>} {
  return
}
