// membw_perf: STREAM copy/scale/add/triad over every rank's own memory, every array verified.
#include <algorithm>
#include <memory>

#include "engines/engines.h"
#include "workloads/compute/compute_workload.h"
#include "workloads/compute/platform_notes.h"
#include "workloads/membw/membw_program.h"
#include "workloads/compute/rank_gather.h"
#include "workloads/membw/membw_options.h"
#include "workloads/membw/report/stream_rows.h"

namespace collbench::compute {
namespace {

struct StreamCase {
  std::uint64_t elements;  // per array
  StreamKernel kernel;
};

// Host memory of STREAM's three arrays at the largest size where the engine runs on the host.
MemoryNeed membw_memory_need(const MembwOptions& options) {
  if (!runs_on_host(options)) return {};
  const auto sizes = options.array_sizes();
  return {3 * *std::max_element(sizes.begin(), sizes.end()), "the sweep needs", "lower -e or --sizes, or use fewer ranks per host"};
}

// One run of membw_perf: array sizes x kernels over this rank's STREAM engine.
class MembwWorkload final : public ThroughputWorkload<MembwOptions, StreamEngine, StreamCase> {
 public:
  MembwWorkload(RunContext& run, const MembwOptions& options)
      : ThroughputWorkload(run, options, report::kStreamRows, &make_gpu_stream_engine, &make_cpu_stream_engine) {
    std::vector<StreamKernel> kernels = options_.kernels;
    if (!on_cpu_ && !options_.kernels_given) kernels.push_back(StreamKernel::kMemcpy);
    for (std::uint64_t bytes : options_.array_sizes()) {
      for (StreamKernel kernel : kernels) cases_.push_back({bytes / sizeof(double), kernel});
    }
    report_without_rows_ = start_report(run, "membw", recorded_options(options_, declare_membw_options), engine_->device(),
                                        local_platform(host_, options_.threads, on_cpu_ ? threads_ : 0, run.world.size(),
                                                       engine_->device(), on_cpu_ ? "OpenMP" : "CUDA", /*uses_openblas=*/false));
  }

 private:
  std::string header(const nlohmann::json&) const override {
    return formatted("# membw_perf: %d rank(s); rank 0: %s%s\n", world_.size(), engine_->device().c_str(),
                     on_cpu_ ? (", " + std::to_string(threads_) + " OpenMP threads").c_str() : "") +
           "# GB/s = 1e9 B/s of bytes counted as STREAM does; time = max over ranks per iteration\n";
  }

  CasePlan prepare(std::size_t index) override;
  // A GPU's clocks and a first touch of its memory are warm before the first row however the
  // sweep starts, as for the collectives.
  std::optional<double> warmup_size(std::size_t index) const override { return static_cast<double>(cases_[index].elements); }

  std::string wrong_text(std::int64_t wrong_total) const override { return "wrong elements: " + std::to_string(wrong_total); }

  std::uint64_t prepared_elements_ = 0;  // what the arrays hold STREAM's start values for; 0: not so
  std::int64_t wrong_ = 0;               // this rank's wrong elements over the current case's checks
};

CasePlan MembwWorkload::prepare(std::size_t index) {
  const StreamCase& one_case = cases_[index];
  const std::string reason = engine_->unsupported_reason(one_case.kernel);
  if (!reason.empty()) return CasePlan::skip_what(to_string(one_case.kernel), reason);
  if (prepared_elements_ != one_case.elements) {  // a new size, or the check's pattern is in the arrays
    engine_->prepare(one_case.elements);
    prepared_elements_ = one_case.elements;
  }
  PreparedCase prepared;
  prepared.step = "membw " + to_string(one_case.kernel) + " at " + std::to_string(one_case.elements * sizeof(double)) + " B";
  const StreamKernel kernel = one_case.kernel;
  prepared.operation = std::make_unique<FunctionOperation>(
      engine_->schedule(), [this, kernel](int) { engine_->issue(kernel); }, [this] { engine_->wait(); });
  wrong_ = 0;
  if (options_.check_iterations > 0) {
    RowCheck check;
    check.prepare = [this](int) {
      engine_->fill_check_inputs();
      prepared_elements_ = 0;  // the next kernel starts from STREAM's values again
    };
    check.count_wrong = [this, kernel](int) {
      const std::int64_t wrong =
          engine_->count_wrong(kernel, options_.inject_corrupt_output && world_.rank() == world_.size() - 1);
      wrong_ += wrong;
      return wrong;
    };
    prepared.check = std::move(check);
  }
  prepared.row = [this, one_case](LoopResult& timed, report::Measurement measured) {
    const std::uint64_t counted = stream_bytes_counted(one_case.kernel, one_case.elements);
    report::ThroughputRank figures;
    figures.time_us = timed.mine;
    figures.rate = static_cast<double>(counted) / (figures.time_us.mean * 1e-6) / 1e9;
    const auto peak = engine_->peak_gbps();
    if (peak) figures.percent_of_peak = 100.0 * figures.rate / *peak;
    if (options_.check_iterations > 0) figures.wrong = wrong_;
    nlohmann::json fields = {{"kernel", to_string(one_case.kernel)},
                             {"bytes", one_case.elements * sizeof(double)},
                             {"bytes_counted", counted}};
    // STREAM counts each array a pass touches once, so the counted bytes are its working set.
    if (engine_->cache_bytes() > 0) {
      fields["cache_bytes"] = engine_->cache_bytes();
      fields["cache_resident"] = fits_in_cache(counted, engine_->cache_bytes());
    }
    return finish_row(std::move(fields), gather_rank_figures(world_, figures), engine_->device(), on_cpu_ ? threads_ : 0,
                      static_cast<double>(counted), 1e9, peak, std::move(measured));
  };
  return CasePlan::run(std::move(prepared));
}

}  // namespace

int run_membw_perf(int argc, char** argv) {
  return run_compute_program<MembwWorkload>(
      "membw_perf",
      "STREAM copy/scale/add/triad on every rank's own memory; every rank's figures and their spread are\n"
      "reported. GB/s = 1e9 bytes/s, counted as STREAM does (copy, scale 2 arrays; add, triad 3; no write-allocate).",
      &parse_membw_options, &declare_membw_options, &membw_memory_need, argc, argv);
}

}  // namespace collbench::compute
