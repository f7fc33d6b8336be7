//===- npy_fuzzer.cpp - Bytes to the .npy reader ---------------------------===//
//
// A file the reader accepts must describe exactly the bytes it holds, and
// must round-trip through the writer.
//
//===----------------------------------------------------------------------===//
#include "ph/Npy.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ph::HostTensor t;
  std::string err = ph::npy::parse(std::string_view(reinterpret_cast<const char *>(data), size), t);
  if (!err.empty()) return 0;
  if (static_cast<int64_t>(t.bytes.size()) != t.numElements() * static_cast<int64_t>(ph::elemBytes(t.elem))) std::abort();
  ph::HostTensor back;
  if (!ph::npy::parse(ph::npy::serialize(t), back).empty() || back.bytes != t.bytes || back.shape != t.shape) std::abort();
  return 0;
}
