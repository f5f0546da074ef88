// One data-parallel training step as PyTorch DDP runs it, on the CPU. For each micro-step: the
// forward pass layer by layer (its GEMM at the layer's shape, then its elementwise time); the
// backward pass from the last layer to the first (input-gradient and weight-gradient GEMMs,
// elementwise time), each layer's parameter gradients written into their .grad as it finishes.
// On the synchronized micro-step each gradient is then copied into its bucket, divided by the
// world size on the way (the reducer's copy_grad_to_bucket / mark_variable_ready_dense), and
// every bucket is all-reduced as soon as its last gradient is in: on the communication thread
// while the backward pass goes on (overlap on), or one after another once it has finished (off).
// Finally each bucket is copied back into the .grad tensors once its all-reduce is done
// (finalize_bucket_dense with gradient_as_bucket_view=False, DDP's default). Both copies are
// real and counted as backward compute. (PyTorch's reducer.cpp was read to learn this order;
// nothing of it is copied.)
// With a compute profile the layers' measured times replace the GEMMs and the elementwise time.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "backends/backend.h"
#include "core/dtype.h"
#include "workloads/ddp/buckets.h"
#include "workloads/ddp/communication_thread.h"
#include "workloads/ddp/compute_profile.h"
#include "workloads/ddp/ddp_options.h"
#include "workloads/ddp/layer_gemm.h"
#include "workloads/ddp/model.h"

namespace collbench::ddp {

struct StepConfig {
  Overlap overlap = Overlap::kOn;
  DType grad_dtype = DType::kFloat32;
  int accumulate = 1;
  int batch = 1;              // this rank's samples per micro-step
  double compute_scale = 1;
  int rank = 0;
  int world_size = 1;
  double memory_gbps = 10;    // host bandwidth for the elementwise time
  const ComputeProfile* profile = nullptr;  // measured layer times instead of GEMMs and elementwise time
};

// One step's figures on this rank, in microseconds.
struct StepTimes {
  double step_us = 0;
  double forward_us = 0;
  double backward_us = 0;       // backward GEMMs, elementwise time, gradient writes and both copies
  double comm_us = 0;           // bucket all-reduces with their conversions, wherever they ran
  double elementwise_us = 0;    // the memory-bound part of forward and backward (spun)
  double gradient_copy_us = 0;  // copies into the buckets and back into .grad
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
  // Checks every averaged gradient (in .grad, after the copy back) of the step just run;
  // `corrupt` first spoils one (testing aid).
  CheckOutcome check(std::int64_t step, bool corrupt);

  int buckets() const { return static_cast<int>(plan_.buckets.size()); }
  std::uint64_t allreduce_bytes_per_step() const;
  // Bytes the two gradient copies write per step: every float32 gradient into its bucket and back.
  std::uint64_t gradient_copy_bytes_per_step() const { return 2 * model_.parameter_count() * sizeof(float); }
  double forward_gemm_flops() const;   // per micro-step, as executed (0 with a profile)
  double backward_gemm_flops() const;
  double elementwise_bytes() const;    // per micro-step (0 with a profile)
  // The thread that issued the all-reduces of the steps run so far (its kernel id; 0: none yet)
  // and the CPUs it was seen on, before and after each.
  int issuing_thread() const { return issuing_thread_; }
  const std::set<int>& issuing_cpus() const { return issuing_cpus_; }

 private:
  void all_reduce_bucket(const Bucket& bucket);
  void copy_into_bucket(int tensor);
  void copy_back(const Bucket& bucket);

  const Model& model_;
  const BucketPlan& plan_;
  Backend& backend_;
  const CollectiveEntry& all_reduce_;
  LayerGemm& gemm_;
  StepConfig config_;
  CommunicationThread* comm_thread_;
  ComputePlan compute_;
  std::vector<std::uint64_t> registration_offset_;  // per tensor: its first parameter index
  std::vector<float> grads_;                        // the .grad tensors, registration order
  std::unique_ptr<Buffer> bucket_buffer_;           // float32 buckets, laid out bucket by bucket
  std::unique_ptr<Buffer> compressed_;              // the 16-bit copy that travels (float16, bfloat16)
  double comm_us_ = 0;                              // written by whichever thread all-reduces
  int issuing_thread_ = 0;                          // likewise
  std::set<int> issuing_cpus_;
};

}  // namespace collbench::ddp
