#include "workloads/replay/replay_options.h"

#include <CLI/CLI.hpp>

#include "core/command_line.h"
#include "core/error.h"

namespace collbench::replay {
namespace {

std::string format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::kAuto: return "auto";
    case TraceFormat::kNcclLog: return "nccl-log";
    case TraceFormat::kKineto: return "kineto";
    case TraceFormat::kExecutionTrace: return "execution-trace";
  }
  return "auto";
}

// Every flag of replay_perf, once: parse_options, usage_text and options_as_json read these.
void declare_options(CLI::App& app, ReplayOptions& o) {
  using Text = const std::string;
  start_section(app, "The trace (docs/replay.md says how to capture each format)");
  auto* trace = add_value(app, "--trace", "FILE",
            "a recorded job: NCCL's log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL), PyTorch's profiler\n"
            "trace (Kineto JSON) or its execution trace (ExecutionTraceObserver JSON); repeat it for\n"
            "one file per rank (--trace r0.json --trace r1.json), or give one file holding every rank",
            [&o](Text& v, Text& f) {
              if (v.empty()) throw UsageError(f + " expects a file");
              o.trace_paths.push_back(v);
            });
  record(app, {trace}, [&o](nlohmann::json& out) { out["trace"] = o.trace_paths; });
  auto* format = add_value(app, "--trace-format", "FORMAT",
            "auto (default: from the first file's first bytes), nccl-log, kineto or execution-trace",
            [&o](Text& v, Text& f) { o.format = trace_format_flag(v, f); });
  record(app, {format}, [&o](nlohmann::json& out) { out["trace_format"] = format_name(o.format); });
  auto* gaps = add_value(app, "--gaps", "MODE",
            "none: the calls back to back, a benchmark of the job's communication (default)\n"
            "trace: each rank waits the idle time its trace recorded before each call (needs timestamps)",
            [&o](Text& v, Text& f) {
              if (v == "none") o.gaps = Gaps::kNone;
              else if (v == "trace") o.gaps = Gaps::kTrace;
              else throw UsageError("unknown gaps mode '" + v + "' for " + f + " (use none or trace)");
            });
  record(app, {gaps}, [&o](nlohmann::json& out) { out["gaps"] = to_string(o.gaps); });
  start_section(app, "Scale (docs/replay.md says which changes keep the job's meaning)");
  auto* scale = add_value(app, "--scale", "N",
            "replay the trace as the same job at N ranks (default: as recorded): rank r plays recorded rank\n"
            "r mod the trace's ranks; groups of every recorded rank become the new world, smaller groups and\n"
            "sends are replicated (N a multiple of the trace's ranks where it has any); all_reduce,\n"
            "broadcast, reduce and barrier keep each rank's count",
            [&o](Text& v, Text& f) { o.scale.world_size = static_cast<int>(parse_integer(v, f, 1, 1 << 24)); });
  auto* counts = add_value(app, "--scale-counts", "KEEP",
            "what the world's all_gather, reduce_scatter, alltoall, gather and scatter keep under --scale:\n"
            "per-rank (default: each rank's count, so the whole grows with the world) or total (the whole\n"
            "buffer, so each rank's shard shrinks: FSDP with the same model)",
            [&o](Text& v, Text& f) { o.scale.counts = scale_counts_flag(v, f); });
  // Absent unless --scale is given: unscaled reports kept before the flag compare as the same options.
  record(app, {scale, counts}, [&o](nlohmann::json& out) {
    if (o.scale.world_size == 0) return;
    out["scale"] = o.scale.world_size;
    out["scale_counts"] = to_string(o.scale.counts);
  });
  add_backend_flags(app, o, "mpi, gloo or nccl (default: nccl when built with it and a GPU is visible, else mpi)");
  start_section(app, "Measurement (an iteration is one pass over every rank's whole sequence)");
  add_loop_flags(app, o, {"passes"});
  add_run_flags(app, o);
  add_seed_flag(app, o);
  app.get_option("--seed")->description("seed of the checked inputs (default 1)");
  start_section(app, "Report");
  add_report_flags(app, o);
  add_help_flags(app, o);
  app.footer("Each rank issues its own sequence in order, on communicators made once from the trace's groups\n"
             "(groups with the same ranks share one). Rows: the whole sequence per -N cycle, then one per\n"
             "(collective, size bucket [2^k, 2^(k+1)) bytes, dtype, group size): calls, time per call, total per pass,\n"
             "bus bandwidth, and the job's own time per call where the trace has it.\n"
             "Exit codes: 0 ok, 1 runtime error, 2 bad usage or a bad trace, 3 wrong results, 4 timeout.");
}

// A pass is a whole job step's communication, not one call: fewer of them than the collectives' 20.
ReplayOptions replay_defaults() {
  ReplayOptions defaults;
  defaults.iterations = 5;
  defaults.warmup_iterations = 1;
  return defaults;
}

}  // namespace

std::string to_string(Gaps gaps) { return gaps == Gaps::kTrace ? "trace" : "none"; }

ReplayOptions parse_options(const std::vector<std::string>& args) {
  ReplayOptions options = parse_declared(args, replay_defaults(), declare_options);
  if (options.show_help || options.show_version) return options;
  if (options.trace_paths.empty()) throw UsageError("--trace FILE is required (the recorded job to replay)");
  if (options.scale.world_size == 0 && options.scale.counts != ScaleCounts::kPerRank) throw UsageError("--scale-counts needs --scale N");
  return options;
}

std::string usage_text() {
  return declared_help("[mpirun -np N] replay_perf --trace FILE [--trace FILE ...] [options]",
                       "Replays a recorded job's communication (issue 61): every rank issues its own calls of the trace,\n"
                       "in order, on MPI, Gloo or NCCL, and the report has the job's collectives per size bucket.",
                       replay_defaults(), declare_options);
}

nlohmann::json options_as_json(const ReplayOptions& options) { return recorded_options(options, declare_options); }

}  // namespace collbench::replay
