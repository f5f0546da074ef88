// probe_gpu_links() against the NVML stand-ins of tests/compute/fake_nvml.cpp (this machine has no
// driver): what an H200 SXM layout and a PCIe-only layout read as, a host whose driver is not
// loaded, a library that is absent or is not NVML, and the test hook's variable.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engines/gpu_links.h"

using namespace collbench::compute;

TEST(GpuLinks, AnH200SxmLayoutReadsAsEighteenNvLink4LinksToNvSwitches) {
  const GpuLinkInventory inventory = probe_gpu_links(FAKE_NVML_SXM);
  ASSERT_TRUE(inventory.read) << inventory.note;
  EXPECT_EQ(inventory.note, "");
  ASSERT_EQ(inventory.gpus.size(), 8u);
  for (unsigned i = 0; i < 8; ++i) {
    const GpuLinks& gpu = inventory.gpus[i];
    EXPECT_EQ(gpu.index, i);
    EXPECT_EQ(gpu.name, "NVIDIA H200");
    EXPECT_EQ(gpu.compute_capability, "9.0");
    EXPECT_EQ(gpu.nvlinks, 18u);
    EXPECT_EQ(gpu.nvlinks_active, 18u);
    EXPECT_EQ(gpu.nvlinks_to_nvswitch, 18u);
    EXPECT_EQ(gpu.nvlink_version_code, 6u);
    EXPECT_EQ(gpu.pcie_generation, 5u);
    EXPECT_EQ(gpu.pcie_max_generation, 5u);
    EXPECT_EQ(gpu.pcie_width, 16u);
    EXPECT_EQ(gpu.pcie_max_width, 16u);
  }
  EXPECT_EQ(nvlink_version_name(6), "NVLink 4.0");
  EXPECT_EQ(nvlink_version_name(4), "NVLink 3.0");
  EXPECT_EQ(nvlink_version_name(42), "code 42");
}

TEST(GpuLinks, APcieLayoutHasNoNvLinkAndEachGpusLanes) {
  const GpuLinkInventory inventory = probe_gpu_links(FAKE_NVML_PCIE);
  ASSERT_TRUE(inventory.read) << inventory.note;
  ASSERT_EQ(inventory.gpus.size(), 2u);
  for (const auto& gpu : inventory.gpus) {
    EXPECT_EQ(gpu.name, "NVIDIA H100 PCIe");
    EXPECT_EQ(gpu.nvlinks, 0u);  // "not supported" for every link: none listed
    EXPECT_EQ(gpu.nvlinks_active, 0u);
    EXPECT_FALSE(gpu.nvlink_version_code.has_value());
    EXPECT_EQ(gpu.pcie_max_generation, 5u);
    EXPECT_EQ(gpu.pcie_max_width, 16u);
  }
  EXPECT_EQ(inventory.gpus[0].pcie_width, 16u);
  EXPECT_EQ(inventory.gpus[1].pcie_width, 8u);
}

TEST(GpuLinks, NoDriverNoLibraryOrNotNvmlSayWhyAndReadNothing) {
  const GpuLinkInventory no_driver = probe_gpu_links(FAKE_NVML_NODRIVER);
  EXPECT_FALSE(no_driver.read);
  EXPECT_TRUE(no_driver.gpus.empty());
  EXPECT_EQ(no_driver.note, "nvmlInit_v2: Driver Not Loaded (9)");

  const GpuLinkInventory absent = probe_gpu_links("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(absent.read);
  EXPECT_EQ(absent.library, "/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(absent.note.rfind("cannot load /nonexistent/libnvidia-ml.so.1: ", 0), 0u) << absent.note;

  // A shared library that is not NVML (the C library's math, present everywhere).
  const GpuLinkInventory not_nvml = probe_gpu_links("libm.so.6");
  EXPECT_FALSE(not_nvml.read);
  EXPECT_EQ(not_nvml.note, "the library has no nvmlInit_v2");
}

TEST(GpuLinks, TheTestHookNamesTheLibraryAndAnArgumentWins) {
  ASSERT_EQ(::setenv(kNvmlLibraryVariable, FAKE_NVML_PCIE, 1), 0);
  const GpuLinkInventory hooked = probe_gpu_links();
  const GpuLinkInventory named = probe_gpu_links(FAKE_NVML_SXM);
  ::unsetenv(kNvmlLibraryVariable);
  EXPECT_EQ(hooked.library, FAKE_NVML_PCIE);
  EXPECT_EQ(hooked.gpus.size(), 2u);
  EXPECT_EQ(named.gpus.size(), 8u);
  // Unset: the driver's own library, which this machine lacks or has: either way no throw, and
  // a note whenever nothing was read.
  const GpuLinkInventory plain = probe_gpu_links();
  EXPECT_EQ(plain.library, "libnvidia-ml.so.1");
  if (!plain.read) EXPECT_FALSE(plain.note.empty());
}
