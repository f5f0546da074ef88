// Message sizes: parsing ("64K", "1.5M", 1024-based like nccl-tests) and sweeps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// Bytes from text such as "8", "64K", "1.5M", "8G" (K/M/G/T = 1024-based; optional B or iB).
// Throws UsageError naming `flag` on anything else, including overflow and fractional bytes.
std::uint64_t parse_size(std::string_view text, std::string_view flag);

// "64 KiB", "1 MiB", "1536 B": exact, for table headers and messages.
std::string format_size(std::uint64_t bytes);

struct SizeSweep {
  std::uint64_t min_bytes;
  std::uint64_t max_bytes;
  std::uint64_t step_bytes;   // used when step_factor is 0
  double step_factor;         // > 1 multiplies (rounded up), 0 = additive steps
};

// The sizes from min to max inclusive. Throws UsageError when the sweep cannot advance or is huge.
std::vector<std::uint64_t> expand_sweep(const SizeSweep& sweep);

}  // namespace collbench
