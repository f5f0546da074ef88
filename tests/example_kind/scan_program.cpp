// scan_perf: how fast each rank reads a host buffer (a byte sum over it), the example kind of
// docs/layout.md "Adding a workload kind": its options, program and run over the one driver. The
// sum of a buffer filled with i % 251 has a closed form, so every row is checked.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "core/command_line.h"
#include "core/sizes.h"
#include "harness/context.h"
#include "harness/driver.h"
#include "harness/flag_groups.h"
#include "harness/program_shell.h"
#include "report/report_json.h"
#include "report/scan_rows.h"
#include "scan_program.h"

namespace collbench::scan {
namespace {

struct ScanOptions : RunFlags {
  SizeSweep sweep{1024, 1u << 20, 0, 4.0};
};

// Every flag of scan_perf, once: parsing, --help and the report's options read these. The sizes
// are recorded as the list they expand to; the loop, run, report and help groups are every program's.
void declare_options(CLI::App& app, ScanOptions& options) {
  const SweepFlags sweep = add_size_sweep(app, options.sweep, {"SIZE", "smallest buffer (default 1K)", "largest buffer (default 1M)",
                                                               "additive step", "multiplicative step (default 4); conflicts with -i"});
  record(app, {sweep.min, sweep.max, sweep.step, sweep.factor}, [&options](nlohmann::json& out) { out["sizes"] = expand_sweep(options.sweep); });
  add_loop_flags(app, options);
  add_run_flags(app, options);
  add_report_flags(app, options);
  add_help_flags(app, options);
  app.footer("Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 wrong sum, 4 timeout.");
}

// The sum of bytes 0..n-1 of the buffer, whose byte i is i % 251.
std::uint64_t expected_sum(std::uint64_t bytes) {
  const std::uint64_t whole = bytes / 251, rest = bytes % 251;
  return whole * (250 * 251 / 2) + rest * (rest - 1) / 2;  // rest 0: 0 whatever rest - 1 wraps to
}

class ScanWorkload final : public WorkloadOver<std::uint64_t> {  // its cases: bytes
 public:
  ScanWorkload(RunContext& run, const ScanOptions& options) : WorkloadOver(run.world, options, report::kScanRows), options_(options) {
    cases_ = expand_sweep(options_.sweep);
    buffer_.resize(cases_.back());
    for (std::size_t i = 0; i < buffer_.size(); ++i) buffer_[i] = static_cast<std::uint8_t>(i % 251);
    const report::Context context = collect_context(run.world, "none", "cpu", run.argv, options_, recorded_options(options_, declare_options));
    report_without_rows_ = report::envelope_json("scan", context);
  }

 private:
  CasePlan prepare(std::size_t index) override {
    const std::uint64_t bytes = cases_[index];
    PreparedCase prepared;
    prepared.step = "scan of " + std::to_string(bytes) + " B";
    prepared.operation = std::make_unique<FunctionOperation>(TimingSchedule::kBarrierEachIteration, [this, bytes](int) {
      sum_ = std::accumulate(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(bytes), std::uint64_t{0});
    });
    const bool corrupt = options_.inject_corrupt_output && world_.rank() == world_.size() - 1;
    prepared.check = RowCheck{[this](int) { sum_ = 0; }, [this, bytes, corrupt](int) -> std::int64_t {
                                return sum_ != expected_sum(bytes) || corrupt ? 1 : 0;
                              }};
    prepared.row = [bytes](LoopResult&, report::Measurement measured) {
      const double gbps = measured.time_us.mean > 0 ? static_cast<double>(bytes) / (measured.time_us.mean * 1e3) : 0.0;
      return report::row_json(report::kScanRows, {{"device", "cpu"}, {"bytes", bytes}, {"gbps", gbps}}, measured);
    };
    return CasePlan::run(std::move(prepared));
  }

  const ScanOptions& options_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t sum_ = 0;
};

}  // namespace

int run_scan_perf(int argc, char** argv) {
  return run_program("scan_perf", argc, argv, [](const std::vector<std::string>& args) {
    const auto options = std::make_shared<const ScanOptions>(parse_declared(args, ScanOptions{}, declare_options));
    ProgramSpec program = program_spec_of<ScanWorkload>(options, *options);
    program.help = [] { return declared_help("scan_perf [options]", "Reads a host buffer per rank; GB/s = 1e9 bytes read/s.", ScanOptions{}, declare_options); };
    program.build_features = [] { return std::string("host only"); };
    return program;
  });
}

}  // namespace collbench::scan
