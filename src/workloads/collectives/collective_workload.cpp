#include "workloads/collectives/collective_workload.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <optional>
#include <utility>

#include "core/algorithm_ranges.h"
#include "backends/registry.h"
#include "core/error.h"
#include "core/group_world.h"
#include "core/input_file.h"
#include "core/printable.h"
#include "core/values.h"
#include "harness/backend_choice.h"
#include "harness/build_features.h"
#include "harness/watchdog.h"
#include "report/group_view.h"
#include "report/report_json.h"
#include "report/table.h"
#include "workloads/collectives/bitwise_repeats.h"
#include "workloads/collectives/collective_buffers.h"
#include "workloads/collectives/concurrent_groups.h"
#include "workloads/collectives/traffic_run.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench {
namespace {

std::string estimator_description(TimeAggregation aggregation) {
  switch (aggregation) {
    case TimeAggregation::kMean: return "mean over ranks (-a 1, as nccl-tests and OSU)";
    case TimeAggregation::kMax: return "max over ranks per iteration (-a 3: includes the ranks' skew)";
    case TimeAggregation::kMin: return "min over ranks per iteration (-a 2)";
    case TimeAggregation::kRankZero: return "rank 0's time (-a 0)";
  }
  return "";
}

std::string sweep_description(const CollectiveOptions& options) {
  const SizeSweep& sweep = options.sweep;
  std::string text = "sizes";
  for (auto size : options.explicit_sizes) text += " " + format_size(size);
  if (options.explicit_sizes.empty()) {
    text += " " + format_size(sweep.min_bytes) + " .. " + format_size(sweep.max_bytes) +
            (sweep.step_factor > 0 ? formatted(" (factor %g)", sweep.step_factor) : " (step " + format_size(sweep.step_bytes) + ")");
  }
  text += formatted("; warm-up %d, iterations %d, check %d\ntime (us) = ", options.warmup_iterations, options.iterations,
                    options.check_iterations) +
          estimator_description(options.aggregation) + "; the report also keeps the mean, max and min over ranks";
  // The table must not pass for a real measurement.
  if (options.inject_slowdown_percent > 0) text += formatted("; every timed sample stretched by %g %% (--inject-slowdown)", options.inject_slowdown_percent);
  return text;
}

// Names only backends that can run here; a built one that cannot says why.
std::string build_features_text() {
  return describe_backends() + (cuda_built() ? "; cuda: yes" : "; cuda: no");
}

// The process's peak resident set so far (getrusage's ru_maxrss, KiB on Linux).
std::uint64_t peak_resident_bytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024u;
}

// -M 1: every rank's peak resident set, as rank 0 prints it (nccl-tests prints GPU memory; on the
// host, the resident set is what a user sizing a run needs). Every rank calls it.
std::string peak_memory_text(World& world) {
  const auto peaks = world.gather_strings(std::to_string(peak_resident_bytes()));
  std::string text;
  for (std::size_t rank = 0; rank < peaks.size(); ++rank) {
    text += formatted("# rank %zu: peak resident memory %.1f MiB\n", rank, std::stod(peaks[rank]) / (1024.0 * 1024.0));
  }
  return text;
}

// --min-busbw / NCCL_TESTS_MIN_BW: nccl-tests' gate on the average bus bandwidth.
// Rank 0 only: it holds the rows.
bool below_min_busbw(const report::BusBandwidthSummary& summary, const std::optional<double>& minimum_gbps) {
  if (!minimum_gbps) return false;
  const double average = summary.avg_busbw_gbps.value_or(0.0);
  if (average >= *minimum_gbps) return false;
  std::fprintf(stderr, "collbench: average bus bandwidth %.3f GB/s is below the minimum %.3f GB/s%s\n", average,
               *minimum_gbps, summary.avg_busbw_gbps ? "" : " (no row has a bus bandwidth: one rank moves no data)");
  return true;
}

// What the collectives tell a backend beyond the shared flags (make_run_backend adds those).
BackendConfig backend_config(const CollectiveOptions& options) {
  BackendConfig config;
  config.nccl_algo = options.nccl_algo;
  config.nccl_proto = options.nccl_proto;
  config.capture_nccl_algorithm = options.capture_nccl_algorithm;
  config.algorithm = options.nccl_algo;
  if (!options.algorithm_file.empty()) {
    config.algorithm_ranges = parse_algorithm_ranges(read_tuning_file_text(options.algorithm_file), options.algorithm_file);
  }
  config.registration = options.registration;
  return config;
}

}  // namespace

RowSize row_size_for(const Collective& collective, std::uint64_t requested_bytes, DType dtype, int ranks) {
  const std::size_t element = dtype_info(dtype).size_bytes;
  std::size_t count = static_cast<std::size_t>(requested_bytes / element);
  BufferLayout layout = collective.layout(count, ranks, element);
  // Sizes too small for one 16-byte block per rank are raised to the smallest row that has one,
  // instead of timing an empty call (nccl-tests prints such rows as size 0).
  const std::size_t elements_per_16_bytes = element >= 16 ? 1 : 16 / element;
  for (std::size_t smallest : {std::size_t{1}, static_cast<std::size_t>(ranks) * elements_per_16_bytes}) {
    if (layout.call_count > 0) break;
    count = smallest;
    layout = collective.layout(count, ranks, element);
  }
  return {std::max(layout.send_count, layout.recv_count), layout};
}

BufferBytes largest_buffers(const Collective& collective, const CollectiveOptions& options, int ranks) {
  BufferBytes largest;
  if (collective.traffic_layout) return largest;  // sized from the traffic (CollectiveWorkload::buffers_for)
  for (DType dtype : options.dtypes) {
    const std::uint64_t element = dtype_info(dtype).size_bytes;
    for (std::uint64_t bytes : options.requested_sizes()) {
      const BufferLayout layout = row_size_for(collective, bytes, dtype, ranks).layout;
      largest.send = std::max<std::uint64_t>(largest.send, layout.send_count * element);
      largest.shared = std::max<std::uint64_t>(largest.shared, std::max(layout.send_count, layout.recv_count) * element);
    }
  }
  return largest;
}

namespace {
// A collective's program apart from any run: its options and alltoallv's traffic (which refers to
// them: one shared copy), both settled by the world's checks before the run starts.
struct CollectiveProgram {
  CollectiveProgram(const Collective& collective, CollectiveOptions parsed, BackendMaker maker)
      : collective(collective), options(std::move(parsed)), make_backend(std::move(maker)) {}

  std::string check_for_world(World& world);
  void settle_groups(World& world);
  MemoryNeed memory_need(int world_size) const {
    // Send and receive buffers sized for the largest row plus the host staging copy: only the mpi
    // backend keeps its buffers in host memory; GPU backends need the staging only.
    // -B keeps the first repeat's outputs on the host (and, when ranks differ, one rank's copy).
    const BufferBytes largest = buffers_for(world_size);
    const std::uint64_t bitwise = options.bitwise_repeats > 0 ? 2 * largest.shared : 0;
    return {(options.backend == "mpi" ? largest.send + 2 * largest.shared : largest.shared) + bitwise};
  }
  // Buffers for the largest row of the run; a per-peer collective's from its busiest rank.
  BufferBytes buffers_for(int ranks) const {
    return collective.traffic_layout ? traffic.largest_buffers(ranks) : largest_buffers(collective, options, ranks);
  }

  const Collective& collective;
  CollectiveOptions options;
  RunTraffic traffic{options};  // alltoallv's traffic; unused by the other collectives
  BackendMaker make_backend;    // empty: the registry's, by --backend
  // --split / --groups over this world (settled by the world's checks); empty: one group, the world.
  std::vector<RankGroup> groups;
  std::vector<std::string> hosts;  // each rank's, in rank order, where groups are
  int smallest_group = 0;          // grouped: ranks in the smallest group, the roots every group has
};

// One run of a collective: the backend, its buffers, the cases and nccl-tests' table.
class CollectiveWorkload final : public WorkloadOver<CollectiveCase> {
 public:
  CollectiveWorkload(RunContext& run, const CollectiveProgram& program);

 private:
  CasePlan prepare(std::size_t index) override;
  // nccl-tests' warm-up sizes are message sizes (its setupArgs' bytes).
  std::optional<double> warmup_size(std::size_t index) const override {
    return static_cast<double>(cases_[index].size.row_count * dtype_info(cases_[index].dtype).size_bytes);
  }
  LoopSettings loop_settings() const override;
  // nccl-tests' header, with the sweep's description, from the report's envelope; its column
  // header is part of it.
  std::string header(const nlohmann::json& report) const override {
    return report::written_text([&](std::FILE* out) {
      report::TableWriter(out, table_columns_).header(report, sweep_description(options_) + (collective_.traffic_layout ? traffic_.description() : ""));
    });
  }
  void print_columns() override {}
  void print_row(const nlohmann::json&) override {}  // one line per size, both placements: case_done
  void print_skipped(const report::SkippedCase& skipped) override { table_.skipped(skipped); }
  void case_done(std::size_t index) override;
  int finish(RunContext& run, nlohmann::json& report, std::int64_t wrong_total) override;
  std::string footer(const nlohmann::json& report, std::int64_t wrong_total, const std::string& report_path) const override;
  // The row as the report holds it; the live table reads it too.
  nlohmann::json make_row(const CollectiveCase& one_case, report::Measurement measured, const LoopResult& timed,
                          TimedOperation* operation = nullptr);
  // A grouped row: every group's figures from every rank's samples (a collective call), the
  // row's headline the slowest group's, with the groups and the aggregate beside it.
  std::vector<GroupFigures> group_figures(const CollectiveCase& one_case, const LoopResult& timed, TimedOperation* operation);
  // --alone: each group's -n iterations by itself, in turn, the other groups waiting at the
  // world's barrier; every group's statistics, on every rank.
  std::vector<TimeStats> time_groups_alone(TimedOperation& operation);
  // The live table's lines of a grouped size: one per group, then the aggregate's.
  void print_group_lines(const nlohmann::json* out_of_place, const nlohmann::json* in_place);

  const Collective& collective_;
  const CollectiveOptions& options_;
  const RunTraffic& traffic_;
  // A grouped run's world for the data plane: this rank's group (its backend, buffers and checks
  // see the group's rank and size); the driver's world stays the whole one.
  std::unique_ptr<GroupWorld> group_world_;
  World& data_world() const { return group_world_ ? static_cast<World&>(*group_world_) : world_; }
  const std::vector<std::string>& hosts_;
  std::unique_ptr<Backend> backend_;
  const CollectiveEntry* entry_ = nullptr;  // the backend's entry for this collective; nullptr: every case skips
  std::unique_ptr<CollectiveBuffers> buffers_;  // released before the backend that made them
  std::unique_ptr<BitwiseRepeats> bitwise_;  // -B
  report::TableColumns table_columns_;
  report::TableWriter table_;
  std::optional<nlohmann::json> out_of_place_, in_place_;  // the current size's rows
  std::int64_t bitdiff_total_ = 0;  // -B: over every row, the same on every rank
  int bitwise_rows_ = 0;
  std::string peak_memory_;  // -M 1's lines, under the table
};

// The groups of this world, the same on every rank (the rule is part of the options every rank
// agreed on before this); what cannot run grouped is refused here, on every rank alike.
void CollectiveProgram::settle_groups(World& world) {
  const std::string rule = options.grouping_text();
  if (collective.traffic_layout) throw UsageError(rule + ": alltoallv_perf's traffic is per world rank; run it without groups");
  if (options.bitwise_repeats > 0) throw UsageError(rule + ": -B compares ranks of one communicator; run it without groups");
  hosts = world.gather_strings(world.host());
  groups = options.split ? groups_by_rule(*options.split, world.size())
                         : groups_by_pattern(*options.group_pattern, hosts, options.group_seed);
  for (const RankGroup& group : groups) smallest_group = std::min(smallest_group, static_cast<int>(group.ranks.size()));
}

// A valid root and backend, and a backend every host can run: a built one that some host cannot
// run (no GPU visible) is named with the first such rank's reason, exit 1 before any library init.
std::string CollectiveProgram::check_for_world(World& world) {
  smallest_group = world.size();
  if (options.grouped()) settle_groups(world);
  if (collective.takes_root && options.root != kEveryRoot && options.root >= smallest_group) {
    throw UsageError("root " + std::to_string(options.root) + " is outside the " + (groups.empty() ? "world" : "smallest group") + " of " +
                     std::to_string(smallest_group) + " rank(s) (use 0.." + std::to_string(smallest_group - 1) + " or -1 for every root)");
  }
  if (collective.traffic_layout) traffic.check_for_world(world);
  settle_backend_name(options.backend, world.control_plane());
  if (options.gpus_per_process != 1) {
    throw UsageError("-g " + std::to_string(options.gpus_per_process) + " is not supported by the " + options.backend +
                     " backend: launch one process per GPU (mpirun -np <GPUs>) with -g 1");
  }
  if (options.backend != "nccl") {
    const std::vector<std::string> gpu_only = options.gpu_only_flags_in_use();
    if (!gpu_only.empty()) {
      throw UsageError(joined(gpu_only, ", ") + (gpu_only.size() == 1 ? " is" : " are") + " for GPU backends only; the " + options.backend +
                       " backend's calls complete on the host (drop " + (gpu_only.size() == 1 ? "it" : "them") +
                       " or use --backend nccl)");
    }
  }
  return backend_unusable_anywhere(world, options.backend);
}

CollectiveWorkload::CollectiveWorkload(RunContext& run, const CollectiveProgram& program)
    : WorkloadOver(run.world, program.options,
                   program.collective.traffic_layout ? report::kAlltoallvRows : report::kCollectiveRows),
      collective_(program.collective),
      options_(program.options),
      traffic_(program.traffic),
      hosts_(program.hosts),
      table_columns_{options_.report_issue_time, options_.report_timestamps, options_.bitwise_repeats > 0},
      table_(stdout, table_columns_) {
  World& world = run.world;
  if (!program.groups.empty()) group_world_ = std::make_unique<GroupWorld>(world, program.groups);
  backend_ = program.make_backend ? program.make_backend(data_world(), options_)
                                  : make_run_backend(data_world(), options_, backend_config(options_));
  // Every rank reaches this with the same backend, so every rank stops with the same line.
  if (!options_.algorithm_file.empty() && backend_->name() != "gloo") {
    throw UsageError("--algo-file sets gloo's all_reduce algorithms; this run's backend is " + backend_->name());
  }
  entry_ = backend_->entry_for(collective_.name);
  report_without_rows_ = report::envelope_json(std::string(collective_.name), backend_context(run, *backend_, options_, options_as_json(options_)));
  report_without_rows_["skipped"] = nlohmann::json::array();

  const int ranks = data_world().size();
  buffers_ = std::make_unique<CollectiveBuffers>(collective_, *backend_, entry_, data_world(), options_, program.buffers_for(ranks));
  if (options_.bitwise_repeats > 0) bitwise_ = std::make_unique<BitwiseRepeats>(collective_, world, options_, run.watchdog);

  const std::vector<ReduceOp> ops = collective_.takes_op ? options_.ops : std::vector<ReduceOp>{ReduceOp::kSum};
  std::vector<int> roots{-1};
  if (collective_.takes_root) {
    roots.clear();
    const int root_ranks = group_world_ ? program.smallest_group : ranks;  // grouped: the roots every group has
    for (int r = 0; r < root_ranks; ++r) {
      if (options_.root == kEveryRoot || options_.root == r) roots.push_back(r);
    }
  }
  const std::vector<Placement> placements = options_.placements();
  if (collective_.traffic_layout) {
    cases_ = traffic_.cases(collective_, placements, ranks, world.rank());
    return;
  }
  for (DType dtype : options_.dtypes) {
    for (ReduceOp op : ops) {
      for (int root : roots) {
        std::size_t previous_row_count = 0;
        for (std::uint64_t requested : options_.requested_sizes()) {
          const RowSize size = row_size_for(collective_, requested, dtype, ranks);
          // Rounding made it the same row as the last; grouped, every group keeps every size, so
          // that groups of different sizes run the same cases in step.
          if (size.row_count == previous_row_count && !group_world_) continue;
          previous_row_count = size.row_count;
          for (Placement placement : placements) {
            cases_.push_back({dtype, op, root, requested, size, placement, placement == placements.back(), nullptr});
          }
        }
      }
    }
  }
}

LoopSettings CollectiveWorkload::loop_settings() const {
  LoopSettings settings = loop_settings_from(options_, options_.aggregation);
  settings.blocking = options_.blocking;
  settings.graph_launches = options_.graph_launches;
  settings.per_iteration_marks = options_.per_iteration_marks;
  return settings;
}

CasePlan CollectiveWorkload::prepare(std::size_t index) {
  const CollectiveCase& one_case = cases_[index];
  const std::optional<ReduceOp> op = collective_.takes_op ? std::optional<ReduceOp>(one_case.op) : std::nullopt;
  const bool in_place = one_case.placement == Placement::kInPlace;
  const std::string unsupported =
      backend_->unsupported_reason({collective_.name, one_case.dtype, op, in_place, one_case.size.layout.call_count});
  if (!unsupported.empty()) {
    const std::string dtype(to_string(one_case.dtype)), op_name = op ? std::string(to_string(*op)) : "none",
        placement(to_string(one_case.placement));
    return CasePlan::skip({dtype + " " + op_name + " " + placement, unsupported, {{"dtype", dtype}, {"op", op_name}, {"placement", placement}}});
  }
  // Grouped: every group starts the row together (each iteration then starts on its group's own barrier).
  if (group_world_) world_.barrier();
  buffers_->fill_inputs(one_case);
  const std::size_t bytes = one_case.size.row_count * dtype_info(one_case.dtype).size_bytes;
  PreparedCase prepared;
  prepared.step = std::string(collective_.name) + " at " + std::to_string(bytes) + " B " +
                  std::string(to_string(one_case.dtype)) + " " + (in_place ? "in-place" : "out-of-place");
  // The backend decides how the call is issued, grouped and waited for; the loop owns the schedule
  // and the clock, and runs the check after timing through the same operation.
  const std::function<void()> issue_one_call = [this] { buffers_->issue_one_call(); };
  prepared.operation = backend_->make_operation(issue_one_call, options_.calls_per_iteration);
  // Asked for (--nccl-estimate), and only with a warm-up: a library may run what it simulated with
  // its next real launch (NCCL does, nccl_backend.cpp), which then falls in the warm-up instead of a
  // timed iteration or a graph. Not for the run's warm-up, which makes no row.
  const bool estimate_wanted = options_.nccl_estimate && options_.warmup_iterations > 0 && !preparing_warmup();
  const std::optional<double> estimate =
      estimate_wanted ? backend_->library_estimate_us(collective_.name, issue_one_call) : std::nullopt;
  buffers_->start_moving(one_case);
  RowCheck check;
  check.prepare = [this, &one_case](int) { buffers_->fill_inputs(one_case); };
  check.count_wrong = [this, &one_case](int) { return buffers_->count_wrong(one_case); };
  prepared.check = std::move(check);
  TimedOperation* operation = prepared.operation.get();  // lives in `prepared` while its row is made
  prepared.row = [this, &one_case, operation, estimate](LoopResult& timed, report::Measurement measured) {
    nlohmann::json row = make_row(one_case, std::move(measured), timed, operation);
    // The library's own estimate of one call (us), when it has one: NCCL's ncclGroupSimulateEnd.
    if (estimate) row["library_estimate_us"] = *estimate;
    if (bitwise_) {  // after timing and checks, untimed, every rank
      BitwiseResult bitwise = bitwise_->compare(one_case, *buffers_, *operation);
      // -B N: bitdiff counts differing elements over ranks and repeats (null when not checked).
      // The hash is FNV-1a (hex) of the first repeat's outputs on rank 0 (on the first rank whose
      // whole output is checked, for the cross-rank collectives): equal hashes in two runs mean the
      // same bits, so runs under different algorithms or libraries compare without their outputs.
      row["bitwise_repeats"] = options_.bitwise_repeats;
      row["bitdiff"] = bitwise.differing;
      if (!bitwise.first.empty()) row["first_bitdiff"] = std::move(bitwise.first);
      if (!bitwise.hash.empty()) row["bitwise_hash"] = std::move(bitwise.hash);
      bitdiff_total_ += bitwise.differing;
      ++bitwise_rows_;
    }
    (one_case.placement == Placement::kInPlace ? in_place_ : out_of_place_) = row;
    return row;
  };
  return CasePlan::run(std::move(prepared));
}

void CollectiveWorkload::case_done(std::size_t index) {
  if (!cases_[index].last_of_size) return;
  const nlohmann::json* out_of_place = out_of_place_ ? &*out_of_place_ : nullptr;
  const nlohmann::json* in_place = in_place_ ? &*in_place_ : nullptr;
  if (world_.rank() == 0 && group_world_) print_group_lines(out_of_place, in_place);
  else if (world_.rank() == 0) table_.line(out_of_place, in_place);
  out_of_place_.reset();
  in_place_.reset();
}

nlohmann::json CollectiveWorkload::make_row(const CollectiveCase& one_case, report::Measurement measured, const LoopResult& timed,
                                            TimedOperation* operation) {
  // nccl-tests' "size" of the row, and the size asked for before rounding to whole elements per rank.
  const std::uint64_t bytes = one_case.size.row_count * dtype_info(one_case.dtype).size_bytes;
  if (const BufferSlices& slices = buffers_->slices(); slices.count > 1) {
    measured.timing += "; each call on the next of " + std::to_string(slices.count) + " buffer slices " +
                       std::to_string(slices.stride) + " B apart, as nccl-tests (no call finds the last one's data in cache)";
  }
  // Grouped: the headline is the slowest group's (its size, time and factor), the groups and the
  // aggregate beside it.
  std::optional<std::vector<GroupFigures>> groups;
  std::uint64_t row_bytes = bytes;
  int ranks = world_.size();
  if (group_world_) {
    groups = group_figures(one_case, timed, operation);
    const GroupFigures& slowest = (*groups)[slowest_group(*groups)];
    measured.time_us = slowest.time_us;
    row_bytes = slowest.bytes;
    ranks = static_cast<int>(slowest.group->ranks.size());
  }
  const double mean_us = measured.time_us.mean;
  const double algbw_gbps = mean_us > 0 ? static_cast<double>(row_bytes) / (mean_us * 1e3) : 0.0;
  const double bus_bandwidth_factor = collective_.bus_factor.at(ranks);
  std::optional<double> busbw_gbps;  // null on one rank: no data crosses ranks
  if (ranks > 1) busbw_gbps = algbw_gbps * bus_bandwidth_factor;
  // nccl-tests' alltoallv figures: the size is the busiest rank's bytes (sent or received).
  if (one_case.traffic && world_.size() > 1 && mean_us > 0) busbw_gbps = alltoallv_bus_bandwidth_gbps(bytes, mean_us, world_.size());
  nlohmann::json row = {
      {"bytes", row_bytes},
      {"requested_bytes", one_case.requested_bytes},
      {"count", row_bytes / dtype_info(one_case.dtype).size_bytes},
      {"dtype", std::string(to_string(one_case.dtype))},
      {"op", collective_.takes_op ? std::string(to_string(one_case.op)) : "none"},
      {"root", collective_.takes_root ? one_case.root : -1},
      {"placement", std::string(to_string(one_case.placement))},
      {"backend", backend_->name()},
      // What the backend ran, when it can tell; "default" otherwise.
      {"algorithm", backend_->algorithm_at(std::string(collective_.name), bytes)},
      {"algbw_gbps", algbw_gbps},
      {"bus_bandwidth_factor", bus_bandwidth_factor},
      {"busbw_gbps", report::json_or_null(busbw_gbps)},
      {"bitdiff", nullptr},  // -B's, when asked for
  };
  if (options_.calls_per_iteration != 1) row["calls_per_iteration"] = options_.calls_per_iteration;  // -m
  // Batch schedules: the host's time to issue one call (nccl-tests -C).
  if (timed.issue_us) row["issue_us"] = *timed.issue_us;
  if (one_case.traffic) row["traffic"] = traffic_.row(one_case);
  if (groups) {
    row["groups"] = groups_json(*groups);
    row["aggregate"] = aggregate_json(*groups);
  }
  return report::row_json(row_kind(), std::move(row), measured);
}

std::vector<TimeStats> CollectiveWorkload::time_groups_alone(TimedOperation& operation) {
  std::vector<double> mine;  // this rank's samples while its group ran alone
  for (std::size_t g = 0; g < group_world_->groups().size(); ++g) {
    world_.barrier();
    if (g != group_world_->group_index()) continue;
    for (int i = -options_.warmup_iterations; i < options_.iterations; ++i) {
      operation.start_together(world_);  // the group's own barrier (mpi, gloo)
      const auto start = std::chrono::steady_clock::now();
      operation.issue(std::max(i, 0));
      operation.wait();
      const double elapsed_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      if (i >= 0) mine.push_back(elapsed_us / operation.calls_per_iteration());
    }
  }
  world_.barrier();
  std::vector<TimeStats> alone;
  const auto per_group = group_world_->combine_per_group(mine, Combine::kSum);  // the mean over each group's ranks
  for (std::size_t g = 0; g < per_group.size(); ++g) {
    std::vector<double> samples = per_group[g];
    for (double& sample : samples) sample /= static_cast<double>(group_world_->groups()[g].ranks.size());
    alone.push_back(summarize_samples(std::move(samples)));
  }
  return alone;
}

std::vector<GroupFigures> CollectiveWorkload::group_figures(const CollectiveCase& one_case, const LoopResult& timed, TimedOperation* operation) {
  // Each sample combined over its group's ranks as -a says (the mean: the sum over the group, divided).
  const TimeAggregation aggregation = options_.aggregation;
  const Combine how = aggregation == TimeAggregation::kMax ? Combine::kMax : aggregation == TimeAggregation::kMin ? Combine::kMin : Combine::kSum;
  std::vector<double> mine = timed.mine_us;
  if (aggregation == TimeAggregation::kRankZero && group_world_->rank() != 0) std::fill(mine.begin(), mine.end(), 0.0);
  const std::vector<std::vector<double>> per_group = group_world_->combine_per_group(mine, how);
  std::vector<GroupFigures> figures;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  for (std::size_t g = 0; g < per_group.size(); ++g) {
    const RankGroup& group = group_world_->groups()[g];
    const int size = static_cast<int>(group.ranks.size());
    std::vector<double> samples = per_group[g];
    if (aggregation == TimeAggregation::kMean) {
      for (double& sample : samples) sample /= size;
    }
    GroupFigures one;
    one.group = &group;
    for (int rank : group.ranks) one.hosts.push_back(hosts_[static_cast<std::size_t>(rank)]);
    one.bytes = row_size_for(collective_, one_case.requested_bytes, one_case.dtype, size).row_count * element;
    one.time_us = summarize_samples(std::move(samples));
    one.bus_bandwidth_factor = size > 1 ? collective_.bus_factor.at(size) : 0.0;
    figures.push_back(std::move(one));
  }
  if (options_.alone && operation) {
    const std::vector<TimeStats> alone = time_groups_alone(*operation);
    for (std::size_t g = 0; g < figures.size(); ++g) figures[g].alone_us = alone[g];
  }
  return figures;
}

void CollectiveWorkload::print_group_lines(const nlohmann::json* out_of_place, const nlohmann::json* in_place) {
  // A group's line is the row's group view in nccl-tests' columns, tagged at its end; then the aggregate's.
  const nlohmann::json* any = out_of_place ? out_of_place : in_place;
  if (!any) return table_.line(nullptr, nullptr);
  const auto print_tagged = [&](const std::function<nlohmann::json(const nlohmann::json&)>& view, const std::string& tag) {
    const std::optional<nlohmann::json> out = out_of_place ? std::optional(view(*out_of_place)) : std::nullopt;
    const std::optional<nlohmann::json> in = in_place ? std::optional(view(*in_place)) : std::nullopt;
    std::string text = report::written_text([&](std::FILE* file) {
      report::TableWriter(file, table_columns_).line(out ? &*out : nullptr, in ? &*in : nullptr);
    });
    if (!text.empty() && text.back() == '\n') text.pop_back();
    std::printf("%s  %s\n", text.c_str(), tag.c_str());
  };
  const nlohmann::json& groups = (*any)["groups"];
  for (std::size_t g = 0; g < groups.size(); ++g) {
    print_tagged([g](const nlohmann::json& row) { return report::group_row_view(row, g); }, "group " + std::to_string(groups[g]["id"].get<int>()));
  }
  print_tagged(report::aggregate_row_view, "all " + std::to_string(groups.size()) + " groups");
}

int CollectiveWorkload::finish(RunContext& run, nlohmann::json& report, std::int64_t wrong_total) {
  World& world = run.world;
  const bool leader = world.rank() == 0;
  std::optional<report::BusBandwidthSummary> summary;  // rank 0's: the driver's, kept row by row
  if (leader) {
    summary = report::bus_bandwidth_summary_of(report["summary"]);
    if (options_.bitwise_repeats > 0) report["summary"]["bitdiff_total"] = bitdiff_total_;
  }
  if (options_.memory_report) peak_memory_ = peak_memory_text(world);
  if (wrong_total > 0 || bitdiff_total_ > 0) return static_cast<int>(ExitCode::kWrongResults);
  if (group_world_) {  // rank 0 holds the rows and judges; every rank exits the same way
    std::vector<report::GroupVerdict> slow;
    if (leader) {
      slow = report::slow_groups(report["results"], options_.slow_group_factor);
      nlohmann::json& named = report["summary"]["slow_groups"] = nlohmann::json::array();
      for (const report::GroupVerdict& group : slow) {
        named.push_back(group.id);
        std::fprintf(stderr, "collbench: %s\n", report::slow_group_line(group, options_.slow_group_factor).c_str());
      }
    }
    if (world.sum(static_cast<std::int64_t>(slow.size())) > 0) return static_cast<int>(ExitCode::kWrongResults);
  }
  // Rank 0 holds the rows and judges; every rank exits the same way.
  const bool below = world.sum(summary && below_min_busbw(*summary, options_.min_busbw_gbps) ? 1 : 0) > 0;
  return below ? static_cast<int>(ExitCode::kRuntimeError) : static_cast<int>(ExitCode::kOk);
}

std::string CollectiveWorkload::footer(const nlohmann::json& report, std::int64_t, const std::string&) const {
  std::string text;
  if (options_.bitwise_repeats > 0) {
    text = formatted("# Bitwise differences : %lld %s (-B %d: %d row(s) repeated, compared across repeats%s)\n",
                     static_cast<long long>(bitdiff_total_), bitdiff_total_ == 0 ? "OK" : "FAILED", options_.bitwise_repeats,
                     bitwise_rows_, collective_.same_output_on_every_rank ? " and ranks" : "");
  }
  return text + report::written_text([&](std::FILE* out) { report::TableWriter(out).footer(report, options_.report_path); }) +
         peak_memory_;
}

}  // namespace

ProgramSpec collective_program(const Collective& collective, CollectiveOptions options, BackendMaker make_backend) {
  if (options.traffic_given && !collective.traffic_layout) {
    throw UsageError(std::string(options.traffic.from_matrix() ? "--matrix" : "--pattern") + " is for alltoallv_perf only: " +
                     std::string(collective.name) + " sends the same count to every rank");
  }
  // Only ranks that hold the same elements by design are compared with each other; a collective
  // whose ranks each hold their own elements has no cross-rank comparison to inject into.
  if (options.inject_bitwise_difference == "rank" && !collective.same_output_on_every_rank) {
    throw UsageError("--inject-bitwise-diff rank: " + std::string(collective.name) +
                     "'s ranks hold different outputs by design, so -B compares each rank with its own repeats only "
                     "(ranks are compared for all_reduce, all_gather and broadcast; use --inject-bitwise-diff repeat)");
  }
  // Mutable: the world's checks settle the backend's name and the traffic before the run starts.
  const auto state = std::make_shared<CollectiveProgram>(collective, std::move(options), std::move(make_backend));
  const std::string name = std::string(collective.name) + "_perf";
  ProgramSpec program = program_spec_of<CollectiveWorkload>(state, state->options);
  program.help = [name] { return usage_text(name); };
  program.build_features = build_features_text;
  // NCCL_TESTS_MIN_BW can set it without a flag.
  // NCCL_TESTS_SPLIT(_MASK) can set the groups without a flag: ranks started with different ones
  // are found by the start-up agreement, before any group is made.
  program.options_identity = {{"min_busbw_gbps", state->options.min_busbw_gbps.value_or(-1)},
                              {"groups", state->options.grouping_text()}};
  program.check_for_world = [state](World& world) { return state->check_for_world(world); };
  program.memory_need = [state](int world_size) { return state->memory_need(world_size); };
  return program;
}

}  // namespace collbench
