#include "workloads/compute/compute_flags.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iterator>
#include <utility>

#include "core/command_line.h"
#include "core/error.h"
#include "core/sizes.h"

namespace collbench::compute {
namespace {

// --device's names, for parsing it and for recording it.
const std::pair<const char*, DeviceChoice> kDevices[] = {{"auto", DeviceChoice::kAuto}, {"cpu", DeviceChoice::kCpu}, {"gpu", DeviceChoice::kGpu}};

}  // namespace

void add_compute_flags(CLI::App& app, ComputeFlags& o, const LoopWords& words, const std::string& wrong_results) {
  using Text = const std::string;
  start_section(app, "Measurement");
  add_loop_flags(app, o, words);
  add_run_flags(app, o);
  start_section(app, "Device");
  auto* device = add_value(app, "--device", "cpu|gpu|auto", "auto = the GPU when this build has CUDA and a GPU is visible (default auto)", [&o](Text& v, Text& f) {
    const auto* known = std::find_if(std::begin(kDevices), std::end(kDevices), [&v](const auto& entry) { return v == entry.first; });
    if (known == std::end(kDevices)) throw UsageError("unknown device '" + v + "' for " + f + " (use cpu, gpu or auto)");
    o.device = known->second;
  });
  record(app, {device}, [&o](nlohmann::json& out) {
    for (const auto& [name, choice] : kDevices) {
      if (o.device == choice) out["device"] = name;
    }
  });
  add_integer(app, "-t,--threads",
              "CPU threads per rank (default 0 = every core this rank may run on).\n"
              "mpirun binds each rank to one core by default; to give a rank more cores run\n"
              "mpirun --bind-to none (one rank per node) or --map-by ppr:R:node:pe=T.",
              o.threads, 0, 4096);
  start_section(app, "Report");
  add_report_flags(app, o);
  add_seed_flag(app, o);
  add_help_flags(app, o);
  app.footer("OpenBLAS picks its kernels from the CPU it detects; an old OpenBLAS may pick a slow generic one\n"
             "(\"Prescott\") on a new CPU. The report records the choice and a warning names the OPENBLAS_CORETYPE to set.\n"
             "Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 " + wrong_results + ", 4 timeout.");
}

std::int64_t parse_dimension(const std::string& text, const std::string& flag) {
  const std::uint64_t value = parse_size(text, flag);
  if (value == 0 || value > (1u << 20)) throw UsageError(flag + " matrix dimensions must be between 1 and 1048576, got '" + text + "'");
  return static_cast<std::int64_t>(value);
}

}  // namespace collbench::compute
