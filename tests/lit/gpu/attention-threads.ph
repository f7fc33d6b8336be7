// Attention written without @launch takes two warpgroups only where the dots of its row-reducing
// loop (S = Q K^T and P V) would leave one warpgroup's threads more than 160 f32 values each:
// a dot after the loop (an output projection) is not live beside them and does not count.
// REQUIRES: mlir
// RUN: rm -rf %t && ph build %s --target sm_90a -o %t > %t.log
// RUN: python3 -c "import json,sys; print(sorted((k['name'], k['configName'], k['threads']) for k in json.load(open(sys.argv[1]))['kernels']))" %t/manifest.json | %FileCheck %s
// CHECK: [('big_blocks', 'BC=128', 256), ('big_blocks', 'BC=32', 128), ('projected', '', 128)]
// `ph emit`'s header says what the lowering launches.
// RUN: ph emit %s --kernel big_blocks --config BC=128 --stage tilegpu --target sm_90a | %FileCheck %s --check-prefix=EMIT
// RUN: ph emit %s --kernel big_blocks --config BC=32 --stage gpu --target sm_90a | %FileCheck %s --check-prefix=EMIT128
// EMIT: // sm_90a, 256 threads, policy wgmma
// EMIT128: // sm_90a, 128 threads,

@tensorcore
@autotune(BC in [32, 128])
@aligned(N = 128)
kernel big_blocks(Q: tensor<f16>[N, 128], K: tensor<f16>[N, 128], V: tensor<f16>[N, 128], O: tensor<f16>[N, 128], scale: f32) {
  let row = ctx.block.x * 128
  var acc: tile<f32>[128, 128] = 0.0
  attention(acc, Q[row :+ 128, :], K, V, scale, 128, BC)
  O[row :+ 128, :] = acc
}

// 128 x 64 + 128 x 64 in the loop (128 a thread), and a 128 x 64 projection after it.
@tensorcore
@aligned(N = 128)
kernel projected(Q: tensor<f16>[N, 64], K: tensor<f16>[N, 64], V: tensor<f16>[N, 64], W: tensor<f16>[64, 64],
                 O: tensor<f16>[N, 64], scale: f32) {
  let row = ctx.block.x * 128
  var acc: tile<f32>[128, 64] = 0.0
  attention(acc, Q[row :+ 128, :], K, V, scale, 128, 64)
  let a = f16(acc)
  O[row :+ 128, :] = dot(a, W[:, :])
}
