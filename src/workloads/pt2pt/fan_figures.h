// The figures of a fan row (pt2pt_perf --pattern fan-in|fan-out), from the byte counts and each
// end's own elapsed time: pure arithmetic, unit-tested against closed forms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collbench::pt2pt {

struct FanFigures {
  double peer_bytes = 0;   // what each peer sends (fan-in) or receives (fan-out): window x size x iterations
  double total_bytes = 0;  // what the root receives (fan-in) or sends (fan-out): K x peer_bytes
  double root_gbps = 0;    // total_bytes over the root's elapsed time (1e9 B/s)
  std::vector<double> peer_gbps;  // each peer's bytes over its own elapsed time, in the peers' order
  double share_min_gbps = 0, share_median_gbps = 0, share_max_gbps = 0;
};

// `root_elapsed_us` and `peer_elapsed_us`: each end's timed iterations summed on its own clock.
// A zero elapsed time gives 0 GB/s, never a division by zero. `peer_elapsed_us` must not be empty.
FanFigures fan_figures(std::uint64_t bytes, int window, std::size_t iterations, double root_elapsed_us,
                       const std::vector<double>& peer_elapsed_us);

}  // namespace collbench::pt2pt
