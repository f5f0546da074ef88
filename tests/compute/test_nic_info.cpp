// probe_nics() on a fixture sysfs tree: what each kind of interface and InfiniBand port reads as,
// and the per-host facts line that carries them to rank 0, there and back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engines/nic_info.h"

using namespace collbench::compute;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

// A host with a 25G NIC, a VM's NIC without a speed, a veth, the loopback and a 200G HDR port.
std::string fixture_sysfs() {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / ("sysfs-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  write(root / "class/net/lo/type", "772");
  write(root / "class/net/lo/speed", "-1");
  write(root / "class/net/ens1f0/type", "1");
  write(root / "class/net/ens1f0/speed", "25000");
  write(root / "class/net/ens1f0/device/uevent", "DRIVER=mlx5_core");
  write(root / "class/net/eth0/type", "1");
  write(root / "class/net/eth0/speed", "-1");
  write(root / "class/net/eth0/device/uevent", "DRIVER=virtio_net");
  write(root / "class/net/veth0/type", "1");
  write(root / "class/net/veth0/speed", "10000");
  write(root / "class/net/ib0/type", "32");
  write(root / "class/infiniband/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)");
  write(root / "class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE");
  write(root / "class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand");
  write(root / "class/infiniband/mlx5_1/ports/1/rate", "400 Gb/sec (4X NDR)");
  write(root / "class/infiniband/mlx5_1/ports/1/state", "1: DOWN");
  write(root / "class/infiniband/mlx5_1/ports/1/link_layer", "InfiniBand");
  return root.string();
}

const NicInfo* named(const std::vector<NicInfo>& nics, const std::string& name) {
  for (const auto& nic : nics) {
    if (nic.name == name) return &nic;
  }
  return nullptr;
}

}  // namespace

TEST(NicInfo, ReadsEveryInterfaceButTheLoopbackAndEveryInfinibandPort) {
  const auto nics = probe_nics(fixture_sysfs());
  EXPECT_EQ(named(nics, "lo"), nullptr);
  ASSERT_NE(named(nics, "ens1f0"), nullptr);
  EXPECT_EQ(*named(nics, "ens1f0")->speed_mbit, 25000);
  EXPECT_TRUE(named(nics, "ens1f0")->physical);
  EXPECT_EQ(named(nics, "ens1f0")->kind, "ethernet");
  EXPECT_FALSE(named(nics, "eth0")->speed_mbit.has_value());  // a VM's NIC says -1
  EXPECT_TRUE(named(nics, "eth0")->physical);
  EXPECT_FALSE(named(nics, "veth0")->physical);
  EXPECT_EQ(named(nics, "ib0")->kind, "infiniband");
  EXPECT_EQ(*named(nics, "mlx5_0:1")->speed_mbit, 200000);
  EXPECT_TRUE(named(nics, "mlx5_0:1")->physical);
  EXPECT_FALSE(named(nics, "mlx5_1:1")->physical);  // a port that is down carries nothing
  EXPECT_TRUE(probe_nics("/nonexistent-sysfs").empty());
}

TEST(NicInfo, TheFactsLineCarriesThePhysicalOnesThereAndBack) {
  const auto nics = probe_nics(fixture_sysfs());
  const std::string facts = nics_facts(nics);
  EXPECT_EQ(facts, "ens1f0=ethernet:25000,eth0=ethernet:?,mlx5_0:1=infiniband:200000");
  const auto back = nics_from_facts(facts);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2].name, "mlx5_0:1");
  EXPECT_EQ(back[2].kind, "infiniband");
  EXPECT_EQ(*back[2].speed_mbit, 200000);
  EXPECT_FALSE(back[1].speed_mbit.has_value());
  EXPECT_TRUE(nics_from_facts("").empty());
  EXPECT_TRUE(nics_from_facts("garbage,=,x=y").empty());
}
