// copy_perf: how fast one process moves bytes. Host<->device (pinned and pageable), device->device
// within a GPU, and between GPUs, each by a copy engine (cudaMemcpyAsync / peer copies) and by an
// SM copy kernel, one direction and both at once, over a size sweep, with a matrix over GPU pairs.
// Without a visible GPU (or a CUDA build) it measures host memcpy and says the GPU modes are
// unavailable. P2P between ranks is sendrecv_perf's job. GB/s = 1e9 bytes/s of data copied.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/context.h"
#include "core/command_line.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "report/report.h"
#include "report/report_file.h"

#ifdef COLLBENCH_HAVE_CUDA
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_device.h"
#include "gpu/sm_copy.h"
#endif

namespace collbench {
namespace {

struct CopyOptions {
  SizeSweep sweep{8, 64u << 20, 0, 4.0};
  int iterations = 20;
  int warmup_iterations = 5;
  std::string report_path;
  bool overwrite = false;
  bool host_only = false;  // --host-only: the memcpy baseline even where GPUs are visible
  bool show_help = false;
  std::string help_text;  // --help: what to print instead of measuring
};

struct CopyRow {
  std::string mode;       // h2d, d2h, d2d, p2p, host
  std::string memory;     // pinned, pageable, device, host
  std::string engine;     // ce (copy engine), sm (kernel), cpu (memcpy)
  std::string direction;  // uni, bi
  int src = -1, dst = -1;  // device indices; -1 for host memory
  std::uint64_t bytes = 0;  // per direction per iteration
  TimeStats time_us;
  double gbps = 0;  // all bytes copied (both directions when bi) / mean time
  int iterations = 0;
};

CopyOptions parse(int argc, char** argv) {
  CopyOptions options;
  CommandLine command_line("copy_perf [options]",
                           "Modes with a GPU: h2d/d2h pinned and pageable (copy engine; bi = both at once), d2d within each\n"
                           "GPU and p2p between every GPU pair, copy engine (ce) vs SM kernel (sm), uni- and bidirectional.\n"
                           "GB/s = 1e9 bytes/s of data copied (d2d also moves as many bytes read as written).");
  CLI::App& app = command_line.app();
  start_section(app, "Sizes (K/M/G 1024-based)");
  add_size_sweep(app, options.sweep, {"SIZE", "smallest copy (default 8)", "largest copy (default 64M)", "additive step",
                                      "multiplicative step (default 4); conflicts with -i"});
  start_section(app, "Options");
  add_integer(app, "-n,--iters", "timed iterations (default 20)", options.iterations, 1, 100000000);
  add_integer(app, "-w,--warmup_iters,--warmup-iters", "warm-up iterations (default 5)", options.warmup_iterations, 0, 100000000);
  add_report_flags(app, options.report_path, options.overwrite);
  add_flag(app, "--host-only", "only the host memcpy baseline", options.host_only);
  add_flag(app, "-h,--help", "this text", options.show_help);
  app.footer("Exit codes: 0 ok, 1 runtime error, 2 bad usage.");
  command_line.parse(std::vector<std::string>(argv + 1, argv + argc));
  if (options.show_help) {
    options.help_text = command_line.help();
  } else {
    expand_sweep(options.sweep);  // validates now
  }
  return options;
}

CopyRow finish(CopyRow row, std::vector<double> samples_us, std::uint64_t bytes_moved) {
  row.iterations = static_cast<int>(samples_us.size());
  row.time_us = summarize_samples(samples_us);
  row.gbps = row.time_us.mean > 0 ? static_cast<double>(bytes_moved) / (row.time_us.mean * 1e3) : 0.0;
  return row;
}

std::vector<CopyRow> measure_host_memcpy(const CopyOptions& options) {
  std::vector<CopyRow> rows;
  const auto sizes = expand_sweep(options.sweep);
  const std::uint64_t largest = sizes.back();
  std::vector<unsigned char> source(largest, 0x5a), destination(largest, 0);  // touched: no page faults timed
  for (std::uint64_t bytes : sizes) {
    std::vector<double> samples;
    for (int i = 0; i < options.warmup_iterations + options.iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      std::memcpy(destination.data(), source.data(), bytes);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      if (i >= options.warmup_iterations) samples.push_back(us);
    }
    if (std::memcmp(destination.data(), source.data(), bytes) != 0) throw Error("host memcpy produced wrong bytes");
    rows.push_back(finish({"host", "host", "cpu", "uni", -1, -1, bytes, {}, 0}, samples, bytes));
  }
  return rows;
}

#ifdef COLLBENCH_HAVE_CUDA
struct DeviceSide {
  int device = 0;
  int sm_blocks = 0;
  cudaStream_t streams[2] = {nullptr, nullptr};
  cudaEvent_t start = nullptr, stop = nullptr, other_done = nullptr;
  void* a = nullptr;  // source and destination of copies on this device
  void* b = nullptr;
};

class GpuCopies {
 public:
  GpuCopies(int devices, std::uint64_t largest) : largest_(largest) {
    for (int d = 0; d < devices; ++d) {
      DeviceSide side;
      side.device = d;
      CB_CUDA_CHECK(cudaSetDevice(d));
      int sms = 0;
      CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
      side.sm_blocks = sms * 4;
      for (auto& stream : side.streams) CB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      CB_CUDA_CHECK(cudaEventCreate(&side.start));
      CB_CUDA_CHECK(cudaEventCreate(&side.stop));
      CB_CUDA_CHECK(cudaEventCreateWithFlags(&side.other_done, cudaEventDisableTiming));
      CB_CUDA_CHECK(cudaMalloc(&side.a, largest));
      CB_CUDA_CHECK(cudaMalloc(&side.b, largest));
      CB_CUDA_CHECK(cudaMemset(side.a, 0x5a, largest));
      CB_CUDA_CHECK(cudaMemset(side.b, 0, largest));
      sides_.push_back(side);
    }
    CB_CUDA_CHECK(cudaMallocHost(&pinned_[0], largest));
    CB_CUDA_CHECK(cudaMallocHost(&pinned_[1], largest));
    pageable_[0].assign(largest, 0x5a);
    pageable_[1].assign(largest, 0);
    std::memset(pinned_[0], 0x5a, largest);
    std::memset(pinned_[1], 0, largest);
    for (int i = 0; i < devices; ++i) {
      for (int j = 0; j < devices; ++j) {
        int can = 0;
        if (i != j) CB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, i, j));
        if (!can) continue;
        CB_CUDA_CHECK(cudaSetDevice(i));
        const cudaError_t status = cudaDeviceEnablePeerAccess(j, 0);
        if (status != cudaErrorPeerAccessAlreadyEnabled) CB_CUDA_CHECK(status);
        cudaGetLastError();
        peer_pairs_.emplace_back(i, j);
      }
    }
  }
  ~GpuCopies() {
    for (auto& side : sides_) {
      cudaSetDevice(side.device);
      cudaFree(side.a);
      cudaFree(side.b);
      for (auto stream : side.streams) cudaStreamDestroy(stream);
      cudaEventDestroy(side.start);
      cudaEventDestroy(side.stop);
      cudaEventDestroy(side.other_done);
    }
    cudaFreeHost(pinned_[0]);
    cudaFreeHost(pinned_[1]);
  }
  GpuCopies(const GpuCopies&) = delete;
  GpuCopies& operator=(const GpuCopies&) = delete;

  bool peer_access(int i, int j) const {
    return std::find(peer_pairs_.begin(), peer_pairs_.end(), std::make_pair(i, j)) != peer_pairs_.end();
  }

  // One iteration: `forward` on the first device's stream, `backward` (bidirectional only) on the
  // second's, both between the first device's start and stop events.
  double time_us(DeviceSide& first, DeviceSide& second, const std::function<void(cudaStream_t)>& forward,
                 const std::function<void(cudaStream_t)>& backward) {
    cudaStream_t main = first.streams[0];
    cudaStream_t other = second.streams[1];
    CB_CUDA_CHECK(cudaSetDevice(first.device));
    CB_CUDA_CHECK(cudaEventRecord(first.start, main));
    if (backward) CB_CUDA_CHECK(cudaStreamWaitEvent(other, first.start, 0));
    forward(main);
    if (backward) {
      CB_CUDA_CHECK(cudaSetDevice(second.device));
      backward(other);
      CB_CUDA_CHECK(cudaEventRecord(second.other_done, other));
      CB_CUDA_CHECK(cudaSetDevice(first.device));
      CB_CUDA_CHECK(cudaStreamWaitEvent(main, second.other_done, 0));
    }
    CB_CUDA_CHECK(cudaEventRecord(first.stop, main));
    CB_CUDA_CHECK(cudaEventSynchronize(first.stop));
    float ms = 0;
    CB_CUDA_CHECK(cudaEventElapsedTime(&ms, first.start, first.stop));
    return ms * 1e3;
  }

  std::vector<CopyRow> run(const CopyOptions& options) {
    std::vector<CopyRow> rows;
    for (std::uint64_t bytes : expand_sweep(options.sweep)) {
      auto sample = [&](CopyRow row, DeviceSide& first, DeviceSide& second, std::function<void(cudaStream_t)> forward,
                        std::function<void(cudaStream_t)> backward) {
        row.bytes = bytes;
        row.direction = backward ? "bi" : "uni";
        std::vector<double> samples;
        for (int i = 0; i < options.warmup_iterations + options.iterations; ++i) {
          const double us = time_us(first, second, forward, backward);
          if (i >= options.warmup_iterations) samples.push_back(us);
        }
        rows.push_back(finish(row, samples, backward ? 2 * bytes : bytes));
      };
      for (auto& side : sides_) {
        const int d = side.device;
        for (const bool pinned : {true, false}) {
          void* host_in = pinned ? pinned_[0] : pageable_[0].data();
          void* host_out = pinned ? pinned_[1] : pageable_[1].data();
          const char* memory = pinned ? "pinned" : "pageable";
          auto h2d = [&, host_in](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyAsync(side.b, host_in, bytes, cudaMemcpyHostToDevice, s)); };
          auto d2h = [&, host_out](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyAsync(host_out, side.a, bytes, cudaMemcpyDeviceToHost, s)); };
          sample({"h2d", memory, "ce", "", -1, d, 0, {}, 0}, side, side, h2d, nullptr);
          sample({"d2h", memory, "ce", "", d, -1, 0, {}, 0}, side, side, d2h, nullptr);
          sample({"h2d+d2h", memory, "ce", "", d, d, 0, {}, 0}, side, side, h2d, d2h);
        }
        auto ce_copy = [&](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyAsync(side.b, side.a, bytes, cudaMemcpyDeviceToDevice, s)); };
        auto sm_copy = [&](cudaStream_t s) { gpu::launch_sm_copy(side.b, side.a, bytes, side.sm_blocks, s); };
        sample({"d2d", "device", "ce", "", d, d, 0, {}, 0}, side, side, ce_copy, nullptr);
        sample({"d2d", "device", "sm", "", d, d, 0, {}, 0}, side, side, sm_copy, nullptr);
      }
      for (auto& from : sides_) {
        for (auto& to : sides_) {
          if (from.device == to.device) continue;
          auto ce_there = [&](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyPeerAsync(to.b, to.device, from.a, from.device, bytes, s)); };
          auto ce_back = [&](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyPeerAsync(from.b, from.device, to.a, to.device, bytes, s)); };
          sample({"p2p", "device", "ce", "", from.device, to.device, 0, {}, 0}, from, to, ce_there, nullptr);
          sample({"p2p", "device", "ce", "", from.device, to.device, 0, {}, 0}, from, to, ce_there, ce_back);
          // SM copies write into the peer's memory, so they need peer access both ways for bi.
          if (!peer_access(from.device, to.device)) continue;
          auto sm_there = [&](cudaStream_t s) { gpu::launch_sm_copy(to.b, from.a, bytes, from.sm_blocks, s); };
          auto sm_back = [&](cudaStream_t s) { gpu::launch_sm_copy(from.b, to.a, bytes, to.sm_blocks, s); };
          sample({"p2p", "device", "sm", "", from.device, to.device, 0, {}, 0}, from, to, sm_there, nullptr);
          if (peer_access(to.device, from.device)) sample({"p2p", "device", "sm", "", from.device, to.device, 0, {}, 0}, from, to, sm_there, sm_back);
        }
      }
    }
    return rows;
  }

 private:
  std::uint64_t largest_;
  std::vector<DeviceSide> sides_;
  void* pinned_[2] = {nullptr, nullptr};
  std::vector<unsigned char> pageable_[2];
  std::vector<std::pair<int, int>> peer_pairs_;
};
#endif

nlohmann::json row_json(const CopyRow& row) {
  nlohmann::json out = {{"kind", report::row_kind_spec(report::RowKind::kCopy).name},
                        {"mode", row.mode}, {"memory", row.memory}, {"engine", row.engine}, {"direction", row.direction},
                        {"src_device", row.src}, {"dst_device", row.dst}, {"bytes", row.bytes},
                        {"iterations", row.iterations},
                        {"time_us", {{"min", row.time_us.min}, {"p50", row.time_us.p50}, {"mean", row.time_us.mean},
                                     {"p95", row.time_us.p95}, {"p99", row.time_us.p99}, {"max", row.time_us.max},
                                     {"stdev", row.time_us.stdev}}},
                        {"gbps", row.gbps}};
  if (row.mode == "d2d") out["read_plus_write_gbps"] = 2 * row.gbps;
  return out;
}

// GB/s between every GPU pair at the largest size, one matrix per engine and direction.
nlohmann::json pair_matrices(const std::vector<CopyRow>& rows, int devices) {
  nlohmann::json matrices = nlohmann::json::array();
  if (devices < 2 || rows.empty()) return matrices;
  const std::uint64_t largest = rows.back().bytes;
  for (const char* engine : {"ce", "sm"}) {
    for (const char* direction : {"uni", "bi"}) {
      nlohmann::json matrix = nlohmann::json::array();
      for (int i = 0; i < devices; ++i) {
        nlohmann::json line = nlohmann::json::array();
        for (int j = 0; j < devices; ++j) {
          nlohmann::json cell = nullptr;
          for (const auto& row : rows) {
            if (row.mode == "p2p" && row.engine == engine && row.direction == direction && row.src == i && row.dst == j &&
                row.bytes == largest) cell = row.gbps;
          }
          line.push_back(cell);
        }
        matrix.push_back(line);
      }
      std::printf("# p2p %s %s GB/s at %s (row = source GPU, column = destination)\n", engine, direction, format_size(largest).c_str());
      for (const auto& line : matrix) {
        std::printf("#  ");
        for (const auto& cell : line) cell.is_null() ? std::printf("%10s", "-") : std::printf("%10.2f", cell.get<double>());
        std::printf("\n");
      }
      matrices.push_back({{"engine", engine}, {"direction", direction}, {"bytes", largest}, {"gbps", matrix}});
    }
  }
  return matrices;
}

int run(int argc, char** argv) {
  CopyOptions options;
  try {
    options = parse(argc, argv);
    if (options.show_help) {
      std::fputs(options.help_text.c_str(), stdout);
      return 0;
    }
    if (!options.report_path.empty() && !options.overwrite && ::access(options.report_path.c_str(), F_OK) == 0) {
      throw UsageError("report " + options.report_path + " exists (use --overwrite to replace it)");
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "copy_perf: error: %s\n", e.what());
    return static_cast<int>(ExitCode::kUsage);
  }
  nlohmann::json report = {{"schema_version", report::schema_version()}, {"benchmark", "copy"}, {"status", "partial"}};
  report["context"] = {{"argv", std::vector<std::string>(argv, argv + argc)}, {"start_time", utc_timestamp_now()},
                       {"world_size", 1}, {"backend", "copy"}, {"versions", {{"collbench", collbench_version()}}}};
  std::vector<CopyRow> rows;
  int devices = 0;
  std::string unavailable;
  try {
#ifdef COLLBENCH_HAVE_CUDA
    std::string why_none;
    devices = options.host_only ? 0 : cuda::visible_device_count(&why_none);
    if (devices == 0 && !options.host_only) unavailable = "no CUDA device is visible (" + why_none + ")";
    if (devices > 0) {
      report["context"]["versions"]["cuda_runtime"] = cuda::runtime_version();
      report["context"]["versions"]["cuda_driver"] = cuda::driver_version();
      for (int d = 0; d < devices; ++d) report["context"]["devices"].push_back(cuda::device_info(d).describe());
      GpuCopies copies(devices, expand_sweep(options.sweep).back());
      rows = copies.run(options);
    }
#else
    unavailable = "this build has no CUDA";
#endif
    if (!unavailable.empty()) {
      std::printf("# GPU modes unavailable: %s; measuring host memcpy only\n", unavailable.c_str());
      report["context"]["gpu_modes_unavailable"] = unavailable;
    }
    if (devices == 0) rows = measure_host_memcpy(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "copy_perf: error: %s\n", e.what());
    return static_cast<int>(ExitCode::kRuntimeError);
  }
  std::printf("# %-8s %-8s %-3s %-3s %4s %4s %12s %12s %10s\n", "mode", "memory", "eng", "dir", "src", "dst", "size", "time(us)", "GB/s");
  nlohmann::json results = nlohmann::json::array();
  for (const auto& row : rows) {
    std::printf("  %-8s %-8s %-3s %-3s %4d %4d %12llu %12.2f %10.2f\n", row.mode.c_str(), row.memory.c_str(), row.engine.c_str(),
                row.direction.c_str(), row.src, row.dst, static_cast<unsigned long long>(row.bytes), row.time_us.mean, row.gbps);
    results.push_back(row_json(row));
  }
  report["results"] = results;
  report["matrices"] = pair_matrices(rows, devices);
  double max_gbps = 0;
  for (const auto& row : rows) max_gbps = std::max(max_gbps, row.gbps);
  report["summary"] = {{"rows", rows.size()}, {"max_gbps", rows.empty() ? nlohmann::json(nullptr) : nlohmann::json(max_gbps)}};
  report["status"] = "complete";
  report["context"]["end_time"] = utc_timestamp_now();
  if (!options.report_path.empty()) {
    try {
      report::write_json_atomically(options.report_path, report);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "copy_perf: error: %s\n", e.what());
      return static_cast<int>(ExitCode::kRuntimeError);
    }
  }
  return 0;
}

}  // namespace
}  // namespace collbench

int main(int argc, char** argv) { return collbench::run(argc, argv); }
