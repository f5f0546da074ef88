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
#include "workloads/ddp/report/ddp_step_rows.h"

namespace collbench::ddp {
namespace {

constexpr const char* kProgram = "ddp_step_perf";

// A setting that is usually whole (25 MiB, scale 1) is written as an integer, so it reads "25".
nlohmann::json whole_or_real(double value) {
  return std::floor(value) == value && std::fabs(value) < 1e15 ? nlohmann::json(static_cast<std::int64_t>(value)) : nlohmann::json(value);
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

std::string shown_number(double value) { return formatted("%.3g", value); }

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
class DdpStepWorkload final : public WorkloadOver<DdpCase> {
 public:
  DdpStepWorkload(RunContext& run, const DdpProgram& program);

 private:
  std::string header(const nlohmann::json& report) const override;
  CasePlan prepare(std::size_t index) override;
  std::string footer(const nlohmann::json&, std::int64_t wrong_total, const std::string& report_path) const override {
    return formatted("# rows: %d, wrong: %lld (averaged gradients outside the dtype's bound)\n", row_summary().rows(),
                     static_cast<long long>(wrong_total)) +
           report_line(report_path);
  }
  // A case's row, by phase: this rank's figures over its timed steps, gathered to rank 0, which
  // makes the row's fields from every rank's.
  nlohmann::json make_row(const DdpCase& one_case, const StepConfig& config, report::Measurement measured, const LoopResult& timed);
  nlohmann::json row_fields(const DdpCase& one_case, const StepConfig& config, const report::Measurement& measured,
                            nlohmann::json per_rank) const;
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

CasePlan DdpStepWorkload::prepare(std::size_t index) {
  const DdpCase& one_case = cases_[index];
  const std::string reason = backend_->unsupported_reason({"all_reduce", one_case.grad_dtype, ReduceOp::kSum, /*in_place=*/true, 1});
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
                            std::to_string(std::max(options_.iterations, 1)) + " steps, their forward + backward less the gradient copies): no overlap-off row was asked for";
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
ComputeAlone DdpStepWorkload::measure_compute_alone(StepConfig config) {
  config.overlap = Overlap::kOff;
  DdpStep step(model_, plan_, *backend_, *all_reduce_, gemm_, config, nullptr);
  const int warmup = options_.warmup_iterations, measured = std::max(options_.iterations, 1);
  ComputeAlone alone;
  for (int index = 0; index < warmup + measured; ++index) {
    backend_->barrier(world_);  // steps start together, as the loop's do
    const StepTimes times = step.run(index);
    if (index < warmup) continue;
    alone.compute_us += (times.forward_us + times.backward_us - times.gradient_copy_us) / measured;
    alone.comm_us += (times.comm_us + times.gradient_copy_us) / measured;
  }
  return alone;
}

// This rank's means over the timed steps of a row (none: zeros). Exposed communication against
// the loop's own sample of the step, so that step = compute + exposed holds for the figures the
// row reports.
struct TimedStepMeans {
  double forward_us = 0, backward_compute_us = 0, comm_us = 0, elementwise_us = 0, gradient_copy_us = 0,
         exposed_inside_step_us = 0;
};

TimedStepMeans timed_step_means(const std::vector<StepTimes>& issued, int warmup_iterations, const LoopResult& timed) {
  const auto first_timed = static_cast<std::ptrdiff_t>(warmup_iterations);
  if (issued.size() < static_cast<std::size_t>(first_timed) + timed.mine_us.size()) {
    throw Error("ddp_step_perf: the loop timed steps it did not issue");
  }
  const std::vector<StepTimes> timed_steps(issued.begin() + first_timed,
                                           issued.begin() + first_timed + static_cast<std::ptrdiff_t>(timed.mine_us.size()));
  TimedStepMeans means;
  for (std::size_t i = 0; i < timed_steps.size(); ++i) {
    const StepTimes& times = timed_steps[i];
    means.forward_us += times.forward_us;
    means.backward_compute_us += times.backward_us;
    means.comm_us += times.comm_us;
    means.elementwise_us += times.elementwise_us;
    means.gradient_copy_us += times.gradient_copy_us;
    means.exposed_inside_step_us += std::max(0.0, timed.mine_us[i] - times.forward_us - times.backward_us);
  }
  const double steps = static_cast<double>(std::max<std::size_t>(timed_steps.size(), 1));
  for (double* figure : {&means.forward_us, &means.backward_compute_us, &means.comm_us, &means.exposed_inside_step_us,
                         &means.elementwise_us, &means.gradient_copy_us}) {
    *figure /= steps;
  }
  return means;
}

nlohmann::json DdpStepWorkload::make_row(const DdpCase& one_case, const StepConfig& config, report::Measurement measured,
                                        const LoopResult& timed) {
  World& world = world_;
  const TimedStepMeans means = timed_step_means(issued_, options_.warmup_iterations, timed);
  // The model's compute: DDP's gradient copies are communication's (exposure.h).
  const double model_compute_us = means.forward_us + means.backward_compute_us - means.gradient_copy_us;
  if (config.overlap == Overlap::kOff) {
    compute_alone_ = {model_compute_us, means.comm_us + means.gradient_copy_us};
    compute_alone_of_setting_[{one_case.bucket_mb, one_case.grad_dtype, one_case.accumulate}] = compute_alone_;
  }
  // This rank's figures as the row's per_rank holds them; they travel to rank 0 so.
  const nlohmann::json mine = {
      {"rank", world.rank()},
      {"batch", config.batch},
      {"step_us", report::stats_to_json(timed.mine)},
      {"forward_us", means.forward_us},
      {"backward_compute_us", means.backward_compute_us},
      {"comm_us", means.comm_us},
      {"compute_alone_us", compute_alone_.compute_us},
      {"comm_alone_us", compute_alone_.comm_us},
      {"exposed_us", exposure_against_compute_alone(timed.mine.mean, model_compute_us, compute_alone_).exposed_us},
      {"exposed_inside_step_us", means.exposed_inside_step_us},
      {"exposed_comm_us", means.exposed_inside_step_us},  // its name before 2.4, as in the row
      {"elementwise_us", means.elementwise_us},
      {"gradient_copy_us", means.gradient_copy_us},
      {"memory_gbps", memory_gbps_},
      {"wrong", options_.check_iterations > 0 ? nlohmann::json(checked_.wrong) : nlohmann::json(nullptr)},
      {"max_error", options_.check_iterations > 0 ? nlohmann::json(checked_.max_error) : nlohmann::json(nullptr)},
      {"threads", census_threads(step_->issuing_thread(), step_->issuing_cpus())}};
  const std::vector<std::string> gathered = world.gather_strings(mine.dump());
  if (world.rank() != 0) return nlohmann::json::object();
  nlohmann::json per_rank = nlohmann::json::array();
  for (const auto& text : gathered) per_rank.push_back(nlohmann::json::parse(text));
  return report::row_json(report::kDdpStepRows, row_fields(one_case, config, measured, std::move(per_rank)), measured);
}

nlohmann::json DdpStepWorkload::row_fields(const DdpCase& one_case, const StepConfig& config, const report::Measurement& measured,
                                           nlohmann::json per_rank) const {
  // The row's figures: means over ranks (wrong: the ranks' checks, summed by the loop).
  const auto ranks = static_cast<double>(per_rank.size());
  const auto mean_over_ranks = [&](const char* key) {
    double mean = 0;
    for (const auto& rank : per_rank) mean += rank[key].get<double>() / ranks;
    return mean;
  };
  int global_batch = 0;
  std::optional<double> max_error;
  for (const auto& rank : per_rank) {
    global_batch += rank["batch"].get<int>();
    if (!rank["max_error"].is_null()) max_error = std::max(max_error.value_or(0.0), rank["max_error"].get<double>());
  }
  const double row_forward_us = mean_over_ranks("forward_us");
  const double row_backward_compute_us = mean_over_ranks("backward_compute_us");
  const double row_comm_us = mean_over_ranks("comm_us");
  const double row_compute_alone_us = mean_over_ranks("compute_alone_us");
  const double row_comm_alone_us = mean_over_ranks("comm_alone_us");
  const double row_exposed_inside_step_us = mean_over_ranks("exposed_inside_step_us");
  const double compute_us = row_forward_us + row_backward_compute_us;
  std::optional<double> hidden_inside_step_fraction;
  if (row_comm_us > 0) hidden_inside_step_fraction = std::clamp(1.0 - row_exposed_inside_step_us / row_comm_us, 0.0, 1.0);
  // The job's step (the slowest rank's, step by step) against the ranks' mean compute alone, so
  // that the row's exposed_us = step_us - compute_alone_us as its table shows them.
  const Exposure exposure = exposure_against_compute_alone(measured.time_us.mean, compute_us - mean_over_ranks("gradient_copy_us"),
                                                           {row_compute_alone_us, row_comm_alone_us});
  std::optional<double> comm_compute_ratio;
  if (compute_us > 0) comm_compute_ratio = row_comm_us / compute_us;
  nlohmann::json fields = {
      {"model", model_.name},
      {"backend", backend_->name()},
      {"device", "cpu"},
      {"threads", blas_.threads},
      {"scaling", options_.global_batch > 0 ? "strong" : "weak"},
      {"batch", options_.global_batch > 0 ? options_.global_batch : options_.batch},
      {"global_batch", global_batch},
      {"bucket_mb", whole_or_real(one_case.bucket_mb)},
      {"first_bucket_mb", whole_or_real(first_bucket_cap_mb(options_, one_case.bucket_mb))},
      {"overlap", to_string(config.overlap)},
      {"comm_thread", comm_thread_text(backend_->name(), config.overlap)},
      {"grad_dtype", std::string(to_string(config.grad_dtype))},
      {"accumulate", config.accumulate},
      {"compute_scale", whole_or_real(config.compute_scale)},
      {"forward_us", row_forward_us},
      {"backward_compute_us", row_backward_compute_us},
      {"compute_us", compute_us},
      {"comm_us", row_comm_us},
      {"compute_alone_us", row_compute_alone_us},
      {"comm_alone_us", row_comm_alone_us},
      {"compute_alone", compute_alone_source_},
      {"exposed_us", exposure.exposed_us},
      {"compute_slowdown", report::json_or_null(exposure.compute_slowdown)},
      {"hidden_fraction", report::json_or_null(exposure.hidden_fraction)},
      {"exposed_inside_step_us", row_exposed_inside_step_us},
      {"hidden_inside_step_fraction", report::json_or_null(hidden_inside_step_fraction)},
      // Minor versions only add keys: the two figures renamed in 2.4 are also written under their
      // former names, so that a reader of 2.3 still finds them, until schema 3.
      {"exposed_comm_us", row_exposed_inside_step_us},
      {"overlap_fraction", report::json_or_null(hidden_inside_step_fraction)},
      {"comm_compute_ratio", report::json_or_null(comm_compute_ratio)},
      {"comm_cores", options_.comm_cores},
      {"buckets", step_->buckets()},
      {"allreduce_calls", step_->buckets()},
      {"allreduce_bytes", step_->allreduce_bytes_per_step()},
      {"samples_per_s", static_cast<double>(global_batch) * config.accumulate / (measured.time_us.mean * 1e-6)},
      {"forward_gemm_flops", step_->forward_gemm_flops()},
      {"backward_gemm_flops", step_->backward_gemm_flops()},
      {"compute", profile_ ? "profile" : "gemm shapes"},
      {"compute_profile", options_.compute_profile.empty() ? nlohmann::json(nullptr) : nlohmann::json(options_.compute_profile)},
      {"elementwise_us", mean_over_ranks("elementwise_us")},
      {"elementwise_bytes", step_->elementwise_bytes()},
      {"memory_gbps", mean_over_ranks("memory_gbps")},
      {"memory_bandwidth", memory_bandwidth_},
      {"gradient_copy_us", mean_over_ranks("gradient_copy_us")},
      {"gradient_copy_bytes", step_->gradient_copy_bytes_per_step()},
      {"max_error", report::json_or_null(max_error)},
      {"error_bound", gradient_error_bound(config.grad_dtype, world_.size(), config.accumulate)},
      {"per_rank", std::move(per_rank)}};
  return fields;
}

DdpStepWorkload::DdpStepWorkload(RunContext& run, const DdpProgram& program)
    : WorkloadOver(run.world, program.options, report::kDdpStepRows),
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
                   {"skipped", nlohmann::json::array()}});  // gradient dtypes the backend cannot all-reduce
  if (world_.rank() == 0) for (const auto& warning : warnings) print_line(stderr, std::string(kProgram) + ": warning: " + warning);
}

std::string DdpStepWorkload::header(const nlohmann::json&) const {
  std::string text = formatted(
      "# %s: model %s (%.1f M parameters, %zu tensors), %d rank(s), backend %s, %s, %s scaling: batch %d %s\n", kProgram,
      printable(model_.name).c_str(), static_cast<double>(model_.parameter_count()) / 1e6, model_.tensors.size(), world_.size(),
      backend_->name().c_str(), blas_.corename.c_str(), options_.global_batch > 0 ? "strong" : "weak",
      options_.global_batch > 0 ? options_.global_batch : options_.batch, options_.global_batch > 0 ? "per job" : "per rank");
  const std::string first_bucket = options_.first_bucket_mb > 0 ? std::to_string(options_.first_bucket_mb) + " MiB (--first-bucket-mb)"
                                   : options_.ddp_version >= 2 && options_.bucket_mb_given ? "the bucket cap (torch 2.x, cap given)"
                                                                                           : "1 MiB (DDP's default)";
  if (profile_) {
    text += formatted("# compute: measured layer times from %s (%d of %zu layers), scale %g; first bucket %s\n",
                      printable(profile_->path).c_str(), profile_->layers_timed, model_.layers.size(), options_.compute_scale,
                      first_bucket.c_str());
  } else {
    text += formatted("# compute: GEMMs at the layers' shapes, scale %g: forward %.3g + backward %.3g FLOP per sample; elementwise at "
                      "%.1f GB/s (%s); first bucket %s\n",
                      options_.compute_scale, model_.forward_flops_per_sample(), model_.backward_flops_per_sample(), memory_gbps_,
                      options_.memory_gbps > 0 ? "stated" : "measured on rank 0", first_bucket.c_str());
  }
  return text + "# threads: " + comm_cores_text_ + "\n" +
         "# us: means over steps and ranks; alone = fwd + bwd - gradient copies of the step with overlap off (nothing\n"
         "# communicating beside the compute; DDP's copies into and out of the buckets count as communication); exposed = step -\n"
         "# alone; hidden = 1 - exposed/comm alone (all-reduces + copies); slowdown = (fwd + bwd - copies)/alone; in_step = step - (fwd + bwd)\n";
}

}  // namespace

int run_ddp_step_perf(int argc, char** argv) {
  return run_program(kProgram, argc, argv, [](const std::vector<std::string>& args) {
    // Mutable: the world's checks settle the backend's name before the run starts.
    const auto ddp = std::make_shared<DdpProgram>(parse_ddp_options(args));
    ProgramSpec program = program_spec_of<DdpStepWorkload>(ddp, ddp->options);
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
