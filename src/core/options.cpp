#include "core/options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "core/flag_values.h"

namespace collbench {
namespace {

struct Flag {
  char short_name;          // 0 when there is none
  const char* long_name;
  const char* alias;        // a second long name (nccl-tests spelling), or nullptr
  bool takes_value;
  std::function<void(Options&, const std::string& value, const std::string& flag)> apply;
};




std::vector<DType> parse_dtype_list(const std::string& value, const std::string& flag) {
  if (value == "all") return all_dtypes();
  std::vector<DType> types;
  for (const auto& item : split_list(value)) {
    const auto type = parse_dtype(item);
    if (!type) {
      throw UsageError("unknown data type '" + item + "' for " + flag +
                       " (use int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64 or all)");
    }
    types.push_back(*type);
  }
  if (types.empty()) throw UsageError(flag + " expects at least one data type");
  return types;
}

std::vector<ReduceOp> parse_op_list(const std::string& value, const std::string& flag) {
  if (value == "all") return all_reduce_ops();
  std::vector<ReduceOp> ops;
  for (const auto& item : split_list(value)) {
    const auto op = parse_reduce_op(item);
    if (!op) throw UsageError("unknown reduction op '" + item + "' for " + flag + " (use sum, prod, min, max, avg or all)");
    ops.push_back(*op);
  }
  if (ops.empty()) throw UsageError(flag + " expects at least one op");
  return ops;
}

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


const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {'b', "minbytes", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.sweep.min_bytes = parse_size(v, f); }},
      {'e', "maxbytes", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.sweep.max_bytes = parse_size(v, f); }},
      {'i', "stepbytes", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.sweep.step_bytes = parse_size(v, f); }},
      {'f', "stepfactor", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         o.sweep.step_factor = parse_real(v, f);
         if (!(o.sweep.step_factor > 1.0)) throw UsageError(f + " must be greater than 1, got '" + v + "'");
       }},
      {0, "sizes", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         o.explicit_sizes.clear();
         for (const auto& item : split_list(v)) {
           const auto size = parse_size(item, f);
           if (size == 0) throw UsageError(f + " sizes must be at least 1 byte");
           o.explicit_sizes.push_back(size);
         }
         if (o.explicit_sizes.empty()) throw UsageError(f + " expects a comma-separated list of sizes");
       }},
      {'n', "iters", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.iterations = static_cast<int>(parse_integer(v, f, 1, 100000000)); }},
      {'w', "warmup_iters", "warmup-iters", true, [](Options& o, const std::string& v, const std::string& f) { o.warmup_iterations = static_cast<int>(parse_integer(v, f, 0, 100000000)); }},
      {'c', "check", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.check_iterations = static_cast<int>(parse_integer(v, f, 0, 1000000)); }},
      {'o', "op", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.ops = parse_op_list(v, f); }},
      {'d', "datatype", "dtype", true, [](Options& o, const std::string& v, const std::string& f) { o.dtypes = parse_dtype_list(v, f); }},
      {'r', "root", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         o.root = v == "all" ? kEveryRoot : static_cast<int>(parse_integer(v, f, -1, std::numeric_limits<int>::max()));
       }},
      {'a', "average", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         o.aggregation = static_cast<TimeAggregation>(parse_integer(v, f, 0, 3));
       }},
      {'N', "run_cycles", "cycles", true, [](Options& o, const std::string& v, const std::string& f) {
         o.cycles = static_cast<int>(parse_integer(v, f, 1, 1000000));
       }},
      {'J', "report", "output_json", true, [](Options& o, const std::string& v, const std::string& f) {
         if (v.empty()) throw UsageError(f + " expects a file path");
         o.report_path = v;
       }},
      {0, "overwrite", nullptr, false, [](Options& o, const std::string&, const std::string&) { o.overwrite_report = true; }},
      {'T', "timeout", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         o.timeout_seconds = parse_real(v, f);
         if (o.timeout_seconds < 0 || o.timeout_seconds > 1e6) throw UsageError(f + " must be between 0 and 1000000 seconds, got '" + v + "'");
       }},
      {0, "placement", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         if (v == "out") o.placement = PlacementChoice::kOut;
         else if (v == "in") o.placement = PlacementChoice::kIn;
         else if (v == "both") o.placement = PlacementChoice::kBoth;
         else throw UsageError("unknown placement '" + v + "' for " + f + " (use out, in or both)");
       }},
      {0, "backend", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         if (v.empty()) throw UsageError(f + " expects a backend name");
         o.backend = v;
       }},
      {0, "samples", nullptr, false, [](Options& o, const std::string&, const std::string&) { o.keep_samples = true; }},
      {0, "tag", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         auto [key, tag_value] = parse_tag(v, f);
         o.tags[key] = std::move(tag_value);
       }},
      {0, "seed", nullptr, true, [](Options& o, const std::string& v, const std::string& f) {
         o.seed = static_cast<std::uint64_t>(parse_integer(v, f, 0, 1LL << 40));
       }},
      {'g', "ngpus", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.gpus_per_process = static_cast<int>(parse_integer(v, f, 1, 64)); }},
      {'z', "blocking", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.blocking = parse_integer(v, f, 0, 1) == 1; }},
      {'G', "cudagraph", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.graph_calls = static_cast<int>(parse_integer(v, f, 0, 100000)); }},
      {0, "algo", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.nccl_algo = parse_nccl_setting(v, f); }},
      {0, "proto", nullptr, true, [](Options& o, const std::string& v, const std::string& f) { o.nccl_proto = parse_nccl_setting(v, f); }},
      {0, "capture-algo", nullptr, false, [](Options& o, const std::string&, const std::string&) { o.capture_nccl_algorithm = true; }},
      {0, "inject-corrupt-output", nullptr, false, [](Options& o, const std::string&, const std::string&) { o.inject_corrupt_output = true; }},
      {'h', "help", nullptr, false, [](Options& o, const std::string&, const std::string&) { o.show_help = true; }},
      {0, "version", nullptr, false, [](Options& o, const std::string&, const std::string&) { o.show_version = true; }},
  };
  return table;
}

const Flag* find_short(char name) {
  for (const auto& flag : flags()) {
    if (flag.short_name == name) return &flag;
  }
  return nullptr;
}

const Flag* find_long(const std::string& name) {
  for (const auto& flag : flags()) {
    if (name == flag.long_name || (flag.alias && name == flag.alias)) return &flag;
  }
  return nullptr;
}

}  // namespace

std::string_view to_string(Placement placement) { return placement == Placement::kInPlace ? "in" : "out"; }

std::string_view to_string(TimeAggregation aggregation) {
  switch (aggregation) {
    case TimeAggregation::kRankZero: return "rank0";
    case TimeAggregation::kMean: return "mean";
    case TimeAggregation::kMin: return "min";
    case TimeAggregation::kMax: return "max";
  }
  return "max";
}

std::vector<std::uint64_t> Options::requested_sizes() const {
  if (!explicit_sizes.empty()) return explicit_sizes;
  return expand_sweep(sweep);
}

std::vector<Placement> Options::placements() const {
  switch (placement) {
    case PlacementChoice::kOut: return {Placement::kOutOfPlace};
    case PlacementChoice::kIn: return {Placement::kInPlace};
    case PlacementChoice::kBoth: break;
  }
  return {Placement::kOutOfPlace, Placement::kInPlace};
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  bool seen_step_bytes = false, seen_step_factor = false, seen_sweep_bound = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const FlagOccurrence occurrence = read_flag(args[i]);
    const Flag* flag = occurrence.short_name ? find_short(occurrence.short_name) : find_long(occurrence.long_name);
    const std::string& shown = occurrence.shown;
    if (!flag) throw UsageError("unknown option '" + shown + "' (see --help)");
    const std::string value = flag_value(occurrence, flag->takes_value, args, i);
    flag->apply(options, value, shown);
    const std::string name = flag->long_name;
    seen_step_bytes |= name == "stepbytes";
    seen_step_factor |= name == "stepfactor";
    seen_sweep_bound |= name == "minbytes" || name == "maxbytes" || seen_step_bytes || seen_step_factor;
  }
  if (seen_step_bytes && seen_step_factor) {
    throw UsageError("-i (step bytes) and -f (step factor) conflict: give one of them");
  }
  if (!options.explicit_sizes.empty() && seen_sweep_bound) {
    throw UsageError("--sizes conflicts with -b/-e/-i/-f: give a list or a sweep, not both");
  }
  if (options.explicit_sizes.empty() && !options.show_help && !options.show_version) {
    options.requested_sizes();  // validates the sweep now, so every rank rejects it at once
  }
  return options;
}

std::string usage_text(const std::string& program) {
  std::ostringstream out;
  out << "usage: [mpirun -np N] " << program << " [options]\n"
      << "\n"
      << "Sizes (K/M/G/T are 1024-based, like nccl-tests; bandwidth is reported in GB/s = 1e9 B/s):\n"
      << "  -b, --minbytes SIZE       smallest message (default 32M)\n"
      << "  -e, --maxbytes SIZE       largest message (default 32M)\n"
      << "  -i, --stepbytes SIZE      additive step (default 1M)\n"
      << "  -f, --stepfactor X        multiplicative step, may be fractional (> 1); conflicts with -i\n"
      << "      --sizes LIST          explicit sizes, e.g. 8,64K,1M (instead of -b/-e/-i/-f)\n"
      << "Operation:\n"
      << "  -d, --datatype LIST       int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32 float64,\n"
      << "                            comma list or all; half/float/double accepted (default float32)\n"
      << "  -o, --op LIST             sum prod min max avg, comma list or all (default sum)\n"
      << "  -r, --root N              root rank for broadcast/reduce/gather/scatter; -1 or all = every rank\n"
      << "      --placement P         out, in or both (default both)\n"
      << "      --backend NAME        mpi or nccl (default: nccl when built with it and a GPU is visible, else mpi)\n"
      << "  -g, --ngpus N             devices per process (CPU backends and nccl today: 1)\n"
      << "GPU (nccl backend):\n"
      << "  -z, --blocking 0|1        1: host waits for each call, timed on the host clock (default 0: CUDA events)\n"
      << "  -G, --cudagraph N         each iteration launches one CUDA graph of N calls (default 0 = no graph)\n"
      << "      --algo LIST           sets NCCL_ALGO before communicator init (e.g. Ring, Tree, ^NVLS)\n"
      << "      --proto LIST          sets NCCL_PROTO before communicator init (e.g. Simple, LL, LL128)\n"
      << "      --capture-algo        record per size the algorithm/protocol NCCL chose (its TUNING log; costs time)\n"
      << "Measurement:\n"
      << "  -n, --iters N             timed iterations per row (default 20)\n"
      << "  -w, --warmup_iters N      untimed warm-up iterations (default 5)\n"
      << "  -c, --check N             untimed correctness iterations after timing (default 1; 0 = none)\n"
      << "  -a, --average N           iteration time over ranks: 0 rank 0, 1 mean, 2 min, 3 max (default 3)\n"
      << "  -N, --run_cycles N        repeat the whole sweep N times (default 1)\n"
      << "  -T, --timeout SECONDS     give up with exit 4 when a step makes no progress (default 0 = off)\n"
      << "      --seed N              seed of the input values (default 1)\n"
      << "Report:\n"
      << "  -J, --report PATH         write a JSON report (never replaces an existing file)\n"
      << "      --overwrite           allow -J to replace an existing file\n"
      << "      --samples             keep every per-iteration time in the report\n"
      << "      --tag KEY=VALUE       label copied into the report (repeatable)\n"
      << "      --inject-corrupt-output  testing aid: corrupt one output element per check (expect exit 3)\n"
      << "  -h, --help                this text\n"
      << "      --version             version and build features\n"
      << "\n"
      << "Exit codes: 0 ok, 1 runtime error, 2 bad usage or input, 3 wrong results, 4 timeout.\n";
  return out.str();
}

}  // namespace collbench
