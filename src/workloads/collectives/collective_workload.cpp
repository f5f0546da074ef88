#include "workloads/collectives/collective_workload.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <optional>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/algorithm_ranges.h"
#include "backends/registry.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/values.h"
#include "harness/backend_choice.h"
#include "harness/context.h"
#include "harness/watchdog.h"
#include "report/report_json.h"
#include "report/table.h"
#include "workloads/collectives/bitwise.h"
#include "workloads/collectives/buffer_slices.h"

namespace collbench {
namespace {

// The staging piece: a whole number of elements of any dtype, small next to the messages.
constexpr std::size_t kStagingBytes = 4u << 20;
// A staging piece with at least this many elements is checked by the process's OpenMP threads
// (as many as its CPU binding allows: one where mpirun binds each rank to a core); smaller pieces
// stay on one thread, where starting the team would cost more than it saves.
constexpr std::size_t kParallelCheckElements = 1u << 16;

char* at_offset(void* base, std::size_t bytes) { return static_cast<char*>(base) + bytes; }

std::string estimator_description(TimeAggregation aggregation) {
  switch (aggregation) {
    case TimeAggregation::kMean: return "mean over ranks (-a 1, as nccl-tests and OSU)";
    case TimeAggregation::kMax: return "max over ranks per iteration (-a 3: includes the ranks' skew)";
    case TimeAggregation::kMin: return "min over ranks per iteration (-a 2)";
    case TimeAggregation::kRankZero: return "rank 0's time (-a 0)";
  }
  return "";
}

std::string sweep_description(const Options& options) {
  std::ostringstream text;
  if (!options.explicit_sizes.empty()) {
    text << "sizes";
    for (auto size : options.explicit_sizes) text << ' ' << format_size(size);
  } else {
    text << "sizes " << format_size(options.sweep.min_bytes) << " .. " << format_size(options.sweep.max_bytes);
    if (options.sweep.step_factor > 0) text << " (factor " << options.sweep.step_factor << ")";
    else text << " (step " << format_size(options.sweep.step_bytes) << ")";
  }
  text << "; warm-up " << options.warmup_iterations << ", iterations " << options.iterations << ", check "
       << options.check_iterations << "\ntime (us) = " << estimator_description(options.aggregation)
       << "; the report also keeps the mean, max and min over ranks";
  // The table must not pass for a real measurement.
  if (options.inject_slowdown_percent > 0) text << "; every timed sample stretched by " << options.inject_slowdown_percent << " % (--inject-slowdown)";
  return text.str();
}

// Names only backends that can run here; a built one that cannot says why.
std::string build_features_text() {
#ifdef COLLBENCH_HAVE_CUDA
  return describe_backends() + "; cuda: yes";
#else
  return describe_backends() + "; cuda: no";
#endif
}

// The process's peak resident set so far (getrusage's ru_maxrss, KiB on Linux).
std::uint64_t peak_resident_bytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024u;
}

// -M 1: every rank's peak resident set, printed by rank 0 (nccl-tests prints GPU memory; on the
// host, the resident set is what a user sizing a run needs).
void report_peak_memory(World& world) {
  const auto peaks = world.gather_strings(std::to_string(peak_resident_bytes()));
  if (world.rank() != 0) return;
  for (std::size_t rank = 0; rank < peaks.size(); ++rank) {
    std::printf("# rank %zu: peak resident memory %.1f MiB\n", rank, std::stod(peaks[rank]) / (1024.0 * 1024.0));
  }
}

// --min-busbw / NCCL_TESTS_MIN_BW: nccl-tests' gate on the average bus bandwidth.
// Rank 0 only: it holds the rows.
bool below_min_busbw(const report::Summary& summary, const std::optional<double>& minimum_gbps) {
  if (!minimum_gbps) return false;
  const double average = summary.avg_busbw_gbps.value_or(0.0);
  if (average >= *minimum_gbps) return false;
  std::fprintf(stderr, "collbench: average bus bandwidth %.3f GB/s is below the minimum %.3f GB/s%s\n", average,
               *minimum_gbps, summary.avg_busbw_gbps ? "" : " (no row has a bus bandwidth: one rank moves no data)");
  return true;
}

// The few settings backends read; they never see the command line.
BackendConfig backend_config(const Options& options) {
  BackendConfig config;
  config.timeout_seconds = options.timeout_seconds;
  config.nccl_algo = options.nccl_algo;
  config.nccl_proto = options.nccl_proto;
  config.capture_nccl_algorithm = options.capture_nccl_algorithm;
  config.algorithm = options.nccl_algo;
  if (!options.algorithm_file.empty()) {
    config.algorithm_ranges = parse_algorithm_ranges(read_tuning_file_text(options.algorithm_file), options.algorithm_file);
  }
  config.network_interface = options.gloo_iface;
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

BufferBytes largest_buffers(const Collective& collective, const Options& options, int ranks) {
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
// A collective benchmark: its options, its checks, and its cases for the driver.
class CollectiveWorkload final : public Workload {
 public:
  CollectiveWorkload(const Collective& collective, Options options, BackendMaker make_backend)
      : collective_(collective),
        name_(std::string(collective.name) + "_perf"),
        options_(std::move(options)),
        make_backend_(std::move(make_backend)),
        table_(stdout, {options_.report_issue_time, options_.report_timestamps, options_.bitwise_repeats > 0}) {}

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return usage_text(name_); }
  std::string build_features() const override { return build_features_text(); }
  nlohmann::json options_identity() const override {
    // NCCL_TESTS_MIN_BW can set it without a flag.
    return {{"min_busbw_gbps", options_.min_busbw_gbps.value_or(-1)}};
  }
  std::string check_for_world(World& world) override;
  MemoryNeed memory_need(int world_size) const override {
    // Send and receive buffers sized for the largest row plus the host staging copy: only the mpi
    // backend keeps its buffers in host memory; GPU backends need the staging only.
    // -B keeps the first repeat's outputs on the host (and, when ranks differ, one rank's copy).
    const BufferBytes largest = buffers_for(world_size);
    const std::uint64_t bitwise = options_.bitwise_repeats > 0 ? 2 * largest.shared : 0;
    return {(options_.backend == "mpi" ? largest.send + 2 * largest.shared : largest.shared) + bitwise};
  }

 private:
  struct Case {
    DType dtype;
    ReduceOp op;
    int root;  // -1 for collectives without one
    std::uint64_t requested_bytes;
    RowSize size;
    Placement placement;
    bool last_of_size;  // the table's line for this size follows it
    std::shared_ptr<const TrafficMatrix> traffic;  // collectives with per-peer counts (alltoallv); null otherwise
  };

  // alltoallv: the row's traffic for a size of the sweep (the matrix file's, whatever the size).
  TrafficMatrix traffic_for(DType dtype, std::uint64_t requested_bytes, int ranks) const;
  // The sweep's sizes for a per-peer collective: the matrix file has one.
  std::vector<std::uint64_t> traffic_sizes() const {
    return options_.traffic.from_matrix() ? std::vector<std::uint64_t>{0} : options_.requested_sizes();
  }
  report::TrafficRow traffic_row(const TrafficMatrix& traffic, const Case& one_case) const;
  // Buffers for the largest row of the run; a per-peer collective's from its busiest rank.
  BufferBytes buffers_for(int ranks) const;
  // --matrix: rank 0 reads the file and every rank parses the same text, so all fail alike.
  void read_traffic_matrix(World& world);

  nlohmann::json start(RunContext& run) override;
  void print_header(const nlohmann::json&) override { table_.header(report_, sweep_description(options_) + traffic_description()); }
  // alltoallv: where the per-pair sizes come from and what the size column means.
  std::string traffic_description() const {
    if (!collective_.traffic_layout) return "";
    std::string text = "\ntraffic " + options_.traffic.text();
    if (options_.traffic.from_matrix()) text += " from " + options_.traffic.matrix_path + " (the sizes above are not used)";
    else text += " (seed " + std::to_string(options_.seed) + "; each size is every rank's total sent)";
    return text + "\nsize = the busiest rank's bytes sent or received; busbw = algbw * (n-1)/n, as nccl-tests' alltoallv";
  }
  std::size_t case_count() const override { return cases_.size(); }
  CasePlan prepare(std::size_t index) override;
  // nccl-tests' warm-up sizes are message sizes (its setupArgs' bytes).
  std::optional<double> warmup_size(std::size_t index) const override {
    return static_cast<double>(cases_[index].size.row_count * dtype_info(cases_[index].dtype).size_bytes);
  }
  LoopSettings loop_settings() const override;
  report::RowKind row_kind() const override { return report::RowKind::kCollective; }
  void print_columns() override {}                   // nccl-tests' header, printed with the description
  void print_row(const nlohmann::json&) override {}  // one line per size, both placements: case_done
  void print_skipped(const SkippedCase& skipped) override {
    const nlohmann::json& record = skipped.record;
    table_.skipped({record["dtype"], record["op"], record["placement"], record["reason"]});
  }
  void case_done(std::size_t index) override;
  nlohmann::json add_to_summary(const nlohmann::json&) override {
    summary_.add(*last_row_);
    return report::to_json(summary_.summary());
  }
  int finish(RunContext& run, nlohmann::json& report, std::int64_t wrong_total) override;
  void end_run() override {
    send_.reset();
    recv_.reset();
    backend_.reset();
  }

  // `rounding`: -B's inputs for floating types (bitwise.h rounding_input) instead of the checks'.
  // Every call after it works on the buffers' first slice (the checks, -B) until start_moving().
  void fill_inputs(const Case& one_case, CollectiveCall& call, bool rounding = false);
  // Where the backend moves the buffers each call (nccl-tests' way): copies the inputs just
  // written into every slice the row's calls will use, and starts the calls cycling through them.
  void start_moving(const Case& one_case);
  void issue_one_call();
  std::int64_t count_wrong(const Case& one_case);
  struct BitwiseResult {
    std::int64_t differing = 0;  // over ranks, repeats and ranks together
    std::vector<report::BitwiseDifference> first;
    std::string hash;  // FNV-1a of the first repeat's outputs on the reference rank (rank 0 mostly)
  };
  BitwiseResult compare_repeats_bitwise(const Case& one_case, TimedOperation& operation);
  std::pair<int, std::size_t> bitwise_injection_site(const BufferLayout& layout, const std::function<bool(std::size_t)>& compared,
                                                     bool whole_output);
  report::ResultRow make_row(const Case& one_case, report::Measurement measured, const LoopResult& timed);
  std::size_t unaligned_bytes(DType dtype) const {  // -u
    return static_cast<std::size_t>(options_.unaligned_elements) * dtype_info(dtype).size_bytes;
  }

  const Collective& collective_;
  std::string name_;
  std::optional<ByteMatrix> byte_matrix_;  // --matrix, read once the world's size is known
  PeerBlocks peer_blocks_;                 // this rank's blocks of the current case (per-peer collectives)
  Options options_;
  BackendMaker make_backend_;
  Watchdog* watchdog_ = nullptr;  // -T: hears the -B repeats' progress
  std::unique_ptr<Backend> backend_;
  const CollectiveEntry* entry_ = nullptr;  // the backend's entry for this collective; nullptr: every case skips
  std::vector<Case> cases_;
  // Buffers are sized once for the largest row of the run, like nccl-tests, so allocation and
  // first-touch page faults never land in a timed region.
  std::unique_ptr<Buffer> send_;     // out of place: the inputs
  std::unique_ptr<Buffer> recv_;     // out of place: the outputs; in place: the one shared buffer
  std::vector<unsigned char> host_;  // staging for inputs and for reading outputs back, a piece at a time
  CollectiveCall call_;              // the current case's call, on the buffers' first slice
  BufferSlices slices_;              // the current case's slices (count 1: the calls never move)
  std::size_t next_slice_ = 0;       // where the next timed call goes
  bool moving_ = false;              // timed calls cycle through the slices; off for checks and -B
  report::TableWriter table_;
  report::Report report_;  // the envelope the table's header and footer read
  report::SummaryBuilder summary_;
  std::optional<report::ResultRow> last_row_, out_of_place_, in_place_;  // the current size's rows
  std::int64_t bitdiff_total_ = 0;  // -B: over every row, the same on every rank
  int bitwise_rows_ = 0;
};

// A valid root and backend, and a backend every host can run: a built one that some host cannot
// run (no GPU visible) is named with the first such rank's reason, exit 1 before any library init.
std::string CollectiveWorkload::check_for_world(World& world) {
  if (collective_.takes_root && options_.root != kEveryRoot && options_.root >= world.size()) {
    throw UsageError("root " + std::to_string(options_.root) + " is outside the world of " + std::to_string(world.size()) +
                     " rank(s) (use 0.." + std::to_string(world.size() - 1) + " or -1 for every root)");
  }
  if (collective_.traffic_layout) {
    if (options_.traffic.pattern == TrafficPattern::kHotspot && options_.traffic.hot_ranks > world.size()) {
      throw UsageError("--pattern hotspot:" + std::to_string(options_.traffic.hot_ranks) + " asks for more hot ranks than the world's " +
                       std::to_string(world.size()) + " (use 1.." + std::to_string(world.size()) + ")");
    }
    if (options_.traffic.from_matrix()) read_traffic_matrix(world);
  }
  settle_backend_name(options_.backend, world.control_plane());
  if (options_.gpus_per_process != 1) {
    throw UsageError("-g " + std::to_string(options_.gpus_per_process) + " is not supported by the " + options_.backend +
                     " backend: launch one process per GPU (mpirun -np <GPUs>) with -g 1");
  }
  if (options_.backend != "nccl") {
    const std::vector<std::string> gpu_only = options_.gpu_only_flags_in_use();
    if (!gpu_only.empty()) {
      std::string flags;
      for (const auto& flag : gpu_only) flags += (flags.empty() ? "" : ", ") + flag;
      throw UsageError(flags + (gpu_only.size() == 1 ? " is" : " are") + " for GPU backends only; the " + options_.backend +
                       " backend's calls complete on the host (drop " + (gpu_only.size() == 1 ? "it" : "them") +
                       " or use --backend nccl)");
    }
  }
  return backend_unusable_anywhere(world, options_.backend);
}

void CollectiveWorkload::read_traffic_matrix(World& world) {
  const std::string& path = options_.traffic.matrix_path;
  std::string outcome;  // "ok " + the text, or "error " + why
  if (world.rank() == 0) {
    try {
      // A matrix of a few thousand ranks is tens of MB of text, a row a few hundred KB.
      outcome = "ok " + read_input_file(path, {"--matrix file", 256u << 20, 16u << 20});
    } catch (const UsageError& e) {
      outcome = std::string("error ") + e.what();
    }
  }
  outcome = world.broadcast_string(outcome);
  if (outcome.rfind("error ", 0) == 0) throw UsageError(outcome.substr(6));
  byte_matrix_ = parse_byte_matrix(outcome.substr(3), path, world.size());
  // A row that moves nothing would time an empty call and print a bandwidth of 0.
  for (DType dtype : options_.dtypes) {
    if (traffic_from_bytes(*byte_matrix_, dtype_info(dtype).size_bytes).busiest_elements() == 0) {
      throw UsageError("the --matrix file '" + path + "' moves no whole " + std::string(to_string(dtype)) +
                       " element between any two ranks (every pair is below " +
                       std::to_string(dtype_info(dtype).size_bytes) + " bytes)");
    }
  }
}

TrafficMatrix CollectiveWorkload::traffic_for(DType dtype, std::uint64_t requested_bytes, int ranks) const {
  const std::size_t element = dtype_info(dtype).size_bytes;
  if (byte_matrix_) return traffic_from_bytes(*byte_matrix_, element);
  return generate_traffic(options_.traffic, requested_bytes, ranks, element, options_.seed);
}

BufferBytes CollectiveWorkload::buffers_for(int ranks) const {
  if (!collective_.traffic_layout) return largest_buffers(collective_, options_, ranks);
  // Every rank sizes for the busiest rank: no rank sends or receives more.
  BufferBytes largest;
  for (DType dtype : options_.dtypes) {
    for (std::uint64_t requested : traffic_sizes()) {
      const std::uint64_t bytes = traffic_for(dtype, requested, ranks).busiest_elements() * dtype_info(dtype).size_bytes;
      largest.send = std::max(largest.send, bytes);
      largest.shared = std::max(largest.shared, bytes);
    }
  }
  return largest;
}

report::TrafficRow CollectiveWorkload::traffic_row(const TrafficMatrix& traffic, const Case& one_case) const {
  const std::uint64_t element = dtype_info(one_case.dtype).size_bytes;
  report::TrafficRow row;
  row.pattern = options_.traffic.text();
  row.matrix_file = options_.traffic.matrix_path;
  row.seed = options_.seed;
  row.bytes_per_rank = byte_matrix_ ? 0 : one_case.requested_bytes;
  row.min_send_bytes = row.min_receive_bytes = UINT64_MAX;
  for (int rank = 0; rank < traffic.ranks(); ++rank) {
    const std::uint64_t sent = traffic.sent_by(rank) * element, received = traffic.received_by(rank) * element;
    row.max_send_bytes = std::max(row.max_send_bytes, sent);
    row.min_send_bytes = std::min(row.min_send_bytes, sent);
    row.max_receive_bytes = std::max(row.max_receive_bytes, received);
    row.min_receive_bytes = std::min(row.min_receive_bytes, received);
    row.total_bytes += sent;
  }
  for (std::size_t elements : traffic.all_elements()) row.largest_pair_bytes = std::max<std::uint64_t>(row.largest_pair_bytes, elements * element);
  return row;
}

nlohmann::json CollectiveWorkload::start(RunContext& run) {
  World& world = run.world;
  watchdog_ = run.watchdog;
  backend_ = make_backend_ ? make_backend_(world, options_) : make_backend(options_.backend, world, backend_config(options_));
  // Every rank reaches this with the same backend, so every rank stops with the same line.
  if (!options_.algorithm_file.empty() && backend_->name() != "gloo") {
    throw UsageError("--algo-file sets gloo's all_reduce algorithms; this run's backend is " + backend_->name());
  }
  entry_ = backend_->entry_for(collective_.name);
  report_.benchmark = std::string(collective_.name);
  report_.context = collect_context(world, backend_->name(), backend_->device_description(), run.argv, options_,
                                    options_as_json(options_));
  for (const auto& [library, version] : backend_->versions()) report_.context.versions[library] = version;

  const int ranks = world.size();
  const BufferBytes largest = buffers_for(ranks);
  // -u starts the calls past an aligned address: room for the skew of the widest element.
  const std::size_t skew = static_cast<std::size_t>(options_.unaligned_elements) * sizeof(double);
  send_ = backend_->allocate(largest.send + skew);
  recv_ = backend_->allocate(largest.shared + skew);
  host_.resize(std::min<std::size_t>(largest.shared, kStagingBytes));

  const std::vector<ReduceOp> ops = collective_.takes_op ? options_.ops : std::vector<ReduceOp>{ReduceOp::kSum};
  std::vector<int> roots{-1};
  if (collective_.takes_root) {
    roots.clear();
    for (int r = 0; r < ranks; ++r) {
      if (options_.root == kEveryRoot || options_.root == r) roots.push_back(r);
    }
  }
  const std::vector<Placement> placements = options_.placements();
  if (collective_.traffic_layout) {
    for (DType dtype : options_.dtypes) {
      std::shared_ptr<const TrafficMatrix> previous;
      for (std::uint64_t requested : traffic_sizes()) {
        auto traffic = std::make_shared<const TrafficMatrix>(traffic_for(dtype, requested, ranks));
        if (previous && *previous == *traffic) continue;  // rounding made it the same row as the last
        previous = traffic;
        const RowSize size{traffic->busiest_elements(), collective_.traffic_layout(*traffic, world.rank())};
        const std::uint64_t asked = byte_matrix_ ? size.row_count * dtype_info(dtype).size_bytes : requested;
        for (Placement placement : placements) {
          cases_.push_back({dtype, ReduceOp::kSum, -1, asked, size, placement, placement == placements.back(), traffic});
        }
      }
    }
    return report::to_json(report_);
  }
  for (DType dtype : options_.dtypes) {
    for (ReduceOp op : ops) {
      for (int root : roots) {
        std::size_t previous_row_count = 0;
        for (std::uint64_t requested : options_.requested_sizes()) {
          const RowSize size = row_size_for(collective_, requested, dtype, ranks);
          if (size.row_count == previous_row_count) continue;  // rounding made it the same row as the last
          previous_row_count = size.row_count;
          for (Placement placement : placements) {
            cases_.push_back({dtype, op, root, requested, size, placement, placement == placements.back(), nullptr});
          }
        }
      }
    }
  }
  return report::to_json(report_);
}

LoopSettings CollectiveWorkload::loop_settings() const {
  LoopSettings settings = loop_settings_from(options_, options_.aggregation);
  settings.blocking = options_.blocking;
  settings.graph_launches = options_.graph_launches;
  settings.per_iteration_marks = options_.per_iteration_marks;
  return settings;
}

CasePlan CollectiveWorkload::prepare(std::size_t index) {
  const Case& one_case = cases_[index];
  const std::optional<ReduceOp> op = collective_.takes_op ? std::optional<ReduceOp>(one_case.op) : std::nullopt;
  const bool in_place = one_case.placement == Placement::kInPlace;
  const std::string unsupported =
      backend_->unsupported_reason({collective_.name, one_case.dtype, op, in_place, one_case.size.layout.call_count});
  if (!unsupported.empty()) {
    return CasePlan::skip(report::to_json(report::SkippedCase{std::string(to_string(one_case.dtype)),
                                                              op ? std::string(to_string(*op)) : "none",
                                                              std::string(to_string(one_case.placement)), unsupported}),
                          unsupported);
  }
  fill_inputs(one_case, call_);
  const std::size_t bytes = one_case.size.row_count * dtype_info(one_case.dtype).size_bytes;
  PreparedCase prepared;
  prepared.step = std::string(collective_.name) + " at " + std::to_string(bytes) + " B " +
                  std::string(to_string(one_case.dtype)) + " " + (in_place ? "in-place" : "out-of-place");
  // The backend decides how the call is issued, grouped and waited for; the loop owns the schedule
  // and the clock, and runs the check after timing through the same operation.
  const std::function<void()> issue_one_call = [this] { this->issue_one_call(); };
  prepared.operation = backend_->make_operation(issue_one_call, options_.calls_per_iteration);
  // Asked for (--nccl-estimate), and only with a warm-up: a library may run what it simulated with
  // its next real launch (NCCL does, nccl_backend.cpp), which then falls in the warm-up instead of a
  // timed iteration or a graph. Not for the run's warm-up, which makes no row.
  const bool estimate_wanted = options_.nccl_estimate && options_.warmup_iterations > 0 && !preparing_warmup();
  const std::optional<double> estimate =
      estimate_wanted ? backend_->library_estimate_us(collective_.name, issue_one_call) : std::nullopt;
  start_moving(one_case);
  RowCheck check;
  check.prepare = [this, &one_case](int) { fill_inputs(one_case, call_); };
  check.count_wrong = [this, &one_case](int) { return count_wrong(one_case); };
  prepared.check = std::move(check);
  TimedOperation* operation = prepared.operation.get();  // lives in `prepared` while its row is made
  prepared.row = [this, &one_case, operation, estimate](LoopResult& timed, report::Measurement measured) {
    last_row_ = make_row(one_case, std::move(measured), timed);
    last_row_->library_estimate_us = estimate;
    if (options_.bitwise_repeats > 0) {  // after timing and checks, untimed, every rank
      BitwiseResult bitwise = compare_repeats_bitwise(one_case, *operation);
      last_row_->bitwise_repeats = options_.bitwise_repeats;
      last_row_->bitdiff = bitwise.differing;
      last_row_->first_bitdiff = std::move(bitwise.first);
      last_row_->bitwise_hash = std::move(bitwise.hash);
      bitdiff_total_ += bitwise.differing;
      ++bitwise_rows_;
    }
    (one_case.placement == Placement::kInPlace ? in_place_ : out_of_place_) = last_row_;
    return report::to_json(*last_row_);
  };
  return CasePlan::run(std::move(prepared));
}

void CollectiveWorkload::case_done(std::size_t index) {
  if (!cases_[index].last_of_size) return;
  if (world_->rank() == 0) table_.line(out_of_place_ ? &*out_of_place_ : nullptr, in_place_ ? &*in_place_ : nullptr);
  out_of_place_.reset();
  in_place_.reset();
}

void CollectiveWorkload::issue_one_call() {
  if (!moving_) {
    entry_->issue(call_);
    return;
  }
  CollectiveCall moved = call_;
  const std::size_t shift = next_slice_ * slices_.stride;
  moved.send = static_cast<const char*>(call_.send) + shift;
  moved.recv = static_cast<char*>(call_.recv) + shift;
  next_slice_ = (next_slice_ + 1) % slices_.count;
  entry_->issue(moved);
}

void CollectiveWorkload::start_moving(const Case& one_case) {
  slices_ = BufferSlices{};
  next_slice_ = 0;
  moving_ = false;
  if (!backend_->support().moves_buffers_each_call) return;
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::size_t skew = unaligned_bytes(one_case.dtype);
  const std::size_t send_bytes = layout.send_count * element;
  // In place, one slice is the whole shared region (this rank's input and every output); out of
  // place, the larger of the two buffers' parts.
  const std::size_t footprint = std::max(send_bytes, layout.recv_count * element);
  const std::size_t room = call_.in_place ? recv_->bytes() - skew : std::min(send_->bytes(), recv_->bytes()) - skew;
  const auto calls = static_cast<std::size_t>(options_.warmup_iterations + options_.iterations) *
                     static_cast<std::size_t>(std::max(options_.calls_per_iteration, 1));
  slices_ = buffer_slices(footprint, room, calls);
  for (std::size_t slice = 1; slice < slices_.count; ++slice) {
    // The inputs (in place: with the poisoned outputs around them), so no timed call reads memory
    // nothing wrote.
    if (call_.in_place) {
      recv_->copy_within(skew, skew + slice * slices_.stride, footprint);
    } else {
      send_->copy_within(skew, skew + slice * slices_.stride, send_bytes);
    }
  }
  moving_ = slices_.count > 1;
}

// Poisons the outputs and writes this rank's inputs where the buffer lives (Buffer::fill_inputs: a
// kernel on a GPU). The rounding inputs of -B's check go through host staging a piece at a time, so
// host memory stays at the buffers the collective needs plus one piece.
void CollectiveWorkload::fill_inputs(const Case& one_case, CollectiveCall& call, bool rounding) {
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const std::size_t rank = static_cast<std::size_t>(world_->rank());
  const std::size_t skew = unaligned_bytes(one_case.dtype);
  const ValueSpec spec{one_case.dtype, one_case.op, world_->size(), options_.seed};
  moving_ = false;

  call.count = layout.call_count;
  call.dtype = one_case.dtype;
  call.op = one_case.op;
  call.root = one_case.root < 0 ? 0 : one_case.root;
  call.in_place = one_case.placement == Placement::kInPlace;
  call.peer_blocks = nullptr;
  if (one_case.traffic) {
    const TrafficMatrix& traffic = *one_case.traffic;
    const int me = world_->rank();
    const auto n = static_cast<std::size_t>(traffic.ranks());
    peer_blocks_.send_counts.resize(n);
    peer_blocks_.send_offsets.resize(n);
    peer_blocks_.receive_counts.resize(n);
    peer_blocks_.receive_offsets.resize(n);
    for (int peer = 0; peer < traffic.ranks(); ++peer) {
      const auto p = static_cast<std::size_t>(peer);
      peer_blocks_.send_counts[p] = traffic.elements(me, peer);
      peer_blocks_.send_offsets[p] = traffic.send_offset(me, peer);
      peer_blocks_.receive_counts[p] = traffic.elements(peer, me);
      peer_blocks_.receive_offsets[p] = traffic.receive_offset(me, peer);
    }
    call.peer_blocks = &peer_blocks_;
  }
  Buffer* inputs = send_.get();
  std::size_t input_offset = skew;
  if (call.in_place) {
    // Poison the whole shared buffer first: the parts outside this rank's input must be written.
    const std::size_t shared_bytes = std::max(layout.send_count, layout.recv_count) * element;
    recv_->fill_bytes(kPoisonByte, skew, shared_bytes);
    inputs = recv_.get();
    input_offset = skew + rank * layout.in_place_send_stride * element;
    call.send = at_offset(recv_->data(), input_offset);
    call.recv = at_offset(recv_->data(), skew + rank * layout.in_place_recv_stride * element);
  } else {
    recv_->fill_bytes(kPoisonByte, skew, layout.recv_count * element);
    call.send = at_offset(send_->data(), skew);
    call.recv = at_offset(recv_->data(), skew);
  }
  if (!rounding || !dtype_info(one_case.dtype).is_floating) {
    inputs->fill_inputs(spec, world_->rank(), input_offset, layout.send_count);  // on the device where it lives
    return;
  }
  const std::size_t piece = host_.size() / element;
  for (std::size_t first = 0; first < layout.send_count; first += piece) {
    const std::size_t count = std::min(piece, layout.send_count - first);
    for (std::size_t i = 0; i < count; ++i) {
      store_element(one_case.dtype, host_.data(), i, rounding_input(options_.seed, world_->rank(), first + i));
    }
    inputs->copy_from_host(host_.data(), input_offset + first * element, count * element);
  }
}

report::ResultRow CollectiveWorkload::make_row(const Case& one_case, report::Measurement measured, const LoopResult& timed) {
  const std::uint64_t bytes = one_case.size.row_count * dtype_info(one_case.dtype).size_bytes;
  report::ResultRow row;
  static_cast<report::Measurement&>(row) = std::move(measured);
  row.bytes = bytes;
  row.requested_bytes = one_case.requested_bytes;
  row.count = one_case.size.row_count;
  row.dtype = std::string(to_string(one_case.dtype));
  row.op = collective_.takes_op ? std::string(to_string(one_case.op)) : "none";
  row.root = collective_.takes_root ? one_case.root : -1;
  row.placement = std::string(to_string(one_case.placement));
  row.backend = backend_->name();
  row.algorithm = backend_->algorithm_at(std::string(collective_.name), bytes);
  row.calls_per_iteration = options_.calls_per_iteration;
  if (slices_.count > 1) {
    row.timing += "; each call on the next of " + std::to_string(slices_.count) + " buffer slices " +
                  std::to_string(slices_.stride) + " B apart, as nccl-tests (no call finds the last one's data in cache)";
  }
  row.issue_us = timed.issue_us;
  row.algbw_gbps = row.time_us.mean > 0 ? static_cast<double>(bytes) / (row.time_us.mean * 1e3) : 0.0;
  row.bus_bandwidth_factor = collective_.bus_factor.at(world_->size());
  if (world_->size() > 1) row.busbw_gbps = row.algbw_gbps * row.bus_bandwidth_factor;
  if (one_case.traffic) {
    // nccl-tests' alltoallv figures: the size is the busiest rank's bytes (sent or received).
    if (world_->size() > 1 && row.time_us.mean > 0) {
      row.busbw_gbps = alltoallv_bus_bandwidth_gbps(bytes, row.time_us.mean, world_->size());
    }
    row.traffic = traffic_row(*one_case.traffic, one_case);
  }
  return row;
}

// Compares this rank's outputs of the call just completed with their closed forms, a staging
// piece at a time. Each element's verdict depends on nothing but its index and the piece's bytes,
// so a large piece is counted by several threads (the check is untimed; on a GPU host it is the one
// part of a row that still walks every element on a CPU).
std::int64_t CollectiveWorkload::count_wrong(const Case& one_case) {
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const int rank = world_->rank();
  const ValueModel values({one_case.dtype, one_case.op, world_->size(), options_.seed});
  const bool in_place = one_case.placement == Placement::kInPlace;
  OutputContext where{rank, world_->size(), one_case.root < 0 ? 0 : one_case.root, layout.call_count, in_place,
                      one_case.traffic.get()};
  std::size_t output_offset = unaligned_bytes(one_case.dtype);
  if (in_place && entry_->in_place_output == InPlaceOutput::kAtRankStride) {
    output_offset += static_cast<std::size_t>(rank) * layout.in_place_recv_stride * element;
  }
  bool corrupt = options_.inject_corrupt_output && rank == world_->size() - 1;
  std::int64_t wrong = 0;
  const std::size_t piece = host_.size() / element;
  for (std::size_t first = 0; first < layout.recv_count; first += piece) {
    const std::size_t count = std::min(piece, layout.recv_count - first);
    recv_->copy_to_host(host_.data(), output_offset + first * element, count * element);
    // --inject-corrupt-output: the first element this rank checks gets a value no input produces
    // and no reduction over < 12 ranks reaches.
    for (std::size_t i = 0; corrupt && i < count; ++i) {
      if (collective_.expected_output(where, first + i).kind == Expected::Kind::kUnchecked) continue;
      store_element(one_case.dtype, host_.data(), i, 99.0);
      corrupt = false;
    }
    const auto elements = static_cast<std::ptrdiff_t>(count);
    std::int64_t wrong_in_piece = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong_in_piece) if (count >= kParallelCheckElements)
    for (std::ptrdiff_t i = 0; i < elements; ++i) {
      const auto index = static_cast<std::size_t>(i);
      const Expected source = collective_.expected_output(where, first + index);
      double expected = 0, tolerance = 0;
      switch (source.kind) {
        case Expected::Kind::kUnchecked: continue;
        case Expected::Kind::kCopyOf: expected = values.input(source.source_rank, source.source_index); break;
        case Expected::Kind::kReductionAt: {
          const ValueModel::Reduction reduction = values.reduction(source.source_index);
          expected = reduction.value;
          tolerance = reduction.tolerance;
          break;
        }
      }
      const double actual = load_element(one_case.dtype, host_.data(), index);
      if (!(std::fabs(actual - expected) <= tolerance)) ++wrong_in_piece;  // NaN counts as wrong
    }
    wrong += wrong_in_piece;
  }
  return wrong;
}

namespace {

// "index bits bits" for a difference found on this rank, "" for none: what ranks exchange.
std::string describe_difference(std::int64_t differing, std::size_t element, const std::string& reference_bits,
                                const std::string& bits, int repeat) {
  if (differing == 0) return "";
  return std::to_string(differing) + " " + std::to_string(element) + " " + reference_bits + " " + bits + " " +
         std::to_string(repeat);
}

// The first rank's difference of every rank's descriptions, with the count summed over ranks.
// `reference_rank` < 0: each rank was compared with its own first repeat.
std::optional<report::BitwiseDifference> first_over_ranks(const std::vector<std::string>& descriptions, const char* between,
                                                          int reference_rank) {
  std::optional<report::BitwiseDifference> first;
  std::int64_t total = 0;
  for (std::size_t rank = 0; rank < descriptions.size(); ++rank) {
    if (descriptions[rank].empty()) continue;
    std::istringstream fields(descriptions[rank]);
    std::int64_t differing = 0;
    report::BitwiseDifference difference;
    fields >> differing >> difference.element >> difference.reference_bits >> difference.bits >> difference.repeat;
    total += differing;
    if (first) continue;
    difference.between = between;
    difference.rank = static_cast<int>(rank);
    difference.reference_rank = reference_rank >= 0 ? reference_rank : static_cast<int>(rank);
    difference.reference_repeat = reference_rank >= 0 ? difference.repeat : 0;
    first = difference;
  }
  if (first) first->elements = total;
  return first;
}

}  // namespace

// --inject-bitwise-diff: the rank and output element that get the flipped bit, where -B must find
// it. `repeat`: the last rank holding a checked output element (the root of reduce and gather), at
// its first checked element from the middle of its output on. `rank`: the last of the ranks that
// must agree (those holding the whole output), at the middle, so it differs from the reference (the
// first of them). Rank -1: no injection (none asked, or no rank where it could be seen).
std::pair<int, std::size_t> CollectiveWorkload::bitwise_injection_site(const BufferLayout& layout,
                                                                       const std::function<bool(std::size_t)>& compared,
                                                                       bool whole_output) {
  if (options_.inject_bitwise_difference.empty()) return {-1, 0};
  const bool by_rank = options_.inject_bitwise_difference == "rank";
  std::optional<std::size_t> element;
  if (by_rank ? whole_output : true) {
    for (std::size_t i = layout.recv_count / 2; i < layout.recv_count && !element; ++i) {
      if (compared(i)) element = i;
    }
    for (std::size_t i = 0; i < layout.recv_count / 2 && !element; ++i) {
      if (compared(i)) element = i;
    }
  }
  const std::vector<std::string> candidates = world_->gather_strings(element ? std::to_string(*element) : std::string("-"));
  int chosen = -1;
  int eligible = 0;
  for (std::size_t r = 0; r < candidates.size(); ++r) {
    if (candidates[r] == "-") continue;
    ++eligible;
    chosen = static_cast<int>(r);
  }
  // Across ranks a difference needs a second rank holding the same elements to differ from.
  if (chosen < 0 || (by_rank && eligible < 2)) return {-1, 0};
  return {chosen, std::stoull(candidates[static_cast<std::size_t>(chosen)])};
}

// -B N: the case's call N more times with the same inputs (refilled each time: in place, the
// output overwrote them), each rank's outputs compared with its first repeat a staging piece at a
// time, then, where every rank must hold the same result, the first repeat's bits compared across
// ranks: a hash from each rank, and only when they differ the reference rank's outputs sent to the
// others to find the first differing element. Compares only the elements the check would check.
CollectiveWorkload::BitwiseResult CollectiveWorkload::compare_repeats_bitwise(const Case& one_case, TimedOperation& operation) {
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const int rank = world_->rank();
  const bool in_place = one_case.placement == Placement::kInPlace;
  const OutputContext where{rank, world_->size(), one_case.root < 0 ? 0 : one_case.root, layout.call_count, in_place,
                            one_case.traffic.get()};
  std::size_t output_offset = unaligned_bytes(one_case.dtype);
  if (in_place && entry_->in_place_output == InPlaceOutput::kAtRankStride) {
    output_offset += static_cast<std::size_t>(rank) * layout.in_place_recv_stride * element;
  }
  const auto compared = [this, &where](std::size_t index) {
    return collective_.expected_output(where, index).kind != Expected::Kind::kUnchecked;
  };
  // Where every rank must hold the same bits, only ranks whose every output element is checked take
  // part: out of place, broadcast's root keeps its data in its send buffer and its receive buffer
  // holds no output. The first of them is the reference.
  bool whole_output = true;
  for (std::size_t i = 0; i < layout.recv_count && whole_output; ++i) whole_output = compared(i);
  const auto [injecting_rank, injected_element] = bitwise_injection_site(layout, compared, whole_output);
  const std::size_t piece = host_.size() / element;
  std::vector<unsigned char> first_repeat(layout.recv_count * element);
  std::int64_t repeat_differing = 0;
  // The first difference from the first repeat: element, its two values' bits, the repeat.
  std::optional<std::tuple<std::size_t, std::string, std::string, int>> first_difference;
  for (int repeat = 0; repeat < options_.bitwise_repeats; ++repeat) {
    fill_inputs(one_case, call_, true);
    world_->barrier();
    operation.issue_check();
    operation.wait();
    for (std::size_t first = 0; first < layout.recv_count; first += piece) {
      const std::size_t count = std::min(piece, layout.recv_count - first);
      recv_->copy_to_host(host_.data(), output_offset + first * element, count * element);
      const bool inject = rank == injecting_rank && injected_element >= first && injected_element < first + count &&
                          ((options_.inject_bitwise_difference == "repeat" && repeat == options_.bitwise_repeats - 1) ||
                           options_.inject_bitwise_difference == "rank");
      if (inject) host_[(injected_element - first) * element] ^= 1u;  // the lowest bit on a little-endian host
      unsigned char* kept = first_repeat.data() + first * element;
      if (repeat == 0) {
        std::copy(host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(count * element), kept);
        continue;
      }
      const BitComparison found = compare_bits(kept, host_.data(), count, element, first, compared);
      if (found.differing == 0) continue;
      if (!first_difference) {
        first_difference.emplace(*found.first, element_bits_hex(first_repeat.data(), *found.first, element),
                                 element_bits_hex(host_.data(), *found.first - first, element), repeat);
      }
      repeat_differing += found.differing;
    }
    if (watchdog_) watchdog_->progress();
  }
  std::string repeat_description;  // the count is over every repeat
  if (first_difference) {
    const auto& [index, reference_bits, bits, repeat] = *first_difference;
    repeat_description = describe_difference(repeat_differing, index, reference_bits, bits, repeat);
  }

  BitwiseResult result;
  if (auto first = first_over_ranks(world_->gather_strings(repeat_description), "repeats", -1)) {
    result.differing += first->elements;
    result.first.push_back(*first);
  }
  char hash[24];
  std::snprintf(hash, sizeof(hash), "%016llx",
                static_cast<unsigned long long>(fnv1a_64(first_repeat.data(), first_repeat.size())));
  if (!collective_.same_output_on_every_rank || world_->size() < 2) {
    result.hash = world_->broadcast_string(hash);
    return result;
  }

  const std::vector<std::string> hashes = world_->gather_strings(whole_output ? std::string(hash) : std::string("-"));
  const auto reference = std::find_if(hashes.begin(), hashes.end(), [](const std::string& h) { return h != "-"; });
  if (reference == hashes.end()) {
    result.hash = hashes.front();
    return result;
  }
  const int reference_rank = static_cast<int>(reference - hashes.begin());
  result.hash = *reference;
  if (std::all_of(hashes.begin(), hashes.end(), [&reference](const std::string& h) { return h == "-" || h == *reference; })) {
    return result;
  }
  // Rare: the reference rank's outputs go to every rank, which finds its own first difference from them.
  const std::vector<std::string> exchanged =
      world_->gather_strings(rank == reference_rank ? std::string(first_repeat.begin(), first_repeat.end()) : std::string());
  const std::string& reference_bytes = exchanged[static_cast<std::size_t>(reference_rank)];
  std::string rank_description;
  if (whole_output && rank != reference_rank && reference_bytes.size() == first_repeat.size()) {
    const BitComparison found = compare_bits(reference_bytes.data(), first_repeat.data(), layout.recv_count, element);
    if (found.differing > 0) {
      rank_description = describe_difference(found.differing, *found.first,
                                             element_bits_hex(reference_bytes.data(), *found.first, element),
                                             element_bits_hex(first_repeat.data(), *found.first, element), 0);
    }
  }
  if (auto first = first_over_ranks(world_->gather_strings(rank_description), "ranks", reference_rank)) {
    result.differing += first->elements;
    result.first.push_back(*first);
  }
  return result;
}

int CollectiveWorkload::finish(RunContext& run, nlohmann::json& report, std::int64_t wrong_total) {
  World& world = run.world;
  const bool leader = world.rank() == 0;
  report_.summary = summary_.summary();
  if (leader) {
    report["summary"] = report::to_json(report_.summary);
    if (options_.bitwise_repeats > 0) {
      report["summary"]["bitdiff_total"] = bitdiff_total_;
      std::printf("# Bitwise differences : %lld %s (-B %d: %d row(s) repeated, compared across repeats%s)\n",
                  static_cast<long long>(bitdiff_total_), bitdiff_total_ == 0 ? "OK" : "FAILED", options_.bitwise_repeats,
                  bitwise_rows_, collective_.same_output_on_every_rank ? " and ranks" : "");
    }
    table_.footer(report_, options_.report_path);
  }
  if (options_.memory_report) report_peak_memory(world);
  if (wrong_total > 0 || bitdiff_total_ > 0) return static_cast<int>(ExitCode::kWrongResults);
  // Rank 0 holds the rows and judges; every rank exits the same way.
  const bool below = world.sum(leader && below_min_busbw(report_.summary, options_.min_busbw_gbps) ? 1 : 0) > 0;
  return below ? static_cast<int>(ExitCode::kRuntimeError) : static_cast<int>(ExitCode::kOk);
}

}  // namespace

std::unique_ptr<Workload> make_collective_workload(const Collective& collective, Options options, BackendMaker make_backend) {
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
  return std::make_unique<CollectiveWorkload>(collective, std::move(options), std::move(make_backend));
}

}  // namespace collbench
