#include "report/report.h"

#include <algorithm>

namespace collbench::report {

std::string schema_version() { return std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor); }

namespace {

// Time is lower-is-better and comes from time_path; these are the rates. A collective's headline is
// the bus bandwidth, as in nccl-tests' footer; a probe row (envcheck, one per rank) has no timings.
const std::vector<RowKindSpec>& row_kind_table() {
  static const std::vector<RowKindSpec> table = {
      {RowKind::kCollective, "collective", {"backend", "algorithm", "dtype", "op", "root", "placement"}, {"bytes"}, "bytes",
       "size (bytes)", true, "time_us",
       {{"busbw_gbps", "busbw", "bus bandwidth (GB/s)", true}, {"algbw_gbps", "algbw", "algorithm bandwidth (GB/s)", true}}},
      {RowKind::kGemm, "gemm", {"dtype", "device"}, {"m", "n", "k"}, "shape", "m*n*k", true, "time_us",
       {{"tflops", "tflops", "TFLOP/s", true}}},
      {RowKind::kStream, "stream", {"kernel", "device"}, {"bytes"}, "bytes", "array size (bytes)", true, "time_us",
       {{"gbps", "gbps", "bandwidth (GB/s)", true}}},
      {RowKind::kCopy, "copy", {"mode", "memory", "engine", "direction", "src_device", "dst_device"}, {"bytes"}, "bytes",
       "copy size (bytes)", true, "time_us", {{"gbps", "gbps", "bandwidth (GB/s)", true}}},
      {RowKind::kProbe, "probe", {"inventory.host", "probes.device"}, {"rank"}, "rank", "rank", false, nullptr,
       {{"probes.gemm_gflops", "gemm_gflops", "GEMM probe (GFLOP/s)", true},
        {"probes.triad_gbps", "triad_gbps", "triad probe (GB/s)", true},
        {"relative_speed", "relative_speed", "relative speed", true}}},
      {RowKind::kDdpStep, "ddp_step",
       {"model", "backend", "scaling", "bucket_mb", "overlap", "grad_dtype", "accumulate", "compute_scale"}, {"batch"}, "batch",
       "batch held fixed (per rank: weak scaling; job: strong)", false, "time_us",
       {{"samples_per_s", "samples_per_s", "samples/s (whole job)", true},
        {"exposed_comm_us", "exposed_comm_us", "exposed communication (us)", false},
        {"comm_us", "comm_us", "communication (us)", false},
        {"overlap_fraction", "overlap_fraction", "overlap fraction", true},
        {"comm_compute_ratio", "comm_compute_ratio", "communication/computation", false},
        {"compute_us", "compute_us", "forward + backward compute (us)", false}},
       true},
      // pt2pt_perf: OSU's point-to-point tests and the link matrix. time_us is per message for
      // latency (half the round trip) and per window iteration for the bandwidth modes.
      {RowKind::kPointToPoint, "pt2pt", {"backend", "mode", "link"}, {"bytes"}, "bytes", "message size (bytes)", true, "time_us",
       {{"gbps", "gbps", "bandwidth (GB/s)", true},
        {"latency_us", "latency_us", "latency (us)", false},
        {"messages_per_s", "messages_per_s", "messages/s", true}}},
  };
  return table;
}

}  // namespace

const RowKindSpec& row_kind_spec(RowKind kind) {
  for (const auto& spec : row_kind_table()) {
    if (spec.kind == kind) return spec;
  }
  return row_kind_table().front();  // not reached: every enumerator has an entry
}

const RowKindSpec* find_row_kind(const std::string& name) {
  for (const auto& spec : row_kind_table()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

RowKind row_kind_of_benchmark(const std::string& benchmark) {
  if (benchmark == "matmul") return RowKind::kGemm;
  if (benchmark == "membw") return RowKind::kStream;
  if (benchmark == "copy") return RowKind::kCopy;
  if (benchmark == "envcheck") return RowKind::kProbe;
  if (benchmark == "ddp_step") return RowKind::kDdpStep;
  if (benchmark == "pt2pt") return RowKind::kPointToPoint;
  return RowKind::kCollective;
}

void SummaryBuilder::add(const ResultRow& row) {
  ++summary_.rows;
  if (row.busbw_gbps) {
    busbw_total_ += *row.busbw_gbps;
    ++busbw_rows_;
    summary_.max_busbw_gbps = std::max(summary_.max_busbw_gbps.value_or(0.0), *row.busbw_gbps);
    summary_.avg_busbw_gbps = busbw_total_ / busbw_rows_;
  }
  if (row.wrong) {
    summary_.wrong_total += *row.wrong;
    ++summary_.rows_checked;
  }
}

Summary summarize_rows(const std::vector<ResultRow>& rows) {
  SummaryBuilder builder;
  for (const auto& row : rows) builder.add(row);
  return builder.summary();
}

}  // namespace collbench::report
