// STREAM on the GPU: grid-stride kernels over device arrays and cudaMemcpy device-to-device,
// timed with CUDA events; verified by copying the whole output back.
#include <vector>

#include "engines/engines.h"
#include "engines/gpu_peaks.h"
#include "cuda/check.h"
#include "cuda/device.h"
#include "cuda/memory.h"

namespace collbench::compute {
namespace {

__global__ void fill_kernel(double* a, double* b, double* c, long long n, int pattern) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (pattern) {
      a[i] = static_cast<double>(i % 1021);
      b[i] = static_cast<double>(i % 511) + 1.0;
      c[i] = static_cast<double>(i % 257) - 128.0;
    } else {
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.0;
    }
  }
}

__global__ void stream_kernel(double* __restrict__ a, double* __restrict__ b, double* __restrict__ c, long long n, int which) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    switch (which) {
      case 0: c[i] = a[i]; break;
      case 1: b[i] = kStreamScalar * c[i]; break;
      case 2: c[i] = a[i] + b[i]; break;
      default: a[i] = b[i] + kStreamScalar * c[i]; break;
    }
  }
}

class GpuStreamEngine final : public StreamEngine {
 public:
  explicit GpuStreamEngine(int device) : device_(device) {
    CB_CUDA_CHECK(cudaSetDevice(device_));
    const cuda::DeviceInfo info = cuda::device_info(device_);
    name_ = info.name;
    blocks_ = info.multiprocessors * 8;
    int memory_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device_);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device_);
    // Double data rate: two transfers per clock.
    if (memory_khz > 0 && bus_bits > 0) computed_peak_gbps_ = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    int l2_bytes = 0;
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device_));
    l2_bytes_ = static_cast<std::uint64_t>(l2_bytes);
    stream_ = cuda::create_stream();
  }

  std::string device() const override { return name_ + " (GPU " + std::to_string(device_) + ")"; }
  std::string unsupported_reason(StreamKernel) const override { return ""; }

  void prepare(std::uint64_t elements) override {
    CB_CUDA_CHECK(cudaSetDevice(device_));
    elements_ = static_cast<long long>(elements);
    for (cuda::DeviceBuffer* array : {&a_, &b_, &c_}) *array = cuda::DeviceBuffer();  // the old ones go first
    for (cuda::DeviceBuffer* array : {&a_, &b_, &c_}) *array = cuda::DeviceBuffer(elements * sizeof(double));
    fill_kernel<<<blocks_, 256, 0, stream_.get()>>>(a(), b(), c(), elements_, 0);
    CB_CUDA_CHECK(cudaGetLastError());
    CB_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  TimingSchedule schedule() const override { return TimingSchedule::kBatch; }
  void issue(StreamKernel kernel) override { run(kernel); }
  void wait() override { CB_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }

  void fill_check_inputs() override {
    fill_kernel<<<blocks_, 256, 0, stream_.get()>>>(a(), b(), c(), elements_, 1);  // stream_check_input's pattern
    CB_CUDA_CHECK(cudaGetLastError());
    CB_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  std::int64_t count_wrong(StreamKernel kernel, bool corrupt_first_element) override {
    double* output = kernel == StreamKernel::kCopy || kernel == StreamKernel::kAdd || kernel == StreamKernel::kMemcpy ? c()
                     : kernel == StreamKernel::kScale ? b() : a();
    std::vector<double> host(static_cast<std::size_t>(elements_));
    CB_CUDA_CHECK(cudaMemcpy(host.data(), output, host.size() * sizeof(double), cudaMemcpyDeviceToHost));
    if (corrupt_first_element) host[0] += 1.0;
    std::int64_t wrong = 0;
    for (long long i = 0; i < elements_; ++i) wrong += !(host[static_cast<std::size_t>(i)] == stream_check_expected(kernel, i));
    return wrong;
  }

  std::optional<double> peak_gbps() const override {
    if (auto table = gpu_peak_memory_gbps(name_)) return table;
    if (computed_peak_gbps_ > 0) return computed_peak_gbps_;
    return std::nullopt;
  }
  std::uint64_t cache_bytes() const override { return l2_bytes_; }

 private:
  void run(StreamKernel kernel) {
    if (kernel == StreamKernel::kMemcpy) {
      CB_CUDA_CHECK(cudaMemcpyAsync(c(), a(), static_cast<std::size_t>(elements_) * sizeof(double), cudaMemcpyDeviceToDevice, stream_.get()));
      return;
    }
    const int which = kernel == StreamKernel::kCopy ? 0 : kernel == StreamKernel::kScale ? 1 : kernel == StreamKernel::kAdd ? 2 : 3;
    stream_kernel<<<blocks_, 256, 0, stream_.get()>>>(a(), b(), c(), elements_, which);
    CB_CUDA_CHECK(cudaGetLastError());
  }

  double* a() const { return a_.as<double>(); }
  double* b() const { return b_.as<double>(); }
  double* c() const { return c_.as<double>(); }

  int device_;
  std::string name_;
  int blocks_ = 1024;
  double computed_peak_gbps_ = 0;
  std::uint64_t l2_bytes_ = 0;
  cuda::Stream stream_;
  long long elements_ = 0;
  cuda::DeviceBuffer a_, b_, c_;
};

}  // namespace

std::unique_ptr<StreamEngine> make_gpu_stream_engine(int local_rank, std::string* why_not) {
  const int device = cuda::device_for_local_rank(local_rank, why_not);
  if (device < 0) return nullptr;
  return std::make_unique<GpuStreamEngine>(device);
}

}  // namespace collbench::compute
