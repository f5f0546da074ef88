#include "workloads/comm_init/report/comm_init_rows.h"

namespace collbench::report {

// comm_init_perf: one row per way and communicator size; time_us is one make-and-destroy.
const RowKindSpec& comm_init_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kCommInitRows.name(), "comm_init", {"backend", "method"}, {"comm_size"}, "comm_size", "communicator size (ranks)", kLinearSizes,
     "time_us",
     {{"rate_per_s", "rate_per_s", "communicators made and destroyed per second", kHigherIsBetter},
      {"time_over_ranks_us.max", "slowest_rank_us", "slowest rank's mean time (us)", kLowerIsBetter}},
     kThroughputOfRanks,
     {{"method", "method", Style::kText, 0, 30}, {"comm_size", "ranks", Style::kInteger, 0, 6}, kMinUs, kMeanUs, kMaxUs,
      {"time_over_ranks_us.max", "slowest_us", Style::kFixed, 1, 12}, {"rate_per_s", "per_s", Style::kFixed, 2, 10}},
     {}, SummaryForm::kSlowestCommunicator};
  return spec;
}

}  // namespace collbench::report
