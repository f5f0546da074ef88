// comm_init_perf: how long making and destroying a communicator takes, per way the backend has
// (backends/backend.h CommunicatorMethod) and per communicator size (ranks 0..k-1 of the world),
// as a workload over the one driver. Communicator set-up is a top complaint at scale (slow or hung
// init); nccl-tests' comm_ops_perf times the same. Also the job's start-up: from the earliest
// process start (/proc/<pid>/stat) to the benchmark's first barrier, a figure of its own.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>

#include "backends/registry.h"
#include "core/error.h"
#include "core/printable.h"
#include "harness/backend_choice.h"
#include "harness/driver.h"
#include "harness/program_shell.h"
#include "report/report_json.h"
#include "workloads/comm_init/comm_init_options.h"
#include "workloads/comm_init/comm_init_program.h"
#include "workloads/comm_init/report/comm_init_rows.h"

namespace collbench {
namespace {

double clock_seconds(clockid_t clock) {
  timespec now{};
  ::clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// This process's start and now (after the first barrier), both on the wall clock: the start from
// /proc/self/stat's start time (clock ticks since boot: 10 ms steps at the usual 100 Hz), moved
// onto the wall clock through CLOCK_BOOTTIME, so that ranks on other hosts compare as far as
// their clocks agree (NTP).
struct StartUp {
  double process_start_s;  // wall clock (Unix time)
  double first_barrier_s;
};

StartUp start_up_of_this_process() {
  std::ifstream stat("/proc/self/stat");
  std::string line;
  std::getline(stat, line);
  const double now_wall = clock_seconds(CLOCK_REALTIME);
  const double since_start = seconds_since_process_start(line, clock_seconds(CLOCK_BOOTTIME), ::sysconf(_SC_CLK_TCK));
  return {now_wall - since_start, now_wall};
}

struct CommInitCase {
  std::size_t method;  // index into the backend's communicators
  int size;
};

// One run of comm_init_perf: the backend whose communicators it makes, and the cases.
class CommInitWorkload final : public WorkloadOver<CommInitCase> {
 public:
  CommInitWorkload(RunContext& run, const CommInitOptions& options);

 private:
  std::string header(const nlohmann::json& report) const override;
  CasePlan prepare(std::size_t index) override;
  LoopSettings loop_settings() const override { return loop_settings_from(options_, TimeAggregation::kMean); }
  std::string footer(const nlohmann::json&, std::int64_t, const std::string& report_path) const override {
    return formatted("# rows: %d\n", row_summary().rows()) + report_line(report_path);
  }
  // Every rank: the row of a case from every member's samples (a rank outside the communicator
  // gives none); rank 0's is the one the report keeps.
  nlohmann::json make_row(const CommInitCase& one_case, report::Measurement measured, const LoopResult& timed);

  const CommInitOptions& options_;
  std::unique_ptr<Backend> backend_;
};

CommInitWorkload::CommInitWorkload(RunContext& run, const CommInitOptions& options)
    : WorkloadOver(run.world, options, report::kCommInitRows), options_(options) {
  World& world = run.world;
  backend_ = make_run_backend(world, options_);

  // The job's start-up, before anything else of the benchmark: every rank leaves one barrier.
  world.barrier();
  const StartUp mine = start_up_of_this_process();
  const std::vector<std::string> all = world.gather_strings(formatted("%.17g %.17g", mine.process_start_s, mine.first_barrier_s));
  nlohmann::json per_rank = nlohmann::json::array();
  double earliest_start = 0, latest_barrier = 0;
  for (std::size_t rank = 0; rank < all.size(); ++rank) {
    std::istringstream fields(all[rank]);
    StartUp theirs{};
    fields >> theirs.process_start_s >> theirs.first_barrier_s;
    earliest_start = rank == 0 ? theirs.process_start_s : std::min(earliest_start, theirs.process_start_s);
    latest_barrier = rank == 0 ? theirs.first_barrier_s : std::max(latest_barrier, theirs.first_barrier_s);
    per_rank.push_back(theirs.first_barrier_s - theirs.process_start_s);
  }

  const std::vector<CommunicatorMethod>& methods = backend_->support().communicators;
  for (std::size_t method = 0; method < methods.size(); ++method) {
    for (int size : communicator_sizes(options_.comm_sizes, world.size())) cases_.push_back({method, size});
  }
  report::Context context = backend_context(run, *backend_, options_, comm_init_options_json(options_));
  nlohmann::json& report = report_without_rows_ = report::envelope_json("comm_init", context);
  report["startup"] = {
      {"job_s", latest_barrier - earliest_start},
      {"per_rank_s", per_rank},
      {"from", "the earliest process start over the ranks (/proc/<pid>/stat start time, 10 ms steps at 100 Hz)"},
      {"to", "the last rank leaving the benchmark's first barrier (after MPI_Init or the rendezvous, option agreement "
             "and the backend's own communicator)"},
      {"clock", "wall clock: ranks on different hosts compare as far as their clocks agree"}};
  report["skipped"] = nlohmann::json::array();
}

std::string CommInitWorkload::header(const nlohmann::json& report) const {
  const auto& per_rank = report["startup"]["per_rank_s"];
  return formatted("# comm_init_perf: backend %s, %d rank(s) on %zu host(s)\n", printable(options_.backend).c_str(), world_.size(),
                   report["context"]["hosts"].size()) +
         formatted("# start-up (launch to the benchmark's first barrier): %.3f s for the job; slowest rank %.3f s\n",
                   report["startup"]["job_s"].get<double>(), std::max_element(per_rank.begin(), per_rank.end())->get<double>()) +
         "# each repetition makes a communicator of ranks 0..k-1 and destroys it; time over its ranks and repetitions\n";
}

CasePlan CommInitWorkload::prepare(std::size_t index) {
  const CommInitCase one_case = cases_[index];
  const CommunicatorMethod& method = backend_->support().communicators[one_case.method];
  if (const auto skip = communicator_skip(method, one_case.size, world_.size())) return CasePlan::skip_what(skip->first, skip->second);
  std::vector<int> members(static_cast<std::size_t>(one_case.size));
  std::iota(members.begin(), members.end(), 0);
  if (method.prepare) method.prepare(members);
  PreparedCase prepared;
  prepared.step = std::string(method.name) + " of " + std::to_string(one_case.size) + " rank(s)";
  prepared.operation = std::make_unique<FunctionOperation>(
      TimingSchedule::kBarrierEachIteration,
      [create_and_destroy = method.create_and_destroy, members](int) { create_and_destroy(members); });
  prepared.row = [this, one_case](LoopResult& timed, report::Measurement measured) { return make_row(one_case, std::move(measured), timed); };
  return CasePlan::run(std::move(prepared));
}

nlohmann::json CommInitWorkload::make_row(const CommInitCase& one_case, report::Measurement measured, const LoopResult& timed) {
  std::string mine;  // a member's samples
  if (world_.rank() < one_case.size) {
    for (double sample : timed.mine_us) mine += formatted("%.17g ", sample);
  }
  const std::vector<std::string> every_rank = world_.gather_strings(mine);
  std::vector<double> pooled, rank_means;
  for (int rank = 0; rank < one_case.size; ++rank) {
    std::istringstream fields(every_rank[static_cast<std::size_t>(rank)]);
    std::vector<double> samples;
    for (double sample = 0; fields >> sample;) samples.push_back(sample);
    if (samples.empty()) continue;
    rank_means.push_back(std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size()));
    pooled.insert(pooled.end(), samples.begin(), samples.end());
  }
  if (pooled.empty()) throw Error("internal error: no member of the communicator has samples");
  // The time is over every member's samples pooled, not one combination per iteration (a rank
  // outside the communicator has none): the views are the members' means.
  measured.time_us = summarize_samples(pooled);
  measured.time_aggregation.clear();
  measured.time_over_ranks_us = RankTimeViews{
      std::accumulate(rank_means.begin(), rank_means.end(), 0.0) / static_cast<double>(rank_means.size()),
      *std::max_element(rank_means.begin(), rank_means.end()), *std::min_element(rank_means.begin(), rank_means.end())};
  if (!measured.samples_us.empty()) measured.samples_us = pooled;
  const CommunicatorMethod& method = backend_->support().communicators[one_case.method];
  return report::row_json(report::kCommInitRows,
                          {{"backend", backend_->name()}, {"method", std::string(method.name)}, {"comm_size", one_case.size},
                           {"rate_per_s", 1e6 / measured.time_us.mean}},
                          measured);
}

}  // namespace

int run_comm_init_perf(int argc, char** argv) {
  return run_program("comm_init_perf", argc, argv, [](const std::vector<std::string>& args) {
    // Mutable: the world's checks settle the backend's name before the run starts.
    const auto options = std::make_shared<CommInitOptions>(parse_comm_init_options(args));
    ProgramSpec program = program_spec_of<CommInitWorkload>(options, *options);
    program.help = comm_init_usage;
    program.build_features = describe_backends;
    program.check_for_world = [options](World& world) {
      communicator_sizes(options->comm_sizes, world.size());  // throws UsageError for a size the world lacks
      return settle_backend(world, options->backend);
    };
    return program;
  });
}

}  // namespace collbench
