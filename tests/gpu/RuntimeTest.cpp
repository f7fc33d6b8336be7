//===- RuntimeTest.cpp - The GPU runtime's parts that need no GPU ----------===//
#include "ph/Runtime/GpuRun.h"
#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/Tool.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ph;
using namespace ph::rt;

namespace {

kir::ExprPtr intConst(int64_t v) {
  auto e = std::make_shared<kir::Expr>();
  e->kind = kir::ExprKind::IntConst;
  e->type = {Elem::I32, {}};
  e->ival = v;
  return e;
}

kir::ExprPtr expr(kir::ExprKind kind, kir::KType type, std::vector<kir::ExprPtr> ops = {}, uint32_t index = 0) {
  auto e = std::make_shared<kir::Expr>();
  e->kind = kind;
  e->type = std::move(type);
  e->operands = std::move(ops);
  e->index = index;
  return e;
}

/// A flash-attention-like signature: Q [Nq, 64] f16, K [Nk, 64] f16, O written, scale.
kir::Kernel attentionLike() {
  kir::Kernel k;
  k.name = "attn";
  k.config = {{"BR", 64}, {"BC", 32}};
  k.sizes = {{"Nq", 64}, {"Nk", 1}};
  k.tensors = {{"Q", Elem::F16, {{-1, 0, "Nq"}, {64, 0, "64"}}, false, true},
               {"K", Elem::F16, {{-1, 1, "Nk"}, {64, 0, "64"}}, false, true},
               {"O", Elem::F32, {{-1, 0, "Nq"}, {64, 0, "64"}}, true, false}};
  k.scalars = {{"scale", Elem::F32}};
  k.params = {{true, 0}, {true, 1}, {true, 2}, {false, 0}};
  k.grid[0] = {true, 0, 64, 1};
  k.gridText[0] = "ceil(Nq / 64)";
  k.threads = 128;
  // for kt in range(0, Nk, 32) { s = dot_t(q, K[kt :+ 32, :]) }
  k.vars = {{"q", {Elem::F16, {64, 64}}, true, {}}, {"s", {Elem::F32, {64, 32}}, false, {}},
            {"kt", {Elem::I32, {}}, false, {}}};
  auto q = expr(kir::ExprKind::VarRead, {Elem::F16, {64, 64}}, {}, 0);
  auto kload = expr(kir::ExprKind::TensorLoad, {Elem::F16, {32, 64}}, {}, 1);
  auto dot = std::make_shared<kir::Expr>(*expr(kir::ExprKind::Dot, {Elem::F32, {64, 32}}, {q, kload}));
  dot->transB = true;
  auto assign = std::make_shared<kir::Stmt>();
  assign->kind = kir::StmtKind::Assign;
  assign->var = 1;
  assign->value = dot;
  auto loop = std::make_shared<kir::Stmt>();
  loop->kind = kir::StmtKind::For;
  loop->var = 2;
  loop->lo = intConst(0);
  loop->hi = expr(kir::ExprKind::SizeArg, {Elem::I32, {}}, {}, 1);
  loop->step = intConst(32);
  loop->body = {assign};
  k.body = {loop};
  return k;
}

} // namespace

TEST(Manifest, RoundTripsEveryField) {
  kir::Kernel k = attentionLike();
  Manifest m;
  m.target = "sm_90";
  m.source = {"a.ph", "kernel attn() {}"};
  m.prelude = {{"std/attention.ph", "fn f() {}"}};
  ManifestKernel mk;
  mk.sig = signatureOf(k);
  mk.symbol = "attn";
  mk.cubin = variantFileName(k, "cubin");
  mk.dynamicShared = 70000;
  mk.ptxas.registers = 40;
  mk.ptxas.spillStores = 8;
  mk.notes = {"a note"};
  m.kernels.push_back(mk);
  EXPECT_EQ(mk.cubin, "attn.BR64_BC32.cubin");
  EXPECT_TRUE(mk.sig.body.empty());

  Manifest back;
  ASSERT_EQ(fromJson(toJson(m), back), "");
  ASSERT_EQ(back.kernels.size(), 1u);
  const ManifestKernel &b = back.kernels[0];
  EXPECT_EQ(back.target, "sm_90");
  EXPECT_EQ(back.source.text, m.source.text);
  EXPECT_EQ(back.prelude[0].path, "std/attention.ph");
  EXPECT_EQ(b.sig.name, "attn");
  EXPECT_EQ(b.sig.config, k.config);
  EXPECT_EQ(b.sig.tensors.size(), 3u);
  EXPECT_EQ(b.sig.tensors[0].elem, Elem::F16);
  EXPECT_EQ(b.sig.tensors[1].dims[0].size, 1u);
  EXPECT_EQ(b.sig.tensors[1].dims[1].value, 64);
  EXPECT_TRUE(b.sig.tensors[2].written);
  EXPECT_EQ(b.sig.scalars[0].name, "scale");
  EXPECT_EQ(b.sig.sizes[0].alignedTo, 64);
  EXPECT_EQ(b.sig.params.size(), 4u);
  EXPECT_FALSE(b.sig.params[3].isTensor);
  EXPECT_TRUE(b.sig.grid[0].fromSize);
  EXPECT_EQ(b.sig.grid[0].divisor, 64);
  EXPECT_EQ(b.sig.gridText[0], "ceil(Nq / 64)");
  EXPECT_EQ(b.dynamicShared, 70000);
  EXPECT_EQ(b.ptxas.registers, 40);
  EXPECT_EQ(b.ptxas.spillStores, 8);
  EXPECT_EQ(b.notes, mk.notes);
}

TEST(Manifest, RefusesOtherJson) {
  Manifest m;
  EXPECT_NE(fromJson("{\"format\": \"something-else\"}", m).find("not a Ph build manifest"), std::string::npos);
  EXPECT_NE(fromJson("not json", m), "");
}

TEST(Ptxas, ParsesTheReportOfOneEntry) {
  std::string log = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
                    "ptxas info    : Function properties for other\n"
                    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "ptxas info    : Used 8 registers, used 0 barriers\n"
                    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                    "ptxas info    : Function properties for k\n"
                    "    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads\n"
                    "ptxas info    : Used 255 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]\n";
  PtxasReport r = parsePtxasReport(log, "k");
  EXPECT_EQ(r.registers, 255);
  EXPECT_EQ(r.stackBytes, 24);
  EXPECT_EQ(r.spillStores, 16);
  EXPECT_EQ(r.spillLoads, 12);
  EXPECT_EQ(r.sharedBytes, 1024);
  EXPECT_EQ(parsePtxasReport(log, "other").registers, 8);
}

TEST(Compare, TheToolsCompareAsPhRunDoes) {
  // ph-run and ph bench check with ph::compareOutputs (ph run --check's rule): the
  // element of the largest error, NaN where the reference is finite fails, and the
  // same tolerance per element type.
  HostTensor ref = HostTensor::zeros(Elem::F32, {4, 4});
  for (int i = 0; i < 16; ++i) ref.set(i, 1.0 + i);
  HostTensor out = ref;
  EXPECT_TRUE(compareOutputs(out, ref).passed);
  out.set(5, ref.get(5) * (1 + 1e-3)); // 1e-3 relative on one element
  OutputComparison c = compareOutputs(out, ref);
  EXPECT_EQ(c.worst, 5);
  EXPECT_GT(c.relErr, 0);
  EXPECT_TRUE(c.relErr < 1e-3);
  EXPECT_EQ(c.tolerance, checkTolerance(Elem::F32));
  report::OutputCheck oc = report::outputCheck("O", c, Elem::F32, "interp");
  EXPECT_EQ(oc.worst, 5);
  EXPECT_EQ(oc.dtype, "f32");
  EXPECT_EQ(oc.reference, "interp");
  EXPECT_EQ(oc.passed, c.passed);
  out.set(5, std::nan(""));
  c = compareOutputs(out, ref);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nanCount, 1);
  HostTensor wrongShape = HostTensor::zeros(Elem::F32, {16});
  EXPECT_FALSE(compareOutputs(wrongShape, ref).passed);
  EXPECT_EQ(comparisonSummary(compareOutputs(wrongShape, ref)), "the shapes differ");
}

TEST(Cost, CountsDotsTimesLoopTripsPerCta) {
  kir::Kernel k = attentionLike();
  LaunchArgs args;
  std::vector<HostTensor> t = {HostTensor::zeros(Elem::F16, {256, 64}), HostTensor::zeros(Elem::F16, {100, 64}),
                               HostTensor::zeros(Elem::F32, {256, 64})};
  for (HostTensor &x : t) args.tensors.push_back(&x);
  args.sizes = {256, 100};
  args.scalars = {0.125};
  args.grid[0] = 4;
  KernelCost c = countCost(k, args);
  // ceil(100 / 32) = 4 trips per CTA, 4 CTAs, 2 * 64 * 32 * 64 per dot.
  EXPECT_DOUBLE_EQ(c.dotFlops, 4.0 * 4 * 2 * 64 * 32 * 64);
  EXPECT_DOUBLE_EQ(c.bytes, 256 * 64 * 2 + 100 * 64 * 2 + 256 * 64 * 4);
  EXPECT_EQ(c.ctas, 4);
}

TEST(Tool, ParsesOptions) {
  ToolOptions opt;
  std::vector<std::string> rest;
  ASSERT_EQ(parseToolOptions({"dir", "--size", "N=128", "--arg", "scale=0.5", "--config", "BR=64,BC=32", "--bench",
                              "--iters", "7", "--out", "O=o.npy"},
                             opt, rest),
            "");
  EXPECT_EQ(rest, std::vector<std::string>{"dir"});
  EXPECT_EQ(opt.request.sizes["N"], 128);
  EXPECT_EQ(opt.request.scalars["scale"], 0.5);
  EXPECT_EQ(opt.config.size(), 2u);
  EXPECT_TRUE(opt.bench);
  EXPECT_EQ(opt.benchOptions.iterations, 7);
  EXPECT_EQ(opt.outPaths["O"], "o.npy");
  ToolOptions bad;
  EXPECT_EQ(parseToolOptions({"--size", "N"}, bad, rest), "`--size` takes NAME=INTEGER, found `N`");
  EXPECT_EQ(parseToolOptions({"--config", "BR=x"}, bad, rest),
            "`--config` takes NAME=INTEGER[,NAME=INTEGER...], found `BR=x`");
  EXPECT_EQ(parseToolOptions({"--seed", "x1"}, bad, rest), "`--seed` takes an integer, found `x1`");
  EXPECT_EQ(parseToolOptions({"--iters", "0"}, bad, rest), "`--iters` takes a count from 1, found `0`");
  EXPECT_EQ(parseToolOptions({"--min-ms", "-1"}, bad, rest), "`--min-ms` takes milliseconds from 0, found `-1`");
  ToolOptions burst;
  ASSERT_EQ(parseToolOptions({"dir", "--bench", "--min-ms", "0", "--iters", "5"}, burst, rest), "");
  EXPECT_EQ(burst.benchOptions.minTimeMs, 0.0);
  EXPECT_EQ(burst.benchOptions.iterations, 5);
  EXPECT_EQ(ToolOptions().benchOptions.minTimeMs, 200.0);
}

TEST(Tool, OneParserForPhRunPhBenchAndPhRun) {
  // `--name=value` as `--name value`; --in is only recorded (readInputs reads it).
  ToolOptions opt;
  std::vector<std::string> rest;
  ASSERT_EQ(parseToolOptions({"f.ph", "--size=N=64", "-k", "attn", "--in", "Q=q.npy", "--target", "cpu", "--check"},
                             opt, rest, kPhRunCommandOptions),
            "");
  EXPECT_EQ(rest, std::vector<std::string>{"f.ph"});
  EXPECT_EQ(opt.request.sizes["N"], 64);
  EXPECT_EQ(opt.kernel, "attn");
  EXPECT_EQ(opt.target, "cpu");
  EXPECT_TRUE(opt.check);
  ASSERT_EQ(opt.inPaths.size(), 1u);
  EXPECT_EQ(opt.inPaths[0], (std::pair<std::string, std::string>{"Q", "q.npy"}));
  EXPECT_TRUE(opt.request.inputs.empty());
  EXPECT_NE(readInputs(opt).find("q.npy"), std::string::npos); // no such file: the error names it
  // What a tool does not take stays in `rest`, for it to refuse: `ph run` has no --bench,
  // ph-run no --target.
  ToolOptions run, phRun;
  std::vector<std::string> runRest, phRunRest;
  ASSERT_EQ(parseToolOptions({"--bench", "--ref", "O=r.npy"}, run, runRest, kPhRunCommandOptions), "");
  EXPECT_EQ(runRest, (std::vector<std::string>{"--bench", "--ref", "O=r.npy"}));
  ASSERT_EQ(parseToolOptions({"--target", "sm_90", "--bench"}, phRun, phRunRest, kPhRunOptions), "");
  EXPECT_EQ(phRunRest, (std::vector<std::string>{"--target", "sm_90"}));
  EXPECT_TRUE(phRun.bench);
}

TEST(Tool, DrawsLargeInputsAsBindLaunchDoes) {
  // The parallel draw must give bindLaunch's serial stream, element for element, on sizes
  // that split unevenly over the threads; the written-only O is left to bindLaunch.
  kir::Kernel k = attentionLike();
  LaunchRequest req;
  req.sizes = {{"Nq", 320}, {"Nk", 77}};
  req.seed = 5;
  std::vector<std::string> drawn;
  drawLargeInputs(k, req, drawn, /*minBytes=*/0);
  EXPECT_EQ(drawn, (std::vector<std::string>{"Q", "K"}));
  ASSERT_EQ(req.inputs.count("O"), 0u);
  LaunchRequest serial;
  serial.sizes = req.sizes;
  serial.seed = 5;
  std::vector<HostTensor> storage;
  LaunchArgs args;
  ASSERT_EQ(bindLaunch(k, serial, storage, args), "");
  for (size_t i = 0; i < 2; ++i) {
    const HostTensor &want = *args.tensors[i], &got = req.inputs.at(k.tensors[i].name);
    EXPECT_EQ(got.shape, want.shape);
    EXPECT_TRUE(got.bytes == want.bytes) << k.tensors[i].name;
  }
  // Below the threshold nothing is drawn.
  LaunchRequest small;
  small.sizes = req.sizes;
  std::vector<std::string> none;
  drawLargeInputs(k, small, none);
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(small.inputs.empty());
}

TEST(Tool, DrawnInputsComeFromTheCacheUnchanged) {
  // A second configuration takes the first one's draw from the cache: same names, same bytes;
  // another seed (the next input set) is drawn anew.
  kir::Kernel k = attentionLike();
  std::map<std::string, HostTensor> cache;
  LaunchRequest a;
  a.sizes = {{"Nq", 320}, {"Nk", 77}};
  a.seed = 5;
  std::vector<std::string> drawnA;
  drawLargeInputs(k, a, drawnA, /*minBytes=*/0, &cache);
  EXPECT_EQ(cache.size(), 2u);
  LaunchRequest b = a;
  b.inputs.clear();
  std::vector<std::string> drawnB;
  drawLargeInputs(k, b, drawnB, /*minBytes=*/0, &cache);
  EXPECT_EQ(drawnB, drawnA);
  for (const std::string &n : drawnA) EXPECT_TRUE(b.inputs.at(n).bytes == a.inputs.at(n).bytes) << n;
  LaunchRequest c = a;
  c.inputs.clear();
  c.seed = 6;
  std::vector<std::string> drawnC;
  drawLargeInputs(k, c, drawnC, /*minBytes=*/0, &cache);
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_FALSE(c.inputs.at("Q").bytes == a.inputs.at("Q").bytes);
}

TEST(Driver, SaysWhyThereIsNoGpu) {
  Cuda &cu = Cuda::get();
  if (cu.available()) GTEST_SKIP() << "a GPU is present (" << cu.device().name << ")";
  EXPECT_NE(cu.whyUnavailable().find("no GPU"), std::string::npos);
  ManifestKernel mk;
  mk.sig = signatureOf(attentionLike());
  LaunchArgs args;
  EXPECT_NE(runCubin(mk, {}, args).find("no GPU"), std::string::npos);
  EXPECT_EQ(printDeviceInfo(false), kExitNoGpu);
}
