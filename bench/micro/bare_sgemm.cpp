// The baseline for matmul_perf float32: one cblas_sgemm call timed with a monotonic clock, after
// warm-up, as matmul_perf times it, with nothing else around it.
// usage: bare_sgemm N [iterations=20] [warmup=5] [threads=0 (OpenBLAS default)]
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bare_sgemm N [iterations] [warmup] [threads]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 5;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 0;
  if (n <= 0 || iterations <= 0 || warmup < 0) return 2;
  if (threads > 0) openblas_set_num_threads(threads);
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<float> a(count), b(count), c(count, 0.0f);
  std::mt19937 random(1);
  std::uniform_real_distribution<float> uniform(0.0625f, 1.0f);
  for (auto& x : a) x = uniform(random);
  for (auto& x : b) x = uniform(random);
  auto multiply = [&] {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  };
  for (int i = 0; i < warmup; ++i) multiply();
  double total_us = 0, best_us = 1e300;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    multiply();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    total_us += us;
    best_us = us < best_us ? us : best_us;
  }
  const double mean_us = total_us / iterations;
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  std::printf("bare_sgemm n=%d core=%s threads=%d mean_us=%.1f min_us=%.1f gflops=%.2f\n", n, openblas_get_corename(),
              openblas_get_num_threads(), mean_us, best_us, flops / (mean_us * 1e-6) / 1e9);
  return c[0] == 0.0f ? 1 : 0;  // inputs are positive, so a zero result means sgemm did not run
}
