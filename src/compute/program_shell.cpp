#include "compute/program_shell.h"

#include <cstdio>
#include <optional>

#include "harness/launcher_env.h"
#include "backends/mpi/mpi_world.h"
#include "harness/context.h"
#include "core/error.h"
#include "core/options.h"
#include "report/report_file.h"

namespace collbench::compute {
namespace {

std::string build_features() {
#ifdef COLLBENCH_HAVE_CUDA
  return "cpu: openblas, openmp; gpu: cuda, cublaslt";
#else
  return "cpu: openblas, openmp; gpu: not built (no CUDA toolkit found)";
#endif
}

}  // namespace

nlohmann::json compute_options_as_json(const ComputeOptions& options) {
  nlohmann::json out = {{"iterations", options.iterations},
                        {"warmup_iterations", options.warmup_iterations},
                        {"check_iterations", options.check_iterations},
                        {"threads", options.threads},
                        {"device", to_string(options.device)},
                        {"seed", options.seed},
                        {"inject_corrupt_output", options.inject_corrupt_output}};
  if (options.program == ComputeProgram::kMatmul) {
    nlohmann::json shapes = nlohmann::json::array(), types = nlohmann::json::array();
    for (const auto& shape : options.gemm_shapes()) shapes.push_back({shape.m, shape.n, shape.k});
    for (GemmType type : options.gemm_types) types.push_back(to_string(type));
    out["shapes_mnk"] = shapes;
    out["dtypes"] = types;
    out["rotate_sets"] = options.rotate_sets == 0 ? nlohmann::json("auto") : nlohmann::json(options.rotate_sets);
  } else if (options.program == ComputeProgram::kMembw) {
    nlohmann::json kernels = nlohmann::json::array();
    for (StreamKernel kernel : options.kernels) kernels.push_back(to_string(kernel));
    out["array_bytes"] = options.array_sizes();
    out["kernels"] = kernels;
  } else {
    out = {{"threads", options.threads}, {"device", to_string(options.device)}, {"seed", options.seed},
           {"slow_factor", options.slow_factor}, {"repeats", options.probe_repeats}, {"probe_ms", options.probe_ms},
           {"probe_n", options.probe_matrix_n}, {"probe_bytes", options.probe_bytes}};
  }
  return out;
}

report::Context compute_context(World& world, const std::string& device, const ProgramSetup& setup,
                                const ComputeOptions& options) {
  // The collectives' context collector gathers identities and versions; only the options differ.
  report::Context context = collect_context(world, "compute", device, setup.argv, Options{});
  context.options = compute_options_as_json(options);
  context.tags = options.tags;
  return context;
}

int run_compute_program(ComputeProgram program, int argc, char** argv, ProgramBody& body) {
  ProgramSetup setup;
  setup.program = program_name(program);
  setup.argv.assign(argv, argv + argc);
  const bool printer = launcher_rank() == 0;
  ComputeOptions options;
  try {
    options = parse_compute_options(program, std::vector<std::string>(setup.argv.begin() + 1, setup.argv.end()));
  } catch (const UsageError& e) {
    if (printer) std::fprintf(stderr, "%s: error: %s\n", setup.program.c_str(), e.what());
    return static_cast<int>(ExitCode::kUsage);
  }
  if (options.show_help) {
    if (printer) std::fputs(compute_usage_text(program).c_str(), stdout);
    return 0;
  }
  if (options.show_version) {
    if (printer) std::printf("collbench %s (%s)\n", collbench_version().c_str(), build_features().c_str());
    return 0;
  }

  mpi::MpiSession session(&argc, &argv);
  std::optional<mpi::MpiWorld> world;
  try {
    world.emplace();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", setup.program.c_str(), e.what());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  const bool leader = world->rank() == 0;
  std::string report_problem;
  if (leader && !options.report_path.empty()) {
    try {
      report::ReportFile check(options.report_path, options.overwrite_report);
      setup.report_path = check.path();
    } catch (const UsageError& e) {
      report_problem = e.what();
    }
  }
  try {
    report_problem = world->broadcast_string(report_problem);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", setup.program.c_str(), e.what());
    world->abort(static_cast<int>(ExitCode::kRuntimeError));
  }
  if (!report_problem.empty()) {
    if (leader) std::fprintf(stderr, "%s: error: %s\n", setup.program.c_str(), report_problem.c_str());
    return static_cast<int>(ExitCode::kUsage);
  }
  try {
    return body.measure(*world, options, setup);
  } catch (const UsageError& e) {
    if (leader) std::fprintf(stderr, "%s: error: %s\n", setup.program.c_str(), e.what());
    return static_cast<int>(ExitCode::kUsage);  // raised identically on every rank
  } catch (const std::exception& e) {
    const auto* error = dynamic_cast<const Error*>(&e);
    const int code = static_cast<int>(error ? error->code() : ExitCode::kRuntimeError);
    std::fprintf(stderr, "%s: error on rank %d (%s): %s\n", setup.program.c_str(), world->rank(), world->host().c_str(), e.what());
    if (leader) {
      try {
        body.save_partial(e.what());
      } catch (const std::exception&) {
        // the error above is the one worth reporting
      }
    }
    world->abort(code);
  }
}

}  // namespace collbench::compute
