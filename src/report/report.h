// The report schema: the one place that says what a collbench report holds.
//
// Units live in key names (bytes, _us, _gbps). Values are typed: numbers are JSON numbers,
// flags JSON booleans; a figure that is not defined (bus bandwidth on one rank, #wrong when no
// check ran) is null, never 0. docs/report-schema.md describes the JSON form.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "report/row_kind.h"

namespace collbench::report {

// Major changes break readers; minor versions only add keys. Readers accept 1.x (one row layout
// per benchmark, rows without "kind") and 2.x (every row says its kind).
constexpr int kSchemaMajor = 2;
// 2.1: rows gained time_over_ranks_us, timing, calls_per_iteration, issue_us, timestamp.
// 2.2: every kind's timed rows hold the same measurement keys (Measurement).
// 2.3: context.state_probe, the machine state before the first row and after the last.
// 2.4: ddp_step rows measure exposed communication against the compute alone (exposed_us,
//      compute_alone_us, ...); their exposed_comm_us and overlap_fraction are renamed
//      exposed_inside_step_us and hidden_inside_step_fraction, written under both names until
//      schema 3 (minor versions only add keys) and read under either (RowKindSpec::former_names).
// 2.5: ddp_step's compute_alone_us leaves out DDP's gradient copies into the buckets and back,
//      which now count with communication (in exposed_us and comm_alone_us), as a torch step
//      against its no_sync step counts them. No key changes; three figures mean that.
// 2.6: context.state_probe.between_cycles_ns, the machine state between each two -N cycles.
// 2.7: every kind's skipped cases hold {what, reason}: the collectives' gained "what" beside their
//      dtype, op and placement.
// 2.8: context.machine.nics and per_host[].nics, each host's network interfaces and their speed.
// 2.9: concurrent groups (issue 62): a grouped collective row holds `groups` (each group's figures)
//      and `aggregate`, its headline the slowest group's; context.options records the rule.
// 2.10: context.machine.gpu_inventory, rank 0's host's GPUs and their NVLink and PCIe links by
//      NVML (or why NVML was not read); collbench explain picks a GPU run's entry from it.
constexpr int kSchemaMinor = 10;
constexpr int kOldestReadableMajor = 1;
std::string schema_version();

// A figure that may not be defined, as JSON: its value, or null.
template <typename T>
nlohmann::json json_or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
// A figure that overflowed (an error of inf, NaN) as null: JSON has no such numbers.
inline nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

// A row as every kind looks to the summarizer: its identity, its place on the size axis and its figures.
struct Row {
  RowKind kind;
  std::vector<std::pair<std::string, std::string>> keys;  // (key field, value as text), in the kind's order
  std::uint64_t size = 0;                 // product of the size fields: bytes, m*n*k, rank
  std::string size_text;                  // "1048576", "96x96x96"
  std::optional<double> time_us;          // mean time per iteration; always > 0 when present
  // The row's time statistics by name ("min", "p10", "p50", ...), those the report has.
  std::map<std::string, double> time_statistics;
  std::optional<std::int64_t> iterations;  // timed iterations behind the statistics, when the kind records them
  int cycle = 1;                           // which -N cycle made it (1 in reports without the key)
  std::vector<double> samples_us;
  std::vector<std::optional<double>> figures;  // in the kind's figure order; null where undefined
  std::optional<std::int64_t> wrong;
  std::optional<double> library_estimate_us;  // the library's own estimate of one call (NCCL), when the row has it
  std::vector<nlohmann::json> table_cells;  // the kind's table columns as the row holds them; null where absent
  // The row as the report holds it, for the readers of one kind's own fields (nccl-tests' table,
  // the model, health): a collective row's fields were checked as it was read.
  nlohmann::json fields;
};

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  std::string device;  // "cpu", or the GPU name with its index
  std::int64_t pid = 0;
};

// The machine state around a run (core/state_probe.h): the round trip of a cache line between two
// CPUs of one host, before the first row and after the last, untimed and outside every row.
struct StateProbeRecord {
  std::string host;                  // rank 0's
  int cpu_a = -1, cpu_b = -1;        // the CPUs of ranks 0 and 1 there, or the host's first two
  std::optional<double> before_ns;   // null when it could not be made (one CPU, other work on them)
  std::optional<double> after_ns;    // null too in a run that stopped before its last row
  // Between each two -N cycles, in order (2.6): none in older reports, empty with one cycle, and
  // shorter in a run that stopped early; none either past kMostCyclesProbed cycles. A null is a
  // probe that could not be made. The reader refuses more than the report's cycles less one.
  static constexpr int kMostCyclesProbed = 64;
  std::optional<std::vector<std::optional<double>>> between_cycles_ns;
  // The probes before and after that were made (ab's pair rule reads only these).
  std::vector<double> values() const;
  // Every probe in time order: before, between the cycles, after; cycle k ran between the
  // (k-1)th and the kth (from 1). Null where one was not made.
  std::vector<std::optional<double>> in_order() const;
};

struct Context {
  std::vector<std::string> argv;
  std::string start_time;  // ISO 8601, UTC
  std::string end_time;
  int world_size = 1;
  std::vector<std::string> hosts;  // distinct, in rank order
  std::vector<RankInfo> ranks;
  std::string backend;
  std::map<std::string, std::string> versions;  // collbench, mpi, compiler, ...
  std::map<std::string, std::string> env;       // allow-listed variables only
  nlohmann::json options = nlohmann::json::object();  // every option as the run understood it, typed
  std::map<std::string, std::string> tags;
  // What the run ran on: cpu_model, cores, threads, memory_bytes, gpus [{model, ...}], driver, cuda,
  // kernel, hosts. Empty in reports from before it was recorded.
  nlohmann::json machine = nlohmann::json::object();
  // The batch scheduler's job the run was part of (Slurm: name, job_id, step_id, node lists, the
  // srun command line when it could be read). Empty when no scheduler started it, and in older
  // reports; written only when present.
  std::map<std::string, std::string> scheduler;
  // Absent in reports from before 2.3, which read as before: no state, never set aside.
  std::optional<StateProbeRecord> state_probe;
};

// How a timed row was measured, under the same keys in every kind: the loop's settings, the
// statistics of its samples, the check and when the row completed. The driver fills it from the
// measurement loop (harness/driver.h), a kind's typed reader view holds it as its base (ddp's DdpStepRow),
// and one writer (row_json in report_json.h) writes it, so no kind writes these keys
// its own way.
struct Measurement {
  int cycle = 1;                      // -N
  int iterations = 0;
  int warmup_iterations = 0;
  // How rank times combine per iteration: max, mean, min, rank0; empty where the row's time is no
  // combination over ranks (pt2pt: the measuring ranks' own time, as OSU's).
  std::string time_aggregation;
  TimeStats time_us;
  // The time under each over-ranks estimator (per sample combined over ranks, then the mean over
  // samples), whatever time_aggregation picked: -a 3 reproduces max_us. Absent in older reports.
  std::optional<RankTimeViews> time_over_ranks_us;
  std::string timing;                 // how the samples were made (schedule, batch size, -I, -G, -m)
  int check_iterations = 0;           // 0 where the case has no check
  std::optional<std::int64_t> wrong;  // null when no check ran (-c 0)
  std::string timestamp;              // UTC, when the row completed (nccl-tests -S prints it)
  std::vector<double> samples_us;     // only with --samples
};

// A case a run could not run: reported, never faked. Every kind's "skipped" holds this one shape:
// what was not run and why ({what, reason}), with the kind's own keys beside them (a collective's
// dtype, op and placement). Printed "what: reason" under every kind's table.
struct SkippedCase {
  std::string what;    // "float16", "float16 sum out" (a collective's dtype, op and placement)
  std::string reason;
  nlohmann::json fields = nlohmann::json::object();  // the kind's own keys
  std::string text() const { return what + ": " + reason; }
};

// A collective report's summary (SummaryForm::kBusBandwidth) as nccl-tests' footer and the
// --min-busbw gate read it: a typed view of the report's summary, not part of the envelope.
struct BusBandwidthSummary {
  std::optional<double> avg_busbw_gbps;  // mean over rows, as nccl-tests' footer
  std::optional<double> max_busbw_gbps;
  std::int64_t wrong_total = 0;
  int rows = 0;
  int rows_checked = 0;
};

// The envelope: what every reader returns, and (envelope_json) what every writer starts from;
// `rows` holds every kind's rows in the generic form, filled by the reader. It knows no kind: what
// one kind writes beside it is in `kind_fields`, read through that kind's reader view (pt2pt's
// link matrix: workloads/pt2pt/report/pt2pt_view.h).
struct Report {
  std::string schema_version_text = schema_version();
  std::string benchmark;         // "all_reduce", ...
  std::string status = "partial";  // "complete" once every row is in
  std::string error;             // why a partial run stopped, when it did
  Context context;
  std::vector<SkippedCase> skipped;
  // In the kind's form (RowKindSpec::summary), made from the rows as read, so that it never
  // disagrees with them; a kind whose workload writes its own (kByWorkload) keeps the report's.
  nlohmann::json summary;
  RowKind kind;
  std::vector<Row> rows;
  std::vector<std::string> warnings;
  // The document's keys outside the envelope, as written: "link_matrix", "platform", "slow_ranks", ...
  nlohmann::json kind_fields = nlohmann::json::object();
};

// ===== Compute and memory throughput rows (matmul_perf, membw_perf; envcheck's spreads) =======
// Every rank measures its own device, so each row carries every rank's figures and their spread,
// not only rank 0's. Rates are written under the kind's headline unit: "tflops" for GEMM, "gbps"
// (1e9 B/s) for memory; the rows themselves are written inline (workloads/compute).

struct ThroughputRank {
  int rank = 0;
  TimeStats time_us;
  double rate = 0;                        // this rank's rate from its mean time
  std::optional<double> percent_of_peak;
  std::optional<double> relative_error;   // GEMM only, when checked
  std::optional<std::int64_t> wrong;      // null when no check ran
};

struct ThroughputSpread {
  int fastest_rank = 0;
  int slowest_rank = 0;
  double fastest = 0;
  double slowest = 0;
  double ratio = 1;  // fastest / slowest; 1 = all equal
};

// What one rank ran on, for matmul_perf and membw_perf reports.
struct RankPlatform {
  int rank = 0;
  std::string device;
  std::string library;          // "OpenBLAS (SkylakeX, 2 threads)", "cuBLASLt ..."
  std::string cpu_model;
  std::string vector_level;
  int threads = 0;
  std::string affinity;
  std::string openblas_corename;
  std::string openblas_config;
  std::string warning;          // e.g. a slow OpenBLAS core
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankPlatform, rank, device, library, cpu_model, vector_level, threads, affinity,
                                   openblas_corename, openblas_config, warning)

// A report's summary in its kind's form (RowKindSpec::summary), from rows added as the run
// completes them, as written in the report: each add is O(1), so keeping the summary current costs
// nothing per row.
class RowSummary {
 public:
  explicit RowSummary(RowKind kind);
  void add(const nlohmann::json& row);
  nlohmann::json to_json() const;  // null for SummaryForm::kByWorkload
  int rows() const { return rows_; }

 private:
  SummaryForm form_;
  std::string rate_key_;  // kRate: the headline figure's key
  bool with_spread_;
  int rows_ = 0;
  int rows_checked_ = 0;
  std::int64_t wrong_total_ = 0;
  std::optional<double> max_rate_;  // kRate, kBusBandwidth (bus bandwidth)
  std::optional<double> worst_spread_ratio_;
  double busbw_total_ = 0;          // kBusBandwidth: over the rows that have one
  int busbw_rows_ = 0;
  std::string slowest_;             // kSlowestCommunicator: "MPI_Comm_dup at 4 ranks"
  double slowest_mean_us_ = 0;
};

}  // namespace collbench::report
