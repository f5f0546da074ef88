// ddp_step_perf: the DDP step (ddp/ddp_step.h) in the harness's program shell, one row per
// (bucket_mb, overlap, grad_dtype, accumulate), timed by the one measurement loop.
#include "ddp/ddp_program.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "backends/registry.h"
#include "harness/host_info.h"
#include "compute/openblas_info.h"
#include "core/error.h"
#include "ddp/buckets.h"
#include "ddp/communication_thread.h"
#include "ddp/ddp_options.h"
#include "ddp/ddp_step.h"
#include "ddp/gradients.h"
#include "ddp/layer_gemm.h"
#include "ddp/model.h"
#include "harness/context.h"
#include "core/timed_operation.h"
#include "harness/measurement_loop.h"
#include "harness/program_shell.h"
#include "harness/watchdog.h"
#include "report/report_json.h"

namespace collbench::ddp {
namespace {

constexpr const char* kProgram = "ddp_step_perf";

nlohmann::json options_json(const DdpOptions& o) {
  nlohmann::json dtypes = nlohmann::json::array(), overlap = nlohmann::json::array();
  for (DType dtype : o.grad_dtypes) dtypes.push_back(std::string(to_string(dtype)));
  for (Overlap setting : o.overlap) overlap.push_back(to_string(setting));
  return {{"model", o.model},
          {"batch", o.global_batch > 0 ? nlohmann::json(nullptr) : nlohmann::json(o.batch)},
          {"global_batch", o.global_batch > 0 ? nlohmann::json(o.global_batch) : nlohmann::json(nullptr)},
          {"compute_scale", o.compute_scale},
          {"bucket_mb", o.bucket_mb},
          {"first_bucket_mb", o.first_bucket_mb > 0 ? nlohmann::json(o.first_bucket_mb) : nlohmann::json(nullptr)},
          {"bucket_mb_given", o.bucket_mb_given},
          {"ddp_version", o.ddp_version},
          {"overlap", overlap},
          {"grad_dtype", dtypes},
          {"accumulate", o.accumulate},
          {"rank_weights", o.rank_weights},
          {"backend", o.backend},
          {"gloo_iface", o.gloo_iface},
          {"iterations", o.iterations},
          {"warmup_iterations", o.warmup_iterations},
          {"check_iterations", o.check_iterations},
          {"threads", o.threads},
          {"cycles", o.cycles},
          {"timeout_s", o.timeout_seconds},
          {"keep_samples", o.keep_samples},
          {"inject_corrupt_output", o.inject_corrupt_output},
          {"inject_slowdown_percent", o.inject_slowdown_percent}};
}

double mean(const std::vector<double>& values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// This rank's figures of one row, as they travel to rank 0.
nlohmann::json rank_figures_json(const report::DdpStepRank& rank) {
  return {{"rank", rank.rank}, {"batch", rank.batch}, {"step_min", rank.step_us.min}, {"step_p10", rank.step_us.p10}, {"step_p50", rank.step_us.p50},
          {"step_mean", rank.step_us.mean}, {"step_p95", rank.step_us.p95}, {"step_p99", rank.step_us.p99},
          {"step_max", rank.step_us.max}, {"step_stdev", rank.step_us.stdev}, {"forward_us", rank.forward_us},
          {"backward_compute_us", rank.backward_compute_us}, {"comm_us", rank.comm_us},
          {"exposed_comm_us", rank.exposed_comm_us},
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
  rank.exposed_comm_us = j.at("exposed_comm_us").get<double>();
  if (!j.at("wrong").is_null()) rank.wrong = j.at("wrong").get<std::int64_t>();
  if (!j.at("max_error").is_null()) rank.max_error = j.at("max_error").get<double>();
  return rank;
}

class DdpStepProgram final : public Program {
 public:
  explicit DdpStepProgram(DdpOptions options) : options_(std::move(options)) {
    if (!options_.show_help && !options_.show_version) model_ = load_model(options_.model);
  }

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return ddp_usage_text(); }
  std::string build_features() const override {
    return "cpu: openblas; " + describe_backends() + "; ddp_step_perf uses mpi or gloo (no GPU path yet)";
  }
  std::string check_for_world(World& world) override {
    const std::vector<int> batches = rank_batches(options_, world.size());  // throws UsageError for weights that do not fit
    // Every rank refuses a layer whose work cannot be planned, before any rank starts.
    const double samples = *std::max_element(batches.begin(), batches.end()) * options_.compute_scale;
    for (const auto& tensor : model_.tensors) {
      plan_gemm(tensor.forward_flops_per_sample * samples, "tensor " + tensor.name);
      plan_gemm(tensor.backward_flops_per_sample * samples, "tensor " + tensor.name);
    }
    if (options_.backend.empty()) options_.backend = world.control_plane() == ControlPlane::kMpi ? "mpi" : "gloo";
    const std::string conflict = backend_launch_conflict(options_.backend, world.control_plane());
    if (!conflict.empty()) throw UsageError(conflict);
    return backend_unusable_reason(options_.backend);
  }
  MemoryNeed memory_need(int) const override {
    const bool sixteen_bit = std::any_of(options_.grad_dtypes.begin(), options_.grad_dtypes.end(),
                                         [](DType dtype) { return dtype != DType::kFloat32; });
    const std::uint64_t bytes = model_.parameter_count() * (4 + (sixteen_bit ? 2 : 0)) +
                                3ULL * kMaxGemmSide * kMaxGemmDepth * sizeof(float);
    return {bytes, "the model's gradients need", "use a smaller model or fewer ranks per host"};
  }
  // Asked before the world exists: an unset backend is mpi whenever MPI starts at all.
  bool calls_mpi_from_a_second_thread() const override {
    return (options_.backend.empty() || options_.backend == "mpi") && options_.any_overlap();
  }
  int measure(RunContext& run) override;

 private:
  report::DdpStepRow measure_row(RunContext& run, Backend& backend, const CollectiveEntry& all_reduce, LayerGemm& gemm,
                                 CommunicationThread* comm_thread, const StepConfig& config, double bucket_mb);

  DdpOptions options_;
  Model model_;
  std::vector<int> batches_;
  report::DdpReport report_;
};

std::string comm_thread_text(const std::string& backend, Overlap overlap) {
  if (overlap == Overlap::kOff) return "none: buckets all-reduced one after another after the backward pass";
  if (backend == "mpi") {
    return "one communication thread, MPI_THREAD_SERIALIZED, on the backend's own duplicated communicator";
  }
  return "one communication thread calling the " + backend + " backend's blocking all-reduce";
}

report::DdpStepRow DdpStepProgram::measure_row(RunContext& run, Backend& backend, const CollectiveEntry& all_reduce,
                                               LayerGemm& gemm, CommunicationThread* comm_thread, const StepConfig& config,
                                               double bucket_mb) {
  World& world = run.world;
  const BucketPlan plan = assign_buckets(model_.tensors, mib_to_bytes(first_bucket_cap_mb(options_, bucket_mb)), mib_to_bytes(bucket_mb));
  DdpStep step(model_, plan, backend, all_reduce, gemm, config, comm_thread);
  // Every issued step records its own breakdown; the loop issues the warm-up steps first, so the
  // last `iterations` records belong to the timed steps.
  std::int64_t step_index = 0;
  std::vector<StepTimes> issued;
  FunctionOperation operation(TimingSchedule::kBarrierEachIteration, [&](int) { issued.push_back(step.run(step_index++)); });
  LoopSettings settings;
  settings.warmup_iterations = options_.warmup_iterations;
  settings.iterations = options_.iterations;
  // A synchronized step lasts as long as its slowest rank, and so does the job's progress.
  settings.aggregation = TimeAggregation::kMax;
  settings.inject_slowdown_percent = options_.inject_slowdown_percent;
  const std::string description = "ddp_step bucket " + std::to_string(bucket_mb) + " MiB, overlap " + to_string(config.overlap) +
                                  ", " + std::string(to_string(config.grad_dtype)) + ", accumulate " + std::to_string(config.accumulate);
  const LoopResult timed = time_iterations(world, settings, operation, run.watchdog, description);
  if (issued.size() < timed.mine_us.size()) throw Error("ddp_step_perf: the loop timed steps it did not issue");
  const std::vector<StepTimes> timed_steps(issued.end() - static_cast<std::ptrdiff_t>(timed.mine_us.size()), issued.end());

  report::DdpStepRank mine;
  mine.rank = world.rank();
  mine.batch = config.batch;
  mine.step_us = timed.mine;
  std::vector<double> forward, backward, comm, exposed;
  // Exposed communication against the loop's own sample of the step, so that step = compute +
  // exposed holds for the figures the row reports.
  for (std::size_t i = 0; i < timed_steps.size(); ++i) {
    const StepTimes& times = timed_steps[i];
    forward.push_back(times.forward_us);
    backward.push_back(times.backward_us);
    comm.push_back(times.comm_us);
    exposed.push_back(std::max(0.0, timed.mine_us[i] - times.forward_us - times.backward_us));
  }
  mine.forward_us = mean(forward);
  mine.backward_compute_us = mean(backward);
  mine.comm_us = mean(comm);
  mine.exposed_comm_us = mean(exposed);
  if (options_.check_iterations > 0) {
    CheckOutcome worst;
    const bool corrupts = options_.inject_corrupt_output && world.rank() == world.size() - 1;
    for (int check = 0; check < options_.check_iterations; ++check) {
      step.run(step_index);
      const CheckOutcome outcome = step.check(step_index, corrupts && check == 0);
      ++step_index;
      worst.wrong += outcome.wrong;
      worst.max_error = std::max(worst.max_error, outcome.max_error);
      if (run.watchdog) run.watchdog->progress();
    }
    mine.wrong = worst.wrong;
    mine.max_error = worst.max_error;
  }
  const std::vector<std::string> gathered = world.gather_strings(rank_figures_json(mine).dump());

  report::DdpStepRow row;
  row.time_us = timed.combined;
  row.time_over_ranks_us = report::RankTimeViews{timed.views.mean_us, timed.views.max_us, timed.views.min_us};
  if (world.rank() != 0) return row;
  for (const auto& text : gathered) row.per_rank.push_back(rank_figures_from_json(nlohmann::json::parse(text)));
  const auto ranks = static_cast<double>(row.per_rank.size());
  for (const auto& rank : row.per_rank) {
    row.forward_us += rank.forward_us / ranks;
    row.backward_compute_us += rank.backward_compute_us / ranks;
    row.comm_us += rank.comm_us / ranks;
    row.exposed_comm_us += rank.exposed_comm_us / ranks;
    row.global_batch += rank.batch;
    if (rank.wrong) row.wrong = row.wrong.value_or(0) + *rank.wrong;
    if (rank.max_error) row.max_error = std::max(row.max_error.value_or(0.0), *rank.max_error);
  }
  row.compute_us = row.forward_us + row.backward_compute_us;
  if (row.comm_us > 0) row.overlap_fraction = std::clamp(1.0 - row.exposed_comm_us / row.comm_us, 0.0, 1.0);
  if (row.compute_us > 0) row.comm_compute_ratio = row.comm_us / row.compute_us;
  row.model = model_.name;
  row.backend = backend.name();
  row.scaling = options_.global_batch > 0 ? "strong" : "weak";
  row.batch = options_.global_batch > 0 ? options_.global_batch : options_.batch;
  row.bucket_mb = bucket_mb;
  row.first_bucket_mb = first_bucket_cap_mb(options_, bucket_mb);
  row.overlap = to_string(config.overlap);
  row.comm_thread = comm_thread_text(backend.name(), config.overlap);
  row.grad_dtype = std::string(to_string(config.grad_dtype));
  row.accumulate = config.accumulate;
  row.compute_scale = config.compute_scale;
  row.iterations = options_.iterations;
  row.warmup_iterations = options_.warmup_iterations;
  row.time_aggregation = std::string(to_string(settings.aggregation));
  row.buckets = step.buckets();
  row.allreduce_calls = step.buckets();
  row.allreduce_bytes = step.allreduce_bytes_per_step();
  row.samples_per_s = static_cast<double>(row.global_batch) * config.accumulate / (row.time_us.mean * 1e-6);
  row.forward_gemm_flops = step.forward_gemm_flops();
  row.backward_gemm_flops = step.backward_gemm_flops();
  row.check_iterations = options_.check_iterations;
  row.error_bound = gradient_error_bound(config.grad_dtype, world.size(), config.accumulate);
  if (options_.keep_samples) row.samples_us = timed.combined_us;
  return row;
}

int DdpStepProgram::measure(RunContext& run) {
  World& world = run.world;
  const bool leader = world.rank() == 0;
  batches_ = rank_batches(options_, world.size());
  const compute::HostInfo host = compute::probe_host();
  const int threads = options_.threads > 0 ? options_.threads : host.affinity_cores;
  const compute::OpenBlasInfo blas = compute::configure_openblas(threads, host.vector_level);

  BackendConfig config;
  config.timeout_seconds = options_.timeout_seconds;
  config.network_interface = options_.gloo_iface;
  std::unique_ptr<Backend> backend = make_backend(options_.backend, world, config);
  const CollectiveEntry* all_reduce = backend->entry_for("all_reduce");
  if (!all_reduce) throw Error("the " + backend->name() + " backend has no all_reduce");

  report_.context = collect_context(world, backend->name(), backend->device_description(), run.argv, options_, options_json(options_));
  for (const auto& [library, version] : backend->versions()) report_.context.versions[library] = version;
  report_.context.versions["openblas"] = blas.corename + " (" + std::to_string(blas.threads) + " threads)";
  report_.model = {model_.name, model_.source, model_.parameter_count(), static_cast<int>(model_.tensors.size()),
                   model_.forward_flops_per_sample(), model_.backward_flops_per_sample()};
  if (!blas.warning.empty()) report_.warnings.push_back(blas.warning);
  if (options_.any_overlap() && threads <= 1) {
    report_.warnings.push_back("overlap on with one core per rank: the communication thread and the GEMMs share that core, "
                               "so little communication can hide behind compute");
  }
  auto save = [&] {
    report::DdpSummary summary;
    for (const auto& row : report_.results) {
      ++summary.rows;
      if (row.wrong) {
        ++summary.rows_checked;
        summary.wrong_total += *row.wrong;
      }
      summary.max_samples_per_s = std::max(summary.max_samples_per_s.value_or(0.0), row.samples_per_s);
    }
    report_.summary = summary;
    run.report.save(report::to_json(report_));
  };
  save();
  if (leader) {
    for (const auto& warning : report_.warnings) std::fprintf(stderr, "%s: warning: %s\n", kProgram, warning.c_str());
    std::printf("# %s: model %s (%.1f M parameters, %zu tensors), %d rank(s), backend %s, %s, %s scaling: batch %d %s\n", kProgram,
                model_.name.c_str(), static_cast<double>(model_.parameter_count()) / 1e6, model_.tensors.size(), world.size(),
                backend->name().c_str(), blas.corename.c_str(), options_.global_batch > 0 ? "strong" : "weak",
                options_.global_batch > 0 ? options_.global_batch : options_.batch,
                options_.global_batch > 0 ? "per job" : "per rank");
    const std::string first_bucket = options_.first_bucket_mb > 0 ? std::to_string(options_.first_bucket_mb) + " MiB (--first-bucket-mb)"
                                     : options_.ddp_version >= 2 && options_.bucket_mb_given ? "the bucket cap (torch 2.x, cap given)"
                                                                                             : "1 MiB (DDP's default)";
    std::printf("# compute scale %g; forward %.3g + backward %.3g FLOP per sample; first bucket %s\n", options_.compute_scale,
                model_.forward_flops_per_sample(), model_.backward_flops_per_sample(), first_bucket.c_str());
    std::printf("# us: means over steps and ranks; exposed = step - (fwd + bwd); overlap = 1 - exposed/comm; ratio = comm/(fwd+bwd)\n");
    std::printf("#%9s %7s %8s %5s %7s %9s %11s %10s %10s %10s %10s %7s %6s %10s %6s\n", "bucket_mb", "overlap", "dtype", "accum",
                "buckets", "MB/step", "step_us", "fwd_us", "bwd_us", "comm_us", "exposed_us", "overlap", "ratio", "samples/s",
                "#wrong");
    std::fflush(stdout);
  }

  LayerGemm gemm;
  std::optional<CommunicationThread> comm_thread;
  if (options_.any_overlap()) comm_thread.emplace();
  for (int cycle = 1; cycle <= options_.cycles; ++cycle) {
    for (double bucket_mb : options_.bucket_mb) {
      for (Overlap overlap : options_.overlap) {
        for (DType dtype : options_.grad_dtypes) {
          const std::string reason = backend->unsupported_reason({"all_reduce", dtype, ReduceOp::kSum, true, 1});
          if (!reason.empty()) {
            if (leader && cycle == 1 && bucket_mb == options_.bucket_mb.front() && overlap == options_.overlap.front()) {
              report_.warnings.push_back(std::string(to_string(dtype)) + " skipped: " + reason);
              std::printf("# skipped %s: %s\n", std::string(to_string(dtype)).c_str(), reason.c_str());
              save();
            }
            continue;
          }
          for (int accumulate : options_.accumulate) {
            StepConfig step_config{overlap, dtype, accumulate, batches_[static_cast<std::size_t>(world.rank())],
                                   options_.compute_scale, world.rank(), world.size()};
            report::DdpStepRow row = measure_row(run, *backend, *all_reduce, gemm, comm_thread ? &*comm_thread : nullptr,
                                                 step_config, bucket_mb);
            if (!leader) continue;
            row.device = "cpu";
            row.threads = blas.threads;
            row.cycle = cycle;
            report_.results.push_back(row);
            save();
            char ratio[16] = "n/a", overlap_text[16] = "n/a", wrong[24] = "N/A";
            if (row.comm_compute_ratio) std::snprintf(ratio, sizeof ratio, "%.3f", *row.comm_compute_ratio);
            if (row.overlap_fraction) std::snprintf(overlap_text, sizeof overlap_text, "%.3f", *row.overlap_fraction);
            if (row.wrong) std::snprintf(wrong, sizeof wrong, "%lld", static_cast<long long>(*row.wrong));
            std::printf(" %9g %7s %8s %5d %7d %9.2f %11.1f %10.1f %10.1f %10.1f %10.1f %7s %6s %10.1f %6s\n", row.bucket_mb,
                        row.overlap.c_str(), row.grad_dtype.c_str(), row.accumulate, row.buckets,
                        static_cast<double>(row.allreduce_bytes) / 1e6, row.time_us.mean, row.forward_us,
                        row.backward_compute_us, row.comm_us, row.exposed_comm_us, overlap_text, ratio, row.samples_per_s, wrong);
            std::fflush(stdout);
          }
        }
      }
    }
  }
  save();
  const std::int64_t wrong_total = world.sum(leader ? report_.summary.wrong_total : 0);
  if (leader) {
    std::printf("# rows: %d, wrong: %lld (averaged gradients outside the dtype's bound)\n", report_.summary.rows,
                static_cast<long long>(wrong_total));
    if (run.report.is_open()) std::printf("# report: %s\n", run.report.path().c_str());
  }
  return wrong_total > 0 ? static_cast<int>(ExitCode::kWrongResults) : 0;
}

}  // namespace

int run_ddp_step_perf(int argc, char** argv) {
  return run_program(kProgram, argc, argv, [](const std::vector<std::string>& args) {
    return std::make_unique<DdpStepProgram>(parse_ddp_options(args));
  });
}

}  // namespace collbench::ddp
