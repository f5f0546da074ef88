// -B N: each row's call repeated with the same inputs and its outputs compared bit for bit, across
// the repeats and, where every rank must hold the same result, across ranks (bitwise.h has the
// comparison itself). Untimed, after the row's timing and checks, on every rank.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timed_operation.h"
#include "harness/watchdog.h"
#include "workloads/collectives/collective_buffers.h"

namespace collbench {

struct BitwiseResult {
  std::int64_t differing = 0;  // over ranks, repeats and ranks together
  nlohmann::json first = nlohmann::json::array();  // the row's first_bitdiff: the first of each kind found
  std::string hash;  // FNV-1a of the first repeat's outputs on the reference rank (rank 0 mostly)
};

class BitwiseRepeats {
 public:
  // `watchdog` (may be null): -T hears each repeat's progress.
  BitwiseRepeats(const Collective& collective, World& world, const CollectiveOptions& options, Watchdog* watchdog)
      : collective_(collective), world_(world), options_(options), watchdog_(watchdog) {}
  BitwiseResult compare(const CollectiveCase& one_case, CollectiveBuffers& buffers, TimedOperation& operation);

 private:
  std::pair<int, std::size_t> injection_site(const BufferLayout& layout, const std::function<bool(std::size_t)>& compared,
                                             bool whole_output);

  const Collective& collective_;
  World& world_;
  const CollectiveOptions& options_;
  Watchdog* watchdog_;
};

}  // namespace collbench
