// Command-line options of ddp_step_perf, parsed once into a const struct over the shared
// command-line layer (core/command_line.h), like every other program.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "harness/flag_groups.h"
#include "workloads/ddp/compute_profile.h"
#include "workloads/ddp/model.h"

namespace collbench::ddp {

enum class Overlap { kOn, kOff };
std::string to_string(Overlap overlap);

struct DdpOptions : RunFlags, BackendFlags {
  DdpOptions() {  // a step is long: fewer of them than the loop's default iterations
    iterations = 10;
    warmup_iterations = 2;
  }
  std::string model = "linear-1024";   // a preset or a .json/.csv file
  int batch = 32;                      // samples per rank per micro-step (weak scaling)
  int global_batch = 0;                // > 0: the job's batch, split over ranks (strong scaling)
  double compute_scale = 1.0;          // multiplies every GEMM's batch factor, elementwise bytes and profiled time
  std::string compute_profile;         // --compute-profile FILE: measured layer times instead of GEMMs
  double memory_gbps = 0;              // --memory-gbps: stated host bandwidth; 0: measured at start
  std::vector<double> bucket_mb{25.0};
  bool bucket_mb_given = false;        // DDP's first bucket follows a bucket_cap_mb the user passed
  double first_bucket_mb = 0;          // --first-bucket-mb; 0: DDP's own rule (first_bucket_cap_mb)
  int ddp_version = 2;                 // whose first-bucket rule: torch 2.x (2) or 1.x (1)
  std::vector<Overlap> overlap{Overlap::kOn};
  std::vector<DType> grad_dtypes{DType::kFloat32};
  std::vector<int> accumulate{1};
  std::vector<double> rank_weights;    // empty: every rank the same batch
  int threads = 0;                     // OpenBLAS threads per rank; 0: every core this rank may use (less --comm-cores)
  int comm_cores = 0;                  // --comm-cores: cores per rank kept for the communication threads; 0: none kept
  // --model and --compute-profile as parse_ddp_options read them (not with --help or --version).
  // A file is read once: a second read of a pipe (--compute-profile <(...)) would find it empty.
  std::optional<Model> loaded_model;
  std::optional<ComputeProfile> loaded_profile;

  bool any_overlap() const;
};

// Parses argv without argv[0]. Throws UsageError with one sentence on any bad flag.
DdpOptions parse_ddp_options(const std::vector<std::string>& args);
std::string ddp_usage_text();
// context.options: every flag as the run understood it, as its declaration records it.
nlohmann::json ddp_options_json(const DdpOptions& options);

// The first bucket's cap for a row whose bucket_cap_mb is `bucket_mb`, as the modelled DDP sets
// it: --first-bucket-mb when given; else torch 2.x (distributed.py, bucket_bytes_cap_default)
// uses 1 MiB (_DEFAULT_FIRST_BUCKET_BYTES) only when bucket_cap_mb was left at its default and
// the cap itself when the user passed one; torch 1.x used 1 MiB always.
double first_bucket_cap_mb(const DdpOptions& options, double bucket_mb);

// Per-rank batches: `batch` each, or `global_batch` split evenly (the first ranks take the
// remainder), then scaled by --rank-weights the way a weighted sampler would split the same
// global batch. Throws UsageError when a rank would get no sample or the weights do not match.
std::vector<int> rank_batches(const DdpOptions& options, int world_size);

}  // namespace collbench::ddp
