#include "engines/nic_info.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace collbench::compute {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::vector<std::string> entries(const std::string& folder) {
  std::vector<std::string> names;
  if (DIR* dir = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<long> leading_number(const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || value <= 0) return std::nullopt;
  return value;
}

}  // namespace

std::vector<NicInfo> probe_nics(const std::string& sysfs) {
  std::vector<NicInfo> nics;
  const std::string net = sysfs + "/class/net/";
  for (const auto& name : entries(net)) {
    if (name == "lo") continue;
    NicInfo nic;
    nic.name = name;
    const std::string type = first_line(net + name + "/type");  // ARPHRD_ETHER 1, ARPHRD_INFINIBAND 32
    nic.kind = type == "1" ? "ethernet" : type == "32" ? "infiniband" : "other";
    nic.speed_mbit = leading_number(first_line(net + name + "/speed"));
    nic.physical = std::ifstream(net + name + "/device/uevent").good() || !entries(net + name + "/device").empty();
    nics.push_back(std::move(nic));
  }
  const std::string infiniband = sysfs + "/class/infiniband/";
  for (const auto& device : entries(infiniband)) {
    for (const auto& port : entries(infiniband + device + "/ports")) {
      const std::string folder = infiniband + device + "/ports/" + port;
      NicInfo nic;
      nic.name = device + ":" + port;
      const std::string layer = first_line(folder + "/link_layer");
      nic.kind = layer == "Ethernet" ? "ethernet" : "infiniband";  // RoCE ports say Ethernet
      if (const auto gbit = leading_number(first_line(folder + "/rate"))) nic.speed_mbit = *gbit * 1000;  // "200 Gb/sec (4X HDR)"
      // Only an active port carries traffic ("4: ACTIVE").
      nic.physical = first_line(folder + "/state").find("ACTIVE") != std::string::npos;
      nics.push_back(std::move(nic));
    }
  }
  return nics;
}

std::string nics_facts(const std::vector<NicInfo>& nics) {
  std::string facts;
  for (const auto& nic : nics) {
    if (!nic.physical) continue;
    facts += (facts.empty() ? "" : ",") + nic.name + "=" + nic.kind + ":" + (nic.speed_mbit ? std::to_string(*nic.speed_mbit) : "?");
  }
  return facts;
}

std::vector<NicInfo> nics_from_facts(const std::string& facts) {
  std::vector<NicInfo> nics;
  std::size_t start = 0;
  while (start < facts.size()) {
    std::size_t end = facts.find(',', start);
    if (end == std::string::npos) end = facts.size();
    const std::string item = facts.substr(start, end - start);
    start = end + 1;
    const std::size_t equals = item.find('='), colon = item.rfind(':');
    if (equals == std::string::npos || colon == std::string::npos || colon < equals) continue;
    NicInfo nic;
    nic.name = item.substr(0, equals);
    nic.kind = item.substr(equals + 1, colon - equals - 1);
    nic.speed_mbit = leading_number(item.substr(colon + 1));
    nic.physical = true;
    nics.push_back(std::move(nic));
  }
  return nics;
}

}  // namespace collbench::compute
