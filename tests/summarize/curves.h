// Collective reports made to measure for the health and explain tests: a curve of (bytes, time,
// busbw) points from a fixture at 2 ranks, and the same as run on a CPU or on GPUs.
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include "summarize/common/load.h"
#include "test_data.h"

namespace collbench::summarize {

// An all_reduce report with out-of-place rows of the given (bytes, time_us, busbw) at 2 ranks.
inline LoadedReport curve(const std::vector<std::tuple<std::uint64_t, double, double>>& points, std::int64_t wrong = 0) {
  LoadedReport loaded = load_reports({data("scaling/np2.json")}).front();
  const report::Row prototype = loaded.report.rows.front();
  loaded.report.rows.clear();
  for (const auto& [bytes, time, busbw] : points) {
    loaded.report.rows.push_back(changed(prototype, [&, bytes = bytes, time = time, busbw = busbw](nlohmann::json& row) {
      row["bytes"] = bytes;
      row["placement"] = "out";
      row["time_us"]["mean"] = time;
      row["time_us"]["p50"] = time;
      row["busbw_gbps"] = busbw;
      row["wrong"] = wrong;
    }));
  }
  return loaded;
}

// The same report as run on this project's 2-core VM: 48 KiB L1 and 2 MiB L2 per core, a 300 MiB
// L3 shared by both, every rank on the CPU.
inline LoadedReport on_cpu(LoadedReport loaded) {
  loaded.report.context.machine["caches"] = {{{"level", 1}, {"bytes", 49152u}, {"shared_by_cores", 1}},
                                             {{"level", 2}, {"bytes", 2097152u}, {"shared_by_cores", 1}},
                                             {{"level", 3}, {"bytes", 314572800u}, {"shared_by_cores", 2}}};
  loaded.report.context.machine["gpus"] = nlohmann::json::array();
  loaded.report.context.ranks = {{0, "vm", 0, "cpu", 1}, {1, "vm", 1, "cpu", 2}};
  return loaded;
}

// The same report as run on one GPU a rank.
inline LoadedReport on_gpus(LoadedReport loaded) {
  loaded.report.context.machine["gpus"] = {{{"model", "NVIDIA H200"}}};
  loaded.report.context.ranks = {{0, "gpu-node", 0, "NVIDIA H200 [0]", 1}, {1, "gpu-node", 1, "NVIDIA H200 [1]", 2}};
  return loaded;
}

}  // namespace collbench::summarize
