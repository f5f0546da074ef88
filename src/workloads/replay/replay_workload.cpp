#include "workloads/replay/replay_workload.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/registry.h"
#include "core/error.h"
#include "core/group_world.h"
#include "core/printable.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "core/values.h"
#include "harness/backend_choice.h"
#include "harness/driver.h"
#include "harness/program_shell.h"
#include "report/report_json.h"
#include "workloads/collectives/collective.h"
#include "workloads/collectives/collective_buffers.h"
#include "workloads/replay/replay_options.h"
#include "workloads/replay/replay_plan.h"
#include "workloads/replay/report/replay_rows.h"
#include "workloads/replay/report/trace_readers.h"
#include "workloads/replay/report/trace_scale.h"

namespace collbench::replay {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double mean_of(const std::vector<double>& values) {
  return values.empty() ? 0.0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// "ddp.rank0.kineto.json and 1 more": the trace as messages name it.
std::string trace_name(const std::vector<std::string>& paths) {
  std::string name = paths.empty() ? std::string("(no trace)") : paths.front();
  if (paths.size() > 1) name += " and " + std::to_string(paths.size() - 1) + " more";
  return printable(name);
}

bool is_barrier(const TraceCall& call) { return call.collective == TraceCollective::kBarrier; }
// What -c checks: the collectives, against their closed forms (collective.h), and each receive
// against its sender's inputs (the send is checked where it is received, so its row has no count);
// barriers are replayed unchecked.
bool checked_by_closed_form(TraceCollective collective) {
  return collective != TraceCollective::kSend && collective != TraceCollective::kBarrier;
}

// nccl-tests' bus bandwidth factor of a replayed call at `ranks`: none for a barrier or one rank.
std::optional<double> bus_factor_of(TraceCollective collective, int ranks) {
  if (collective == TraceCollective::kBarrier || ranks < 2) return std::nullopt;
  if (is_point_to_point(collective)) return 1.0;
  const Collective* descriptor = find_collective(to_string(collective));
  return descriptor ? std::optional<double>(descriptor->bus_factor.at(ranks)) : std::nullopt;
}

// A collective call whose rank is not in its group would wait for nobody (the order check steps
// only the group's members); refused before any communicator is made.
std::optional<std::string> call_outside_its_group(const Trace& trace) {
  for (const auto& [rank, calls] : trace.sequences) {
    for (const TraceCall& call : calls) {
      if (is_point_to_point(call.collective)) continue;
      const std::vector<int>& ranks = trace.groups.at(call.group).ranks;
      if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) {
        return "rank " + std::to_string(rank) + " issues " + std::string(to_string(call.collective)) + " on group " +
               printable(trace.groups[call.group].name) + ", which it is not in (" + printable(call.source) + ")";
      }
    }
  }
  return std::nullopt;
}

// replay_perf apart from any run: its options, and the trace, read and checked on every rank by the
// world's checks before anything is made.
struct ReplayProgram {
  explicit ReplayProgram(ReplayOptions parsed) : options(std::move(parsed)), name(trace_name(options.trace_paths)) {}
  std::string check_for_world(World& world);
  void read_and_check(int launched_ranks);
  MemoryNeed memory_need() const;

  ReplayOptions options;
  std::string name;  // the trace, as messages name it
  Trace trace;       // the same on every rank once check_for_world returns; at --scale's ranks
  // --scale: the rows' scale key ("none" unscaled), what the scaling changed, the recorded ranks.
  std::string scaled_as = "none";
  std::vector<std::string> scaling_notes;
  int recorded_ranks = 0;
};

void ReplayProgram::read_and_check(int launched_ranks) {
  trace = read_trace(options.trace_paths, options.format);
  if (options.scale.world_size > launched_ranks) {
    throw UsageError("--scale " + std::to_string(options.scale.world_size) + " asks for more ranks than the " +
                     std::to_string(launched_ranks) + " launched");
  }
  if (scales(trace, options.scale)) {
    // The job as recorded first, so a bad trace is named as the job has it; then the job at scale.
    check_trace(trace, trace.world_size, name);
    scaled_as = scale_key(trace, options.scale);
    scaling_notes = scale_notes(trace, options.scale);
    recorded_ranks = trace.world_size;
    trace = scale_trace(trace, options.scale, name);
  }
  check_trace(trace, launched_ranks, name);
  if (const auto outsider = call_outside_its_group(trace)) throw UsageError(name + ": " + *outsider);
  // The replay waits for each call and exchange: a trace whose ranks both send first in separate
  // exchanges would hang here although the job (whose sends went on at once) did not.
  if (const auto reason = exchanges_wait_forever(trace)) throw UsageError(name + ": " + printable(*reason));
  if (options.gaps == Gaps::kTrace) {
    bool stamped = false;
    for (const auto& [rank, calls] : trace.sequences)
      for (const TraceCall& call : calls) stamped = stamped || call.start_us.has_value();
    if (!stamped) throw UsageError(name + ": --gaps trace needs the calls' timestamps, and this " + trace.format + " trace has none (use --gaps none)");
  }
}

// Every rank reads the files itself; a problem any rank found is every rank's (the first rank's
// line), and ranks that read different traces (files that differ between hosts) are found here,
// before the first call, rather than as a hang.
std::string ReplayProgram::check_for_world(World& world) {
  std::string problem;
  try {
    read_and_check(world.size());
  } catch (const UsageError& e) {
    problem = e.what();
  } catch (const std::exception& e) {
    problem = name + ": " + printable(e.what());
  }
  const std::vector<std::string> problems = world.gather_strings(problem);
  for (std::size_t rank = 0; rank < problems.size(); ++rank) {
    if (problems[rank].empty()) continue;
    throw UsageError(rank == 0 ? problems[rank] : "rank " + std::to_string(rank) + ": " + problems[rank]);
  }
  const std::vector<std::string> fingerprints = world.gather_strings(std::to_string(trace_fingerprint(trace)));
  for (std::size_t rank = 1; rank < fingerprints.size(); ++rank) {
    if (fingerprints[rank] != fingerprints[0]) {
      throw UsageError(name + ": rank " + std::to_string(rank) + " read a different trace from rank 0's (are the files the same on every host?)");
    }
  }
  return settle_backend(world, options.backend);
}

// The largest rank's buffers: one send buffer per dtype and one receive buffer, each for its largest
// call; -c's buffers beside them (about as much again). A GPU backend's are on the device.
MemoryNeed ReplayProgram::memory_need() const {
  std::uint64_t largest = 0;
  for (const auto& [rank, calls] : trace.sequences) {
    std::map<DType, std::uint64_t> send;
    for (const TraceCall& call : calls) send[call.dtype] = std::max(send[call.dtype], call_bytes(call, trace).send);
    std::uint64_t total = largest_receive(calls, trace);
    for (const auto& [dtype, bytes] : send) total += bytes;
    largest = std::max(largest, options.check_iterations > 0 ? 2 * total : total);
  }
  if (options.backend == "nccl") return {};
  return {largest, "the trace's largest calls need", "replay it on more hosts, or with -c 0"};
}

// One call of this rank's sequence, or one exchange of its consecutive sends and receives, made
// ready once: what issues it, and where its time goes.
struct Step {
  const TraceCall* call = nullptr;         // the first
  Backend* backend = nullptr;              // its communicator's; the world's for sends and receives
  const CollectiveEntry* entry = nullptr;  // collectives (a barrier: all_reduce)
  CollectiveCall arguments;                // collectives
  std::vector<Transfer> transfers;         // an exchange: one transfer per send or receive
  std::vector<const TraceCall*> messages;  // an exchange: each transfer's call
  std::size_t communicator = 0;            // collectives
  std::vector<std::size_t> buckets;        // each call's (an exchange's time is shared among its calls)
  double gap_us = 0;                       // --gaps trace: the idle time before it
};

// What one pass took on this rank: each bucket's calls summed, and every call.
struct PassTimes {
  std::vector<double> bucket_us;
  double comm_us = 0;
};

// One run of replay_perf: the communicators, the buffers, this rank's steps and what each pass took.
class ReplayWorkload final : public WorkloadOver<int> {
 public:
  ReplayWorkload(RunContext& run, const ReplayProgram& program);

  void run_pass();          // a warm-up or timed pass over this rank's sequence
  void run_checked_pass();  // -c: the same calls, each collective checked against its closed form
  Backend& world_backend() { return *world_backend_; }

 private:
  std::string header(const nlohmann::json& report) const override;
  CasePlan prepare(std::size_t index) override;
  std::vector<nlohmann::json> closing_rows(RunContext& /*run*/) override { return std::move(bucket_rows_); }
  std::string footer(const nlohmann::json& /*report*/, std::int64_t /*wrong*/, const std::string& report_path) const override {
    return report_line(report_path);
  }

  void make_communicators(World& world);
  std::string why_not(const TraceCall& call) const;
  void make_buffers(const std::vector<TraceCall>& calls);
  void make_steps();
  void issue(Step& step);
  std::int64_t check_exchange(Step& step, bool corrupt);
  CollectiveCase check_case(const Step& step) const;
  CollectiveBuffers& checker(const Step& step);
  nlohmann::json sequence_row(report::Measurement measured, const std::vector<PassTimes>& timed);
  void keep_bucket_rows(const report::Measurement& measured, const std::vector<PassTimes>& timed);
  nlohmann::json report_fields() const;

  const ReplayOptions& options_;
  const ReplayProgram& program_;  // the trace's name and --scale's key and notes
  const std::string& name_;
  Trace trace_;  // the program's, less the calls this backend cannot run
  Communicators communicators_;
  std::vector<SkippedShare> skipped_;
  std::vector<BucketTally> buckets_;
  JobTimes job_;
  double gap_us_per_pass_ = 0;  // --gaps trace: the slowest rank's idle time per pass
  std::vector<std::unique_ptr<GroupWorld>> group_worlds_;  // outlive the backends made over them
  std::unique_ptr<Backend> world_backend_;
  // By communicator: the backend made over it (null where the world's serves), which on a rank
  // outside it is the other ranks' side, kept so that every rank made the same ones; this rank's
  // backend (null outside); its world as this rank sees it.
  std::vector<std::unique_ptr<Backend>> communicator_backends_;
  std::vector<Backend*> backend_of_;
  std::vector<World*> world_of_;
  std::map<DType, std::unique_ptr<Buffer>> inputs_;  // per dtype, for its largest send; filled once
  std::unique_ptr<Buffer> outputs_;                  // for the largest receive
  CollectiveOptions check_options_;
  std::map<std::pair<std::size_t, TraceCollective>, std::unique_ptr<CollectiveBuffers>> checkers_;  // -c, made when first used
  std::vector<Step> steps_;
  std::vector<std::uint64_t> my_calls_;       // per bucket, this rank's
  std::vector<PassTimes> passes_;             // since the case was prepared: warm-up passes, then timed ones
  std::vector<std::int64_t> wrong_by_bucket_;  // over the checks of the current cycle
  std::int64_t wrong_in_check_ = 0;
  bool corrupts_a_receive_ = false;  // --inject-corrupt-output: the highest rank that receives corrupts its first
  std::vector<unsigned char> received_, expected_;  // -c of a receive: what came, what its sender's inputs are
  std::vector<nlohmann::json> bucket_rows_;  // rank 0: every cycle's, added after the last
};

// One pass of the sequence as the measurement loop's operation: issued and waited for call by call
// (each call's own time is kept), so there is nothing left to wait for at its end.
class ReplayPass final : public TimedOperation {
 public:
  explicit ReplayPass(ReplayWorkload& replay) : replay_(replay) {}
  void issue(int /*iteration*/) override { replay_.run_pass(); }
  void issue_check() override { replay_.run_checked_pass(); }
  void start_together(World& world) override { replay_.world_backend().barrier(world); }
  std::string own_barrier() const override { return replay_.world_backend().own_barrier(); }

 private:
  ReplayWorkload& replay_;
};

ReplayWorkload::ReplayWorkload(RunContext& run, const ReplayProgram& program)
    : WorkloadOver(run.world, program.options, report::kReplayRows),
      options_(program.options),
      program_(program),
      name_(program.name),
      trace_(program.trace),
      communicators_(communicators_of(trace_)) {
  World& world = run.world;
  make_communicators(world);
  skipped_ = remove_unsupported(trace_, [this](const TraceCall& call) { return why_not(call); });
  buckets_ = tally_buckets(trace_);
  job_ = job_times(trace_);
  if (program.scaled_as != "none") {
    // The job's own times are of the job as recorded, not at this scale: none are set beside the
    // replay's (the idle times before calls, --gaps trace, are kept: each rank's compute is its role's).
    job_ = {};
    for (BucketTally& bucket : buckets_) bucket.job_call_us = bucket.job_total_us = std::nullopt;
  }
  wrong_by_bucket_.assign(buckets_.size(), 0);
  my_calls_.assign(buckets_.size(), 0);
  check_options_.seed = options_.seed;
  check_options_.inject_corrupt_output = options_.inject_corrupt_output;
  make_steps();
  // --inject-corrupt-output on a receive: the highest rank whose sequence has one (the collectives'
  // own check corrupts on the last rank).
  int last_receiver = -1;
  for (const auto& [rank, calls] : trace_.sequences) {
    for (const TraceCall& call : calls) {
      if (call.collective == TraceCollective::kRecv) last_receiver = std::max(last_receiver, rank);
    }
  }
  corrupts_a_receive_ = options_.inject_corrupt_output && last_receiver == world.rank();
  std::vector<double> gaps{0.0};
  for (const Step& step : steps_) gaps[0] += step.gap_us;
  world.combine(gaps, Combine::kMax);
  gap_us_per_pass_ = gaps[0];
  cases_ = {0};

  report::Context context = backend_context(run, *world_backend_, options_, options_as_json(options_));
  nlohmann::json& report = report_without_rows_ = report::envelope_json("replay", context);
  report["skipped"] = nlohmann::json::array();
  const double all_bytes = static_cast<double>(replayed_bytes(trace_) + [&] {
    std::uint64_t bytes = 0;
    for (const SkippedShare& share : skipped_) bytes += share.bytes;
    return bytes;
  }());
  for (const SkippedShare& share : skipped_) {
    report::SkippedCase skipped{share.what, share.reason};
    skipped.fields = {{"calls", share.calls}, {"bytes", share.bytes},
                      {"bytes_share", all_bytes > 0 ? static_cast<double>(share.bytes) / all_bytes : 0.0}};
    report["skipped"].push_back(report::to_json(skipped));
  }
  report["trace"] = report_fields();
}

// The trace as the report keeps it beside the envelope: its files, format, ranks and groups.
nlohmann::json ReplayWorkload::report_fields() const {
  nlohmann::json groups = nlohmann::json::array();
  for (std::size_t g = 0; g < trace_.groups.size(); ++g) {
    groups.push_back({{"name", trace_.groups[g].name}, {"ranks", trace_.groups[g].ranks},
                      {"communicator", report::json_or_null(communicators_.of_group[g])}});
  }
  std::uint64_t calls = 0;
  for (const BucketTally& bucket : buckets_) calls += bucket.calls;
  return {{"files", options_.trace_paths}, {"format", trace_.format}, {"world_size", trace_.world_size},
          {"groups", groups}, {"communicators", communicators_.ranks.size()}, {"calls_per_pass", calls},
          {"job_comm_us", report::json_or_null(job_.comm_us)}, {"job_span_us", report::json_or_null(job_.span_us)},
          {"scale", program_.scaled_as == "none"
                        ? nlohmann::json(nullptr)
                        : nlohmann::json{{"key", program_.scaled_as}, {"recorded_world_size", program_.recorded_ranks},
                                         {"world_size", trace_.world_size}, {"counts", to_string(options_.scale.counts)},
                                         {"notes", program_.scaling_notes}}}};
}

// The world's backend, then one over each communicator's ranks: every rank makes every one, in the
// trace's order (a split or a rendezvous of the whole world), a rank outside one making the other
// ranks' side.
void ReplayWorkload::make_communicators(World& world) {
  world_backend_ = make_run_backend(world, options_);
  std::vector<int> everyone(static_cast<std::size_t>(world.size()));
  std::iota(everyone.begin(), everyone.end(), 0);
  for (const std::vector<int>& ranks : communicators_.ranks) {
    const bool member = std::find(ranks.begin(), ranks.end(), world.rank()) != ranks.end();
    if (ranks == everyone) {
      communicator_backends_.push_back(nullptr);
      backend_of_.push_back(world_backend_.get());
      world_of_.push_back(&world);
      continue;
    }
    std::vector<RankGroup> groups{{0, ranks}};
    std::vector<int> others;
    for (const int rank : everyone) {
      if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) others.push_back(rank);
    }
    if (!others.empty()) groups.push_back({1, others});
    group_worlds_.push_back(std::make_unique<GroupWorld>(world, groups));
    communicator_backends_.push_back(make_run_backend(*group_worlds_.back(), options_));
    backend_of_.push_back(member ? communicator_backends_.back().get() : nullptr);
    world_of_.push_back(group_worlds_.back().get());
  }
}

// Why this backend cannot run the call ("" if it can): the same answer on every rank, since it
// depends on the call and the backend's kind alone.
std::string ReplayWorkload::why_not(const TraceCall& call) const {
  if (is_point_to_point(call.collective)) {
    const CallBytes bytes = call_bytes(call, trace_);
    return world_backend_->point_to_point_unsupported(static_cast<std::size_t>(std::max(bytes.send, bytes.recv)));
  }
  if (is_barrier(call)) return world_backend_->unsupported_reason({"all_reduce", DType::kFloat32, ReduceOp::kSum, false, 1});
  const std::optional<ReduceOp> op = reduces(call.collective) ? std::optional<ReduceOp>(call.op) : std::nullopt;
  return world_backend_->unsupported_reason({to_string(call.collective), call.dtype, op, false, static_cast<std::size_t>(call.count)});
}

// One send buffer per dtype, written once with the checks' inputs (never zeros), and one receive
// buffer, poisoned: the timed calls move real values, out of place, so the inputs stay as written.
void ReplayWorkload::make_buffers(const std::vector<TraceCall>& calls) {
  std::map<DType, std::uint64_t> send_bytes;
  const std::uint64_t recv_bytes = std::max<std::uint64_t>(largest_receive(calls, trace_), 1);
  for (const TraceCall& call : calls) {
    const DType dtype = is_barrier(call) ? DType::kFloat32 : call.dtype;
    send_bytes[dtype] = std::max(send_bytes[dtype], call_bytes(call, trace_).send);
  }
  for (const auto& [dtype, bytes] : send_bytes) {
    const std::size_t element = dtype_info(dtype).size_bytes;
    const std::size_t allocated = static_cast<std::size_t>(std::max<std::uint64_t>(bytes, element));
    inputs_[dtype] = world_backend_->allocate(allocated);
    inputs_[dtype]->fill_inputs({dtype, ReduceOp::kSum, world_.size(), options_.seed}, world_.rank(), 0, allocated / element);
  }
  outputs_ = world_backend_->allocate(static_cast<std::size_t>(recv_bytes));
  outputs_->fill_bytes(kPoisonByte, 0, static_cast<std::size_t>(recv_bytes));
}

void ReplayWorkload::make_steps() {
  const auto found = trace_.sequences.find(world_.rank());
  if (found == trace_.sequences.end()) return;  // launched beyond the trace's ranks: this rank only meets the others
  const std::vector<TraceCall>& calls = found->second;
  make_buffers(calls);
  for (std::size_t index = 0; index < calls.size(); ++index) {
    const TraceCall& call = calls[index];
    Step step;
    step.call = &call;
    if (options_.gaps == Gaps::kTrace) step.gap_us = gap_before_us(calls, index).value_or(0.0);
    if (is_point_to_point(call.collective)) {
      // The run of sends and receives from here, posted together: each receive into its own part
      // of the receive buffer, so no two land on the same bytes.
      step.backend = world_backend_.get();
      std::size_t received = 0;
      const std::size_t end = exchange_end(calls, index);
      for (; index < end; ++index) {
        const TraceCall& message = calls[index];
        const bool sends = message.collective == TraceCollective::kSend;
        const CallBytes bytes = call_bytes(message, trace_);
        step.transfers.push_back({sends ? Transfer::Direction::kSend : Transfer::Direction::kRecv, message.root,
                                  sends ? inputs_.at(message.dtype).get() : outputs_.get(), sends ? 0 : received,
                                  static_cast<std::size_t>(sends ? bytes.send : bytes.recv)});
        if (!sends) received += static_cast<std::size_t>(bytes.recv);
        step.messages.push_back(&message);
        step.buckets.push_back(bucket_index(buckets_, bucket_of(message, trace_)));
      }
      --index;  // the loop's step moves past the run
    } else {
      step.buckets.push_back(bucket_index(buckets_, bucket_of(call, trace_)));
      step.communicator = *communicators_.of_group[call.group];
      step.backend = backend_of_[step.communicator];
      const DType dtype = is_barrier(call) ? DType::kFloat32 : call.dtype;
      step.entry = step.backend->entry_for(is_barrier(call) ? "all_reduce" : to_string(call.collective));
      CollectiveCall& arguments = step.arguments;
      arguments.send = inputs_.at(dtype)->data();
      arguments.recv = outputs_->data();
      arguments.count = is_barrier(call) ? 1 : static_cast<std::size_t>(call.count);
      arguments.dtype = dtype;
      arguments.op = reduces(call.collective) ? call.op : ReduceOp::kSum;
      // The trace names the root by its global rank; the communicator by its place in the group.
      const std::vector<int>& ranks = trace_.groups[call.group].ranks;
      const auto root = std::find(ranks.begin(), ranks.end(), call.root);
      arguments.root = call.root < 0 || root == ranks.end() ? 0 : static_cast<int>(root - ranks.begin());
    }
    for (const std::size_t bucket : step.buckets) my_calls_[bucket] += 1;
    steps_.push_back(std::move(step));
  }
}

void ReplayWorkload::issue(Step& step) {
  if (!step.transfers.empty()) {
    world_backend_->support().point_to_point.exchange(step.transfers);
  } else {
    step.entry->issue(step.arguments);
  }
  step.backend->synchronize();
}

void ReplayWorkload::run_pass() {
  PassTimes times{std::vector<double>(buckets_.size(), 0.0), 0.0};
  for (Step& step : steps_) {
    if (step.gap_us > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(step.gap_us));
    const Clock::time_point start = Clock::now();
    issue(step);
    const double elapsed_us = microseconds_since(start);
    for (const std::size_t bucket : step.buckets) times.bucket_us[bucket] += elapsed_us / static_cast<double>(step.buckets.size());
    times.comm_us += elapsed_us;
  }
  passes_.push_back(std::move(times));
}

// The collectives' own check (collective_buffers.h) on each call in turn: its inputs written, its
// outputs poisoned, then compared with their closed forms, on the call's communicator.
void ReplayWorkload::run_checked_pass() {
  bool corrupt = corrupts_a_receive_;
  for (Step& step : steps_) {
    if (!step.transfers.empty()) {
      wrong_in_check_ += check_exchange(step, corrupt);
      corrupt = false;
      continue;
    }
    if (!checked_by_closed_form(step.call->collective)) {
      issue(step);
      continue;
    }
    CollectiveBuffers& buffers = checker(step);
    const CollectiveCase one_case = check_case(step);
    buffers.fill_inputs(one_case);
    buffers.issue_one_call();
    step.backend->synchronize();
    const std::int64_t wrong = buffers.count_wrong(one_case);
    wrong_by_bucket_[step.buckets.front()] += wrong;
    wrong_in_check_ += wrong;
  }
}

// -c of one exchange: its receives' regions poisoned, the exchange issued, then each receive compared
// element by element with its sender's inputs (every rank's send buffer of a dtype holds its own
// rank's inputs from index 0, and a send sends from its start); wrong elements count in the
// receive's bucket. `corrupt` (--inject-corrupt-output): the first received element is changed.
std::int64_t ReplayWorkload::check_exchange(Step& step, bool corrupt) {
  for (const Transfer& transfer : step.transfers) {
    if (transfer.direction == Transfer::Direction::kRecv) outputs_->fill_bytes(kPoisonByte, transfer.offset_bytes, transfer.bytes);
  }
  issue(step);
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < step.transfers.size(); ++i) {
    const Transfer& transfer = step.transfers[i];
    if (transfer.direction != Transfer::Direction::kRecv) continue;
    const TraceCall& message = *step.messages[i];
    const std::size_t element = dtype_info(message.dtype).size_bytes;
    const std::size_t count = transfer.bytes / element;
    received_.resize(transfer.bytes);
    expected_.resize(transfer.bytes);
    outputs_->copy_to_host(received_.data(), transfer.offset_bytes, transfer.bytes);
    fill_inputs({message.dtype, ReduceOp::kSum, world_.size(), options_.seed}, transfer.peer, expected_.data(), count);
    if (corrupt && count > 0) {
      received_[0] = static_cast<unsigned char>(~expected_[0]);
      corrupt = false;
    }
    std::int64_t wrong_here = 0;
    for (std::size_t e = 0; e < count; ++e) {
      wrong_here += std::memcmp(received_.data() + e * element, expected_.data() + e * element, element) != 0 ? 1 : 0;
    }
    wrong_by_bucket_[step.buckets[i]] += wrong_here;
    wrong += wrong_here;
  }
  return wrong;
}

CollectiveCase ReplayWorkload::check_case(const Step& step) const {
  const TraceCall& call = *step.call;
  const CallElements elements = call_elements(call, trace_);
  BufferLayout layout;
  layout.call_count = static_cast<std::size_t>(call.count);
  layout.send_count = static_cast<std::size_t>(elements.send);
  layout.recv_count = static_cast<std::size_t>(elements.recv);
  const std::uint64_t bytes = payload_bytes(call, trace_);
  return {call.dtype, step.arguments.op, has_root(call.collective) ? step.arguments.root : -1, bytes,
          RowSize{std::max(layout.send_count, layout.recv_count), layout}, Placement::kOutOfPlace, true, nullptr};
}

// The check's buffers of one communicator and collective, sized for this rank's largest such call.
CollectiveBuffers& ReplayWorkload::checker(const Step& step) {
  std::unique_ptr<CollectiveBuffers>& buffers = checkers_[{step.communicator, step.call->collective}];
  if (buffers) return *buffers;
  BufferBytes largest;
  for (const Step& other : steps_) {
    if (other.call->collective != step.call->collective || other.communicator != step.communicator || !other.entry) continue;
    const CallBytes bytes = call_bytes(*other.call, trace_);
    largest.send = std::max(largest.send, bytes.send);
    largest.shared = std::max({largest.shared, bytes.send, bytes.recv});
  }
  const Collective& collective = *find_collective(to_string(step.call->collective));
  buffers = std::make_unique<CollectiveBuffers>(collective, *step.backend, step.entry, *world_of_[step.communicator],
                                                check_options_, largest);
  return *buffers;
}

std::string ReplayWorkload::header(const nlohmann::json& report) const {
  std::uint64_t calls = 0, bytes = 0;
  for (const BucketTally& bucket : buckets_) {
    calls += bucket.calls;
    bytes += bucket.bytes;
  }
  const std::string scaled = program_.scaled_as == "none" ? "" : " (--scale: recorded at " + std::to_string(program_.recorded_ranks) + ")";
  std::string text = formatted("# replay_perf: %s (%s), %d rank(s) in the trace%s, %d launched; backend %s\n", name_.c_str(),
                               printable(trace_.format).c_str(), trace_.world_size, scaled.c_str(), report["context"]["world_size"].get<int>(),
                               printable(world_backend_->name()).c_str());
  text += formatted("# %zu group(s) on %zu communicator(s) besides the world's; %llu call(s) and %s per pass; gaps: %s\n",
                    trace_.groups.size(), communicators_.ranks.size(), static_cast<unsigned long long>(calls),
                    format_size(bytes).c_str(), to_string(options_.gaps).c_str());
  for (const std::string& note : program_.scaling_notes) text += "# " + note + "\n";
  for (const nlohmann::json& skipped : report["skipped"]) {
    text += formatted("# skipped %s: %s (%llu call(s), %.1f %% of the bytes)\n", printable(skipped["what"].get<std::string>()).c_str(),
                      printable(skipped["reason"].get<std::string>()).c_str(), skipped["calls"].get<unsigned long long>(),
                      100.0 * skipped["bytes_share"].get<double>());
  }
  return text + "# rows: the whole sequence per cycle as it completes; then each (collective, size bucket, dtype, group size)\n";
}

CasePlan ReplayWorkload::prepare(std::size_t /*index*/) {
  passes_.clear();
  std::fill(wrong_by_bucket_.begin(), wrong_by_bucket_.end(), 0);
  PreparedCase prepared;
  prepared.step = "replay of " + name_;
  prepared.operation = std::make_unique<ReplayPass>(*this);
  RowCheck check;
  check.prepare = [this](int) { wrong_in_check_ = 0; };
  check.count_wrong = [this](int) { return wrong_in_check_; };
  prepared.check = std::move(check);
  prepared.row = [this](LoopResult& /*timed*/, report::Measurement measured) {
    const auto iterations = static_cast<std::ptrdiff_t>(std::min<std::size_t>(passes_.size(), static_cast<std::size_t>(measured.iterations)));
    const std::vector<PassTimes> timed(passes_.end() - iterations, passes_.end());
    keep_bucket_rows(measured, timed);
    return sequence_row(std::move(measured), timed);
  };
  return CasePlan::run(std::move(prepared));
}

// The whole sequence's row: its time per pass is the loop's (gaps included with --gaps trace), its
// total_us the calls' own time per pass; the check's counts are in the bucket rows.
nlohmann::json ReplayWorkload::sequence_row(report::Measurement measured, const std::vector<PassTimes>& timed) {
  std::vector<double> comm{0.0};
  for (const PassTimes& pass : timed) comm[0] += pass.comm_us;
  comm[0] /= static_cast<double>(std::max<std::size_t>(timed.size(), 1));
  world_.combine(comm, Combine::kMax);
  std::uint64_t calls = 0, bytes = 0;
  for (const BucketTally& bucket : buckets_) {
    calls += bucket.calls;
    bytes += bucket.bytes;
  }
  measured.timing += "; an iteration is one pass over each rank's whole sequence, each call waited for before the next";
  if (options_.gaps == Gaps::kTrace) measured.timing += ", after the idle time the trace recorded before it";
  measured.check_iterations = 0;
  measured.wrong.reset();
  const double mean_us = measured.time_us.mean;
  nlohmann::json fields = {
      {"backend", world_backend_->name()},
      {"collective", "sequence"},
      {"dtype", "all"},
      {"group_size", trace_.world_size},
      {"gaps", to_string(options_.gaps)},
      {"scale", program_.scaled_as},
      {"bytes", bytes},
      {"calls", calls},
      {"total_us", comm[0]},
      {"algbw_gbps", mean_us > 0 ? static_cast<double>(bytes) / (mean_us * 1e3) : 0.0},
      {"busbw_gbps", nullptr},
      {"job_comm_us", report::json_or_null(job_.comm_us)},
      {"job_span_us", report::json_or_null(job_.span_us)},
  };
  if (options_.gaps == Gaps::kTrace) fields["gap_us"] = gap_us_per_pass_;
  return report::row_json(row_kind(), std::move(fields), measured);
}

// Every rank: each bucket's time per call in each timed pass (this rank's calls' mean), combined
// over the ranks that issue it (the slowest by default, the mean and fastest beside it); rank 0
// keeps the rows until the driver asks for them after the last cycle.
void ReplayWorkload::keep_bucket_rows(const report::Measurement& measured, const std::vector<PassTimes>& timed) {
  const std::size_t passes = timed.size(), buckets = buckets_.size();
  std::vector<double> per_call(buckets * passes, 0.0), totals(buckets * passes, 0.0);
  std::vector<double> fastest(buckets * passes, std::numeric_limits<double>::infinity());
  std::vector<double> issuers(buckets, 0.0), wrong(buckets, 0.0);
  for (std::size_t b = 0; b < buckets; ++b) {
    wrong[b] = static_cast<double>(wrong_by_bucket_[b]);
    if (my_calls_[b] == 0) continue;
    issuers[b] = 1;
    for (std::size_t p = 0; p < passes; ++p) {
      totals[b * passes + p] = timed[p].bucket_us[b];
      per_call[b * passes + p] = fastest[b * passes + p] = timed[p].bucket_us[b] / static_cast<double>(my_calls_[b]);
    }
  }
  std::vector<double> slowest = per_call, summed = per_call;
  world_.combine(slowest, Combine::kMax);
  world_.combine(summed, Combine::kSum);
  world_.combine(fastest, Combine::kMin);
  world_.combine(totals, Combine::kMax);
  world_.combine(issuers, Combine::kSum);
  world_.combine(wrong, Combine::kSum);
  if (world_.rank() != 0 || passes == 0) return;
  for (std::size_t b = 0; b < buckets; ++b) {
    const BucketTally& bucket = buckets_[b];
    const auto first = static_cast<std::ptrdiff_t>(b * passes), last = first + static_cast<std::ptrdiff_t>(passes);
    std::vector<double> samples(slowest.begin() + first, slowest.begin() + last);
    std::vector<double> means(summed.begin() + first, summed.begin() + last);
    for (double& mean : means) mean /= std::max(issuers[b], 1.0);
    report::Measurement row = measured;
    row.time_aggregation = std::string(to_string(TimeAggregation::kMax));
    row.time_us = summarize_samples(samples);
    row.time_over_ranks_us = RankTimeViews{mean_of(means), mean_of(samples),
                                           mean_of(std::vector<double>(fastest.begin() + first, fastest.begin() + last))};
    row.timing = "per call: the host clock around each call and its completion, inside the timed passes; per pass the "
                 "mean over this bucket's calls on each rank, the slowest rank's (max over ranks)";
    row.samples_us = options_.keep_samples ? samples : std::vector<double>{};
    const bool checked = measured.check_iterations > 0 && checked_by_closed_form(bucket.key.collective);
    row.check_iterations = checked ? measured.check_iterations : 0;
    row.wrong = checked ? std::optional<std::int64_t>(static_cast<std::int64_t>(wrong[b])) : std::nullopt;
    const double call_bytes_mean = bucket.calls > 0 ? static_cast<double>(bucket.bytes) / static_cast<double>(bucket.calls) : 0.0;
    const double algbw_gbps = row.time_us.mean > 0 ? call_bytes_mean / (row.time_us.mean * 1e3) : 0.0;
    // Figures that may not be defined, as JSON (null where not): the bus bandwidth without a factor
    // (a barrier, one rank), the ratio to the job's own time where the trace has none.
    const std::optional<double> factor = bus_factor_of(bucket.key.collective, bucket.key.group_size);
    nlohmann::json factor_json = nullptr, busbw = nullptr, ratio = nullptr;
    if (factor) {
      factor_json = *factor;
      busbw = algbw_gbps * *factor;
    }
    if (bucket.job_call_us && *bucket.job_call_us > 0) ratio = row.time_us.mean / *bucket.job_call_us;
    nlohmann::json fields = {
        {"backend", world_backend_->name()},
        {"collective", std::string(to_string(bucket.key.collective))},
        {"dtype", std::string(to_string(bucket.key.dtype))},
        {"group_size", bucket.key.group_size},
        {"gaps", to_string(options_.gaps)},
        {"scale", program_.scaled_as},
        {"bytes", bucket.key.bucket_bytes},
        {"calls", bucket.calls},
        {"bytes_total", bucket.bytes},
        {"call_bytes_mean", call_bytes_mean},
        {"total_us", mean_of(std::vector<double>(totals.begin() + first, totals.begin() + last))},
        {"algbw_gbps", algbw_gbps},
        {"bus_bandwidth_factor", factor_json},
        {"busbw_gbps", busbw},
        {"job_call_us", report::json_or_null(bucket.job_call_us)},
        {"job_total_us", report::json_or_null(bucket.job_total_us)},
        {"replay_over_job", ratio},
    };
    bucket_rows_.push_back(report::row_json(row_kind(), std::move(fields), row));
  }
}

}  // namespace

int run_replay_perf(int argc, char** argv) {
  return run_program("replay_perf", argc, argv, [](const std::vector<std::string>& args) {
    // Mutable: the world's checks read the trace and settle the backend's name before the run starts.
    const auto program = std::make_shared<ReplayProgram>(parse_options(args));
    ProgramSpec spec = program_spec_of<ReplayWorkload>(program, program->options);
    spec.help = usage_text;
    spec.build_features = describe_backends;
    spec.check_for_world = [program](World& world) { return program->check_for_world(world); };
    spec.memory_need = [program](int /*world_size*/) { return program->memory_need(); };
    return spec;
  });
}

}  // namespace collbench::replay
