#include "workloads/ddp/ddp_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "core/command_line.h"
#include "harness/flag_groups.h"
#include "core/error.h"
#include "core/flag_values.h"
#include "workloads/ddp/compute_profile.h"
#include "workloads/ddp/model.h"

namespace collbench::ddp {
namespace {

std::optional<Overlap> parse_overlap(const std::string& text) {
  if (text == "on") return Overlap::kOn;
  if (text == "off") return Overlap::kOff;
  return std::nullopt;
}

std::optional<DType> parse_grad_dtype(const std::string& text) {
  const auto dtype = parse_dtype(text);
  if (!dtype) return std::nullopt;
  if (*dtype != DType::kFloat32 && *dtype != DType::kFloat16 && *dtype != DType::kBfloat16) return std::nullopt;
  return dtype;
}

std::vector<double> parse_positive_reals(const std::string& value, const std::string& flag, double highest) {
  std::vector<double> out;
  for (const auto& item : split_list(value)) {
    const double number = parse_real(item, flag, 0, highest);
    if (!(number > 0)) throw UsageError(flag + " values must be greater than 0, got '" + item + "'");
    out.push_back(number);
  }
  if (out.empty()) throw UsageError(flag + " expects a comma-separated list of numbers");
  return out;
}

// `value` where `present`, else null: the report's way of saying a flag left to its default rule.
template <typename Value>
nlohmann::json null_unless(bool present, const Value& value) {
  return present ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// Every flag of ddp_step_perf, once: parsing, --help and the report's options read these.
void declare_options(CLI::App& app, DdpOptions& o) {
  using Text = const std::string;
  start_section(app, "Model and compute");
  add_text(app, "--model", "NAME|FILE",
           "linear-1024 (default), resnet50, bert-large, gpt2-small, or a .json/.csv file (docs/ddp.md: one layer a line,\n"
           "layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes; src/workloads/ddp/presets/ for examples)",
           o.model);
  auto* batch = add_integer(app, "--batch", "samples per rank per step (default 32; weak scaling)", o.batch, 1, 1 << 20);
  auto* global = add_integer(app, "--global-batch", "samples per step for the whole job, split over ranks (strong scaling)",
                             o.global_batch, 1, 1 << 24);
  batch->excludes(global);
  // One of the two is the run's: the other is null.
  record(app, {batch}, [&o](nlohmann::json& out) { out["batch"] = o.global_batch > 0 ? nlohmann::json(nullptr) : nlohmann::json(o.batch); });
  record(app, {global}, [&o](nlohmann::json& out) { out["global_batch"] = null_unless(o.global_batch > 0, o.global_batch); });
  auto* profile = add_text(app, "--compute-profile", "FILE",
           "measured per-layer times (CSV layer,forward_us,backward_us, layers named as in the model) spent instead\n"
           "of the GEMMs and elementwise time: your own model's profile under DDP's buckets and communication",
           o.compute_profile);
  record(app, {profile}, [&o](nlohmann::json& out) { out["compute_profile"] = null_unless(!o.compute_profile.empty(), o.compute_profile); });
  auto* memory = add_value(app, "--memory-gbps", "GB/S",
            "host bandwidth for the elementwise (memory-bound) time: bytes touched / this (default: measured at start)",
            [&o](Text& v, Text& f) {
              o.memory_gbps = parse_real(v, f, 0, 1e6);
              if (!(o.memory_gbps > 0)) throw UsageError(f + " must be greater than 0, got '" + v + "'");
            });
  record(app, {memory}, [&o](nlohmann::json& out) { out["memory_gbps"] = null_unless(o.memory_gbps > 0, o.memory_gbps); });
  auto* scale = add_value(app, "--compute-scale", "X",
            "multiplies each GEMM's batch factor, the elementwise bytes and profiled times, so big models fit a small\n"
            "CPU (default 1)",
            [&o](Text& v, Text& f) {
              o.compute_scale = parse_real(v, f, 0, 1000);
              if (!(o.compute_scale > 0)) throw UsageError(f + " must be greater than 0, got '" + v + "'");
            });
  record_as(app, scale, "compute_scale", o.compute_scale);
  add_integer(app, "-t,--threads", "OpenBLAS threads per rank (default 0 = every core this rank may run on, less --comm-cores)",
              o.threads, 0, 4096);
  start_section(app, "DDP settings (each a list; one row per combination)");
  auto* bucket = add_value(app, "--bucket-mb", "LIST", "bucket_cap_mb in MiB, e.g. 1,5,25,50,100 (default 25, as DDP)",
            [&o](Text& v, Text& f) {
              o.bucket_mb = parse_positive_reals(v, f, 65536);
              o.bucket_mb_given = true;
            });
  record(app, {bucket}, [&o](nlohmann::json& out) {
    out["bucket_mb"] = o.bucket_mb;
    out["bucket_mb_given"] = o.bucket_mb_given;
  });
  auto* first_bucket = add_value(app, "--first-bucket-mb", "MB",
            "cap of the first bucket in MiB (default: DDP's rule, see --ddp-version)",
            [&o](Text& v, Text& f) { o.first_bucket_mb = parse_positive_reals(v, f, 65536).front(); });
  record(app, {first_bucket}, [&o](nlohmann::json& out) { out["first_bucket_mb"] = null_unless(o.first_bucket_mb > 0, o.first_bucket_mb); });
  auto* version = add_value(app, "--ddp-version", "2|1",
            "whose first-bucket rule (default 2): torch 2.x makes the first bucket 1 MiB when bucket_cap_mb is left\n"
            "at its default and the cap itself when one is passed (--bucket-mb); torch 1.x, 1 MiB always",
            [&o](Text& v, Text& f) { o.ddp_version = static_cast<int>(parse_integer(v, f, 1, 2)); });
  record_as(app, version, "ddp_version", o.ddp_version);
  auto* overlap = add_value(app, "--overlap", "LIST", "on: all-reduce each bucket while the backward pass goes on; off: after it; on,off: both",
            [&o](Text& v, Text& f) {
              o.overlap = parse_choice_list(v, f, parse_overlap, std::vector<Overlap>{Overlap::kOn, Overlap::kOff}, "overlap", "on, off");
            });
  record_names(app, overlap, "overlap", o.overlap);
  auto* grad_dtype = add_value(app, "--grad-dtype", "LIST", "float32, float16, bfloat16: the dtype gradients travel in (fp32 master gradients)",
            [&o](Text& v, Text& f) {
              o.grad_dtypes = parse_choice_list(v, f, parse_grad_dtype,
                                                std::vector<DType>{DType::kFloat32, DType::kFloat16, DType::kBfloat16},
                                                "gradient dtype", "float32, float16, bfloat16");
            });
  record_names(app, grad_dtype, "grad_dtype", o.grad_dtypes);
  auto* accumulate = add_value(app, "--accumulate", "LIST", "micro-steps per optimizer step: N-1 without synchronization (no_sync), then one (default 1)",
            [&o](Text& v, Text& f) {
              o.accumulate.clear();
              for (const auto& item : split_list(v)) o.accumulate.push_back(static_cast<int>(parse_integer(item, f, 1, 1024)));
              if (o.accumulate.empty()) throw UsageError(f + " expects a comma-separated list of counts");
            });
  record_as(app, accumulate, "accumulate", o.accumulate);
  record_as(app, add_value(app, "--rank-weights", "LIST", "one weight per rank (envcheck's summary.weights): each rank's share of the batch",
                           [&o](Text& v, Text& f) { o.rank_weights = parse_positive_reals(v, f, 1e6); }),
            "rank_weights", o.rank_weights);
  start_section(app, "Communication");
  // No nccl: the step has no GPU path yet (NCCL + cuBLAS).
  add_backend_flags(app, o, "mpi or gloo (default: mpi under mpirun/srun, gloo launched without MPI)", {"mpi", "gloo"});
  // Recorded here as well as in context.backend (as the run chose it, with the launch's default).
  record_as(app, app.get_option("--backend"), "backend", o.backend);
  record_as(app, app.get_option("--gloo-iface"), "gloo_iface", o.gloo_iface);
  add_integer(app, "--comm-cores", "cores per rank kept for communication (default 0: none): the communication thread and the\n"
              "backend's I/O thread run on the rank's last N cores, everything else on the others; N must leave a core\n"
              "for compute (under mpirun: --bind-to none or --map-by slot:PE=N)",
              o.comm_cores, 0, 4096);
  start_section(app, "Measurement");
  add_loop_flags(app, o, {"steps"});  // --inject-slowdown's added time counts as exposed communication
  add_run_flags(app, o);
  start_section(app, "Report");
  add_report_flags(app, o);
  add_help_flags(app, o);
  app.footer(
      "One row per (bucket_mb, overlap, grad_dtype, accumulate). A step is one optimizer step: forward and backward\n"
      "of every micro-step, and the all-reduce (average) of every bucket. Figures, means over timed steps and ranks:\n"
      "  step_us    step time (statistics over steps, combined over ranks as the harness does)\n"
      "  fwd_us     forward GEMMs and elementwise time\n"
      "  bwd_us     backward GEMMs, elementwise time, gradient writes and both gradient copies (into the buckets\n"
      "             and back); compute = fwd + bwd\n"
      "  comm_us    time inside the bucket all-reduces (16-bit conversions included), whichever thread ran them\n"
      "  alone_us   fwd + bwd - gradient copies of the same step with overlap off: the compute with nothing\n"
      "             communicating beside it (the overlap-off row's, or an untimed overlap-off pass inside the row)\n"
      "  exposed_us step - alone: what communication costs the step, the compute it slows down included\n"
      "  hidden     1 - exposed / comm alone (the overlap-off step's comm_us + gradient copies): the share of the\n"
      "             communication's own cost the step did not pay\n"
      "  slowdown   (fwd + bwd - gradient copies) / alone: the compute slowed by the communication beside it\n"
      "  in_step_us step - (fwd + bwd): what the step waited for beyond its own, slowed, compute\n"
      "  samples/s  samples of the whole job per step / mean step time\n"
      "The figures as report schema 2.5 defines them (docs/ddp.md; tests/docs/ddp_help_figures.py checks both agree).\n"
      "Exit codes: 0 ok, 1 runtime error, 2 bad usage or bad model or profile file, 3 wrong gradients, 4 timeout.");
}

}  // namespace

double first_bucket_cap_mb(const DdpOptions& options, double bucket_mb) {
  if (options.first_bucket_mb > 0) return options.first_bucket_mb;
  constexpr double kDdpDefaultFirstBucketMb = 1.0;  // torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
  return options.ddp_version >= 2 && options.bucket_mb_given ? bucket_mb : kDdpDefaultFirstBucketMb;
}

std::string to_string(Overlap overlap) { return overlap == Overlap::kOn ? "on" : "off"; }

bool DdpOptions::any_overlap() const { return std::find(overlap.begin(), overlap.end(), Overlap::kOn) != overlap.end(); }

DdpOptions parse_ddp_options(const std::vector<std::string>& args) {
  DdpOptions options = parse_declared(args, DdpOptions{}, declare_options);
  if (!options.show_help && !options.show_version) {  // a bad model or profile is a usage error, before MPI
    options.loaded_model = load_model(options.model);
    if (!options.compute_profile.empty()) options.loaded_profile = load_compute_profile(options.compute_profile, *options.loaded_model);
  }
  return options;
}

nlohmann::json ddp_options_json(const DdpOptions& options) { return recorded_options(options, declare_options); }

std::string ddp_usage_text() {
  return declared_help("[mpirun -np N] ddp_step_perf [options]",
                       "The communication and computation of one PyTorch-DDP data-parallel step, in C++: every layer's\n"
                       "forward, input-gradient and weight-gradient GEMM at its real shape (OpenBLAS) plus its elementwise\n"
                       "time, or measured layer times (--compute-profile); gradients copied into buckets as DDP does, each\n"
                       "bucket all-reduced (average) as soon as it is ready; gradients checked against closed-form values.",
                       DdpOptions{}, declare_options);
}

std::vector<int> rank_batches(const DdpOptions& options, int world_size) {
  const auto ranks = static_cast<std::size_t>(world_size);
  std::vector<int> batches(ranks, options.batch);
  if (options.global_batch > 0) {
    if (options.global_batch < world_size) {
      throw UsageError("--global-batch " + std::to_string(options.global_batch) + " gives some of the " +
                       std::to_string(world_size) + " ranks no sample");
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      batches[r] = options.global_batch / world_size + (static_cast<int>(r) < options.global_batch % world_size ? 1 : 0);
    }
  }
  if (options.rank_weights.empty()) return batches;
  if (options.rank_weights.size() != ranks) {
    throw UsageError("--rank-weights has " + std::to_string(options.rank_weights.size()) + " weights for " +
                     std::to_string(world_size) + " ranks");
  }
  // The same global batch, split in proportion to the weights (largest remainders get the rest).
  const long long global = std::accumulate(batches.begin(), batches.end(), 0LL);
  const double weight_total = std::accumulate(options.rank_weights.begin(), options.rank_weights.end(), 0.0);
  std::vector<double> remainders(ranks);
  long long given = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    const double share = static_cast<double>(global) * options.rank_weights[r] / weight_total;
    batches[r] = static_cast<int>(std::floor(share));
    remainders[r] = share - batches[r];
    given += batches[r];
  }
  while (given < global) {
    const auto most = static_cast<std::size_t>(std::max_element(remainders.begin(), remainders.end()) - remainders.begin());
    ++batches[most];
    remainders[most] = -1;
    ++given;
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    if (batches[r] < 1) throw UsageError("--rank-weights leave rank " + std::to_string(r) + " no sample of the batch");
  }
  return batches;
}

}  // namespace collbench::ddp
