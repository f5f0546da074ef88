#include "workloads/matmul/report/gemm_rows.h"

namespace collbench::report {

const RowKindSpec& gemm_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kGemmRows.name(), "matmul", {"dtype", "device"}, {"m", "n", "k"}, "shape", "m*n*k", kLogSizes, "time_us",
     {{"tflops", "tflops", "TFLOP/s", kHigherIsBetter}},
     kThroughputOfRanks,
     {{"m", "m", Style::kInteger, 0, 7}, {"n", "n", Style::kInteger, 0, 7}, {"k", "k", Style::kInteger, 0, 7},
      {"dtype", "dtype", Style::kText, 0, 9}, kMeanUs, kMinUs, kMaxUs, {"tflops", "TFLOP/s", Style::kFixed, 4, 10},
      {"percent_of_peak", "%peak", Style::kFixed, 1, 8}, {"relative_error", "rel_err", Style::kScientific, 2, 10}, kSpread,
      kWrong}};
  return spec;
}

}  // namespace collbench::report
