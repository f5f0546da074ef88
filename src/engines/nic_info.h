// The host's network interfaces and their speed, from sysfs: what a collective between hosts can
// expect (collbench explain picks the expected-peak entry by a NIC's speed and counts NICs a host).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collbench::compute {

struct NicInfo {
  std::string name;                 // eth0, ib0, mlx5_0:1 (an InfiniBand port: device:port)
  std::string kind;                 // "ethernet", "infiniband" or "other" (ARPHRD type)
  std::optional<long> speed_mbit;   // what the link negotiated; none where the driver says -1 or nothing
  bool physical = false;            // has a device behind it (not a bridge, veth, tun or bond)
};

// Every interface under `sysfs`/class/net but the loopback, then every port under
// `sysfs`/class/infiniband (its rate, "200 Gb/sec (4X HDR)", read as Mbit/s). Never throws: an
// unreadable entry leaves its fields unset. `sysfs` is a parameter so tests use a fixture tree.
std::vector<NicInfo> probe_nics(const std::string& sysfs = "/sys");

// "eth0=ethernet:25000,mlx5_0:1=infiniband:?" for the per-host facts line: name=kind:speed (Mbit/s,
// ? unknown), physical interfaces and active InfiniBand ports only, comma-separated; and back.
std::string nics_facts(const std::vector<NicInfo>& nics);
std::vector<NicInfo> nics_from_facts(const std::string& facts);

}  // namespace collbench::compute
