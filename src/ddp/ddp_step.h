// One data-parallel training step as PyTorch DDP runs it, on the CPU: for each micro-step the
// forward GEMMs, then the backward GEMMs from the last layer to the first, each followed by its
// gradient; on the synchronized micro-step every bucket is all-reduced (average) as soon as its
// last gradient is in -- on the communication thread while the backward pass goes on (overlap
// on), or one after another once it has finished (overlap off).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/dtype.h"
#include "ddp/buckets.h"
#include "ddp/communication_thread.h"
#include "ddp/ddp_options.h"
#include "ddp/layer_gemm.h"
#include "ddp/model.h"

namespace collbench::ddp {

struct StepConfig {
  Overlap overlap = Overlap::kOn;
  DType grad_dtype = DType::kFloat32;
  int accumulate = 1;
  int batch = 1;              // this rank's samples per micro-step
  double compute_scale = 1;
  int rank = 0;
  int world_size = 1;
};

// One step's figures on this rank, in microseconds.
struct StepTimes {
  double step_us = 0;
  double forward_us = 0;
  double backward_us = 0;   // backward GEMMs and gradient writes
  double comm_us = 0;       // bucket all-reduces with their conversions, wherever they ran
};

struct CheckOutcome {
  std::int64_t wrong = 0;   // gradient elements outside the bound
  double max_error = 0;     // the largest absolute error
};

class DdpStep {
 public:
  // `comm_thread` is used with overlap on and may be null otherwise.
  DdpStep(const Model& model, const BucketPlan& plan, Backend& backend, const CollectiveEntry& all_reduce, LayerGemm& gemm,
          const StepConfig& config, CommunicationThread* comm_thread);

  // One optimizer step (config.accumulate micro-steps); `step` numbers it for the gradients' values.
  StepTimes run(std::int64_t step);
  // Checks every averaged gradient of the step just run; `corrupt` first spoils one (testing aid).
  CheckOutcome check(std::int64_t step, bool corrupt);

  int buckets() const { return static_cast<int>(plan_.buckets.size()); }
  std::uint64_t allreduce_bytes_per_step() const;
  double forward_gemm_flops() const;   // per micro-step, as executed
  double backward_gemm_flops() const;

 private:
  void all_reduce_bucket(const Bucket& bucket);

  const Model& model_;
  const BucketPlan& plan_;
  Backend& backend_;
  const CollectiveEntry& all_reduce_;
  LayerGemm& gemm_;
  StepConfig config_;
  CommunicationThread* comm_thread_;
  std::vector<std::uint64_t> registration_offset_;  // per tensor: its first parameter index
  std::vector<GemmPlan> forward_plans_, backward_plans_;
  std::unique_ptr<Buffer> master_;        // float32 gradients, bucket by bucket
  std::unique_ptr<Buffer> compressed_;    // the 16-bit copy that travels (float16, bfloat16)
  double comm_us_ = 0;                    // written by whichever thread all-reduces
};

}  // namespace collbench::ddp
