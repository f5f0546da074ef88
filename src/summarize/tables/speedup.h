// Speedup: runs that differ in one key (algorithm, backend, an env variable, a tag, the version),
// each value against a baseline value, per size, with a geometric mean per series.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/common/series.h"

namespace collbench::summarize {

// KEY forms: a key field of the rows' kind (algorithm, backend, dtype, op, placement for
// collectives; dtype, device for GEMM; kernel; mode, engine, ... for copies), world_size (or np),
// version (collbench), env.NAME, tag.NAME, or a bare NAME looked up in the tags, then in context.env.
std::string value_of_key(const std::string& key, const LoadedReport& source, const report::Row& row);

struct SpeedupSeries {
  SeriesKey key;
  struct Line {
    std::uint64_t bytes = 0;  // on the kind's size axis
    nlohmann::json size_cell;
    std::vector<std::optional<double>> time_us;  // per value; median over repeats of the mean
    // Per value, against the baseline value: baseline time / time; for a job-throughput kind
    // (ddp_step) rate / baseline rate, which stays right when a step holds more samples
    // (--accumulate) or the world size is the key.
    std::vector<std::optional<double>> speedup;
  };
  std::vector<Line> lines;
  std::vector<std::optional<double>> geomean;    // per value: geometric mean over sizes of the speedup
};

struct SpeedupResult {
  std::string key;
  std::vector<std::string> values;  // column order; the baseline first
  std::vector<SpeedupSeries> series;
  bool by_job_throughput = false;  // some speedups are rate ratios (see SpeedupSeries::Line::speedup)
};

// Throws InputError when the key has fewer than two values, or the baseline is not among them, or
// the rows carry no timings (probes).
SpeedupResult compute_speedup(const std::vector<LoadedReport>& reports, const std::string& key,
                              const std::optional<std::string>& baseline);

// Speedup = baseline time / time, so > 1 is faster than the baseline. `size_column` names the sizes.
Document speedup_document(const SpeedupResult& result, const std::string& size_column = "bytes");

// One sentence per series on its best value, from the geometric-mean speedups: "bucket_mb 50:
// 1.21x faster than 25 on this machine", or that the baseline is fastest, or that no value is
// clearly faster (every one within `clear_margin` of the best). Series are named by the key
// fields that differ between them.
std::vector<std::string> best_setting_lines(const SpeedupResult& result, double clear_margin = 1.05);

}  // namespace collbench::summarize
