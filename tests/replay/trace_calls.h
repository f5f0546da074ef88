// A TraceCall for the replay tests' hand-made traces (test_trace_model.cpp, test_replay_plan.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "workloads/replay/report/trace.h"

namespace collbench::replay::trace_tests {

inline TraceCall call(TraceCollective collective, std::uint64_t count, std::size_t group, int root = -1) {
  TraceCall made;
  made.collective = collective;
  made.count = count;
  made.group = group;
  made.root = root;
  return made;
}

}  // namespace collbench::replay::trace_tests
