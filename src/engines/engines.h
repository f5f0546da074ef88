// The devices matmul_perf, membw_perf, copy_perf and envcheck measure, behind small interfaces, so
// the programs never include cblas.h, omp.h or cuda_runtime.h. Each engine times its own operation the
// device's way: a monotonic clock on the CPU, CUDA events on the GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engines/kinds.h"
#include "core/error.h"
#include "core/timed_operation.h"
#include "engines/gemm_check.h"

namespace collbench::compute {

// A shape the library has no algorithm for: that row is skipped with this reason; the run goes on.
class ShapeUnsupported : public Error {
 public:
  using Error::Error;
};

class GemmEngine {
 public:
  virtual ~GemmEngine() = default;
  virtual std::string device() const = 0;       // "cpu" or "NVIDIA H100 80GB HBM3 (GPU 0)"
  virtual std::string library() const = 0;      // "OpenBLAS 0.3.21 (SkylakeX)", "cuBLASLt 13.0"
  // Empty when `type` runs here; otherwise why not (reported as skipped, never faked).
  virtual std::string unsupported_reason(GemmType type) const = 0;
  // Allocates `sets` independent A, B, C triples and fills A and B with gemm_input().
  virtual void prepare(const GemmShape& shape, GemmType type, std::uint64_t seed, int sets) = 0;
  // What ran: the BLAS routine or the cuBLASLt algorithm chosen by the heuristic.
  virtual std::string algorithm() const = 0;
  // Timed by the harness's loop: the CPU computes before issue() returns (OSU's schedule); the GPU
  // queues on its stream and is timed in batches, as nccl-tests times collectives.
  virtual TimingSchedule schedule() const = 0;
  // Issues one C = A x B on input set `set`; wait() returns when everything issued is done.
  virtual void issue(int set) = 0;
  virtual void wait() = 0;
  // Testing aid: overwrites C(0,0) of `set` with a value no correct GEMM gives.
  virtual void corrupt_output(int set) = 0;
  virtual std::vector<double> read_outputs(int set, const std::vector<GemmEntry>& entries) = 0;
  virtual std::uint64_t cache_bytes() const = 0;  // the cache the input sets' rotation must defeat
  // Peak of this device for `type` in TFLOP/s, and whether it is an estimate rather than a datasheet figure.
  virtual std::optional<double> peak_tflops(GemmType type, bool* is_estimate) const = 0;
};

class StreamEngine {
 public:
  virtual ~StreamEngine() = default;
  virtual std::string device() const = 0;
  virtual std::string unsupported_reason(StreamKernel kernel) const = 0;
  // Allocates three arrays of `elements` doubles and initialises them as STREAM does (1, 2, 0).
  virtual void prepare(std::uint64_t elements) = 0;
  virtual TimingSchedule schedule() const = 0;
  virtual void issue(StreamKernel kernel) = 0;  // one pass; wait() returns when the issued passes are done
  virtual void wait() = 0;
  // The check, in two halves around one pass the loop issues: fill_check_inputs() writes
  // stream_check_input's pattern into the arrays; count_wrong() compares every output element of
  // `kernel` exactly with stream_check_expected (the pattern's arithmetic is exact) and returns the
  // wrong ones. The arrays then hold the pattern: prepare() again before timing as STREAM does.
  virtual void fill_check_inputs() = 0;
  virtual std::int64_t count_wrong(StreamKernel kernel, bool corrupt_first_element) = 0;
  virtual std::optional<double> peak_gbps() const = 0;
  // The cache in front of the arrays' memory (the device's L2, the host's last-level cache above
  // CPU 0 by hwloc), 0 where unknown: a pass whose arrays fit in it times the cache, not the memory.
  virtual std::uint64_t cache_bytes() const = 0;
};

// One way copy_perf moves bytes (a row's key fields): host memcpy, or a GPU copy between two
// memories by one engine, in one direction or both at once.
struct CopyPath {
  std::string mode;    // host, h2d, d2h, h2d+d2h, d2d, p2p
  std::string memory;  // host, pinned, pageable, device
  // cpu (memcpy), ce (copy engine), driver (cudaMemcpyAsync within one device: the driver's own
  // kernel on the SMs, not a copy engine), sm (our copy kernel)
  std::string engine;
  int source = -1, destination = -1;  // device indices; -1 for host memory
  std::string direction = "uni";      // uni, or bi: both directions at once
  // The cache both buffers of a copy pass through (the GPU's L2 for d2d, the host's last-level
  // cache for memcpy); 0 where the link, not a cache, bounds the copy (PCIe, NVLink) or it is unknown.
  std::uint64_t cache_bytes = 0;
};

// Whether a pass over `working_set_bytes` (every byte it reads and writes, each buffer once) fits
// in a cache of `cache_bytes`: its rows then time the cache, which copy_perf and membw_perf reuse
// across iterations, and must say so (a d2d copy of 16 MiB on an H100 showed 4.26 TB/s read plus
// write, above its 3.35 TB/s HBM). Unknown caches (0) mark nothing.
inline bool fits_in_cache(std::uint64_t working_set_bytes, std::uint64_t cache_bytes) {
  return cache_bytes > 0 && working_set_bytes <= cache_bytes;
}

class CopyEngine {
 public:
  virtual ~CopyEngine() = default;
  // The paths it measures, in the table's order, each up to the largest size it was made for.
  virtual const std::vector<CopyPath>& paths() const = 0;
  virtual TimingSchedule schedule() const = 0;
  // One copy of `bytes` along paths()[path] (each direction when bi); wait(path) returns when
  // everything issued along it is done.
  virtual void issue(std::size_t path, std::uint64_t bytes) = 0;
  virtual void wait(std::size_t path) = 0;
  // The check around one copy, where checks() says so (the host copy; GPU copies are not checked
  // yet): poison() clears the destination, count_wrong() counts bytes that differ from the source.
  virtual bool checks() const { return false; }
  virtual void poison(std::uint64_t /*bytes*/) {}
  virtual std::int64_t count_wrong(std::uint64_t /*bytes*/, bool /*corrupt_last_byte*/) { return 0; }
  // What the report's context says of the devices copied on: one line per GPU, and versions.
  virtual std::vector<std::string> devices() const { return {}; }
  virtual std::vector<std::pair<std::string, std::string>> versions() const { return {}; }
};

// STREAM's scalar q (scale: b = q c; triad: a = b + q c).
constexpr double kStreamScalar = 3.0;

// The check's inputs at element i: small integers, so every kernel's arithmetic on them is exact.
struct StreamCheckInput {
  double a, b, c;
};
inline StreamCheckInput stream_check_input(long long i) {
  return {static_cast<double>(i % 1021), static_cast<double>(i % 511) + 1.0, static_cast<double>(i % 257) - 128.0};
}
// The output element i of one pass of `kernel` over those inputs.
double stream_check_expected(StreamKernel kernel, long long i);

// Bytes STREAM counts for one pass over arrays of `elements` doubles: copy and scale read one array
// and write one, add and triad read two and write one; write-allocate traffic is not counted.
std::uint64_t stream_bytes_counted(StreamKernel kernel, std::uint64_t elements);

// CPU engines (always built): OpenBLAS GEMM and OpenMP STREAM with `threads` threads.
std::unique_ptr<GemmEngine> make_cpu_gemm_engine(int threads);
std::unique_ptr<StreamEngine> make_cpu_stream_engine(int threads);
// Host memcpy between two buffers of `largest` bytes.
std::unique_ptr<CopyEngine> make_host_copy_engine(std::uint64_t largest);

// GPU engines: nullptr with `why_not` filled when this build has no CUDA or no GPU is visible.
// `local_rank` picks the device (local_rank modulo the visible devices).
std::unique_ptr<GemmEngine> make_gpu_gemm_engine(int local_rank, std::string* why_not);
std::unique_ptr<StreamEngine> make_gpu_stream_engine(int local_rank, std::string* why_not);
// Every GPU copy mode on every visible GPU and between every pair, up to `largest` bytes.
std::unique_ptr<CopyEngine> make_gpu_copy_engine(std::uint64_t largest, std::string* why_not);

// The GPU of this rank for envcheck's inventory: name, compute capability, memory, PCI bus id,
// driver and runtime versions; empty fields and a reason when there is none.
struct GpuInventory {
  bool present = false;
  std::string reason;  // why not present
  std::string name, compute_capability, pci_bus_id, driver_version, cuda_runtime_version, nccl_version;
  std::uint64_t memory_bytes = 0;
};
GpuInventory probe_gpu(int local_rank);

}  // namespace collbench::compute
