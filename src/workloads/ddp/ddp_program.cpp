// ddp_step_perf: the DDP step (ddp/ddp_step.h) in the harness's program shell, one row per
// (bucket_mb, overlap, grad_dtype, accumulate), timed by the one measurement loop.
#include "workloads/ddp/ddp_program.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "backends/registry.h"
#include "engines/host_info.h"
#include "engines/openblas_info.h"
#include "core/error.h"
#include "core/process_threads.h"
#include "core/printable.h"
#include "workloads/ddp/compute_profile.h"
#include "workloads/ddp/buckets.h"
#include "workloads/ddp/communication_thread.h"
#include "workloads/ddp/core_split.h"
#include "workloads/ddp/ddp_options.h"
#include "workloads/ddp/ddp_step.h"
#include "workloads/ddp/exposure.h"
#include "workloads/ddp/gradients.h"
#include "workloads/ddp/layer_gemm.h"
#include "workloads/ddp/model.h"
#include "workloads/ddp/thread_placement.h"
#include "harness/backend_choice.h"
#include "core/timed_operation.h"
#include "harness/measurement_loop.h"
#include "harness/driver.h"
#include "harness/program_shell.h"
#include "report/report_json.h"

namespace collbench::ddp {
namespace {

constexpr const char* kProgram = "ddp_step_perf";

// This rank's figures of one row, as they travel to rank 0.
nlohmann::json rank_figures_json(const report::DdpStepRank& rank) {
  return {{"rank", rank.rank}, {"batch", rank.batch}, {"step_min", rank.step_us.min}, {"step_p10", rank.step_us.p10}, {"step_p50", rank.step_us.p50},
          {"step_mean", rank.step_us.mean}, {"step_p95", rank.step_us.p95}, {"step_p99", rank.step_us.p99},
          {"step_max", rank.step_us.max}, {"step_stdev", rank.step_us.stdev}, {"forward_us", rank.forward_us},
          {"backward_compute_us", rank.backward_compute_us}, {"comm_us", rank.comm_us},
          {"compute_alone_us", rank.compute_alone_us}, {"comm_alone_us", rank.comm_alone_us}, {"exposed_us", rank.exposed_us},
          {"exposed_inside_step_us", rank.exposed_inside_step_us}, {"elementwise_us", rank.elementwise_us},
          {"threads", report::ddp_threads_json(rank.threads)},
          {"gradient_copy_us", rank.gradient_copy_us}, {"memory_gbps", rank.memory_gbps},
          {"wrong", rank.wrong ? nlohmann::json(*rank.wrong) : nlohmann::json(nullptr)},
          {"max_error", rank.max_error ? nlohmann::json(*rank.max_error) : nlohmann::json(nullptr)}};
}

report::DdpStepRank rank_figures_from_json(const nlohmann::json& j) {
  report::DdpStepRank rank;
  rank.rank = j.at("rank").get<int>();
  rank.batch = j.at("batch").get<int>();
  rank.step_us = {j.at("step_min").get<double>(), j.at("step_p10").get<double>(), j.at("step_p50").get<double>(), j.at("step_mean").get<double>(),
                  j.at("step_p95").get<double>(), j.at("step_p99").get<double>(), j.at("step_max").get<double>(),
                  j.at("step_stdev").get<double>()};
  rank.forward_us = j.at("forward_us").get<double>();
  rank.backward_compute_us = j.at("backward_compute_us").get<double>();
  rank.comm_us = j.at("comm_us").get<double>();
  rank.compute_alone_us = j.at("compute_alone_us").get<double>();
  rank.comm_alone_us = j.at("comm_alone_us").get<double>();
  rank.exposed_us = j.at("exposed_us").get<double>();
  rank.exposed_inside_step_us = j.at("exposed_inside_step_us").get<double>();
  rank.threads = report::ddp_threads_from_json(j.at("threads"));
  rank.elementwise_us = j.at("elementwise_us").get<double>();
  rank.gradient_copy_us = j.at("gradient_copy_us").get<double>();
  rank.memory_gbps = j.at("memory_gbps").get<double>();
  if (!j.at("wrong").is_null()) rank.wrong = j.at("wrong").get<std::int64_t>();
  if (!j.at("max_error").is_null()) rank.max_error = j.at("max_error").get<double>();
  return rank;
}

struct DdpCase {
  double bucket_mb;
  Overlap overlap;
  DType grad_dtype;
  int accumulate;
};

// One step's planned compute spin may not exceed this without -T: a longer one is a typo in a rate
// or scale (--memory-gbps 1e-300), not a step anyone can wait for.
constexpr double kLongestPlannedStepSeconds = 24 * 3600;

std::string shown_number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", value);
  return text;
}

// ddp_step_perf apart from any run: its options, the model and compute profile they load, and the
// checks every rank makes before any starts.
struct DdpProgram {
  explicit DdpProgram(DdpOptions parsed) : options(std::move(parsed)) {
    if (options.show_help || options.show_version) return;
    model = *options.loaded_model;
    profile = options.loaded_profile;
  }

  // The time a step spins for its compute (the elementwise bytes at --memory-gbps, or the profile's
  // times), times --compute-scale and the micro-steps: a rate or scale that makes it overflow,
  // exceed -T or a day is refused on every rank before any starts, as a GEMM's FLOPs are.
  void check_planned_spin(const ComputePlan& plan) const {
    double seconds = 0;
    std::string from;
    if (profile) {
      for (std::size_t i = 0; i < profile->forward_us.size(); ++i) seconds += profile->forward_us[i] + profile->backward_us[i];
      seconds *= options.compute_scale * 1e-6;
      from = "the profile's times at --compute-scale " + shown_number(options.compute_scale);
    } else if (options.memory_gbps > 0) {
      seconds = (plan.forward_bytes() + plan.backward_bytes()) / (options.memory_gbps * 1e9);
      from = shown_number(plan.forward_bytes() + plan.backward_bytes()) + " elementwise bytes at --memory-gbps " +
             shown_number(options.memory_gbps) + " and --compute-scale " + shown_number(options.compute_scale);
    }
    seconds *= *std::max_element(options.accumulate.begin(), options.accumulate.end());
    const bool timed = options.timeout_seconds > 0;
    const double limit = timed ? options.timeout_seconds : kLongestPlannedStepSeconds;
    if (std::isfinite(seconds) && seconds <= limit) return;
    throw UsageError("one step would spin " + (std::isfinite(seconds) ? shown_number(seconds) + " s" : std::string("beyond any clock")) +
                     " for its compute (" + from + "), beyond " + (timed ? "-T " + shown_number(limit) + " s" : "a day") +
                     ": raise --memory-gbps or lower --compute-scale");
  }

  std::string check_for_world(World& world) {
    const std::vector<int> batches = rank_batches(options, world.size());  // throws UsageError for weights that do not fit
    // Every rank refuses a layer whose work cannot be planned, before any rank starts.
    const ComputePlan plan = plan_compute(model, *std::max_element(batches.begin(), batches.end()), options.compute_scale);
    check_planned_spin(plan);
    if (options.comm_cores > 0) {
      // Every rank refuses alike: against the fewest cores any rank may run on.
      std::vector<double> cores{static_cast<double>(thread_affinity(0).size())};
      world.combine(cores, Combine::kMin);
      std::vector<int> fewest(static_cast<std::size_t>(cores[0]));
      std::iota(fewest.begin(), fewest.end(), 0);  // only their number matters here
      split_cores(fewest, options.comm_cores);    // throws UsageError
    }
    if (options.backend.empty()) options.backend = world.control_plane() == ControlPlane::kMpi ? "mpi" : "gloo";
    return settle_backend(world, options.backend);
  }
  MemoryNeed memory_need() const {
    const bool sixteen_bit = std::any_of(options.grad_dtypes.begin(), options.grad_dtypes.end(),
                                         [](DType dtype) { return dtype != DType::kFloat32; });
    // .grad and the buckets in float32, the 16-bit copy, the GEMM scratch, the bandwidth probe.
    const std::uint64_t bytes = model.parameter_count() * (4 + 4 + (sixteen_bit ? 2 : 0)) +
                                3ULL * kMaxOperandElements * sizeof(float) + (64ULL << 20);
    return {bytes, "the model's gradients need", "use a smaller model or fewer ranks per host"};
  }
  DdpOptions options;  // the backend settled by check_for_world
  Model model;
  std::optional<ComputeProfile> profile;
};

// One run of ddp_step_perf: the backend, the communication thread and the current case's step.
class DdpStepRun final : public WorkloadOver<DdpCase> {
 public:
  DdpStepRun(RunContext& run, const DdpProgram& program);

 private:
  void print_header(const nlohmann::json& report) override;
  CasePlan prepare(std::size_t index) override;
  int finish(RunContext& run, nlohmann::json&, std::int64_t wrong_total) override {
    if (run.world.rank() != 0) return 0;
    std::printf("# rows: %d, wrong: %lld (averaged gradients outside the dtype's bound)\n", rate_summary().rows(),
                static_cast<long long>(wrong_total));
    if (run.report.is_open()) std::printf("# report: %s\n", run.report.path().c_str());
    return 0;
  }
  nlohmann::json make_row(const DdpCase& one_case, const StepConfig& config, report::Measurement measured, const LoopResult& timed);
  ComputeAlone measure_compute_alone(StepConfig config);

  // Released in reverse: the step, then the communication thread, then the backend.
  const DdpOptions& options_;
  const Model& model_;
  const std::optional<ComputeProfile>& profile_;
  double memory_gbps_ = 0;          // this rank's: stated, or measured at start
  std::string memory_bandwidth_;    // where it comes from
  std::vector<int> batches_;
  std::unique_ptr<Backend> backend_;
  const CollectiveEntry* all_reduce_ = nullptr;
  compute::OpenBlasInfo blas_;
  LayerGemm gemm_;
  std::optional<CommunicationThread> comm_thread_;
  std::string comm_cores_text_;     // how --comm-cores bound the threads, for the header
  // The current case: its buckets, its step, every step it issued (warm-up, timed, checked) and
  // this rank's check figures.
  BucketPlan plan_;
  std::unique_ptr<DdpStep> step_;
  std::int64_t step_index_ = 0;
  std::vector<StepTimes> issued_;
  CheckOutcome checked_;
  // This rank's compute alone per (bucket_mb, grad_dtype, accumulate), from the overlap-off rows
  // run so far; the current row's, and where it came from.
  std::map<std::tuple<double, DType, int>, ComputeAlone> compute_alone_of_setting_;
  ComputeAlone compute_alone_;
  std::string compute_alone_source_;
};

std::string comm_thread_text(const std::string& backend, Overlap overlap) {
  if (overlap == Overlap::kOff) return "none: buckets all-reduced one after another after the backward pass";
  if (backend == "mpi") {
    return "one communication thread, MPI_THREAD_SERIALIZED, on the backend's own duplicated communicator";
  }
  return "one communication thread calling the " + backend + " backend's blocking all-reduce";
}

CasePlan DdpStepRun::prepare(std::size_t index) {
  const DdpCase& one_case = cases_[index];
  const std::string reason = backend_->unsupported_reason({"all_reduce", one_case.grad_dtype, ReduceOp::kSum, true, 1});
  if (!reason.empty()) return CasePlan::skip_what(std::string(to_string(one_case.grad_dtype)), reason);
  World& world = world_;
  const StepConfig config{one_case.overlap, one_case.grad_dtype, one_case.accumulate,
                          batches_[static_cast<std::size_t>(world.rank())], options_.compute_scale, world.rank(), world.size(),
                          memory_gbps_, profile_ ? &*profile_ : nullptr};
  step_.reset();  // holds the plan it was made with
  plan_ = assign_buckets(model_.tensors, mib_to_bytes(first_bucket_cap_mb(options_, one_case.bucket_mb)), mib_to_bytes(one_case.bucket_mb));
  compute_alone_ = {};
  if (one_case.overlap == Overlap::kOff) {
    compute_alone_source_ = "this row: overlap off, nothing communicates beside the compute";
  } else if (const auto found = compute_alone_of_setting_.find({one_case.bucket_mb, one_case.grad_dtype, one_case.accumulate});
             found != compute_alone_of_setting_.end()) {
    compute_alone_ = found->second;
    compute_alone_source_ = "the overlap-off row of this run at the same bucket_mb, grad_dtype and accumulate";
  } else {
    compute_alone_ = measure_compute_alone(config);
    compute_alone_source_ = "an untimed overlap-off pass inside this row (" + std::to_string(options_.warmup_iterations) + " warm-up + " +
                            std::to_string(std::max(options_.iterations, 1)) + " steps, their forward + backward): no overlap-off row was asked for";
  }
  step_ = std::make_unique<DdpStep>(model_, plan_, *backend_, *all_reduce_, gemm_, config, comm_thread_ ? &*comm_thread_ : nullptr);
  step_index_ = 0;
  issued_.clear();
  checked_ = {};
  PreparedCase prepared;
  prepared.step = "ddp_step bucket " + std::to_string(one_case.bucket_mb) + " MiB, overlap " + to_string(one_case.overlap) +
                  ", " + std::string(to_string(one_case.grad_dtype)) + ", accumulate " + std::to_string(one_case.accumulate);
  // Every issued step records its own breakdown: warm-up steps first, then the timed ones.
  auto operation = std::make_unique<FunctionOperation>(TimingSchedule::kBarrierEachIteration,
                                                       [this](int) { issued_.push_back(step_->run(step_index_++)); });
  // Steps start together through the backend's barrier (Gloo's own, the control plane's for the
  // others: see TimedOperation::start_together), as torch's DDP loop would with dist.barrier().
  operation->with_barrier([this](World& world) { backend_->barrier(world); }, backend_->own_barrier());
  prepared.operation = std::move(operation);
  if (options_.check_iterations > 0) {
    // The loop runs one more step per check; every averaged gradient of it is compared.
    RowCheck check;
    check.prepare = [](int) {};
    check.count_wrong = [this](int check_index) -> std::int64_t {
      const bool corrupts = options_.inject_corrupt_output && world_.rank() == world_.size() - 1 && check_index == 0;
      const CheckOutcome outcome = step_->check(step_index_ - 1, corrupts);
      checked_.wrong += outcome.wrong;
      checked_.max_error = std::max(checked_.max_error, outcome.max_error);
      return outcome.wrong;
    };
    prepared.check = std::move(check);
  }
  prepared.row = [this, one_case, config](LoopResult& timed, report::Measurement measured) {
    return make_row(one_case, config, std::move(measured), timed);
  };
  return CasePlan::run(std::move(prepared));
}

// The overlapped row's compute with no communication beside it, when no overlap-off row gives it:
// the same step with overlap off, as many steps as the row. Not the measurement loop's: these
// steps are no row and time nothing as a whole; the step's own clocks time its compute.
ComputeAlone DdpStepRun::measure_compute_alone(StepConfig config) {
  config.overlap = Overlap::kOff;
  DdpStep step(model_, plan_, *backend_, *all_reduce_, gemm_, config, nullptr);
  const int warmup = options_.warmup_iterations, measured = std::max(options_.iterations, 1);
  ComputeAlone alone;
  for (int index = 0; index < warmup + measured; ++index) {
    backend_->barrier(world_);  // steps start together, as the loop's do
    const StepTimes times = step.run(index);
    if (index < warmup) continue;
    alone.compute_us += (times.forward_us + times.backward_us) / measured;
    alone.comm_us += times.comm_us / measured;
  }
  return alone;
}

nlohmann::json DdpStepRun::make_row(const DdpCase& one_case, const StepConfig& config, report::Measurement measured,
                                        const LoopResult& timed) {
  World& world = world_;
  const auto first_timed = static_cast<std::ptrdiff_t>(options_.warmup_iterations);
  if (issued_.size() < static_cast<std::size_t>(first_timed) + timed.mine_us.size()) {
    throw Error("ddp_step_perf: the loop timed steps it did not issue");
  }
  const std::vector<StepTimes> timed_steps(issued_.begin() + first_timed,
                                           issued_.begin() + first_timed + static_cast<std::ptrdiff_t>(timed.mine_us.size()));
  report::DdpStepRank mine;
  mine.rank = world.rank();
  mine.batch = config.batch;
  mine.step_us = timed.mine;
  // Means over the timed steps (none: zeros). Exposed communication against the loop's own sample
  // of the step, so that step = compute + exposed holds for the figures the row reports.
  for (std::size_t i = 0; i < timed_steps.size(); ++i) {
    const StepTimes& times = timed_steps[i];
    mine.forward_us += times.forward_us;
    mine.backward_compute_us += times.backward_us;
    mine.comm_us += times.comm_us;
    mine.elementwise_us += times.elementwise_us;
    mine.gradient_copy_us += times.gradient_copy_us;
    mine.exposed_inside_step_us += std::max(0.0, timed.mine_us[i] - times.forward_us - times.backward_us);
  }
  const double steps = static_cast<double>(std::max<std::size_t>(timed_steps.size(), 1));
  for (double* figure : {&mine.forward_us, &mine.backward_compute_us, &mine.comm_us, &mine.exposed_inside_step_us,
                         &mine.elementwise_us, &mine.gradient_copy_us}) {
    *figure /= steps;
  }
  if (config.overlap == Overlap::kOff) {
    compute_alone_ = {mine.forward_us + mine.backward_compute_us, mine.comm_us};
    compute_alone_of_setting_[{one_case.bucket_mb, one_case.grad_dtype, one_case.accumulate}] = compute_alone_;
  }
  mine.compute_alone_us = compute_alone_.compute_us;
  mine.comm_alone_us = compute_alone_.comm_us;
  mine.exposed_us = exposure_against_compute_alone(mine.step_us.mean, mine.forward_us + mine.backward_compute_us, compute_alone_).exposed_us;
  mine.threads = census_threads(step_->issuing_thread(), step_->issuing_cpus());
  mine.memory_gbps = memory_gbps_;
  if (options_.check_iterations > 0) {
    mine.wrong = checked_.wrong;
    mine.max_error = checked_.max_error;
  }
  const std::vector<std::string> gathered = world.gather_strings(rank_figures_json(mine).dump());

  report::DdpStepRow row;
  static_cast<report::Measurement&>(row) = std::move(measured);  // wrong: the ranks' checks, summed by the loop
  if (world.rank() != 0) return nlohmann::json::object();
  for (const auto& text : gathered) row.per_rank.push_back(rank_figures_from_json(nlohmann::json::parse(text)));
  const auto ranks = static_cast<double>(row.per_rank.size());
  for (const auto& rank : row.per_rank) {
    row.forward_us += rank.forward_us / ranks;
    row.backward_compute_us += rank.backward_compute_us / ranks;
    row.comm_us += rank.comm_us / ranks;
    row.compute_alone_us += rank.compute_alone_us / ranks;
    row.comm_alone_us += rank.comm_alone_us / ranks;
    row.exposed_inside_step_us += rank.exposed_inside_step_us / ranks;
    row.elementwise_us += rank.elementwise_us / ranks;
    row.gradient_copy_us += rank.gradient_copy_us / ranks;
    row.memory_gbps += rank.memory_gbps / ranks;
    row.global_batch += rank.batch;
    if (rank.max_error) row.max_error = std::max(row.max_error.value_or(0.0), *rank.max_error);
  }
  row.compute_us = row.forward_us + row.backward_compute_us;
  if (row.comm_us > 0) row.hidden_inside_step_fraction = std::clamp(1.0 - row.exposed_inside_step_us / row.comm_us, 0.0, 1.0);
  // The job's step (the slowest rank's, step by step) against the ranks' mean compute alone, so
  // that the row's exposed_us = step_us - compute_alone_us as its table shows them.
  const Exposure exposure = exposure_against_compute_alone(row.time_us.mean, row.compute_us, {row.compute_alone_us, row.comm_alone_us});
  row.exposed_us = exposure.exposed_us;
  row.compute_slowdown = exposure.compute_slowdown;
  row.hidden_fraction = exposure.hidden_fraction;
  row.compute_alone = compute_alone_source_;
  row.comm_cores = options_.comm_cores;
  if (row.compute_us > 0) row.comm_compute_ratio = row.comm_us / row.compute_us;
  row.model = model_.name;
  row.backend = backend_->name();
  row.device = "cpu";
  row.threads = blas_.threads;
  row.scaling = options_.global_batch > 0 ? "strong" : "weak";
  row.batch = options_.global_batch > 0 ? options_.global_batch : options_.batch;
  row.bucket_mb = one_case.bucket_mb;
  row.first_bucket_mb = first_bucket_cap_mb(options_, one_case.bucket_mb);
  row.overlap = to_string(config.overlap);
  row.comm_thread = comm_thread_text(backend_->name(), config.overlap);
  row.grad_dtype = std::string(to_string(config.grad_dtype));
  row.accumulate = config.accumulate;
  row.compute_scale = config.compute_scale;
  row.buckets = step_->buckets();
  row.allreduce_calls = step_->buckets();
  row.allreduce_bytes = step_->allreduce_bytes_per_step();
  row.samples_per_s = static_cast<double>(row.global_batch) * config.accumulate / (row.time_us.mean * 1e-6);
  row.forward_gemm_flops = step_->forward_gemm_flops();
  row.backward_gemm_flops = step_->backward_gemm_flops();
  row.compute = profile_ ? "profile" : "gemm shapes";
  row.compute_profile = options_.compute_profile;
  row.elementwise_bytes = step_->elementwise_bytes();
  row.memory_bandwidth = memory_bandwidth_;
  row.gradient_copy_bytes = step_->gradient_copy_bytes_per_step();
  row.error_bound = gradient_error_bound(config.grad_dtype, world.size(), config.accumulate);
  return report::to_json(row);
}

DdpStepRun::DdpStepRun(RunContext& run, const DdpProgram& program)
    : WorkloadOver(run.world, program.options, report::RowKind::kDdpStep),
      options_(program.options),
      model_(program.model),
      profile_(program.profile) {
  World& world = run.world;
  batches_ = rank_batches(options_, world.size());
  const compute::HostInfo host = compute::probe_host();
  // Cores kept for communication are not the BLAS threads' to take.
  const int threads = options_.threads > 0 ? options_.threads : std::max(1, host.affinity_cores - options_.comm_cores);
  blas_ = compute::configure_openblas(threads, host.vector_level);

  backend_ = make_run_backend(world, options_);
  all_reduce_ = backend_->entry_for("all_reduce");
  if (!all_reduce_) throw Error("the " + backend_->name() + " backend has no all_reduce");
  if (options_.any_overlap()) comm_thread_.emplace();
  std::string binding = "no cores kept for communication (--comm-cores 0): every thread may run on every core of the rank";
  if (options_.comm_cores > 0) {
    // After the backend and the communication thread exist: the threads are bound by their names.
    const std::vector<int> allowed = thread_affinity(0);
    const CoreSplit split = split_cores(allowed, options_.comm_cores);
    const std::vector<std::string> refused = bind_threads(split);
    if (!refused.empty()) throw Error("--comm-cores: the kernel refused to bind thread " + refused.front() + " (sched_setaffinity)");
    binding = "--comm-cores " + std::to_string(options_.comm_cores) + ": communication on CPUs " +
              cpu_list_text({split.communication.begin(), split.communication.end()}) + ", compute on " +
              cpu_list_text({split.compute.begin(), split.compute.end()}) + " (rank 0's)";
  }
  comm_cores_text_ = binding;
  if (options_.memory_gbps > 0) {
    memory_gbps_ = options_.memory_gbps;
    memory_bandwidth_ = "stated (--memory-gbps)";
  } else {
    // All ranks at once, as they will run: on a shared host they share its bandwidth.
    world.barrier();
    memory_gbps_ = measure_memory_gbps();
    memory_bandwidth_ = "measured at start by each rank, all ranks at once: best of 4 passes of b = q a over 32 MiB arrays";
  }
  // Overlap off first: an overlapped row takes its compute alone from the off row of its setting.
  std::vector<Overlap> overlaps;
  for (Overlap overlap : {Overlap::kOff, Overlap::kOn}) {
    if (std::find(options_.overlap.begin(), options_.overlap.end(), overlap) != options_.overlap.end()) overlaps.push_back(overlap);
  }
  for (double bucket_mb : options_.bucket_mb) {
    for (Overlap overlap : overlaps) {
      for (DType dtype : options_.grad_dtypes) {
        for (int accumulate : options_.accumulate) cases_.push_back({bucket_mb, overlap, dtype, accumulate});
      }
    }
  }

  report::Context context = backend_context(run, *backend_, options_, ddp_options_json(options_));
  context.versions["openblas"] = blas_.corename + " (" + std::to_string(blas_.threads) + " threads)";
  std::vector<std::string> warnings;
  if (!blas_.warning.empty()) warnings.push_back(blas_.warning);
  if (profile_ && profile_->layers_timed < static_cast<int>(model_.layers.size())) {
    warnings.push_back("the compute profile times " + std::to_string(profile_->layers_timed) + " of the model's " +
                       std::to_string(model_.layers.size()) + " layers; the others count no compute");
  }
  if (options_.any_overlap() && threads <= 1) {
    warnings.push_back("overlap on with one core per rank: the communication thread and the GEMMs share that core, "
                       "so little communication can hide behind compute");
  }
  nlohmann::json& document = report_without_rows_ = report::envelope_json("ddp_step", context);
  document.update({{"model",
                    {{"name", model_.name}, {"source", model_.source}, {"parameters", model_.parameter_count()},
                     {"tensors", model_.tensors.size()}, {"forward_flops_per_sample", model_.forward_flops_per_sample()},
                     {"backward_flops_per_sample", model_.backward_flops_per_sample()}, {"layers", model_.layers.size()}}},
                   {"warnings", warnings},
                   {"skipped", nlohmann::json::array()},  // gradient dtypes the backend cannot all-reduce
                   {"summary", rate_summary().to_json()}});
}

void DdpStepRun::print_header(const nlohmann::json& report) {
  for (const auto& warning : report["warnings"]) std::fprintf(stderr, "%s: warning: %s\n", kProgram, warning.get<std::string>().c_str());
  std::printf("# %s: model %s (%.1f M parameters, %zu tensors), %d rank(s), backend %s, %s, %s scaling: batch %d %s\n", kProgram,
              printable(model_.name).c_str(), static_cast<double>(model_.parameter_count()) / 1e6, model_.tensors.size(), world_.size(),
              backend_->name().c_str(), blas_.corename.c_str(), options_.global_batch > 0 ? "strong" : "weak",
              options_.global_batch > 0 ? options_.global_batch : options_.batch, options_.global_batch > 0 ? "per job" : "per rank");
  const std::string first_bucket = options_.first_bucket_mb > 0 ? std::to_string(options_.first_bucket_mb) + " MiB (--first-bucket-mb)"
                                   : options_.ddp_version >= 2 && options_.bucket_mb_given ? "the bucket cap (torch 2.x, cap given)"
                                                                                           : "1 MiB (DDP's default)";
  if (profile_) {
    std::printf("# compute: measured layer times from %s (%d of %zu layers), scale %g; first bucket %s\n",
                printable(profile_->path).c_str(), profile_->layers_timed, model_.layers.size(), options_.compute_scale,
                first_bucket.c_str());
  } else {
    std::printf("# compute: GEMMs at the layers' shapes, scale %g: forward %.3g + backward %.3g FLOP per sample; elementwise at "
                "%.1f GB/s (%s); first bucket %s\n",
                options_.compute_scale, model_.forward_flops_per_sample(), model_.backward_flops_per_sample(), memory_gbps_,
                options_.memory_gbps > 0 ? "stated" : "measured on rank 0", first_bucket.c_str());
  }
  std::printf("# threads: %s\n", comm_cores_text_.c_str());
  std::printf("# us: means over steps and ranks; alone = fwd + bwd of the step with overlap off (nothing communicating beside the\n"
              "# compute); exposed = step - alone; hidden = 1 - exposed/comm alone; slowdown = (fwd + bwd)/alone; in_step = step - (fwd + bwd)\n");
  std::fflush(stdout);
}

}  // namespace

int run_ddp_step_perf(int argc, char** argv) {
  return run_program(kProgram, argc, argv, [](const std::vector<std::string>& args) {
    // Mutable: the world's checks settle the backend's name before the run starts.
    const auto ddp = std::make_shared<DdpProgram>(parse_ddp_options(args));
    ProgramSpec program = program_spec_of<DdpStepRun>(ddp, ddp->options);
    program.help = ddp_usage_text;
    program.build_features = [] { return "cpu: openblas; " + describe_backends() + "; ddp_step_perf uses mpi or gloo (no GPU path yet)"; };
    program.check_for_world = [ddp](World& world) { return ddp->check_for_world(world); };
    program.memory_need = [ddp](int) { return ddp->memory_need(); };
    // Asked before the world exists: an unset backend is mpi whenever MPI starts at all.
    const DdpOptions& options = ddp->options;
    program.calls_mpi_from_a_second_thread = (options.backend.empty() || options.backend == "mpi") && options.any_overlap();
    return program;
  });
}

}  // namespace collbench::ddp
