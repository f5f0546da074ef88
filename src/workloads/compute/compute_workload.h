// matmul_perf, membw_perf and envcheck: what they share at run time (build features, the engine
// choice, the program shell). matmul_perf and membw_perf are throughput workloads over the harness's
// one driver (harness/driver.h): every rank measures its own device, each row keeps every rank's figures.
#pragma once

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/compute/compute_flags.h"
#include "workloads/compute/platform_notes.h"
#include "workloads/compute/rank_gather.h"
#include "core/error.h"
#include "core/printable.h"
#include "core/world.h"
#include "engines/host_info.h"
#include "harness/context.h"
#include "harness/driver.h"
#include "harness/measurement_loop.h"
#include "harness/program_shell.h"
#include "report/report_json.h"

namespace collbench::compute {

std::string compute_build_features();
// Whether this rank's buffers will be in host memory (the CPU engines), so that their size is
// checked before anything is allocated; GPU engines allocate on the device.
bool runs_on_host(const ComputeFlags& flags);

// The GPU engine unless --device cpu; the CPU one where there is none, unless --device gpu.
template <typename Engine>
std::unique_ptr<Engine> choose_engine(const ComputeFlags& options, int local_rank, int threads,
                                      std::unique_ptr<Engine> (*make_gpu)(int, std::string*),
                                      std::unique_ptr<Engine> (*make_cpu)(int)) {
  if (options.device != DeviceChoice::kCpu) {
    std::string why_not;
    auto gpu = make_gpu(local_rank, &why_not);
    if (gpu) return gpu;
    if (options.device == DeviceChoice::kGpu) throw Error("--device gpu: " + why_not);
  }
  return make_cpu(threads);
}

// matmul_perf and membw_perf: rows of one throughput kind (gemm, stream) measured by one engine
// per rank (GemmEngine, StreamEngine), over a list of `Case`s, with the program's `Options`.
template <typename Options, typename Engine, typename Case>
class ThroughputWorkload : public WorkloadOver<Case> {
 public:
  // This rank's engine (choose_engine) and CPU threads.
  ThroughputWorkload(RunContext& run, const Options& options, report::RowKind row_kind,
                     std::unique_ptr<Engine> (*make_gpu)(int, std::string*), std::unique_ptr<Engine> (*make_cpu)(int))
      : WorkloadOver<Case>(run.world, options, row_kind),
        options_(options),
        host_(probe_host()),
        threads_(options.threads > 0 ? options.threads : host_.affinity_cores),
        engine_(choose_engine(options, run.world.local_rank(), threads_, make_gpu, make_cpu)),
        on_cpu_(engine_->device() == "cpu") {}

 protected:
  // `wrong_text` says what the run's wrong count counts.
  std::string footer(const nlohmann::json&, std::int64_t wrong_total, const std::string& report_path) const override {
    return formatted("# rows: %d, %s\n", this->row_summary().rows(), wrong_text(wrong_total).c_str()) + report_line(report_path);
  }
  virtual std::string wrong_text(std::int64_t wrong_total) const = 0;

  // The report without rows: context (every rank's identity and `recorded`, the options as their
  // declarations record them) and every rank's platform (collective calls); rank 0 prints the
  // platforms' warnings, as `benchmark`_perf.
  nlohmann::json start_report(RunContext& run, const std::string& benchmark, nlohmann::json recorded, const std::string& device,
                              const report::RankPlatform& mine) {
    nlohmann::json report =
        report::envelope_json(benchmark, collect_context(run.world, "compute", device, run.argv, options_, std::move(recorded)));
    const std::vector<report::RankPlatform> platform = gather_platforms(run.world, mine);
    const std::vector<std::string> warnings = distinct_warnings(platform);
    if (run.world.rank() == 0) {
      for (const auto& warning : warnings) {
        print_line(stderr, benchmark + "_perf: warning: " + warning);  // other ranks' platforms
      }
    }
    report.update({{"platform", platform}, {"warnings", warnings}, {"skipped", nlohmann::json::array()}});
    return report;
  }

  // Every rank, once `per_rank` holds every rank's figures: the row of `fields` (what the kind
  // identifies) with what every throughput kind fills the same way (`work` per iteration over the
  // mean time, in units of `scale`), under the kind's headline unit ("tflops", "gbps").
  // The row's wrong count is the ranks' own (GEMM: ranks whose error exceeded the bound).
  nlohmann::json finish_row(nlohmann::json fields, const std::vector<report::ThroughputRank>& per_rank, const std::string& device,
                            int threads, double work, double scale, const std::optional<double>& peak,
                            report::Measurement measured) const {
    const std::string unit = report::row_kind_spec(this->row_kind()).figures.front().path;
    const double rate = work / (measured.time_us.mean * 1e-6) / scale;
    if (measured.check_iterations > 0) {
      std::int64_t wrong = 0;
      for (const auto& rank : per_rank) wrong += rank.wrong.value_or(0);
      measured.wrong = wrong;
    }
    fields.update({{"device", device},
                   {"threads", threads},
                   {unit, rate},
                   {"peak_" + unit, report::json_or_null(peak)},
                   {"percent_of_peak", peak ? nlohmann::json(100.0 * rate / *peak) : nlohmann::json(nullptr)},
                   {"per_rank", rank_figures_json(per_rank, unit)},
                   {"spread", report::to_json(spread_of_ranks(per_rank), unit.c_str())}});
    return report::row_json(this->row_kind(), std::move(fields), measured);
  }

  const Options& options_;
  const HostInfo host_;  // what this rank probed
  const int threads_;
  std::unique_ptr<Engine> engine_;
  const bool on_cpu_;
};

// The shell around one compute program `name`: `Run` is its run (a Workload), made from the options
// `parse` gives; --help lists the flags of `declare` with the program's defaults under `description`.
template <typename Run, typename Options>
int run_compute_program(const std::string& name, const std::string& description, Options (*parse)(const std::vector<std::string>&),
                        void (*declare)(CLI::App&, Options&), MemoryNeed (*memory_need)(const Options&), int argc, char** argv) {
  return run_program(name, argc, argv, [=](const std::vector<std::string>& args) {
    const auto options = std::make_shared<const Options>(parse(args));
    ProgramSpec spec = program_spec_of<Run>(options, *options);
    spec.help = [=] { return declared_help("[mpirun -np N] " + name + " [options]", description, Options{}, declare); };
    spec.build_features = compute_build_features;
    spec.memory_need = [options, memory_need](int) { return memory_need(*options); };
    return spec;
  });
}

}  // namespace collbench::compute
