// STREAM on the CPU: OpenMP loops over host arrays, first touched by the threads that use them.
#include <omp.h>

#include <cstdlib>
#include <memory>

#include "engines/engines.h"
#include "engines/host_info.h"
#include "core/error.h"

namespace collbench::compute {
namespace {

struct FreeDeleter {
  void operator()(double* pointer) const { std::free(pointer); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

Array allocate(std::uint64_t elements) {
  // 2 MiB alignment lets the kernel back large arrays with huge pages.
  const std::size_t alignment = 2u << 20;
  const std::size_t bytes = ((elements * sizeof(double) + alignment - 1) / alignment) * alignment;
  void* pointer = std::aligned_alloc(alignment, bytes);
  if (!pointer) throw Error("cannot allocate " + std::to_string(bytes) + " bytes for a STREAM array");
  return Array(static_cast<double*>(pointer));
}

class CpuStreamEngine final : public StreamEngine {
 public:
  explicit CpuStreamEngine(int threads)
      : threads_(threads > 0 ? threads : omp_get_max_threads()), cache_bytes_(host_last_level_cache_bytes()) {}

  std::string device() const override { return "cpu"; }

  std::string unsupported_reason(StreamKernel kernel) const override {
    return kernel == StreamKernel::kMemcpy ? "memcpy is cudaMemcpy device-to-device, GPU only" : "";
  }

  void prepare(std::uint64_t elements) override {
    elements_ = static_cast<long long>(elements);
    a_ = allocate(elements);
    b_ = allocate(elements);
    c_ = allocate(elements);
    fill([](long long) { return StreamCheckInput{1.0, 2.0, 0.0}; });
  }

  TimingSchedule schedule() const override { return TimingSchedule::kBarrierEachIteration; }
  void issue(StreamKernel kernel) override { run(kernel); }
  void wait() override {}

  void fill_check_inputs() override { fill(stream_check_input); }

  std::int64_t count_wrong(StreamKernel kernel, bool corrupt_first_element) override {
    double* output = kernel == StreamKernel::kCopy || kernel == StreamKernel::kAdd ? c_.get()
                     : kernel == StreamKernel::kScale                               ? b_.get()
                                                                                    : a_.get();
    if (corrupt_first_element) output[0] += 1.0;
    const long long n = elements_;
    std::int64_t wrong = 0;
#pragma omp parallel for schedule(static) num_threads(threads_) reduction(+ : wrong)
    for (long long i = 0; i < n; ++i) wrong += !(output[i] == stream_check_expected(kernel, i));
    return wrong;
  }

  std::optional<double> peak_gbps() const override { return std::nullopt; }  // no reliable CPU datasheet figure
  std::uint64_t cache_bytes() const override { return cache_bytes_; }

 private:
  // Element i of a, b and c set from values(i), by the threads (and static schedule) the kernels use.
  template <typename Values>
  void fill(Values values) {
    double* a = a_.get();
    double* b = b_.get();
    double* c = c_.get();
    const long long n = elements_;
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (long long i = 0; i < n; ++i) {
      const StreamCheckInput input = values(i);
      a[i] = input.a;
      b[i] = input.b;
      c[i] = input.c;
    }
  }

  // The loops are STREAM's, written out so the compiler vectorises them with non-temporal freedom.
  void run(StreamKernel kernel) {
    double* __restrict a = a_.get();
    double* __restrict b = b_.get();
    double* __restrict c = c_.get();
    const long long n = elements_;
    switch (kernel) {
      case StreamKernel::kCopy:
#pragma omp parallel for schedule(static) num_threads(threads_)
        for (long long i = 0; i < n; ++i) c[i] = a[i];
        break;
      case StreamKernel::kScale:
#pragma omp parallel for schedule(static) num_threads(threads_)
        for (long long i = 0; i < n; ++i) b[i] = kStreamScalar * c[i];
        break;
      case StreamKernel::kAdd:
#pragma omp parallel for schedule(static) num_threads(threads_)
        for (long long i = 0; i < n; ++i) c[i] = a[i] + b[i];
        break;
      case StreamKernel::kTriad:
#pragma omp parallel for schedule(static) num_threads(threads_)
        for (long long i = 0; i < n; ++i) a[i] = b[i] + kStreamScalar * c[i];
        break;
      case StreamKernel::kMemcpy:
        throw Error("memcpy is a GPU kernel");
    }
  }

  int threads_;
  std::uint64_t cache_bytes_;
  long long elements_ = 0;
  Array a_, b_, c_;
};

}  // namespace

double stream_check_expected(StreamKernel kernel, long long i) {
  const StreamCheckInput in = stream_check_input(i);
  switch (kernel) {
    case StreamKernel::kCopy:
    case StreamKernel::kMemcpy: return in.a;
    case StreamKernel::kScale: return kStreamScalar * in.c;
    case StreamKernel::kAdd: return in.a + in.b;
    case StreamKernel::kTriad: break;
  }
  return in.b + kStreamScalar * in.c;
}

std::uint64_t stream_bytes_counted(StreamKernel kernel, std::uint64_t elements) {
  const std::uint64_t arrays = kernel == StreamKernel::kAdd || kernel == StreamKernel::kTriad ? 3 : 2;
  return arrays * elements * sizeof(double);
}

std::unique_ptr<StreamEngine> make_cpu_stream_engine(int threads) { return std::make_unique<CpuStreamEngine>(threads); }

}  // namespace collbench::compute
