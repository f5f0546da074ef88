// Scaling: the same configuration at several world sizes (1 -> N ranks).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/common/series.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench::summarize {

struct ScalingPoint {
  std::uint64_t bytes = 0;           // the place on the kind's size axis: bytes, or m*n*k
  nlohmann::json size_cell;          // the size as the table shows it: bytes, or "mxnxk"
  int world_size = 1;
  double time_us = 0;                // median over repeated rows of the row's mean time
  std::optional<double> headline_rate;  // the kind's headline figure (busbw: null on one rank)
  double speedup = 1;                // time at the smallest world size / time here
  double efficiency = 1;             // speedup / (world_size / smallest world size)
  int runs = 0;                      // rows behind this point (repeats, cycles)
};

struct ScalingSeries {
  SeriesKey key;  // benchmark, the kind's key fields, tags
  std::vector<ScalingPoint> points;  // by bytes, then world size
};

// Groups rows that differ only in world size. Throws InputError for rows without timings (probes). The speedup baseline is the smallest world size
// present for each size, so a sweep that starts at 2 ranks still gets a table.
std::vector<ScalingSeries> compute_scaling(const std::vector<LoadedReport>& reports);

// One row per (series, size, world size); with `at_bytes`, one row per (series, world size).
// `kind` names the size and rate columns (bytes and busbw_gbps for collectives).
Document scaling_document(const std::vector<ScalingSeries>& series, std::optional<std::uint64_t> at_bytes,
                          const report::RowKindSpec& kind = report::row_kind_spec(report::kCollectiveRows));

}  // namespace collbench::summarize
