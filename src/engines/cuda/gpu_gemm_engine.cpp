// GEMM on the GPU through cuBLASLt, with the algorithm its heuristic ranks first, timed with CUDA events.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cublasLt.h>

#include <vector>

#include "engines/engines.h"
#include "engines/gpu_peaks.h"
#include "cuda/check.h"
#include "cuda/device.h"
#include "cuda/memory.h"

namespace collbench::compute {
namespace {

constexpr std::size_t kWorkspaceBytes = 64u << 20;

struct TypeChoice {
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  int ab_bytes, cd_bytes;
  bool a_transposed;  // FP8 kernels need the "TN" layout
};

TypeChoice choice_for(GemmType type) {
  switch (type) {
    case GemmType::kTf32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, false};
    case GemmType::kFloat16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, false};
    case GemmType::kBfloat16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, false};
    case GemmType::kFp8: return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, true};
    default: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, false};
  }
}

void store(cudaDataType_t type, std::vector<unsigned char>& bytes, std::size_t index, double value) {
  switch (type) {
    case CUDA_R_16F: reinterpret_cast<__half*>(bytes.data())[index] = __float2half(static_cast<float>(value)); break;
    case CUDA_R_16BF: reinterpret_cast<__nv_bfloat16*>(bytes.data())[index] = __float2bfloat16(static_cast<float>(value)); break;
    case CUDA_R_8F_E4M3: reinterpret_cast<__nv_fp8_e4m3*>(bytes.data())[index] = __nv_fp8_e4m3(static_cast<float>(value)); break;
    default: reinterpret_cast<float*>(bytes.data())[index] = static_cast<float>(value); break;
  }
}

double load(cudaDataType_t type, const unsigned char* bytes) {
  switch (type) {
    case CUDA_R_16F: return __half2float(*reinterpret_cast<const __half*>(bytes));
    case CUDA_R_16BF: return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(bytes));
    default: return *reinterpret_cast<const float*>(bytes);
  }
}

class GpuGemmEngine final : public GemmEngine {
 public:
  explicit GpuGemmEngine(int device) : device_(device) {
    CB_CUDA_CHECK(cudaSetDevice(device_));
    info_ = cuda::device_info(device_);
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes_, cudaDevAttrL2CacheSize, device_));
    CB_CUBLAS_CHECK(cublasLtCreate(&handle_));
    stream_ = cuda::create_stream();
    workspace_ = cuda::DeviceBuffer(kWorkspaceBytes);
  }
  ~GpuGemmEngine() override {
    release_descriptors();
    cublasLtDestroy(handle_);
  }

  std::string device() const override { return info_.name + " (GPU " + std::to_string(device_) + ")"; }
  std::string library() const override { return "cuBLASLt " + std::to_string(cublasLtGetVersion()); }

  std::string unsupported_reason(GemmType type) const override {
    if (type == GemmType::kFloat64) return "float64 GEMM is measured on CPUs only in this benchmark";
    // cuBLASLt's fp8 GEMM runs on Ada (8.9) and Hopper (9.0) and newer.
    if (type == GemmType::kFp8 && info_.compute_major * 10 + info_.compute_minor < 89) {
      return "fp8 GEMM needs compute capability 8.9 or newer (this GPU: " + std::to_string(info_.compute_major) + "." +
             std::to_string(info_.compute_minor) + ")";
    }
    return "";
  }

  void prepare(const GemmShape& shape, GemmType type, std::uint64_t seed, int sets) override {
    CB_CUDA_CHECK(cudaSetDevice(device_));
    shape_ = shape;
    type_ = type;
    choice_ = choice_for(type);
    const auto a_count = static_cast<std::size_t>(shape.m * shape.k), b_count = static_cast<std::size_t>(shape.k * shape.n),
               c_count = static_cast<std::size_t>(shape.m * shape.n);
    std::vector<unsigned char> a(a_count * choice_.ab_bytes), b(b_count * choice_.ab_bytes);
    for (std::int64_t p = 0; p < shape.k; ++p) {
      for (std::int64_t i = 0; i < shape.m; ++i) {
        const auto logical = static_cast<std::uint64_t>(i + p * shape.m);
        const auto stored = static_cast<std::size_t>(choice_.a_transposed ? p + i * shape.k : i + p * shape.m);
        store(choice_.ab, a, stored, gemm_input(type, seed, Matrix::kA, logical));
      }
    }
    for (std::size_t i = 0; i < b_count; ++i) store(choice_.ab, b, i, gemm_input(type, seed, Matrix::kB, i));
    sets_.clear();
    for (int s = 0; s < sets; ++s) {
      Set set{cuda::DeviceBuffer(a.size()), cuda::DeviceBuffer(b.size()), cuda::DeviceBuffer(c_count * choice_.cd_bytes)};
      CB_CUDA_CHECK(cudaMemcpy(set.a.data(), a.data(), a.size(), cudaMemcpyHostToDevice));
      CB_CUDA_CHECK(cudaMemcpy(set.b.data(), b.data(), b.size(), cudaMemcpyHostToDevice));
      CB_CUDA_CHECK(cudaMemset(set.c.data(), 0, c_count * choice_.cd_bytes));
      sets_.push_back(std::move(set));
    }
    build_descriptors();
  }

  std::string algorithm() const override { return algorithm_; }

  TimingSchedule schedule() const override { return TimingSchedule::kBatch; }
  void issue(int set) override { multiply(set); }
  void wait() override { CB_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }

  void corrupt_output(int set) override {
    std::vector<unsigned char> value(static_cast<std::size_t>(choice_.cd_bytes));
    CB_CUDA_CHECK(cudaMemcpy(value.data(), sets_.at(set).c.data(), value.size(), cudaMemcpyDeviceToHost));
    store(choice_.cd, value, 0, -load(choice_.cd, value.data()) + 1000.0);
    CB_CUDA_CHECK(cudaMemcpy(sets_.at(set).c.data(), value.data(), value.size(), cudaMemcpyHostToDevice));
  }

  std::vector<double> read_outputs(int set, const std::vector<GemmEntry>& entries) override {
    std::vector<double> out;
    unsigned char value[8];
    for (const auto& entry : entries) {
      const auto offset = static_cast<std::size_t>(entry.row + entry.column * shape_.m) * choice_.cd_bytes;
      CB_CUDA_CHECK(cudaMemcpy(value, static_cast<unsigned char*>(sets_.at(set).c.data()) + offset,
                                       static_cast<std::size_t>(choice_.cd_bytes), cudaMemcpyDeviceToHost));
      out.push_back(load(choice_.cd, value));
    }
    return out;
  }

  std::uint64_t cache_bytes() const override { return static_cast<std::uint64_t>(l2_bytes_); }

  std::optional<double> peak_tflops(GemmType type, bool* is_estimate) const override {
    *is_estimate = false;
    return gpu_peak_tflops(info_.name, type);
  }

 private:
  struct Set {
    cuda::DeviceBuffer a, b, c;
  };

  void release_descriptors() {
    if (preference_) cublasLtMatmulPreferenceDestroy(preference_);
    for (auto* layout : {a_layout_, b_layout_, c_layout_}) {
      if (layout) cublasLtMatrixLayoutDestroy(layout);
    }
    if (operation_) cublasLtMatmulDescDestroy(operation_);
    preference_ = nullptr;
    a_layout_ = b_layout_ = c_layout_ = nullptr;
    operation_ = nullptr;
  }

  void build_descriptors() {
    release_descriptors();
    const auto m = static_cast<std::uint64_t>(shape_.m), n = static_cast<std::uint64_t>(shape_.n),
               k = static_cast<std::uint64_t>(shape_.k);
    CB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&operation_, choice_.compute, CUDA_R_32F));
    const cublasOperation_t transpose_a = choice_.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, no_transpose = CUBLAS_OP_N;
    CB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose_a, sizeof(transpose_a)));
    CB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof(no_transpose)));
    if (type_ == GemmType::kFp8) {  // fast accumulation, as the datasheet's fp8 figures assume
      const std::int8_t fast_accumulation = 1;
      CB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accumulation,
                                                     sizeof(fast_accumulation)));
    }
    if (choice_.a_transposed) CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_layout_, choice_.ab, k, m, k));
    else CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_layout_, choice_.ab, m, k, m));
    CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b_layout_, choice_.ab, k, n, k));
    CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c_layout_, choice_.cd, m, n, m));
    CB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference_));
    const std::size_t workspace = kWorkspaceBytes;
    CB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                 &workspace, sizeof(workspace)));
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle_, operation_, a_layout_, b_layout_, c_layout_,
                                                                 c_layout_, preference_, 1, &heuristic_, &found);
    if (status != CUBLAS_STATUS_NOT_SUPPORTED) CB_CUBLAS_CHECK(status);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || found == 0) {
      throw ShapeUnsupported("cuBLASLt has no algorithm for " + to_string(type_) + " " + std::to_string(m) + "x" +
                             std::to_string(n) + "x" + std::to_string(k));
    }
    int algorithm_id = -1;
    std::size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&heuristic_.algo, CUBLASLT_ALGO_CONFIG_ID, &algorithm_id, sizeof(algorithm_id), &written);
    algorithm_ = "cublasLtMatmul heuristic #1 (algo id " + std::to_string(algorithm_id) + ", workspace " +
                 std::to_string(heuristic_.workspaceSize) + " B)";
  }

  void multiply(int set) {
    const float alpha = 1.0f, beta = 0.0f;
    Set& s = sets_.at(static_cast<std::size_t>(set));
    CB_CUBLAS_CHECK(cublasLtMatmul(handle_, operation_, &alpha, s.a.data(), a_layout_, s.b.data(), b_layout_, &beta,
                                           s.c.data(), c_layout_, s.c.data(), c_layout_, &heuristic_.algo,
                                           workspace_.data(), kWorkspaceBytes, stream_.get()));
  }

  int device_;
  cuda::DeviceInfo info_;
  int l2_bytes_ = 0;
  cublasLtHandle_t handle_ = nullptr;
  cuda::Stream stream_;
  cuda::DeviceBuffer workspace_;
  GemmShape shape_;
  GemmType type_ = GemmType::kFloat32;
  TypeChoice choice_ = choice_for(GemmType::kFloat32);
  std::vector<Set> sets_;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, c_layout_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  std::string algorithm_;
};

}  // namespace

std::unique_ptr<GemmEngine> make_gpu_gemm_engine(int local_rank, std::string* why_not) {
  const int device = cuda::device_for_local_rank(local_rank, why_not);
  if (device < 0) return nullptr;
  return std::make_unique<GpuGemmEngine>(device);
}

}  // namespace collbench::compute
