#include "workloads/pt2pt/fan_figures.h"

#include <algorithm>

#include "core/stats.h"

namespace collbench::pt2pt {
namespace {

double rate_gbps(double bytes, double elapsed_us) { return elapsed_us > 0 ? bytes / (elapsed_us * 1e3) : 0.0; }

}  // namespace

FanFigures fan_figures(std::uint64_t bytes, int window, std::size_t iterations, double root_elapsed_us,
                       const std::vector<double>& peer_elapsed_us) {
  FanFigures figures;
  figures.peer_bytes = static_cast<double>(bytes) * window * static_cast<double>(iterations);
  figures.total_bytes = figures.peer_bytes * static_cast<double>(peer_elapsed_us.size());
  figures.root_gbps = rate_gbps(figures.total_bytes, root_elapsed_us);
  for (double elapsed : peer_elapsed_us) figures.peer_gbps.push_back(rate_gbps(figures.peer_bytes, elapsed));
  if (figures.peer_gbps.empty()) return figures;
  const auto [lowest, highest] = std::minmax_element(figures.peer_gbps.begin(), figures.peer_gbps.end());
  figures.share_min_gbps = *lowest;
  figures.share_max_gbps = *highest;
  figures.share_median_gbps = median_of(figures.peer_gbps);
  return figures;
}

}  // namespace collbench::pt2pt
