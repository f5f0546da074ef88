// envcheck: every rank's inventory, short compute and bandwidth probes with medians, and a verdict
// on slow ranks with advice (keep, rebalance with weights, exclude).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/printable.h"
#include "core/stats.h"
#include "engines/engines.h"
#include "engines/host_info.h"
#include "engines/openblas_info.h"
#include "report/report_json.h"
#include "report/table.h"
#include "workloads/compute/compute_workload.h"
#include "workloads/envcheck/envcheck_program.h"
#include "workloads/compute/rank_gather.h"
#include "workloads/envcheck/envcheck_options.h"
#include "workloads/envcheck/rank_speeds.h"
#include "workloads/envcheck/report/probe_rows.h"

namespace collbench::compute {
namespace {

// A probe sample: `units` calls back to back, enough that the sample lasts about --probe-ms, so a
// rank sharing its core with another process shows its fair share rather than one lucky time
// slice. The loop divides the sample by the calls it made.
class ProbeOperation final : public TimedOperation {
 public:
  ProbeOperation(std::function<void()> call, double minimum_ms) : call_(std::move(call)) {
    call_();  // warm: the first call pays for page faults and library set-up
    const auto start = std::chrono::steady_clock::now();
    call_();
    const double one_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    units_ = static_cast<int>(std::clamp(std::ceil(minimum_ms / std::max(one_ms, 1e-6)), 1.0, 1e7));
  }
  int calls_per_iteration() const override { return units_; }
  void issue(int) override {
    for (int unit = 0; unit < units_; ++unit) call_();
  }
  void issue_check() override { call_(); }

 private:
  std::function<void()> call_;
  int units_ = 1;
};

enum class Probe { kGemm, kTriad };

// The probes: a GEMM and a triad workload on every rank at once, as a real job would load them,
// then rank 0's verdict on slow ranks.
class EnvcheckWorkload final : public Workload {
 public:
  EnvcheckWorkload(RunContext& run, const EnvcheckOptions& options);

 private:
  std::string header(const nlohmann::json& report) const override;
  std::size_t case_count() const override { return 2; }
  CasePlan prepare(std::size_t index) override;
  // The table is one row per rank, made once every rank has measured: each rank's speed is
  // judged against the others'.
  std::vector<nlohmann::json> closing_rows(RunContext& run) override;
  int finish(RunContext& run, nlohmann::json& report, std::int64_t wrong_total) override;
  std::string footer(const nlohmann::json& report, std::int64_t wrong_total, const std::string& report_path) const override;
  const EnvcheckOptions& options_;
  HostInfo host_;
  OpenBlasInfo blas_;
  GpuInventory gpu_;
  std::unique_ptr<StreamEngine> stream_;
  std::unique_ptr<GemmEngine> gemm_;  // made first, released first
  GemmShape shape_;
  std::uint64_t elements_ = 0;
  std::vector<GemmEntry> entries_;
  std::vector<double> reference_;
  std::vector<double> gemm_samples_, triad_samples_;  // this rank's rates over every cycle
  std::int64_t wrong_ = 0;                              // this rank's wrong probe outputs
  // Rank 0's verdict, made with the rows, written by finish().
  std::vector<int> slow_;
  std::vector<std::string> warnings_;
  nlohmann::json summary_;
};

// This rank's fields of its row; rank 0 adds the verdict (relative_speed, slow) and writes the row.
nlohmann::json my_fields(World& world, const HostInfo& host, const OpenBlasInfo& blas, const GpuInventory& gpu,
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
  return {{"rank", world.rank()},
          {"inventory",
           {{"host", world.host()}, {"local_rank", world.local_rank()}, {"pid", static_cast<long long>(::getpid())},
            {"cpu_model", host.cpu_model}, {"online_cores", host.online_cores},
            {"affinity_cores", host.affinity_cores}, {"affinity", host.affinity_list},
            {"numa_node", host.numa_node}, {"memory_bytes", host.memory_bytes},
            {"vector_level", to_string(host.vector_level)}, {"openblas_corename", blas.corename},
            {"openblas_config", blas.config}, {"openblas_warning", blas.warning},
            {"mpi_version", world.library_version()}, {"gpu", gpu_json}}},
          {"probes",
           {{"device", device}, {"gemm_gflops", median_of(gemm_samples)}, {"gemm_gflops_samples", gemm_samples},
            {"triad_gbps", median_of(triad_samples)}, {"triad_gbps_samples", triad_samples}}}};
}

EnvcheckWorkload::EnvcheckWorkload(RunContext& run, const EnvcheckOptions& options)
    : Workload(run.world, options, report::kProbeRows), options_(options) {
  World& world = run.world;
  host_ = probe_host();
  const int threads = options_.threads > 0 ? options_.threads : host_.affinity_cores;
  blas_ = configure_openblas(threads, host_.vector_level);
  gpu_ = probe_gpu(world.local_rank());
  std::string why_not;
  if (options_.device != DeviceChoice::kCpu) {
    gemm_ = make_gpu_gemm_engine(world.local_rank(), &why_not);
    if (gemm_) stream_ = make_gpu_stream_engine(world.local_rank(), &why_not);
    if ((!gemm_ || !stream_) && options_.device == DeviceChoice::kGpu) throw Error("--device gpu: " + why_not);
  }
  if (!gemm_ || !stream_) {
    gemm_ = make_cpu_gemm_engine(threads);
    stream_ = make_cpu_stream_engine(threads);
  }
  shape_ = {options_.probe_matrix_n, options_.probe_matrix_n, options_.probe_matrix_n};
  gemm_->prepare(shape_, GemmType::kFloat32, options_.seed, 1);
  elements_ = options_.probe_bytes / sizeof(double);
  stream_->prepare(elements_);
  entries_ = sample_entries(shape_, options_.seed, 64);
  for (const auto& entry : entries_) reference_.push_back(reference_entry(GemmType::kFloat32, options_.seed, shape_, entry));
  report_without_rows_ = report::envelope_json(
      "envcheck", collect_context(world, "compute", gemm_->device(), run.argv, options_, recorded_options(options_, declare_envcheck_options)));
}

CasePlan EnvcheckWorkload::prepare(std::size_t index) {
  const Probe probe = index == 0 ? Probe::kGemm : Probe::kTriad;
  const bool corrupts = options_.inject_corrupt_output && world_.rank() == world_.size() - 1;
  PreparedCase prepared;
  RowCheck check;
  if (probe == Probe::kGemm) {
    prepared.step = "envcheck gemm probe";
    prepared.operation = std::make_unique<ProbeOperation>(
        [this] {
          gemm_->issue(0);
          gemm_->wait();
        },
        options_.probe_ms);
    const double bound = relative_error_bound(GemmType::kFloat32, shape_.k);
    check.prepare = [](int) {};
    check.count_wrong = [this, bound, corrupts](int) -> std::int64_t {
      if (corrupts) gemm_->corrupt_output(0);
      const double error = relative_error(gemm_->read_outputs(0, entries_), reference_);
      const std::int64_t wrong = std::isfinite(error) && error <= bound ? 0 : 1;
      wrong_ += wrong;
      return wrong;
    };
  } else {
    prepared.step = "envcheck triad probe";
    prepared.operation = std::make_unique<ProbeOperation>(
        [this] {
          stream_->issue(StreamKernel::kTriad);
          stream_->wait();
        },
        options_.probe_ms);
    check.prepare = [this](int) { stream_->fill_check_inputs(); };
    check.count_wrong = [this, corrupts](int) {
      const std::int64_t wrong = stream_->count_wrong(StreamKernel::kTriad, corrupts);
      wrong_ += wrong;
      return wrong;
    };
  }
  if (options_.check_iterations > 0) prepared.check = std::move(check);
  prepared.row = [this, probe](LoopResult& timed, report::Measurement) {
    const double work = probe == Probe::kGemm
                            ? 2.0 * static_cast<double>(shape_.m) * static_cast<double>(shape_.n) * static_cast<double>(shape_.k)
                            : static_cast<double>(stream_bytes_counted(StreamKernel::kTriad, elements_));
    for (double sample_us : timed.mine_us) {
      (probe == Probe::kGemm ? gemm_samples_ : triad_samples_).push_back(work / (sample_us * 1e-6) / 1e9);
    }
    if (probe == Probe::kTriad) stream_->prepare(elements_);  // STREAM's values again after the check's pattern
    return nlohmann::json();  // envcheck's rows are per rank, made once every probe has run
  };
  return CasePlan::run(std::move(prepared));
}

std::vector<nlohmann::json> EnvcheckWorkload::closing_rows(RunContext&) {
  World& world = world_;
  nlohmann::json mine = my_fields(world, host_, blas_, gpu_, gemm_->device(), gemm_samples_, triad_samples_);
  if (options_.check_iterations > 0) mine["probes"]["wrong"] = wrong_;
  const auto everyone = world.gather_strings(mine.dump());
  if (world.rank() != 0) return {};
  std::vector<nlohmann::json> results;
  std::vector<double> gemm_rates, triad_rates;
  for (const auto& text : everyone) {
    results.push_back(nlohmann::json::parse(text));
    gemm_rates.push_back(results.back()["probes"]["gemm_gflops"].get<double>());
    triad_rates.push_back(results.back()["probes"]["triad_gbps"].get<double>());
  }
  const auto relative = relative_speeds({gemm_rates, triad_rates});
  slow_ = slow_ranks(relative, options_.slow_factor);
  const Recommendation advice = recommend(relative, options_.slow_factor);
  for (auto& row : results) {
    const int rank = row["rank"].get<int>();
    row["relative_speed"] = relative[static_cast<std::size_t>(rank)];
    row["slow"] = std::find(slow_.begin(), slow_.end(), rank) != slow_.end();
    const std::string warning = row["inventory"]["openblas_warning"].get<std::string>();
    if (!warning.empty()) warnings_.push_back("rank " + std::to_string(rank) + ": " + warning);
    row = report::row_json(report::kProbeRows, std::move(row), report::Measurement{});  // untimed: no measurement
  }
  summary_ = {{"ranks", world.size()}, {"slow", slow_.size()}, {"slow_factor", options_.slow_factor},
              {"repeats", options_.iterations * options_.cycles}, {"probe_ms", options_.probe_ms},
              {"recommendation", to_string(advice.advice)}, {"recommendation_text", advice.text},
              {"spread_ratio", std::isfinite(advice.spread_ratio) ? nlohmann::json(advice.spread_ratio) : nlohmann::json()},
              {"weights", advice.weights}, {"exclude", advice.exclude},
              {"gemm_spread", report::to_json(spread_of(gemm_rates), "gflops")},
              {"triad_spread", report::to_json(spread_of(triad_rates), "gbps")}};
  return results;
}

int EnvcheckWorkload::finish(RunContext&, nlohmann::json& document, std::int64_t) {
  World& world = world_;
  int exit_code = 0;
  if (world.rank() == 0) {
    document.update({{"slow_ranks", slow_}, {"warnings", warnings_}, {"summary", summary_}});
    for (const auto& warning : warnings_) print_line(stderr, "envcheck: warning: " + warning);
    exit_code = slow_.empty() ? 0 : static_cast<int>(ExitCode::kWrongResults);
  }
  const std::string decided = world.broadcast_string(std::to_string(exit_code));
  // Rank 0's exit code, sent as text: anything else is not from rank 0.
  if (decided.size() != 1 || decided[0] < '0' || decided[0] > '4') throw Error("rank 0's exit code arrived malformed");
  return decided[0] - '0';
}

std::string EnvcheckWorkload::header(const nlohmann::json&) const {
  return formatted("# envcheck: %d rank(s); probes: sgemm %lld^3 and triad %llu B/array, %d samples of >= %g ms, medians\n", world_.size(),
                   static_cast<long long>(options_.probe_matrix_n), static_cast<unsigned long long>(options_.probe_bytes),
                   options_.iterations, options_.probe_ms);
}

// The verdict under the table of every rank's probes.
std::string EnvcheckWorkload::footer(const nlohmann::json& report, std::int64_t, const std::string& report_path) const {
  const auto& summary = report["summary"];
  std::string text = formatted("# slow ranks (slower than the fastest by more than %gx):", options_.slow_factor);
  const auto listed = [](const nlohmann::json& ranks) {
    std::string list;
    for (const auto& rank : ranks) list += " " + rank.dump();
    return list;
  };
  text += (report["slow_ranks"].empty() ? " none" : listed(report["slow_ranks"])) +
          "\n# recommendation: " + summary["recommendation_text"].get<std::string>() + "\n# weights:";
  for (std::size_t rank = 0; rank < summary["weights"].size(); ++rank) text += formatted(" %zu=%.3f", rank, summary["weights"][rank].get<double>());
  if (!summary["exclude"].empty()) text += "\n# exclude:" + listed(summary["exclude"]);
  return text + "\n" + report_line(report_path);
}

// Host memory of the probes where the engines run on the host.
MemoryNeed envcheck_memory_need(const EnvcheckOptions& options) {
  if (!runs_on_host(options)) return {};
  const auto side = static_cast<std::uint64_t>(options.probe_matrix_n);
  // Overflow-proof for any accepted --probe-n (at most 2^20): 3 float32 matrices and 3 triad arrays.
  return {3 * side * side * sizeof(float) + 3 * options.probe_bytes, "the probes need",
          "lower --probe-n or --probe-bytes, or use fewer ranks per host"};
}

}  // namespace

int run_envcheck(int argc, char** argv) {
  return run_compute_program<EnvcheckWorkload>(
      "envcheck",
      "Inventory of every rank, then short compute (GEMM) and bandwidth (triad) probes, repeated; rank 0\n"
      "compares the medians and flags every rank slower than the fastest by more than --slow-factor.",
      &parse_envcheck_options, &declare_envcheck_options, &envcheck_memory_need, argc, argv);
}

}  // namespace collbench::compute
