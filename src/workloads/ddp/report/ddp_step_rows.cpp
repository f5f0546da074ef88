#include "workloads/ddp/report/ddp_step_rows.h"

namespace collbench::report {

const RowKindSpec& ddp_step_row_kind() {
  using namespace spec_parts;
  static const RowKindSpec spec{kDdpStepRows.name(), "ddp_step",
     {"model", "backend", "scaling", "bucket_mb", "overlap", "grad_dtype", "accumulate", "compute_scale"}, {"batch"}, "batch",
     "batch held fixed (per rank: weak scaling; job: strong)", kLinearSizes, "time_us",
     {{"samples_per_s", "samples_per_s", "samples/s (whole job)", kHigherIsBetter},
      {"exposed_us", "exposed_us", "exposed communication: step - compute alone (us)", kLowerIsBetter},
      {"hidden_fraction", "hidden_fraction", "communication hidden: 1 - exposed / communication alone", kHigherIsBetter},
      {"compute_slowdown", "compute_slowdown", "compute slowdown under communication (x)", kLowerIsBetter},
      {"compute_alone_us", "compute_alone_us", "forward + backward with no communication, gradient copies left out (us)", kLowerIsBetter},
      {"exposed_inside_step_us", "exposed_inside_step_us", "step - its own forward + backward (us)", kLowerIsBetter},
      {"comm_us", "comm_us", "communication (us)", kLowerIsBetter},
      {"hidden_inside_step_fraction", "hidden_inside_step_fraction", "1 - exposed inside the step / communication", kHigherIsBetter},
      {"comm_compute_ratio", "comm_compute_ratio", "communication/computation", kLowerIsBetter},
      {"compute_us", "compute_us", "forward + backward compute (us)", kLowerIsBetter}},
     kJobThroughput,
     // Led by the cost communication adds to the step (exposed_us, against the compute alone);
     // in_step_us is the step's wait for communication beyond its own, slowed, compute.
     {{"bucket_mb", "bucket_mb", Style::kFixed, 2, 9}, {"overlap", "overlap", Style::kText, 0, 7},
      {"grad_dtype", "dtype", Style::kText, 0, 8}, {"accumulate", "accum", Style::kInteger, 0, 5},
      {"buckets", "buckets", Style::kInteger, 0, 7}, {"allreduce_bytes", "MB/step", Style::kFixed, 2, 9, 1e-6},
      {"time_us.mean", "step_us", Style::kFixed, 1, 11}, {"exposed_us", "exposed_us", Style::kFixed, 1, 10},
      {"hidden_fraction", "hidden", Style::kFixed, 3, 6}, {"compute_slowdown", "slowdown", Style::kFixed, 3, 8},
      {"compute_alone_us", "alone_us", Style::kFixed, 1, 10}, {"forward_us", "fwd_us", Style::kFixed, 1, 10},
      {"backward_compute_us", "bwd_us", Style::kFixed, 1, 10}, {"comm_us", "comm_us", Style::kFixed, 1, 10},
      {"exposed_inside_step_us", "in_step_us", Style::kFixed, 1, 10}, {"samples_per_s", "samples/s", Style::kFixed, 1, 10},
      kWrong},
     // Schema 2.3 and before: the figures that leave the compute's slowdown out, under their old names.
     {{"exposed_inside_step_us", "exposed_comm_us"}, {"hidden_inside_step_fraction", "overlap_fraction"}}};
  return spec;
}

}  // namespace collbench::report
