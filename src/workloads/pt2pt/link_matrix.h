// The link matrix's verdict, pure: per message size, each measured link's time compared with the
// median link of its class (intra-host links with intra-host links, inter-host with inter-host:
// shared memory and the network are different media, and a host's ranks would otherwise make the
// network look slow), and every link slower than factor x that median flagged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench::pt2pt {

enum class LinkClass { kIntraHost, kInterHost };
std::string to_string(LinkClass link_class);  // "intra_host", "inter_host"

struct MeasuredLink {
  int src = 0;
  int dst = 0;
  double time_us = 0;  // time per message (latency: half the round trip); lower is faster
  double gbps = 0;
};

// One class's links at one size.
struct ClassSummary {
  int links = 0;
  double median_time_us = 0;  // the median link (the mean of the middle two for an even count)
  double min_time_us = 0, max_time_us = 0;
  double median_gbps = 0;
};

struct SlowLink {
  int src = 0, dst = 0;
  std::string src_host, dst_host;
  LinkClass link_class = LinkClass::kInterHost;
  double time_us = 0;
  double median_time_us = 0;  // of its class
  double ratio = 0;           // time / median
};

struct SizeVerdict {
  std::optional<ClassSummary> intra_host, inter_host;
  std::vector<SlowLink> slow;  // in the order of `links`
};

// `hosts[rank]` names each rank's host. A link is flagged when time_us > factor x its class's median.
SizeVerdict judge_links(const std::vector<MeasuredLink>& links, const std::vector<std::string>& hosts, double factor);

nlohmann::json to_json(const ClassSummary& summary);
nlohmann::json to_json(const SlowLink& link, std::uint64_t bytes);

}  // namespace collbench::pt2pt
