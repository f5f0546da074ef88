#include "report/report.h"

#include "report/pt2pt_view.h"

namespace collbench::report {

std::vector<double> StateProbeRecord::values() const {
  std::vector<double> made;
  for (const auto& value : {before_ns, after_ns}) {
    if (value) made.push_back(*value);
  }
  return made;
}

std::vector<std::optional<double>> StateProbeRecord::in_order() const {
  std::vector<std::optional<double>> probes{before_ns};
  if (between_cycles_ns) probes.insert(probes.end(), between_cycles_ns->begin(), between_cycles_ns->end());
  probes.push_back(after_ns);
  return probes;
}

std::string schema_version() { return std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor); }

namespace {

using Style = TableColumnSpec::Style;

// The table's bools, named: FigureSpec::higher_is_better, RowKindSpec::size_is_magnitude and
// RowKindSpec::headline_is_job_throughput.
constexpr bool kHigherIsBetter = true, kLowerIsBetter = false;
constexpr bool kLogSizes = true, kLinearSizes = false;
constexpr bool kJobThroughput = true, kThroughputOfRanks = false;

// The columns every timed kind's table shares after its own: the mean, fastest and slowest time.
const TableColumnSpec kMeanUs{"time_us.mean", "mean_us", Style::kFixed, 1, 12};
const TableColumnSpec kMinUs{"time_us.min", "min_us", Style::kFixed, 1, 12};
const TableColumnSpec kMaxUs{"time_us.max", "max_us", Style::kFixed, 1, 12};
const TableColumnSpec kSpread{"spread.ratio", "spread", Style::kRatio, 3, 9};
const TableColumnSpec kWrong{"wrong", "#wrong", Style::kInteger, 0, 6};
// copy and STREAM rows: "yes" where the working set fits in the cache, so the GB/s are the cache's.
const TableColumnSpec kCacheResident{"cache_resident", "cache", Style::kFlag, 0, 6};

// Time is lower-is-better and comes from time_path; these are the rates. A collective's headline is
// the bus bandwidth, as in nccl-tests' footer; a probe row (envcheck, one per rank) has no timings.
const std::vector<RowKindSpec>& row_kind_table() {
  static const std::vector<RowKindSpec> table = {
      {RowKind::kCollective, "collective", nullptr, {"backend", "algorithm", "dtype", "op", "root", "placement"}, {"bytes"}, "bytes",
       "size (bytes)", kLogSizes, "time_us",
       {{"busbw_gbps", "busbw", "bus bandwidth (GB/s)", kHigherIsBetter},
        {"algbw_gbps", "algbw", "algorithm bandwidth (GB/s)", kHigherIsBetter}},
       kThroughputOfRanks, {}, {}, SummaryForm::kBusBandwidth},
      {RowKind::kGemm, "gemm", "matmul", {"dtype", "device"}, {"m", "n", "k"}, "shape", "m*n*k", kLogSizes, "time_us",
       {{"tflops", "tflops", "TFLOP/s", kHigherIsBetter}},
       kThroughputOfRanks,
       {{"m", "m", Style::kInteger, 0, 7}, {"n", "n", Style::kInteger, 0, 7}, {"k", "k", Style::kInteger, 0, 7},
        {"dtype", "dtype", Style::kText, 0, 9}, kMeanUs, kMinUs, kMaxUs, {"tflops", "TFLOP/s", Style::kFixed, 4, 10},
        {"percent_of_peak", "%peak", Style::kFixed, 1, 8}, {"relative_error", "rel_err", Style::kScientific, 2, 10}, kSpread,
        kWrong}},
      {RowKind::kStream, "stream", "membw", {"kernel", "device"}, {"bytes"}, "bytes", "array size (bytes)", kLogSizes, "time_us",
       {{"gbps", "gbps", "bandwidth (GB/s)", kHigherIsBetter}},
       kThroughputOfRanks,
       {{"bytes", "bytes/array", Style::kInteger, 0, 14}, {"kernel", "kernel", Style::kText, 0, 8}, kMeanUs, kMinUs, kMaxUs,
        {"gbps", "GB/s", Style::kFixed, 2, 10}, {"percent_of_peak", "%peak", Style::kFixed, 1, 8}, kCacheResident, kSpread,
        kWrong}},
      {RowKind::kCopy, "copy", "copy", {"mode", "memory", "engine", "direction", "src_device", "dst_device"}, {"bytes"}, "bytes",
       "copy size (bytes)", kLogSizes, "time_us", {{"gbps", "gbps", "bandwidth (GB/s)", kHigherIsBetter}},
       kThroughputOfRanks,
       {{"mode", "mode", Style::kText, 0, 8}, {"memory", "memory", Style::kText, 0, 8}, {"engine", "eng", Style::kText, 0, 4},
        {"direction", "dir", Style::kText, 0, 4}, {"src_device", "src", Style::kInteger, 0, 4},
        {"dst_device", "dst", Style::kInteger, 0, 4}, {"bytes", "bytes", Style::kInteger, 0, 12}, kMeanUs, kMinUs, kMaxUs,
        {"gbps", "GB/s", Style::kFixed, 2, 10}, kCacheResident, kWrong}},
      {RowKind::kProbe, "probe", "envcheck", {"inventory.host", "probes.device"}, {"rank"}, "rank", "rank", kLinearSizes, nullptr,
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
       {}, SummaryForm::kByWorkload},
      {RowKind::kDdpStep, "ddp_step", "ddp_step",
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
       {{"exposed_inside_step_us", "exposed_comm_us"}, {"hidden_inside_step_fraction", "overlap_fraction"}}},
      // Keyed by the traffic pattern too: a uniform row and a zipf row of one size are different rows.
      {RowKind::kAlltoallv, "alltoallv", "alltoallv", {"backend", "algorithm", "dtype", "placement", "traffic.pattern"}, {"bytes"}, "bytes",
       "size (bytes, the busiest rank's)", kLogSizes, "time_us",
       {{"busbw_gbps", "busbw", "bus bandwidth (GB/s)", kHigherIsBetter},
        {"algbw_gbps", "algbw", "algorithm bandwidth (GB/s)", kHigherIsBetter}},
       kThroughputOfRanks,
       // Its live table is nccl-tests' (a collective of the registry); these are collbench table's text columns.
       {{"bytes", "size", Style::kInteger, 0, 12}, {"dtype", "type", Style::kText, 0, 8},
        {"traffic.pattern", "pattern", Style::kText, 0, 12}, {"placement", "place", Style::kText, 0, 5}, kMeanUs,
        {"algbw_gbps", "algbw", Style::kFixed, 2, 8}, {"busbw_gbps", "busbw", Style::kFixed, 2, 8}, kWrong},
       {}, SummaryForm::kBusBandwidth},
      // comm_init_perf: one row per way and communicator size; time_us is one make-and-destroy.
      {RowKind::kCommInit, "comm_init", "comm_init", {"backend", "method"}, {"comm_size"}, "comm_size", "communicator size (ranks)", kLinearSizes,
       "time_us",
       {{"rate_per_s", "rate_per_s", "communicators made and destroyed per second", kHigherIsBetter},
        {"time_over_ranks_us.max", "slowest_rank_us", "slowest rank's mean time (us)", kLowerIsBetter}},
       kThroughputOfRanks,
       {{"method", "method", Style::kText, 0, 30}, {"comm_size", "ranks", Style::kInteger, 0, 6}, kMinUs, kMeanUs, kMaxUs,
        {"time_over_ranks_us.max", "slowest_us", Style::kFixed, 1, 12}, {"rate_per_s", "per_s", Style::kFixed, 2, 10}},
       {}, SummaryForm::kSlowestCommunicator},
      // pt2pt_perf: OSU's point-to-point tests and the link matrix. time_us is per message for
      // latency (half the round trip) and per window iteration for the bandwidth modes.
      {RowKind::kPointToPoint, "pt2pt", "pt2pt", {"backend", "mode", "link"}, {"bytes"}, "bytes", "message size (bytes)", kLogSizes, "time_us",
       {{"gbps", "gbps", "bandwidth (GB/s)", kHigherIsBetter},
        {"latency_us", "latency_us", "latency (us)", kLowerIsBetter},
        {"messages_per_s", "messages_per_s", "messages/s", kHigherIsBetter},
        {"fan.share_min_gbps", "share_min", "a fan's slowest peer's share (GB/s)", kHigherIsBetter}},
       kThroughputOfRanks,
       // A fan's row: GB/s is the root's aggregate; share_min and share_max its peers' spread.
       {{"link", "link", Style::kText, 0, 17}, {"mode", "mode", Style::kText, 0, 8}, {"bytes", "size", Style::kInteger, 0, 12},
        {"iterations", "iters", Style::kInteger, 0, 8}, {"time_us.mean", "time(us)", Style::kFixed, 2, 12},
        {"latency_us", "lat(us)", Style::kFixed, 2, 12},
        {"gbps", "GB/s", Style::kFixed, 4, 12}, {"messages_per_s", "messages/s", Style::kFixed, 0, 14},
        {"fan.share_min_gbps", "share_min", Style::kFixed, 4, 10}, {"fan.share_max_gbps", "share_max", Style::kFixed, 4, 10}, kWrong},
       {}, SummaryForm::kRate, check_pt2pt_fields},
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

bool has_collective_rows(RowKind kind) { return kind == RowKind::kCollective || kind == RowKind::kAlltoallv; }

RowKind row_kind_of_benchmark(const std::string& benchmark) {
  for (const auto& spec : row_kind_table()) {
    if (spec.benchmark && benchmark == spec.benchmark) return spec.kind;
  }
  return RowKind::kCollective;  // every collective's program names its collective
}

}  // namespace collbench::report
