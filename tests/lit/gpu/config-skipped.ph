// An autotune configuration whose buffers do not fit the target's shared memory is left out of
// the build with W0503 at the kernel (as Triton's autotuner prunes a configuration that runs out
// of resources); the others are built. A kernel none of whose configurations fits fails with
// E0501 for each of them. W0503 is a warning: the build succeeds and its manifest lists what fit.
// REQUIRES: mlir
// RUN: rm -rf %t && ph build %s --kernel some_fit --target sm_90 -o %t 2>%t.err | %FileCheck %s --check-prefix=BUILT
// RUN: %FileCheck %s --check-prefix=SKIP < %t.err
// RUN: python3 -c "import json,sys; print([k['configName'] for k in json.load(open(sys.argv[1]))['kernels']])" %t/manifest.json | %FileCheck %s --check-prefix=MANIFEST
// RUN: not ph build %s --kernel none_fit --target sm_80 -o %t.none 2>&1 | %FileCheck %s --check-prefix=NONE
// RUN: ph build %s --kernel some_fit --target sm_90 --json -o %t.json | %FileCheck %s --check-prefix=JSON
// RUN: ph build %s --kernel some_fit --target sm_90 --json --progress --no-cache -o %t.progress | %FileCheck %s --check-prefix=PROGRESS

// BUILT: some_fit [C=16]: sm_90
// BUILT-NOT: some_fit [C=256]
// BUILT: wrote {{.*}}manifest.json (1 variant(s)): 1 compiled, 0 cached, 1 left out (W0503)
// MANIFEST: ['C=16']
// The warning is at the kernel (a buffer may be in std/), the buffer a note.
// SKIP: config-skipped.ph:[[@LINE+3]]:1: warning[W0503]: configuration C=256 of `some_fit` does not fit sm_90 and is left out of the build: kernel `some_fit` needs {{[0-9]+}} bytes of shared memory, more than the 232448 that sm_90 allows; largest tile: `tensor<256x256xf32>`
// SKIP: config-skipped.ph:[[@LINE+7]]:24: note: the largest buffer
// SKIP-NOT: error
@autotune(C in [16, 256])
kernel some_fit(X: tensor<f32>[M, 256], W: tensor<f32>[256, N], Y: tensor<f32>[M, N]) {
  let r = ctx.block.x * 16
  let c = ctx.block.y * C
  let w = W[:, c :+ C]
  Y[r :+ 16, c :+ C] = dot(X[r :+ 16, :], w)
}

// JSON: "ok": true
// JSON: "code": "W0503"
// The progress event of the configuration left out says so.
// PROGRESS: "event":"variant"{{.*}}"index":1,"ok":false,"cached":false,"skipped":true{{.*}}"code":"W0503"

// NONE-COUNT-2: warning[W0503]: configuration
// NONE: error[E0501]: kernel `none_fit` needs {{[0-9]+}} bytes of shared memory, more than the 166912 that sm_80 allows
// NONE: note: in configuration R=16
// NONE: error[E0501]: kernel `none_fit` needs {{[0-9]+}} bytes of shared memory, more than the 166912 that sm_80 allows
// NONE: note: in configuration R=32
@autotune(R in [16, 32])
kernel none_fit(X: tensor<f32>[M, 256], W: tensor<f32>[256, 256], Y: tensor<f32>[M, 256]) {
  let r = ctx.block.x * R
  Y[r :+ R, :] = dot(X[r :+ R, :], W[:, :])
}
