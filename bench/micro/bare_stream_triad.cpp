// The baseline for membw_perf triad: STREAM's triad a[i] = b[i] + q*c[i] in a plain OpenMP loop,
// timed per pass with a monotonic clock after warm-up, bytes counted as STREAM does (3 arrays).
// usage: bare_stream_triad BYTES_PER_ARRAY [iterations=20] [warmup=5]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bare_stream_triad BYTES_PER_ARRAY [iterations] [warmup]\n");
    return 2;
  }
  const long long n = std::atoll(argv[1]) / static_cast<long long>(sizeof(double));
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 5;
  if (n <= 0 || iterations <= 0 || warmup < 0) return 2;
  const std::size_t bytes = ((static_cast<std::size_t>(n) * sizeof(double) + (2u << 20) - 1) / (2u << 20)) * (2u << 20);
  auto* a = static_cast<double*>(std::aligned_alloc(2u << 20, bytes));
  auto* b = static_cast<double*>(std::aligned_alloc(2u << 20, bytes));
  auto* c = static_cast<double*>(std::aligned_alloc(2u << 20, bytes));
  if (!a || !b || !c) return 1;
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  const double q = 3.0;
  auto triad = [&] {
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
  };
  for (int i = 0; i < warmup; ++i) triad();
  double total_us = 0, best_us = 1e300;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    triad();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    total_us += us;
    best_us = us < best_us ? us : best_us;
  }
  const double mean_us = total_us / iterations;
  const double counted = 3.0 * static_cast<double>(n) * sizeof(double);
  std::printf("bare_stream_triad bytes=%lld threads=%d mean_us=%.1f min_us=%.1f gbps=%.2f\n",
              n * static_cast<long long>(sizeof(double)), omp_get_max_threads(), mean_us, best_us,
              counted / (mean_us * 1e-6) / 1e9);
  const bool right = a[n - 1] == 2.0;
  std::free(a);
  std::free(b);
  std::free(c);
  return right ? 0 : 1;
}
