#include "workloads/pt2pt/link_matrix.h"

#include <algorithm>

#include "core/stats.h"

namespace collbench::pt2pt {

std::string to_string(LinkClass link_class) { return link_class == LinkClass::kIntraHost ? "intra_host" : "inter_host"; }

namespace {

std::optional<ClassSummary> summarize(const std::vector<const MeasuredLink*>& links) {
  if (links.empty()) return std::nullopt;
  std::vector<double> times, rates;
  for (const MeasuredLink* link : links) {
    times.push_back(link->time_us);
    rates.push_back(link->gbps);
  }
  ClassSummary summary;
  summary.links = static_cast<int>(links.size());
  summary.median_time_us = median_of(times);
  summary.min_time_us = *std::min_element(times.begin(), times.end());
  summary.max_time_us = *std::max_element(times.begin(), times.end());
  summary.median_gbps = median_of(rates);
  return summary;
}

}  // namespace

SizeVerdict judge_links(const std::vector<MeasuredLink>& links, const std::vector<std::string>& hosts, double factor) {
  const auto host_of = [&hosts](int rank) {
    return rank >= 0 && static_cast<std::size_t>(rank) < hosts.size() ? hosts[static_cast<std::size_t>(rank)] : std::string();
  };
  const auto class_of = [&](const MeasuredLink& link) {
    return host_of(link.src) == host_of(link.dst) ? LinkClass::kIntraHost : LinkClass::kInterHost;
  };
  std::vector<const MeasuredLink*> intra, inter;
  for (const MeasuredLink& link : links) (class_of(link) == LinkClass::kIntraHost ? intra : inter).push_back(&link);
  SizeVerdict verdict;
  verdict.intra_host = summarize(intra);
  verdict.inter_host = summarize(inter);
  for (const MeasuredLink& link : links) {
    const LinkClass link_class = class_of(link);
    const double median = (link_class == LinkClass::kIntraHost ? verdict.intra_host : verdict.inter_host)->median_time_us;
    if (!(link.time_us > factor * median)) continue;
    verdict.slow.push_back({link.src, link.dst, host_of(link.src), host_of(link.dst), link_class, link.time_us, median,
                            median > 0 ? link.time_us / median : 0.0});
  }
  return verdict;
}

nlohmann::json to_json(const ClassSummary& summary) {
  return {{"links", summary.links}, {"median_time_us", summary.median_time_us}, {"min_time_us", summary.min_time_us},
          {"max_time_us", summary.max_time_us}, {"median_gbps", summary.median_gbps}};
}

nlohmann::json to_json(const SlowLink& link, std::uint64_t bytes) {
  return {{"src_rank", link.src},          {"dst_rank", link.dst},       {"src_host", link.src_host},
          {"dst_host", link.dst_host},     {"class", to_string(link.link_class)}, {"bytes", bytes},
          {"time_us", link.time_us},       {"median_time_us", link.median_time_us}, {"ratio", link.ratio}};
}

}  // namespace collbench::pt2pt
