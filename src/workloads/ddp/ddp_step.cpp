#include "workloads/ddp/ddp_step.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "core/process_threads.h"
#include "workloads/ddp/gradients.h"

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
    : model_(model), plan_(plan), backend_(backend), all_reduce_(all_reduce), gemm_(gemm), config_(config), comm_thread_(comm_thread),
      compute_(plan_compute(model, config.batch, config.compute_scale)) {
  std::uint64_t offset = 0;
  for (const auto& tensor : model_.tensors) {
    registration_offset_.push_back(offset);
    offset += tensor.elements;
  }
  grads_.resize(offset);
  bucket_buffer_ = backend_.allocate(offset * sizeof(float));
  // Never an uninitialised buffer, even before the first gradient is written.
  produce_gradients(grads_.data(), offset, config_.rank, 0, 0, false);
  for (std::size_t t = 0; t < model_.tensors.size(); ++t) copy_into_bucket(static_cast<int>(t));
  if (config_.grad_dtype != DType::kFloat32) compressed_ = backend_.allocate(offset * sizeof(std::uint16_t));
}

std::uint64_t DdpStep::allreduce_bytes_per_step() const {
  const std::uint64_t element_bytes = config_.grad_dtype == DType::kFloat32 ? 4 : 2;
  std::uint64_t total = 0;
  for (const auto& bucket : plan_.buckets) total += bucket.elements * element_bytes;
  return total;
}

double DdpStep::forward_gemm_flops() const { return config_.profile ? 0 : compute_.forward_flops(); }
double DdpStep::backward_gemm_flops() const { return config_.profile ? 0 : compute_.backward_flops(); }
double DdpStep::elementwise_bytes() const { return config_.profile ? 0 : compute_.forward_bytes() + compute_.backward_bytes(); }

// DDP without a communication hook divides while copying (at::mul_out by 1 / world size) and
// all-reduces a sum; with the fp16/bf16 compression hooks the copy is plain, and the hook
// converts and divides (here: in float32 on the way back).
void DdpStep::copy_into_bucket(int tensor) {
  const auto index = static_cast<std::size_t>(tensor);
  const float* source = grads_.data() + registration_offset_[index];
  float* bucket = as_floats(*bucket_buffer_) + plan_.tensor_offset[index];
  const std::uint64_t count = model_.tensors[index].elements;
  if (config_.grad_dtype == DType::kFloat32) {
    const float reciprocal = static_cast<float>(1.0 / config_.world_size);
    for (std::uint64_t i = 0; i < count; ++i) bucket[i] = source[i] * reciprocal;
  } else {
    std::memcpy(bucket, source, count * sizeof(float));
  }
}

void DdpStep::copy_back(const Bucket& bucket) {
  const float* buckets = as_floats(*bucket_buffer_);
  for (int tensor : bucket.tensors) {
    const auto index = static_cast<std::size_t>(tensor);
    std::memcpy(grads_.data() + registration_offset_[index], buckets + plan_.tensor_offset[index],
                model_.tensors[index].elements * sizeof(float));
  }
}

void DdpStep::all_reduce_bucket(const Bucket& bucket) {
  // Where the communication ran, for the report: outside the all-reduce's time, a few ns each.
  issuing_thread_ = this_thread_id();
  issuing_cpus_.insert(current_cpu());
  const auto start = Clock::now();
  float* values = as_floats(*bucket_buffer_) + bucket.offset;
  CollectiveCall call;
  call.count = bucket.elements;
  call.op = ReduceOp::kSum;
  call.in_place = true;
  call.dtype = config_.grad_dtype;
  if (config_.grad_dtype == DType::kFloat32) {
    call.send = values;
    call.recv = values;
    all_reduce_.issue(call);
  } else {
    const float world = static_cast<float>(config_.world_size);
    const bool half = config_.grad_dtype == DType::kFloat16;
    auto* bits = static_cast<std::uint16_t*>(compressed_->data()) + bucket.offset;
    for (std::uint64_t i = 0; i < bucket.elements; ++i) bits[i] = half ? float_to_half_bits(values[i]) : float_to_bf16_bits(values[i]);
    call.send = bits;
    call.recv = bits;
    all_reduce_.issue(call);
    for (std::uint64_t i = 0; i < bucket.elements; ++i) {
      values[i] = (half ? half_bits_to_float(bits[i]) : bf16_bits_to_float(bits[i])) / world;
    }
  }
  backend_.synchronize();
  comm_us_ += microseconds_since(start);
  issuing_cpus_.insert(current_cpu());
}

StepTimes DdpStep::run(std::int64_t step) {
  StepTimes times;
  comm_us_ = 0;
  const auto step_start = Clock::now();
  const int layers = static_cast<int>(model_.layers.size());
  const ComputeProfile* profile = config_.profile;
  const double microseconds_per_byte = 1.0 / (config_.memory_gbps * 1e3);
  auto spin_elementwise = [&](double bytes) {
    const auto start = Clock::now();
    spin_for(bytes * microseconds_per_byte);
    times.elementwise_us += microseconds_since(start);
  };
  std::vector<std::uint64_t> job_of_bucket(plan_.buckets.size(), 0);
  for (int micro = 0; micro < config_.accumulate; ++micro) {
    const bool synchronized = micro == config_.accumulate - 1;  // the others run under no_sync()
    const std::int64_t micro_step = step * config_.accumulate + micro;
    const auto forward_start = Clock::now();
    for (int l = 0; l < layers; ++l) {
      const auto index = static_cast<std::size_t>(l);
      if (profile) {
        spin_for(profile->forward_us[index] * config_.compute_scale);
        continue;
      }
      gemm_.run(compute_.layers[index].forward);
      spin_elementwise(compute_.layers[index].forward_bytes);
    }
    times.forward_us += microseconds_since(forward_start);
    const auto backward_start = Clock::now();
    for (int l = layers - 1; l >= 0; --l) {
      const auto index = static_cast<std::size_t>(l);
      if (profile) {
        spin_for(profile->backward_us[index] * config_.compute_scale);
      } else {
        const LayerWork& work = compute_.layers[index];
        gemm_.run(work.input_grad);
        gemm_.run(work.weight_grad);
        spin_elementwise(work.backward_bytes);
      }
      const std::vector<int>& tensors = model_.layers[index].tensors;
      for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {  // ready in reverse registration order
        const int t = *it;
        const auto tensor = static_cast<std::size_t>(t);
        produce_gradients(grads_.data() + registration_offset_[tensor], model_.tensors[tensor].elements, config_.rank,
                          registration_offset_[tensor], micro_step, micro > 0);
        if (!synchronized) continue;
        const auto copy_start = Clock::now();
        copy_into_bucket(t);
        times.gradient_copy_us += microseconds_since(copy_start);
        if (config_.overlap != Overlap::kOn) continue;
        const auto b = static_cast<std::size_t>(plan_.bucket_of_tensor[tensor]);
        const Bucket& bucket = plan_.buckets[b];
        if (bucket.tensors.back() == t) job_of_bucket[b] = comm_thread_->submit([this, &bucket] { all_reduce_bucket(bucket); });
      }
    }
    times.backward_us += microseconds_since(backward_start);
  }
  // finalize_backward: each bucket waited for in order, then copied back into .grad; the wait is
  // exposed communication, the copy is compute.
  double copy_back_us = 0;
  if (config_.overlap == Overlap::kOn) {
    for (std::size_t b = 0; b < plan_.buckets.size(); ++b) {
      comm_thread_->wait_finished(job_of_bucket[b]);
      const auto copy_start = Clock::now();
      copy_back(plan_.buckets[b]);
      copy_back_us += microseconds_since(copy_start);
    }
  } else {
    for (const auto& bucket : plan_.buckets) all_reduce_bucket(bucket);
    const auto copy_start = Clock::now();
    for (const auto& bucket : plan_.buckets) copy_back(bucket);
    copy_back_us += microseconds_since(copy_start);
  }
  times.backward_us += copy_back_us;
  times.gradient_copy_us += copy_back_us;
  times.step_us = microseconds_since(step_start);
  times.comm_us = comm_us_;
  return times;
}

CheckOutcome DdpStep::check(std::int64_t step, bool corrupt) {
  if (corrupt) grads_[0] += 1.0f;
  // The expected value depends on the parameter index only through index mod 17.
  double expected[17];
  for (int phase = 0; phase < 17; ++phase) {
    expected[phase] = expected_average(config_.world_size, static_cast<std::uint64_t>(phase), step * config_.accumulate, config_.accumulate);
  }
  const double bound = gradient_error_bound(config_.grad_dtype, config_.world_size, config_.accumulate);
  CheckOutcome outcome;
  int phase = 0;
  for (const float gradient : grads_) {
    const double error = std::fabs(static_cast<double>(gradient) - expected[phase]);
    if (!(error <= bound)) ++outcome.wrong;
    if (!(error <= outcome.max_error)) outcome.max_error = std::isfinite(error) ? error : INFINITY;
    if (++phase == 17) phase = 0;
  }
  return outcome;
}

}  // namespace collbench::ddp
