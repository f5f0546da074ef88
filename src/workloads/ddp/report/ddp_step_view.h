// ddp_step's reader view (on the report layer, in the report library: report/row_kind.h): a
// ddp_step row typed, for `collbench model ddp` (summarize/models/model_ddp.h), which reads its bucket
// schedule, compute split and batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace collbench::report {

// ===== ddp_step_perf: one data-parallel training step per row ================================
// Times in microseconds, means over timed steps; the row's figures are means over ranks, and
// per_rank keeps each rank's. compute = forward + backward compute. compute_alone = the same step's
// compute with no communication beside it (the overlap-off step's forward + backward at the same
// settings); exposed = step - compute alone (never below 0): what the job pays for communication,
// the contention that slows the compute included; compute_slowdown = compute / compute alone;
// hidden_fraction = 1 - exposed / comm alone. exposed_inside_step = step - the step's own compute
// (never below 0; "exposed_comm_us" before schema 2.4), hidden_inside_step_fraction = 1 -
// exposed_inside_step / comm ("overlap_fraction" before 2.4): they leave the contention out.
// comm_compute_ratio = comm / compute; samples_per_s = the job's samples per step / mean step time.

// The reader's view of a ddp_step row (collbench model ddp: the bucket schedule, the compute
// split, the batch); ddp_step_perf writes its rows inline (ddp_program.cpp). Its time is the step's, combined over
// ranks per step.
struct DdpStepRow : Measurement {
  std::string model;
  std::string backend;
  std::string device = "cpu";
  std::string scaling;           // "weak" (--batch per rank) or "strong" (--global-batch)
  int batch = 0;                 // the batch held fixed across world sizes: per rank (weak) or the job's (strong)
  int global_batch = 0;          // samples per micro-step over all ranks
  double bucket_mb = 25;
  double first_bucket_mb = 1;
  std::string overlap;           // "on" or "off"
  std::string grad_dtype;
  int accumulate = 1;
  double compute_scale = 1;
  double forward_us = 0;
  double backward_compute_us = 0;
  double compute_us = 0;
  double comm_us = 0;
  double compute_alone_us = 0;
  double comm_alone_us = 0;
  std::string compute_alone;     // where compute alone comes from: this row, the overlap-off row, or a pass inside this row
  double exposed_us = 0;
  std::optional<double> compute_slowdown;
  std::optional<double> hidden_fraction;
  double exposed_inside_step_us = 0;
  std::optional<double> hidden_inside_step_fraction;
  std::optional<double> comm_compute_ratio;
  int comm_cores = 0;            // --comm-cores: cores per rank kept for communication (0: none kept)
  int buckets = 0;
  int allreduce_calls = 0;       // per step
  std::uint64_t allreduce_bytes = 0;  // per step and rank, in the travelling dtype
  double samples_per_s = 0;
};

// A ddp_step report's typed rows (collbench model ddp reads the bucket schedule and the compute
// split); the envelope is checked as report_from_json checks it. Fields an older report lacks keep
// their defaults.
std::vector<DdpStepRow> ddp_rows_from_json(const nlohmann::json& document);
std::vector<DdpStepRow> read_ddp_rows(const std::string& path);

}  // namespace collbench::report
