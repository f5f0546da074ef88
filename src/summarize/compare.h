// compare BASE NEW: a verdict per row, for CI and pull-request comments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "summarize/document.h"
#include "summarize/series.h"

namespace collbench::summarize {

enum class Verdict { kSame, kFaster, kSlower, kNoisy };
std::string to_string(Verdict verdict);

struct CompareOptions {
  double min_effect = 0.05;  // relative change below which a difference never fails CI
  double alpha = 0.05;       // significance level of the U test
};

// The decision rule, kept apart so it can be tested on its own:
//   |change| < min_effect                      -> SAME (even when significant: too small to matter)
//   |change| >= min_effect, p < alpha          -> SLOWER or FASTER
//   |change| >= min_effect, p >= alpha         -> NOISY (a large difference the samples cannot confirm)
//   no test possible (one value per side)      -> by the effect size alone
// `change` is (new - base) / base of the centre time, so positive is slower. Rows without timings
// (envcheck probes) compare their headline rate instead, as base / new - 1: positive is slower too.
Verdict decide(double change, std::optional<double> p_value, const CompareOptions& options);

struct CompareLine {
  SeriesKey key;  // benchmark, world_size, the kind's key fields, its size (bytes, shape, rank)
  std::uint64_t size = 0;          // on the kind's size axis, for ordering
  double base_value = 0, new_value = 0;  // medians of what was tested: times (us), or rates
  double change = 0;
  std::optional<double> p_value;
  std::string method;  // "samples", "runs" or "single"
  std::size_t base_n = 0, new_n = 0;
  Verdict verdict = Verdict::kSame;
};

struct CompareResult {
  std::vector<CompareLine> lines;
  std::vector<std::string> only_in_base, only_in_new;  // row descriptions without a partner
  std::string measure = "us";  // what base and new values are: "us" (time), or the rate's key (tflops, ...)
  bool any_slower() const;
};

// Rows match on the key above (tags and env may differ: A/A runs carry different tags). BASE and
// NEW must hold the same kind of rows (InputError otherwise). The test
// uses per-iteration samples when both sides have them (all repeats and cycles pooled), else the
// rows' mean times across repeated runs when both sides have at least 3, else one value per side.
CompareResult compare_reports(const std::vector<LoadedReport>& base, const std::vector<LoadedReport>& candidate,
                              const CompareOptions& options);

Document compare_document(const CompareResult& result, const CompareOptions& options);

}  // namespace collbench::summarize
