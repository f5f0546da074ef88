#include "workloads/collectives/collective_options.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdlib>
#include <limits>

#include "core/command_line.h"
#include "harness/flag_groups.h"
#include "core/error.h"
#include "core/flag_values.h"
#include "report/group_view.h"

namespace collbench {
namespace {

// NCCL_ALGO/NCCL_PROTO values ("Ring,Tree", "^LL128", "allreduce:tree"): NCCL validates the
// names; here only characters that could not belong to one are refused.
std::string parse_nccl_setting(const std::string& value, const std::string& flag) {
  if (value.empty()) throw UsageError(flag + " expects a value such as Ring or Simple");
  for (char c : value) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == ',' || c == '^' || c == ':' || c == ';' || c == '_')) {
      throw UsageError(flag + " value '" + value + "' has a character NCCL does not accept there");
    }
  }
  return value;
}

// Every flag of the collectives, once: parse_options, usage_text and options_as_json read these.
void declare_options(CLI::App& app, CollectiveOptions& o) {
  using Text = const std::string;
  start_section(app, "Sizes (K/M/G/T are 1024-based, like nccl-tests; bandwidth is reported in GB/s = 1e9 B/s)");
  const SweepFlags sweep = add_size_sweep(app, o.sweep, {"SIZE", "smallest message (default 32M)", "largest message (default 32M)",
                                                         "additive step (default 1M)",
                                                         "multiplicative step, may be fractional (> 1, rounded up); conflicts with -i"});
  auto* sizes = add_value(app, "--sizes", "LIST", "explicit sizes, e.g. 8,64K,1M (instead of -b/-e/-i/-f)",
                          [&o](Text& v, Text& f) { o.explicit_sizes = parse_size_list(v, f); });
  sweep.exclude(sizes);
  record(app, {sweep.min, sweep.max, sweep.step, sweep.factor, sizes}, [&o](nlohmann::json& out) {
    out["sizes_bytes"] = o.requested_sizes();
    if (!o.explicit_sizes.empty()) return;
    out["min_bytes"] = o.sweep.min_bytes;
    out["max_bytes"] = o.sweep.max_bytes;
    if (o.sweep.step_factor > 0) out["step_factor"] = o.sweep.step_factor;
    else out["step_bytes"] = o.sweep.step_bytes;
  });
  start_section(app, "Operation");
  auto* dtypes = add_value(app, "-d,--datatype,--dtype", "LIST",
            "int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 float8_e4m3\n"
            "float8_e5m2 (fp8: nccl on sm_90+), comma list or all; half/float/double accepted (default float32)",
            [&o](Text& v, Text& f) {
              o.dtypes = parse_choice_list(v, f, parse_dtype, all_dtypes(), "data type",
                                           "int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64, "
                                           "float8_e4m3, float8_e5m2");
            });
  record_names(app, dtypes, "dtypes", o.dtypes);
  auto* ops = add_value(app, "-o,--op", "LIST", "sum prod min max avg, comma list or all (default sum)",
            [&o](Text& v, Text& f) {
              o.ops = parse_choice_list(v, f, parse_reduce_op, all_reduce_ops(), "reduction op", "sum, prod, min, max, avg");
            });
  record_names(app, ops, "ops", o.ops);
  auto* root = add_value(app, "-r,--root", "N", "root rank for broadcast/reduce/gather/scatter; -1 or all = every rank (default 0)",
            [&o](Text& v, Text& f) { o.root = v == "all" ? kEveryRoot : static_cast<int>(parse_integer(v, f, -1, std::numeric_limits<int>::max())); });
  record_as(app, root, "root", o.root);
  auto* placement = add_value(app, "--placement", "out|in|both", "out-of-place, in-place or both (default both)", [&o](Text& v, Text& f) {
    if (v == "out") o.placement = PlacementChoice::kOut;
    else if (v == "in") o.placement = PlacementChoice::kIn;
    else if (v == "both") o.placement = PlacementChoice::kBoth;
    else throw UsageError("unknown placement '" + v + "' for " + f + " (use out, in or both)");
  });
  record(app, {placement}, [&o](nlohmann::json& out) {
    out["placement"] = o.placement == PlacementChoice::kBoth ? "both" : o.placement == PlacementChoice::kIn ? "in" : "out";
  });
  auto* pattern = add_value(app, "--pattern", "NAME", "alltoallv_perf: per-pair sizes from a seeded generator, each rank sending\n"
            "the row's size in total: uniform (default), zipf:S (receivers' popularity ~ 1/place^S),\n"
            "hotspot:K (K seeded ranks share half of every rank's bytes)",
            [&o](Text& v, Text& f) {
              if (o.traffic.from_matrix()) throw UsageError(f + " and --matrix cannot be combined: a matrix file fixes every pair's bytes");
              o.traffic = parse_traffic_pattern(v, f);
              o.traffic_given = true;
            });
  auto* matrix = add_value(app, "--matrix", "FILE", "alltoallv_perf: per-pair bytes from a CSV file, rank x rank, the row is the\n"
            "sender (one row per size: no -b/-e/--sizes)",
            [&o](Text& v, Text& f) {
              if (o.traffic_given && !o.traffic.from_matrix()) throw UsageError(f + " and --pattern cannot be combined: a matrix file fixes every pair's bytes");
              if (v.empty()) throw UsageError(f + " expects a file name");
              o.traffic = TrafficSpec{TrafficPattern::kMatrix, 0, 0, v};
              o.traffic_given = true;
            });
  record(app, {pattern, matrix}, [&o](nlohmann::json& out) {
    if (!o.traffic_given) return;
    out["traffic_pattern"] = o.traffic.text();
    if (o.traffic.from_matrix()) out["traffic_matrix"] = o.traffic.matrix_path;
  });
  add_backend_flags(app, o, "mpi, gloo or nccl (default: nccl when built with it and a GPU is visible, else mpi)");
  record_as(app, add_integer(app, "-g,--ngpus", "devices per process (CPU backends and nccl today: 1)", o.gpus_per_process, 1, 64),
            "gpus_per_process", o.gpus_per_process);
  start_section(app, "GPU (nccl backend)");
  auto* blocking = add_integer(app, "-z,--blocking", "nccl-tests' -z: 0 batch (default), 1 wait and barrier after each iteration,\n"
              "2 wait after each iteration, 3 time each iteration alone", o.blocking, 0, 3);
  auto* graph = add_integer(app, "-G,--cudagraph", "capture the -n batch once in a CUDA graph and launch it N times (default 0 = no graph)",
              o.graph_launches, 0, 100000);
  auto* per_iteration = add_value(app, "-I,--per_iter_timing", "0|1", "1: per-iteration samples from CUDA events recorded between iterations",
            [&o](Text& v, Text& f) { o.per_iteration_marks = parse_integer(v, f, 0, 1) == 1; });
  auto* issue_time = add_value(app, "-C,--report_cputime", "0|1", "1: print the host's time to issue each call instead of the completion time",
            [&o](Text& v, Text& f) { o.report_issue_time = parse_integer(v, f, 0, 1) == 1; });
  auto* registration = add_integer(app, "-R,--local-register", "buffers from ncclMemAlloc: 0 unregistered (default), 1 ncclCommRegister,\n"
              "2 symmetric window (ncclCommWindowRegister)", o.registration, 0, 2);
  auto* algo = add_value(app, "--algo", "LIST", "nccl: sets NCCL_ALGO before communicator init (e.g. Ring, Tree, ^NVLS);\n"
            "gloo all_reduce: default, ring, ring_chunked, halving_doubling or bcube",
            [&o](Text& v, Text& f) { o.nccl_algo = parse_nccl_setting(v, f); });
  auto* algo_file = add_text(app, "--algo-file", "FILE", "gloo all_reduce: an --algo per size range, as collbench tune writes it\n"
           "('all_reduce FIRST_BYTES LAST_BYTES ALGO' lines; other sizes: gloo's default)", o.algorithm_file);
  auto* proto = add_value(app, "--proto", "LIST", "sets NCCL_PROTO before communicator init (e.g. Simple, LL, LL128)",
            [&o](Text& v, Text& f) { o.nccl_proto = parse_nccl_setting(v, f); });
  auto* capture = add_flag(app, "--capture-algo", "record per size the algorithm/protocol NCCL chose (its TUNING log; costs time)", o.capture_nccl_algorithm);
  auto* estimate = add_flag(app, "--nccl-estimate", "keep NCCL's own estimate per row (ncclGroupSimulateEnd, before the warm-up; all_reduce,\n"
           "broadcast, reduce, all_gather, reduce_scatter at 2+ ranks; unverified, see docs/gpu.md)", o.nccl_estimate);
  // nccl-tests' measurement flags, recorded where they change how rows were made.
  record_unless(app, blocking, "blocking", o.blocking, 0);
  record_unless(app, graph, "graph_launches", o.graph_launches, 0);
  record_unless(app, per_iteration, "per_iteration_timing", o.per_iteration_marks, false);
  record_unless(app, registration, "registration", o.registration, 0);
  // What only prints differently, or what the report keeps elsewhere (context.env's NCCL_ALGO and
  // NCCL_PROTO, the rows' algorithm and estimate fields).
  not_recorded(app, {issue_time, algo, algo_file, proto, capture, estimate});
  start_section(app, "Measurement");
  add_loop_flags(app, o);
  auto* calls = add_integer(app, "-m,--agg_iters", "calls per timed iteration (one NCCL group); times are per call (default 1)",
              o.calls_per_iteration, 1, 1000000);
  record_unless(app, calls, "calls_per_iteration", o.calls_per_iteration, 1);
  auto* average = add_value(app, "-a,--average", "N", "iteration time over ranks: 0 rank 0, 1 mean, 2 min, 3 max (default 1;\n"
            "rows keep the mean, max and min views whatever is printed)",
            [&o](Text& v, Text& f) { o.aggregation = static_cast<TimeAggregation>(parse_integer(v, f, 0, 3)); });
  record(app, {average}, [&o](nlohmann::json& out) { out["time_aggregation"] = std::string(to_string(o.aggregation)); });
  auto* unalign = add_value(app, "-u,--unalign", "N", "buffers start N elements past an aligned address (default 0)", [&o](Text& v, Text& f) {
    o.unaligned_elements = static_cast<int>(parse_integer(v, f, 0, 4096));
  });
  record_unless(app, unalign, "unaligned_elements", o.unaligned_elements, 0);
  auto* bitwise = add_value(app, "-B,--bitwise", "N", "run each case N more times (N >= 2) after timing and checks, same inputs;\n"
            "compare outputs bit for bit across repeats and (all_reduce, all_gather,\n"
            "broadcast) across ranks: #bitdiff column, exit 3 on any difference (default 0 = off)",
            [&o](Text& v, Text& f) {
              o.bitwise_repeats = static_cast<int>(parse_integer(v, f, 0, 1000000));
              if (o.bitwise_repeats == 1) {
                throw UsageError(f + " 1: a bitwise check needs at least 2 repeats to compare (use 2 or more; 0 = off)");
              }
            });
  record_unless(app, bitwise, "bitwise_repeats", o.bitwise_repeats, 0);
  auto* inject_bitwise = add_value(app, "--inject-bitwise-diff", "repeat|rank", "testing aid: one output bit flipped where -B must find it (expect\n"
            "exit 3): in the last repeat of the last rank holding output (repeat), or in every\n"
            "repeat of the last rank that must agree with the others (rank: all_reduce,\n"
            "all_gather, broadcast only; their ranks holding the whole output must agree)",
            [&o](Text& v, Text& f) {
              if (v != "repeat" && v != "rank") throw UsageError("unknown value '" + v + "' for " + f + " (use repeat or rank)");
              o.inject_bitwise_difference = v;
            });
  record_unless(app, inject_bitwise, "inject_bitwise_difference", o.inject_bitwise_difference, std::string());
  auto* min_busbw = add_value(app, "--min-busbw", "GB/s", "exit 1 when the average bus bandwidth is below this (also NCCL_TESTS_MIN_BW)",
                              [&o](Text& v, Text& f) { o.min_busbw_gbps = parse_real(v, f, 0.0); });
  record(app, {min_busbw}, [&o](nlohmann::json& out) {
    if (o.min_busbw_gbps) out["min_busbw_gbps"] = *o.min_busbw_gbps;  // the flag's, or NCCL_TESTS_MIN_BW's
  });
  start_section(app, "Concurrent groups (issue 62; docs/groups.md)");
  auto* split = add_value(app, "--split", "EXPR", "nccl-tests' NCCL_TESTS_SPLIT rule: rank AND|OR|MOD|DIV N (also & | % /, e.g.\n"
            "\"MOD 2\", \"AND 0x3\"); equal colours form a group, every group runs the sweep at once;\n"
            "without this flag NCCL_TESTS_SPLIT_MASK (hex, AND), else NCCL_TESTS_SPLIT is read; the flag wins",
            [&o](Text& v, Text&) {
              o.split = parse_split_rule(v);
              o.split_source = "--split";
            });
  auto* groups = add_value(app, "--groups", "NAME", "named groups instead of --split: host (one per host), rail (one per local rank\n"
            "index across hosts), pairs (rank r with r + N/2), batch:K (random disjoint groups of K)",
            [&o](Text& v, Text&) { o.group_pattern = parse_group_pattern(v); });
  split->excludes(groups);
  auto* group_seed = add_integer(app, "--group-seed", "batch:K's draw (default 1; recorded)", o.group_seed, 0,
                                 std::numeric_limits<long long>::max());
  auto* slow_factor = add_real(app, "--slow-group-factor", "F", "a group is SLOW when its busbw at the largest size is below F times the\n"
           "median of the faster half of its same-size groups: exit 3 (default 0.9)", o.slow_group_factor, 0.0, 1.0);
  auto* alone = add_flag(app, "--alone", "also time each group by itself (the others waiting) after each row: its\n"
           "contention = time beside the others / time alone", o.alone);
  record(app, {split, groups, group_seed, slow_factor, alone}, [&o](nlohmann::json& out) {
    if (!o.grouped()) return;  // absent: one group, as reports before groups
    if (o.split) {
      out["split"] = o.split->text;
      out["split_source"] = o.split_source;
    } else {
      out["groups"] = o.group_pattern->text;
      if (o.group_pattern->kind == GroupPattern::Kind::kBatch) out["group_seed"] = o.group_seed;
    }
    out["slow_group_factor"] = o.slow_group_factor;
    out["slow_group_reference"] = report::to_string(report::kSlowGroupReference);  // how the factor was read
    if (o.alone) out["alone"] = true;
  });
  add_run_flags(app, o);
  add_seed_flag(app, o);
  start_section(app, "Report");
  add_report_flags(app, o);
  auto* timestamps = add_value(app, "-S,--report_timestamps", "0|1", "1: a UTC time stamp at the end of each table line",
            [&o](Text& v, Text& f) { o.report_timestamps = parse_integer(v, f, 0, 1) == 1; });
  auto* memory = add_value(app, "-M,--memory_report", "0|1", "1: print each rank's peak resident memory after the run",
            [&o](Text& v, Text& f) { o.memory_report = parse_integer(v, f, 0, 1) == 1; });
  not_recorded(app, {timestamps, memory});  // what the table prints, not how rows were made
  add_help_flags(app, o);
  app.footer("Exit codes: 0 ok, 1 runtime error, 2 bad usage or input, 3 wrong results, 4 timeout.");
}
}  // namespace

std::string_view to_string(Placement placement) { return placement == Placement::kInPlace ? "in" : "out"; }

std::string CollectiveOptions::grouping_text() const {
  if (split) return "split " + split->text + " (" + split_source + ")";
  if (group_pattern) return "groups " + group_pattern->text + (group_pattern->kind == GroupPattern::Kind::kBatch ? " seed " + std::to_string(group_seed) : "");
  return "";
}

std::vector<std::uint64_t> CollectiveOptions::requested_sizes() const {
  if (!explicit_sizes.empty()) return explicit_sizes;
  return expand_sweep(sweep);
}

std::vector<std::string> CollectiveOptions::gpu_only_flags_in_use() const {
  std::vector<std::string> flags;
  if (blocking != 0) flags.push_back("-z " + std::to_string(blocking));
  if (graph_launches != 0) flags.push_back("-G " + std::to_string(graph_launches));
  if (per_iteration_marks) flags.push_back("-I 1");
  if (report_issue_time) flags.push_back("-C 1");
  if (registration != 0) flags.push_back("-R " + std::to_string(registration));
  if (!nccl_proto.empty()) flags.push_back("--proto");
  if (capture_nccl_algorithm) flags.push_back("--capture-algo");
  if (nccl_estimate) flags.push_back("--nccl-estimate");
  return flags;
}

std::vector<Placement> CollectiveOptions::placements() const {
  switch (placement) {
    case PlacementChoice::kOut: return {Placement::kOutOfPlace};
    case PlacementChoice::kIn: return {Placement::kInPlace};
    case PlacementChoice::kBoth: break;
  }
  return {Placement::kOutOfPlace, Placement::kInPlace};
}

CollectiveOptions parse_options(const std::vector<std::string>& args) {
  CollectiveOptions options = parse_declared(args, CollectiveOptions{}, declare_options);
  if (!options.min_busbw_gbps) {  // nccl-tests' variable; the flag wins when both are given
    if (const char* from_environment = std::getenv("NCCL_TESTS_MIN_BW")) {
      options.min_busbw_gbps = parse_real(from_environment, "NCCL_TESTS_MIN_BW", 0.0);
    }
  }
  // nccl-tests' variables, as its main reads them: the mask wins over the rule; a flag wins over both.
  if (!options.grouped()) {
    const char* mask = std::getenv("NCCL_TESTS_SPLIT_MASK");
    const char* rule = std::getenv("NCCL_TESTS_SPLIT");
    const bool from_mask = mask && *mask;
    options.split_source = from_mask ? "NCCL_TESTS_SPLIT_MASK" : "NCCL_TESTS_SPLIT";
    try {
      if (from_mask) options.split = parse_split_mask(mask);
      else if (rule && *rule) options.split = parse_split_rule(rule);
    } catch (const UsageError& e) {
      throw UsageError(options.split_source + ": " + e.what());
    }
  }
  if (options.alone && !options.grouped()) {
    throw UsageError("--alone times each concurrent group by itself: give --split or --groups (or NCCL_TESTS_SPLIT)");
  }
  if (options.per_iteration_marks && options.graph_launches > 0) {
    throw UsageError("-I 1 and -G cannot be combined: a replayed graph has one set of CUDA events");
  }
  if (!options.inject_bitwise_difference.empty() && options.bitwise_repeats == 0) {
    throw UsageError("--inject-bitwise-diff needs -B N (N >= 2): without it no output is compared bit for bit");
  }
  if (options.traffic.from_matrix()) {
    for (const auto& [flag, values] : options.given) {
      if (flag == "--minbytes" || flag == "--maxbytes" || flag == "--stepbytes" || flag == "--stepfactor" || flag == "--sizes") {
        throw UsageError("--matrix fixes every pair's bytes, so the row's size comes from the file: drop " + flag);
      }
    }
  }
  if (options.explicit_sizes.empty() && !options.show_help && !options.show_version) {
    options.requested_sizes();  // validates the sweep now, so every rank rejects it at once
  }
  return options;
}

std::string usage_text(const std::string& program) {
  return declared_help("[mpirun -np N] " + program + " [options]", "", CollectiveOptions{}, declare_options);
}

nlohmann::json options_as_json(const CollectiveOptions& options) { return recorded_options(options, declare_options); }

}  // namespace collbench
