#include "workloads/envcheck/report/probe_rows.h"

namespace collbench::report {

const RowKindSpec& probe_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kProbeRows.name(), "envcheck", {"inventory.host", "probes.device"}, {"rank"}, "rank", "rank", kLinearSizes, nullptr,
     {{"probes.gemm_gflops", "gemm_gflops", "GEMM probe (GFLOP/s)", kHigherIsBetter},
      {"probes.triad_gbps", "triad_gbps", "triad probe (GB/s)", kHigherIsBetter},
      {"relative_speed", "relative_speed", "relative speed", kHigherIsBetter}},
     kThroughputOfRanks,
     {{"rank", "rank", Style::kInteger, 0, 5}, {"inventory.host", "host", Style::kText, 0, 16},
      {"inventory.cpu_model", "cpu", Style::kText, 0, 28}, {"inventory.online_cores", "cores", Style::kInteger, 0, 6},
      {"inventory.affinity", "affinity", Style::kText, 0, 9}, {"inventory.numa_node", "numa", Style::kInteger, 0, 5},
      {"inventory.openblas_corename", "openblas", Style::kText, 0, 12}, {"inventory.gpu.name", "gpu", Style::kText, 0, 24},
      {"probes.gemm_gflops", "GFLOP/s", Style::kFixed, 2, 10}, {"probes.triad_gbps", "GB/s", Style::kFixed, 2, 9},
      {"relative_speed", "speed", Style::kFixed, 3, 8}, {"slow", "slow", Style::kFlag, 0, 5}},
     {}, SummaryForm::kByWorkload};
  return spec;
}

}  // namespace collbench::report
