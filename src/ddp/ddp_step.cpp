#include "ddp/ddp_step.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "ddp/gradients.h"

namespace collbench::ddp {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

float* as_floats(Buffer& buffer) { return static_cast<float*>(buffer.data()); }

}  // namespace

DdpStep::DdpStep(const Model& model, const BucketPlan& plan, Backend& backend, const CollectiveEntry& all_reduce,
                 LayerGemm& gemm, const StepConfig& config, CommunicationThread* comm_thread)
    : model_(model), plan_(plan), backend_(backend), all_reduce_(all_reduce), gemm_(gemm), config_(config), comm_thread_(comm_thread) {
  std::uint64_t offset = 0;
  for (const auto& tensor : model_.tensors) {
    registration_offset_.push_back(offset);
    offset += tensor.elements;
    const double samples = static_cast<double>(config_.batch) * config_.compute_scale;
    forward_plans_.push_back(plan_gemm(tensor.forward_flops_per_sample * samples, tensor.name));
    backward_plans_.push_back(plan_gemm(tensor.backward_flops_per_sample * samples, tensor.name));
  }
  master_ = backend_.allocate(offset * sizeof(float));
  // Never an uninitialised buffer, even before the first gradient is written.
  for (std::size_t t = 0; t < model_.tensors.size(); ++t) {
    produce_gradients(as_floats(*master_) + plan_.tensor_offset[t], model_.tensors[t].elements, config_.rank,
                      registration_offset_[t], 0, false);
  }
  if (config_.grad_dtype != DType::kFloat32) compressed_ = backend_.allocate(offset * sizeof(std::uint16_t));
}

std::uint64_t DdpStep::allreduce_bytes_per_step() const {
  const std::uint64_t element_bytes = config_.grad_dtype == DType::kFloat32 ? 4 : 2;
  std::uint64_t total = 0;
  for (const auto& bucket : plan_.buckets) total += bucket.elements * element_bytes;
  return total;
}

double DdpStep::forward_gemm_flops() const {
  double total = 0;
  for (const auto& plan : forward_plans_) total += plan.flops();
  return total;
}

double DdpStep::backward_gemm_flops() const {
  double total = 0;
  for (const auto& plan : backward_plans_) total += plan.flops();
  return total;
}

// Sum in the travelling dtype, then the division by the world size in float32 on the way back to
// the master gradients, as DDP's default and fp16/bf16 compression hooks average.
void DdpStep::all_reduce_bucket(const Bucket& bucket) {
  const auto start = Clock::now();
  float* master = as_floats(*master_) + bucket.offset;
  const float world = static_cast<float>(config_.world_size);
  CollectiveCall call;
  call.count = bucket.elements;
  call.op = ReduceOp::kSum;
  call.in_place = true;
  call.dtype = config_.grad_dtype;
  if (config_.grad_dtype == DType::kFloat32) {
    call.send = master;
    call.recv = master;
    all_reduce_.issue(call);
    for (std::uint64_t i = 0; i < bucket.elements; ++i) master[i] /= world;
  } else {
    const bool half = config_.grad_dtype == DType::kFloat16;
    auto* bits = static_cast<std::uint16_t*>(compressed_->data()) + bucket.offset;
    for (std::uint64_t i = 0; i < bucket.elements; ++i) bits[i] = half ? float_to_half_bits(master[i]) : float_to_bf16_bits(master[i]);
    call.send = bits;
    call.recv = bits;
    all_reduce_.issue(call);
    for (std::uint64_t i = 0; i < bucket.elements; ++i) {
      master[i] = (half ? half_bits_to_float(bits[i]) : bf16_bits_to_float(bits[i])) / world;
    }
  }
  backend_.synchronize();
  comm_us_ += microseconds_since(start);
}

StepTimes DdpStep::run(std::int64_t step) {
  StepTimes times;
  comm_us_ = 0;
  const auto step_start = Clock::now();
  const int tensors = static_cast<int>(model_.tensors.size());
  float* master = as_floats(*master_);
  for (int micro = 0; micro < config_.accumulate; ++micro) {
    const bool synchronized = micro == config_.accumulate - 1;  // the others run under no_sync()
    const std::int64_t micro_step = step * config_.accumulate + micro;
    const auto forward_start = Clock::now();
    for (int t = 0; t < tensors; ++t) gemm_.run(forward_plans_[static_cast<std::size_t>(t)]);
    times.forward_us += microseconds_since(forward_start);
    const auto backward_start = Clock::now();
    for (int t = tensors - 1; t >= 0; --t) {
      const auto index = static_cast<std::size_t>(t);
      gemm_.run(backward_plans_[index]);
      produce_gradients(master + plan_.tensor_offset[index], model_.tensors[index].elements, config_.rank,
                        registration_offset_[index], micro_step, micro > 0);
      if (!synchronized || config_.overlap != Overlap::kOn) continue;
      const Bucket& bucket = plan_.buckets[static_cast<std::size_t>(plan_.bucket_of_tensor[index])];
      if (bucket.tensors.back() == t) comm_thread_->submit([this, &bucket] { all_reduce_bucket(bucket); });
    }
    times.backward_us += microseconds_since(backward_start);
  }
  if (config_.overlap == Overlap::kOn) {
    comm_thread_->wait_idle();
  } else {
    for (const auto& bucket : plan_.buckets) all_reduce_bucket(bucket);
  }
  times.step_us = microseconds_since(step_start);
  times.comm_us = comm_us_;
  return times;
}

CheckOutcome DdpStep::check(std::int64_t step, bool corrupt) {
  float* master = as_floats(*master_);
  if (corrupt) master[0] += 1.0f;
  // The expected value depends on the parameter index only through index mod 17.
  double expected[17];
  for (int phase = 0; phase < 17; ++phase) {
    expected[phase] = expected_average(config_.world_size, static_cast<std::uint64_t>(phase), step * config_.accumulate, config_.accumulate);
  }
  const double bound = gradient_error_bound(config_.grad_dtype, config_.world_size, config_.accumulate);
  CheckOutcome outcome;
  for (std::size_t t = 0; t < model_.tensors.size(); ++t) {
    const float* gradients = master + plan_.tensor_offset[t];
    auto phase = static_cast<int>(registration_offset_[t] % 17);
    for (std::uint64_t i = 0; i < model_.tensors[t].elements; ++i) {
      const double error = std::fabs(static_cast<double>(gradients[i]) - expected[phase]);
      if (!(error <= bound)) ++outcome.wrong;
      if (!(error <= outcome.max_error)) outcome.max_error = std::isfinite(error) ? error : INFINITY;
      if (++phase == 17) phase = 0;
    }
  }
  return outcome;
}

}  // namespace collbench::ddp
