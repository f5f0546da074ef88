// envcheck: every rank's inventory, short compute and bandwidth probes with medians, and a verdict
// on slow ranks with advice (keep, rebalance with weights, exclude).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "compute/compute_benchmark.h"
#include "compute/engines.h"
#include "harness/host_info.h"
#include "compute/openblas_info.h"
#include "compute/programs.h"
#include "compute/rank_speeds.h"
#include "core/error.h"
#include "harness/context.h"
#include "harness/watchdog.h"
#include "report/report_json.h"

namespace collbench::compute {
namespace {

using Clock = std::chrono::steady_clock;

// One sample: repeat `work` until at least `minimum_ms` passed, so a rank sharing its core with
// another process shows its fair share rather than one lucky time slice. Returns work units per second.
template <typename Work>
double rate_over(double minimum_ms, Work&& work) {
  const auto start = Clock::now();
  long long units = 0;
  double elapsed_ms = 0;
  do {
    work();
    ++units;
    elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  } while (elapsed_ms < minimum_ms);
  return static_cast<double>(units) / (elapsed_ms * 1e-3);
}

// The probes: a GEMM and a triad workload in lock-step on every rank, then rank 0's verdict.
class EnvcheckBenchmark final : public Program {
 public:
  explicit EnvcheckBenchmark(ComputeOptions options) : options_(std::move(options)) {}
  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override { return compute_usage_text(options_.program); }
  std::string build_features() const override { return compute_build_features(); }
  std::string check_for_world(World&) override { return ""; }
  MemoryNeed memory_need(int) const override {
    if (!runs_on_host(options_)) return {};
    const auto side = static_cast<std::uint64_t>(options_.probe_matrix_n);
    // Overflow-proof for any accepted --probe-n (at most 2^20): 3 float32 matrices and 3 triad arrays.
    return {3 * side * side * sizeof(float) + 3 * options_.probe_bytes, "the probes need",
            "lower --probe-n or --probe-bytes, or use fewer ranks per host"};
  }
  int measure(RunContext& run) override;

 private:
  ComputeOptions options_;
  report::EnvcheckReport report_;
};

// This rank's row as the report writes it; rank 0 adds the verdict (relative_speed, slow).
nlohmann::json my_row(World& world, const HostInfo& host, const OpenBlasInfo& blas, const GpuInventory& gpu,
                      const std::string& device, const std::vector<double>& gemm_samples,
                      const std::vector<double>& triad_samples) {
  nlohmann::json gpu_json = {{"present", gpu.present}};
  if (gpu.present) {
    gpu_json.update({{"name", gpu.name}, {"compute_capability", gpu.compute_capability},
                     {"memory_bytes", gpu.memory_bytes}, {"pci_bus_id", gpu.pci_bus_id},
                     {"driver_version", gpu.driver_version}, {"cuda_runtime_version", gpu.cuda_runtime_version},
                     {"nccl_version", gpu.nccl_version}});
  } else {
    gpu_json["reason"] = gpu.reason;
  }
  return {{"kind", report::row_kind_spec(report::RowKind::kProbe).name},
          {"rank", world.rank()},
          {"inventory",
           {{"host", world.host()}, {"local_rank", world.local_rank()}, {"pid", static_cast<long long>(::getpid())},
            {"cpu_model", host.cpu_model}, {"online_cores", host.online_cores},
            {"affinity_cores", host.affinity_cores}, {"affinity", host.affinity_list},
            {"numa_node", host.numa_node}, {"memory_bytes", host.memory_bytes},
            {"vector_level", to_string(host.vector_level)}, {"openblas_corename", blas.corename},
            {"openblas_config", blas.config}, {"openblas_warning", blas.warning},
            {"mpi_version", world.library_version()}, {"gpu", gpu_json}}},
          {"probes",
           {{"device", device}, {"gemm_gflops", median(gemm_samples)}, {"gemm_gflops_samples", gemm_samples},
            {"triad_gbps", median(triad_samples)}, {"triad_gbps_samples", triad_samples}}}};
}

int EnvcheckBenchmark::measure(RunContext& run) {
  World& world = run.world;
  const ComputeOptions& options = options_;
  const bool leader = world.rank() == 0;
  auto save = [&] { run.report.save(report::to_json(report_)); };
  const HostInfo host = probe_host();
  const int threads = options.threads > 0 ? options.threads : host.affinity_cores;
  const OpenBlasInfo blas = configure_openblas(threads, host.vector_level);
  const GpuInventory gpu = probe_gpu(world.local_rank());

  std::unique_ptr<GemmEngine> gemm;
  std::unique_ptr<StreamEngine> stream;
  std::string why_not;
  if (options.device != DeviceChoice::kCpu) {
    gemm = make_gpu_gemm_engine(world.local_rank(), &why_not);
    if (gemm) stream = make_gpu_stream_engine(world.local_rank(), &why_not);
    if ((!gemm || !stream) && options.device == DeviceChoice::kGpu) throw Error("--device gpu: " + why_not);
  }
  if (!gemm || !stream) {
    gemm = make_cpu_gemm_engine(threads);
    stream = make_cpu_stream_engine(threads);
  }
  report_.context = compute_context(world, options_, gemm->device(), run.argv);
  save();

  // Probes in lock-step: every rank measures at the same time, as a real job would load them.
  const GemmShape shape{options.probe_matrix_n, options.probe_matrix_n, options.probe_matrix_n};
  const double gemm_flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
  gemm->prepare(shape, GemmType::kFloat32, options.seed, 1);
  gemm->issue(0);
  gemm->wait();
  const std::uint64_t elements = options.probe_bytes / sizeof(double);
  stream->prepare(elements);
  stream->issue(StreamKernel::kTriad);
  stream->wait();
  std::vector<double> gemm_samples, triad_samples;
  // -N repeats the probe set: more samples under the same medians.
  if (run.watchdog) run.watchdog->enter("envcheck probes");
  for (int repeat = 0; repeat < options.probe_repeats * options.cycles; ++repeat) {
    world.barrier();
    gemm_samples.push_back(rate_over(options.probe_ms, [&] {
      gemm->issue(0);
      gemm->wait();
    }) * gemm_flops / 1e9);
    world.barrier();
    triad_samples.push_back(rate_over(options.probe_ms, [&] {
      stream->issue(StreamKernel::kTriad);
      stream->wait();
    }) *
                            static_cast<double>(stream_bytes_counted(StreamKernel::kTriad, elements)) / 1e9);
    if (run.watchdog) run.watchdog->progress();
  }

  const auto everyone = world.gather_strings(my_row(world, host, blas, gpu, gemm->device(), gemm_samples, triad_samples).dump());
  int exit_code = 0;
  if (leader) {
    std::vector<double> gemm_rates, triad_rates;
    for (const auto& text : everyone) {
      report_.results.push_back(nlohmann::json::parse(text));
      gemm_rates.push_back(report_.results.back()["probes"]["gemm_gflops"].get<double>());
      triad_rates.push_back(report_.results.back()["probes"]["triad_gbps"].get<double>());
    }
    const auto relative = relative_speeds({gemm_rates, triad_rates});
    report_.slow_ranks = slow_ranks(relative, options.slow_factor);
    const Recommendation advice = recommend(relative, options.slow_factor);
    for (auto& row : report_.results) {
      const int rank = row["rank"].get<int>();
      row["relative_speed"] = relative[static_cast<std::size_t>(rank)];
      row["slow"] = std::find(report_.slow_ranks.begin(), report_.slow_ranks.end(), rank) != report_.slow_ranks.end();
      const std::string warning = row["inventory"]["openblas_warning"].get<std::string>();
      if (!warning.empty()) report_.warnings.push_back("rank " + std::to_string(rank) + ": " + warning);
    }
    auto& summary = report_.summary;
    summary.ranks = world.size();
    summary.slow_factor = options.slow_factor;
    summary.repeats = options.probe_repeats * options.cycles;
    summary.probe_ms = options.probe_ms;
    summary.recommendation = to_string(advice.advice);
    summary.recommendation_text = advice.text;
    summary.spread_ratio = advice.spread_ratio;
    summary.weights = advice.weights;
    summary.exclude = advice.exclude;
    summary.gemm_spread = spread_of(gemm_rates);
    summary.triad_spread = spread_of(triad_rates);
    save();

    for (const auto& warning : report_.warnings) std::fprintf(stderr, "%s: warning: %s\n", "envcheck", warning.c_str());
    std::printf("# envcheck: %d rank(s); probes: sgemm %lld^3 and triad %llu B/array, %d samples of >= %g ms, medians\n",
                world.size(), static_cast<long long>(options.probe_matrix_n), static_cast<unsigned long long>(options.probe_bytes),
                options.probe_repeats, options.probe_ms);
    std::printf("#%5s %-16s %-28s %6s %9s %5s %-12s %-24s %10s %9s %8s %5s\n", "rank", "host", "cpu", "cores", "affinity",
                "numa", "openblas", "gpu", "GFLOP/s", "GB/s", "speed", "slow");
    for (const auto& row : report_.results) {
      const auto& inventory = row["inventory"];
      const auto& gpu_row = inventory["gpu"];
      const std::string gpu_text = gpu_row["present"].get<bool>()
                                       ? gpu_row["name"].get<std::string>() + " cc" + gpu_row["compute_capability"].get<std::string>()
                                       : "none";
      std::printf(" %5d %-16.16s %-28.28s %6d %9s %5d %-12.12s %-24.24s %10.2f %9.2f %8.3f %5s\n", row["rank"].get<int>(),
                  inventory["host"].get<std::string>().c_str(), inventory["cpu_model"].get<std::string>().c_str(),
                  inventory["online_cores"].get<int>(), inventory["affinity"].get<std::string>().c_str(),
                  inventory["numa_node"].get<int>(), inventory["openblas_corename"].get<std::string>().c_str(), gpu_text.c_str(),
                  row["probes"]["gemm_gflops"].get<double>(), row["probes"]["triad_gbps"].get<double>(),
                  row["relative_speed"].get<double>(), row["slow"].get<bool>() ? "SLOW" : "no");
    }
    std::printf("# slow ranks (slower than the fastest by more than %gx):", options.slow_factor);
    if (report_.slow_ranks.empty()) std::printf(" none");
    for (int rank : report_.slow_ranks) std::printf(" %d", rank);
    std::printf("\n# recommendation: %s\n# weights:", advice.text.c_str());
    for (std::size_t rank = 0; rank < advice.weights.size(); ++rank) std::printf(" %zu=%.3f", rank, advice.weights[rank]);
    std::printf("\n");
    if (!advice.exclude.empty()) {
      std::printf("# exclude:");
      for (int rank : advice.exclude) std::printf(" %d", rank);
      std::printf("\n");
    }
    if (run.report.is_open()) std::printf("# report: %s\n", run.report.path().c_str());
    std::fflush(stdout);
    exit_code = report_.slow_ranks.empty() ? 0 : static_cast<int>(ExitCode::kWrongResults);
  }
  const std::string decided = world.broadcast_string(std::to_string(exit_code));
  // Rank 0's exit code, sent as text: anything else is not from rank 0.
  if (decided.size() != 1 || decided[0] < '0' || decided[0] > '4') throw Error("rank 0's exit code arrived malformed");
  return decided[0] - '0';
}

}  // namespace

int run_envcheck(int argc, char** argv) { return run_compute_benchmark<EnvcheckBenchmark>(ComputeProgram::kEnvcheck, argc, argv); }

}  // namespace collbench::compute
