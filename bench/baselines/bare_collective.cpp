// The CPU anchor for the *_perf programs: a bare loop over one MPI collective timed the way OSU's
// osu_allreduce, osu_bcast, osu_allgather and osu_alltoall time it: page-aligned buffers (as OSU
// allocates them), a barrier outside the timed region, a clock around each call, each rank's mean
// over iterations, then the mean of those over ranks (OSU's "Avg Latency"). It also prints the max
// over ranks of the per-rank means (OSU's -f "Max Latency"). No collbench code: the anchor must
// not share a bug with what it checks.
//
// usage: mpirun -np N bare_collective COLLECTIVE SIZE_BYTES... [-n ITERATIONS] [-w WARMUP]
//   COLLECTIVE: all_reduce, broadcast (root 0), all_gather, alltoall; float32 (sum), out of place.
//   SIZE_BYTES is the nccl-tests row size: the whole buffer for all_reduce and broadcast, all
//   ranks' blocks together for all_gather and alltoall.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void* page_aligned(std::size_t bytes) {
  void* memory = nullptr;
  if (posix_memalign(&memory, 4096, bytes == 0 ? 1 : bytes) != 0) {
    std::fprintf(stderr, "bare_collective: cannot allocate %zu bytes\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::memset(memory, 1, bytes);  // touched, so no page fault lands in a timed call
  return memory;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string collective = argc > 1 ? argv[1] : "";
  if (collective != "all_reduce" && collective != "broadcast" && collective != "all_gather" && collective != "alltoall") {
    if (rank == 0) {
      std::fprintf(stderr, "usage: bare_collective all_reduce|broadcast|all_gather|alltoall SIZE... [-n N] [-w N]\n");
    }
    MPI_Finalize();
    return 2;
  }
  std::vector<long> sizes;
  int iterations = 1000, warmup = 100;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-n" && i + 1 < argc) iterations = std::atoi(argv[++i]);
    else if (arg == "-w" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else sizes.push_back(std::atol(arg.c_str()));
  }
  if (rank == 0) {
    std::printf("# %s, %d ranks, %d iterations: bytes  mean_over_ranks_us  max_over_ranks_us\n", collective.c_str(), size,
                iterations);
  }
  const bool partitioned = collective == "all_gather" || collective == "alltoall";
  for (long bytes : sizes) {
    const int whole = static_cast<int>(bytes / static_cast<long>(sizeof(float)));
    // Per-rank blocks of whole 16 bytes, as nccl-tests rounds them; a row too small for one block
    // per rank is raised to one block per rank, as collbench raises it (its row then says 16 B x ranks).
    int block = (whole / size) & ~3;
    if (block == 0) block = 4;
    const int send_count = !partitioned ? whole : collective == "alltoall" ? block * size : block;
    const int recv_count = partitioned ? block * size : whole;
    void* send = page_aligned(sizeof(float) * static_cast<std::size_t>(send_count));
    void* recv = page_aligned(sizeof(float) * static_cast<std::size_t>(recv_count));
    double total_us = 0;
    for (int i = -warmup; i < iterations; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = std::chrono::steady_clock::now();
      if (collective == "all_reduce") MPI_Allreduce(send, recv, whole, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      else if (collective == "broadcast") MPI_Bcast(rank == 0 ? send : recv, whole, MPI_FLOAT, 0, MPI_COMM_WORLD);
      else if (collective == "all_gather") MPI_Allgather(send, block, MPI_FLOAT, recv, block, MPI_FLOAT, MPI_COMM_WORLD);
      else MPI_Alltoall(send, block, MPI_FLOAT, recv, block, MPI_FLOAT, MPI_COMM_WORLD);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      if (i >= 0) total_us += us;
    }
    const double my_mean = total_us / iterations;
    double sum = 0, slowest = 0;
    MPI_Reduce(&my_mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&my_mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%8ld  %12.3f  %12.3f\n", bytes, sum / size, slowest);
    std::free(send);
    std::free(recv);
  }
  MPI_Finalize();
  return 0;
}
