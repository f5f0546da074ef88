// The anchor for all_reduce_perf on the CPU: a bare loop over MPI_Allreduce timed the OSU way
// (page-aligned buffers as OSU allocates them, barrier outside the timed region, a clock around
// each call, mean over iterations per rank, then the max of those means over ranks). Also prints the harness's default estimator (mean over
// iterations of the per-iteration max over ranks) from the same samples, so both can be compared.
//
// usage: mpirun -np 2 bare_allreduce SIZE_BYTES... [-n ITERATIONS] [-w WARMUP]   (float32, sum)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<long> sizes;
  int iterations = 1000, warmup = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-n" && i + 1 < argc) iterations = std::atoi(argv[++i]);
    else if (arg == "-w" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else sizes.push_back(std::atol(arg.c_str()));
  }
  if (rank == 0) std::printf("# bytes  osu_mean_of_rank_means_max_us  per_iteration_max_mean_us  iterations %d\n", iterations);
  for (long bytes : sizes) {
    const std::size_t count = static_cast<std::size_t>(bytes) / sizeof(float);
    // Page-aligned like OSU's buffers: at 64 KiB an unaligned std::vector alone costs ~10% here.
    void* send_memory = nullptr;
    void* recv_memory = nullptr;
    if (posix_memalign(&send_memory, 4096, bytes) != 0 || posix_memalign(&recv_memory, 4096, bytes) != 0) {
      std::fprintf(stderr, "bare_allreduce: cannot allocate %ld bytes\n", bytes);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::unique_ptr<float, decltype(&std::free)> send(static_cast<float*>(send_memory), &std::free);
    std::unique_ptr<float, decltype(&std::free)> recv(static_cast<float*>(recv_memory), &std::free);
    for (std::size_t i = 0; i < count; ++i) send.get()[i] = static_cast<float>((i * 7 + rank) % 9) - 4.0f;
    std::vector<double> samples(static_cast<std::size_t>(iterations));
    for (int i = -warmup; i < iterations; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = std::chrono::steady_clock::now();
      MPI_Allreduce(send.get(), recv.get(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      if (i >= 0) samples[static_cast<std::size_t>(i)] = us;
    }
    double my_mean = 0;
    for (double s : samples) my_mean += s;
    my_mean /= iterations;
    double osu = 0;
    MPI_Reduce(&my_mean, &osu, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, samples.data(), iterations, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double max_mean = 0;
    for (double s : samples) max_mean += s;
    max_mean /= iterations;
    if (rank == 0) std::printf("%8ld  %12.3f  %12.3f\n", bytes, osu, max_mean);
  }
  MPI_Finalize();
  return 0;
}
