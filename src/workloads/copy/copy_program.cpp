// copy_perf: how fast one process moves bytes (the copy engines of engines/engines.h), as a workload
// over the harness's driver, with matrices over GPU pairs at the largest size. Without a visible GPU
// (or a CUDA build) it measures host memcpy and says the GPU modes are unavailable. P2P between
// ranks is sendrecv_perf's job.
#include <CLI/CLI.hpp>

#include <memory>

#include "workloads/compute/compute_workload.h"
#include "engines/engines.h"
#include "workloads/copy/copy_program.h"
#include "core/command_line.h"
#include "report/table.h"
#include "workloads/copy/report/copy_rows.h"

namespace collbench::compute {
namespace {

struct CopyOptions : RunFlags {
  SizeSweep sweep{8, 64u << 20, 0, 4.0};
  bool host_only = false;  // --host-only: the memcpy baseline even where GPUs are visible
};

// Every flag of copy_perf, once: parsing, --help and the report's options read these.
void declare_options(CLI::App& app, CopyOptions& options) {
  start_section(app, "Sizes (K/M/G 1024-based)");
  const SweepFlags sweep = add_size_sweep(app, options.sweep, {"SIZE", "smallest copy (default 8)", "largest copy (default 64M)",
                                                               "additive step", "multiplicative step (default 4); conflicts with -i"});
  record(app, {sweep.min, sweep.max, sweep.step, sweep.factor},
         [&options](nlohmann::json& out) { out["sizes"] = expand_sweep(options.sweep); });
  start_section(app, "Options");
  add_loop_flags(app, options);
  add_run_flags(app, options);
  add_report_flags(app, options);
  add_flag(app, "--host-only", "only the host memcpy baseline", options.host_only);
  add_help_flags(app, options);
  app.footer("Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 wrong bytes, 4 timeout.");
}

CopyOptions parse_copy_options(const std::vector<std::string>& args) {
  CopyOptions options = parse_declared(args, CopyOptions{}, declare_options);
  if (!options.show_help && !options.show_version) expand_sweep(options.sweep);  // validates now
  return options;
}

// GB/s between every GPU pair at the largest size, one matrix per engine and direction, for the
// report and the lines under the table.
nlohmann::json pair_matrices(const nlohmann::json& rows, std::size_t devices) {
  nlohmann::json matrices = nlohmann::json::array();
  if (devices < 2 || rows.empty()) return matrices;
  const std::uint64_t largest = rows.back()["bytes"];
  for (const char* engine : {"ce", "sm"}) {
    for (const char* direction : {"uni", "bi"}) {
      std::vector<std::vector<nlohmann::json>> matrix(devices, std::vector<nlohmann::json>(devices));
      for (const auto& row : rows) {
        if (row["mode"] != "p2p" || row["engine"] != engine || row["direction"] != direction || row["bytes"] != largest) continue;
        matrix[row["src_device"].get<std::size_t>()][row["dst_device"].get<std::size_t>()] = row["gbps"];
      }
      matrices.push_back({{"engine", engine}, {"direction", direction}, {"bytes", largest}, {"gbps", matrix}});
    }
  }
  return matrices;
}

// One run of copy_perf: its engine, and the cases it offers: (path, bytes), sizes outermost.
class CopyWorkload final : public WorkloadOver<std::pair<std::size_t, std::uint64_t>> {
 public:
  CopyWorkload(RunContext& run, const CopyOptions& options) : WorkloadOver(run.world, options, report::kCopyRows), options_(options) {
    const std::vector<std::uint64_t> sizes = expand_sweep(options_.sweep);
    std::string unavailable;
    if (!options_.host_only) engine_ = make_gpu_copy_engine(sizes.back(), &unavailable);
    if (!engine_) engine_ = make_host_copy_engine(sizes.back());
    for (std::uint64_t bytes : sizes) {
      for (std::size_t path = 0; path < engine_->paths().size(); ++path) cases_.emplace_back(path, bytes);
    }
    report::Context context = collect_context(run.world, "copy", "host", run.argv, options_, recorded_options(options_, declare_options));
    for (const auto& [name, version] : engine_->versions()) context.versions[name] = version;
    nlohmann::json& report = report_without_rows_ = report::envelope_json("copy", context);
    for (const std::string& device : engine_->devices()) report["context"]["devices"].push_back(device);
    if (!unavailable.empty()) report["context"]["gpu_modes_unavailable"] = unavailable;
  }

 private:
  std::string header(const nlohmann::json& report) const override {
    const std::string unavailable = report["context"].value("gpu_modes_unavailable", "");
    return unavailable.empty() ? "" : "# GPU modes unavailable: " + unavailable + "; measuring host memcpy only\n";
  }
  // As the collectives: the first rows of a sweep that starts large are no colder than the rest.
  std::optional<double> warmup_size(std::size_t index) const override { return static_cast<double>(cases_[index].second); }

  CasePlan prepare(std::size_t index) override {
    const auto [path_index, bytes] = cases_[index];  // named again in the lambdas below: C++17 captures no bindings
    const CopyPath& path = engine_->paths()[path_index];
    PreparedCase prepared;
    prepared.step = "copy " + path.mode + " " + path.engine + " " + path.direction + " at " + std::to_string(bytes) + " B";
    prepared.operation = std::make_unique<FunctionOperation>(
        engine_->schedule(), [this, path_index = path_index, bytes = bytes](int) { engine_->issue(path_index, bytes); },
        [this, path_index = path_index] { engine_->wait(path_index); });
    // The check: the destination poisoned, one copy, then every byte compared with the source.
    const bool checked = engine_->checks() && options_.check_iterations > 0;
    if (checked) {
      const bool corrupt = options_.inject_corrupt_output && world_.rank() == world_.size() - 1;
      prepared.check = RowCheck{[this, bytes = bytes](int) { engine_->poison(bytes); },
                                [this, bytes = bytes, corrupt](int) { return engine_->count_wrong(bytes, corrupt); }};
    }
    prepared.row = [path, bytes = bytes](LoopResult&, report::Measurement measured) {
      const double moved = static_cast<double>(path.direction == "bi" ? 2 * bytes : bytes);
      const double gbps = measured.time_us.mean > 0 ? moved / (measured.time_us.mean * 1e3) : 0.0;
      nlohmann::json fields = {{"mode", path.mode}, {"memory", path.memory}, {"engine", path.engine}, {"direction", path.direction},
                               {"src_device", path.source}, {"dst_device", path.destination}, {"bytes", bytes}, {"gbps", gbps}};
      if (path.mode == "d2d") fields["read_plus_write_gbps"] = 2 * gbps;
      // Source and destination are reused every iteration: when both fit in the cache, the row
      // times the cache, and says so instead of passing for a memory bandwidth.
      if (path.cache_bytes > 0) {
        fields["cache_bytes"] = path.cache_bytes;
        fields["cache_resident"] = fits_in_cache(2 * bytes, path.cache_bytes);
      }
      return report::row_json(report::kCopyRows, std::move(fields), measured);
    };
    return CasePlan::run(std::move(prepared));
  }

  int finish(RunContext& run, nlohmann::json& report, std::int64_t) override {
    if (run.world.rank() == 0) report["matrices"] = pair_matrices(report["results"], engine_->devices().size());
    return 0;
  }
  std::string footer(const nlohmann::json& report, std::int64_t, const std::string&) const override {
    std::string text;
    for (const auto& matrix : report["matrices"]) {
      text += formatted("# p2p %s %s GB/s at %s (row = source GPU, column = destination)\n", matrix["engine"].get<std::string>().c_str(),
                        matrix["direction"].get<std::string>().c_str(), format_size(matrix["bytes"].get<std::uint64_t>()).c_str());
      text += report::matrix_text(matrix["gbps"]);
    }
    return text;
  }

  const CopyOptions& options_;
  std::unique_ptr<CopyEngine> engine_;
};

}  // namespace

int run_copy_perf(int argc, char** argv) {
  return run_program("copy_perf", argc, argv, [](const std::vector<std::string>& args) {
    const auto options = std::make_shared<const CopyOptions>(parse_copy_options(args));
    ProgramSpec program = program_spec_of<CopyWorkload>(options, *options);
    program.help = [] {
      return declared_help("copy_perf [options]",
                           "Modes with a GPU: h2d/d2h pinned and pageable (copy engine; bi = both at once), d2d within each\n"
                           "GPU and p2p between every GPU pair, copy engine (ce) vs SM kernel (sm), uni- and bidirectional.\n"
                           "GB/s = 1e9 bytes/s of data copied (d2d also moves as many bytes read as written).",
                           CopyOptions{}, declare_options);
    };
    program.build_features = compute_build_features;
    program.memory_need = [options](int) -> MemoryNeed {
      // Two host buffers of the largest size; the GPU copies add two pinned ones.
      const std::uint64_t largest = expand_sweep(options->sweep).back();
      const std::uint64_t buffers = options->host_only || !probe_gpu(0).present ? 2 : 4;
      return {largest > UINT64_MAX / buffers ? UINT64_MAX : buffers * largest, "the sweep needs", "lower -e"};
    };
    return program;
  });
}

}  // namespace collbench::compute
