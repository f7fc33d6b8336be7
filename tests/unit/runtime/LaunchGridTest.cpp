// The grid a manifest kernel is launched with (docs/abi.md, "The grid"): the one its sizes give,
// or for a persistent kernel (tilegpu-persistent) as many CTAs as the device holds at once, never
// more than its tiles; and the manifest's `persistent` through JSON and back.
#include "ph/Runtime/Manifest.h"

#include <gtest/gtest.h>

using namespace ph::rt;

TEST(LaunchGrid, AKernelThatIsNotPersistentTakesItsGrid) {
  ManifestKernel mk;
  int64_t grid[3] = {32, 16, 4}, out[3];
  launchGrid(mk, grid, 132, 1, out);
  EXPECT_EQ(out[0], 32);
  EXPECT_EQ(out[1], 16);
  EXPECT_EQ(out[2], 4);
}

TEST(LaunchGrid, APersistentKernelFillsTheDeviceOnce) {
  ManifestKernel mk;
  mk.persistent = true;
  int64_t grid[3] = {32, 16, 4}, out[3];
  launchGrid(mk, grid, 132, 1, out);
  EXPECT_EQ(out[0], 132);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 1);
  launchGrid(mk, grid, 132, 2, out);
  EXPECT_EQ(out[0], 264);
}

TEST(LaunchGrid, APersistentKernelNeverLaunchesMoreCtasThanTiles) {
  ManifestKernel mk;
  mk.persistent = true;
  int64_t grid[3] = {128, 1, 1}, out[3];
  launchGrid(mk, grid, 132, 1, out);
  EXPECT_EQ(out[0], 128);
  int64_t none[3] = {0, 1, 1};
  launchGrid(mk, none, 132, 1, out);
  EXPECT_EQ(out[0], 0); // as the sizes give it: the launch refuses an empty grid for every kernel
}

TEST(LaunchGrid, PersistentSurvivesTheManifest) {
  Manifest m;
  m.target = "sm_90a";
  ManifestKernel a, b;
  a.sig.name = b.sig.name = "k";
  a.symbol = b.symbol = "k";
  a.cubin = "a.cubin";
  b.cubin = "b.cubin";
  b.persistent = true;
  m.kernels = {a, b};
  std::string text = toJson(m);
  EXPECT_EQ(text.find("\"persistent\""), text.rfind("\"persistent\"")) << "written only where true";
  Manifest back;
  ASSERT_EQ(fromJson(text, back), "");
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_FALSE(back.kernels[0].persistent);
  EXPECT_TRUE(back.kernels[1].persistent);
}
