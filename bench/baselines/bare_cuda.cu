// The bare references that matmul_perf, membw_perf and copy_perf are put next to on a GPU
// (scripts/gpu-verify.sh): one cuBLASLt call and one cudaMemcpyAsync, with nothing of collbench in
// between. Timed as collbench times GPU work (DESIGN.md): after warm-up and one wait, a host clock
// around ITERS calls issued back to back on one stream and one wait; time = elapsed / ITERS.
//
//   bare_cuda gemm bf16|fp8 M N K ITERS WARMUP
//   bare_cuda copy d2d|h2d|d2h pinned|pageable BYTES ITERS WARMUP
//
// Prints one line: "gemm bf16 MxNxK time_us T tflops F" or
// "copy d2d device BYTES time_us T gbps G rw_gbps R" (rw: bytes read plus written, d2d only).
// The GEMM uses the layout and settings of collbench's cuBLASLt engine (column-major, fp8 as
// A transposed with bf16 output and fast accumulation), so a gap is collbench's, not the layout's.
// Inputs are random values in [-1, 1), never zeros (zeros multiply faster than real data).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "bare_cuda: error: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "bare_cuda: error: %s: cuBLAS status %d\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "bare_cuda: error: %s (usage: bare_cuda gemm bf16|fp8 M N K ITERS WARMUP | "
                       "bare_cuda copy d2d|h2d|d2h pinned|pageable BYTES ITERS WARMUP)\n", why);
  std::exit(2);
}

long long number(const char* text) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (!*text || *end || value <= 0) usage((std::string("not a positive number: '") + text + "'").c_str());
  return value;
}

__device__ float random_unit(unsigned long long index) {
  unsigned long long x = index * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
  return static_cast<float>(x >> 40) / static_cast<float>(1ull << 24) * 2.0f - 1.0f;
}

template <class T>
__global__ void fill_random(T* data, unsigned long long count) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < count; i += 1ull * gridDim.x * blockDim.x) {
    data[i] = T(random_unit(i));
  }
}

template <class Issue>
double time_us(cudaStream_t stream, long long iterations, long long warmup, Issue issue) {
  for (long long i = 0; i < warmup; ++i) issue();
  check(cudaStreamSynchronize(stream), "warm-up");
  const auto start = std::chrono::steady_clock::now();
  for (long long i = 0; i < iterations; ++i) issue();
  check(cudaStreamSynchronize(stream), "timed batch");
  check(cudaGetLastError(), "launch");
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / iterations;
}

int gemm(int argc, char** argv) {
  if (argc != 8) usage("gemm takes TYPE M N K ITERS WARMUP");
  const std::string type = argv[2];
  if (type != "bf16" && type != "fp8") usage("gemm TYPE is bf16 or fp8");
  const bool fp8 = type == "fp8";
  const unsigned long long m = number(argv[3]), n = number(argv[4]), k = number(argv[5]);
  const long long iterations = number(argv[6]), warmup = number(argv[7]);
  const cudaDataType_t ab = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF, cd = CUDA_R_16BF;
  const std::size_t ab_size = fp8 ? 1 : 2;
  void *a = nullptr, *b = nullptr, *c = nullptr, *workspace = nullptr;
  const std::size_t workspace_bytes = 64u << 20;  // as collbench's engine
  check(cudaMalloc(&a, m * k * ab_size), "cudaMalloc A");
  check(cudaMalloc(&b, k * n * ab_size), "cudaMalloc B");
  check(cudaMalloc(&c, m * n * 2), "cudaMalloc C");
  check(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc workspace");
  if (fp8) {
    fill_random<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(a), m * k);
    fill_random<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(b), k * n);
  } else {
    fill_random<<<1024, 256>>>(static_cast<__nv_bfloat16*>(a), m * k);
    fill_random<<<1024, 256>>>(static_cast<__nv_bfloat16*>(b), k * n);
  }
  check(cudaDeviceSynchronize(), "filling the inputs");

  cublasLtHandle_t handle = nullptr;
  check(cublasLtCreate(&handle), "cublasLtCreate");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cublasLtMatmulDesc_t operation = nullptr;
  check(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t transpose_a = fp8 ? CUBLAS_OP_T : CUBLAS_OP_N, no_transpose = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA, &transpose_a, sizeof(transpose_a)), "TRANSA");
  check(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof(no_transpose)), "TRANSB");
  if (fp8) {
    const std::int8_t fast_accumulation = 1;
    check(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accumulation, sizeof(fast_accumulation)),
          "FAST_ACCUM");
  }
  cublasLtMatrixLayout_t a_layout = nullptr, b_layout = nullptr, c_layout = nullptr;
  if (fp8) check(cublasLtMatrixLayoutCreate(&a_layout, ab, k, m, k), "layout A");
  else check(cublasLtMatrixLayoutCreate(&a_layout, ab, m, k, m), "layout A");
  check(cublasLtMatrixLayoutCreate(&b_layout, ab, k, n, k), "layout B");
  check(cublasLtMatrixLayoutCreate(&c_layout, cd, m, n, m), "layout C");
  cublasLtMatmulPreference_t preference = nullptr;
  check(cublasLtMatmulPreferenceCreate(&preference), "preference");
  check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof(workspace_bytes)), "workspace preference");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(handle, operation, a_layout, b_layout, c_layout, c_layout, preference, 1, &heuristic, &found),
        "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) {
    std::fprintf(stderr, "bare_cuda: error: cuBLASLt has no algorithm for %s %llux%llux%llu\n", type.c_str(), m, n, k);
    return 1;
  }
  const float alpha = 1.0f, beta = 0.0f;
  const double us = time_us(stream, iterations, warmup, [&] {
    check(cublasLtMatmul(handle, operation, &alpha, a, a_layout, b, b_layout, &beta, c, c_layout, c, c_layout, &heuristic.algo,
                         workspace, workspace_bytes, stream), "cublasLtMatmul");
  });
  std::printf("gemm %s %llux%llux%llu time_us %.3f tflops %.3f\n", type.c_str(), m, n, k, us, 2.0 * m * n * k / us / 1e6);
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(c_layout);
  cublasLtMatrixLayoutDestroy(b_layout);
  cublasLtMatrixLayoutDestroy(a_layout);
  cublasLtMatmulDescDestroy(operation);
  cublasLtDestroy(handle);
  return 0;
}

int copy(int argc, char** argv) {
  if (argc != 7) usage("copy takes DIRECTION MEMORY BYTES ITERS WARMUP");
  const std::string direction = argv[2], memory = argv[3];
  if (direction != "d2d" && direction != "h2d" && direction != "d2h") usage("copy DIRECTION is d2d, h2d or d2h");
  if (memory != "pinned" && memory != "pageable") usage("copy MEMORY is pinned or pageable");
  const std::size_t bytes = static_cast<std::size_t>(number(argv[4]));
  const long long iterations = number(argv[5]), warmup = number(argv[6]);
  void *device_a = nullptr, *device_b = nullptr, *host = nullptr;
  check(cudaMalloc(&device_a, bytes), "cudaMalloc");
  fill_random<<<1024, 256>>>(static_cast<float*>(device_a), bytes / sizeof(float));
  if (direction == "d2d") {
    check(cudaMalloc(&device_b, bytes), "cudaMalloc");
  } else if (memory == "pinned") {
    check(cudaMallocHost(&host, bytes), "cudaMallocHost");
    std::memset(host, 0x3c, bytes);
  } else {
    host = std::malloc(bytes);
    if (!host) usage("out of host memory");
    std::memset(host, 0x3c, bytes);  // touched, so the first copy does not time page faults
  }
  check(cudaDeviceSynchronize(), "filling the source");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const double us = time_us(stream, iterations, warmup, [&] {
    if (direction == "d2d") check(cudaMemcpyAsync(device_b, device_a, bytes, cudaMemcpyDeviceToDevice, stream), "copy");
    else if (direction == "h2d") check(cudaMemcpyAsync(device_a, host, bytes, cudaMemcpyHostToDevice, stream), "copy");
    else check(cudaMemcpyAsync(host, device_a, bytes, cudaMemcpyDeviceToHost, stream), "copy");
  });
  const double gbps = static_cast<double>(bytes) / us / 1e3;
  std::printf("copy %s %s %zu time_us %.3f gbps %.3f", direction.c_str(), direction == "d2d" ? "device" : memory.c_str(), bytes, us, gbps);
  if (direction == "d2d") std::printf(" rw_gbps %.3f", 2 * gbps);
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("no mode given");
  if (std::strcmp(argv[1], "gemm") == 0) return gemm(argc, argv);
  if (std::strcmp(argv[1], "copy") == 0) return copy(argc, argv);
  usage("the mode is gemm or copy");
}
