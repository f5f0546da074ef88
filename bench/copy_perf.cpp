// copy_perf: how fast one process moves bytes. Host<->device (pinned and pageable), device->device
// within a GPU, and between GPUs, each by a copy engine (cudaMemcpyAsync / peer copies) and by an
// SM copy kernel, one direction and both at once, over a size sweep, with a matrix over GPU pairs.
// Without a visible GPU (or a CUDA build) it measures host memcpy and says the GPU modes are
// unavailable. P2P between ranks is sendrecv_perf's job. GB/s = 1e9 bytes/s of data copied.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/command_line.h"
#include "harness/flag_groups.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "harness/context.h"
#include "harness/measurement_loop.h"
#include "harness/program_shell.h"
#include "report/report.h"
#include "report/report_json.h"

#ifdef COLLBENCH_HAVE_CUDA
#include "cuda/check.h"
#include "cuda/device.h"
#include "gpu/sm_copy.h"
#endif

namespace collbench {
namespace {

// The run flags (-N, -T, -J, --overwrite, --samples, --tag, -h, --version) come from RunFlags.
struct CopyOptions : RunFlags {
  SizeSweep sweep{8, 64u << 20, 0, 4.0};
  bool host_only = false;  // --host-only: the memcpy baseline even where GPUs are visible
};

struct CopyRow {
  std::string mode;       // h2d, d2h, d2d, p2p, host
  std::string memory;     // pinned, pageable, device, host
  std::string engine;     // ce (copy engine), driver (the driver's own copy kernel), sm (ours), cpu (memcpy)
  std::string direction;  // uni, bi
  int src = -1, dst = -1;  // device indices; -1 for host memory
  std::uint64_t bytes = 0;  // per direction per iteration
  TimeStats time_us;
  double gbps = 0;  // all bytes copied (both directions when bi) / mean time
  int iterations = 0;
  int cycle = 1;
  int check_iterations = 0;
  std::optional<std::int64_t> wrong;  // bytes that differ from the source after a checked copy; null: not checked
  std::vector<double> samples_us;  // with --samples: every iteration, combined over ranks
};

// Every flag of copy_perf, once: parsing and --help both read these.
std::string declare_and_parse(CopyOptions& options, const std::vector<std::string>* args) {
  CommandLine command_line("copy_perf [options]",
                           "Modes with a GPU: h2d/d2h pinned and pageable (copy engine; bi = both at once), d2d within each\n"
                           "GPU and p2p between every GPU pair, copy engine (ce) vs SM kernel (sm), uni- and bidirectional.\n"
                           "GB/s = 1e9 bytes/s of data copied (d2d also moves as many bytes read as written).");
  CLI::App& app = command_line.app();
  start_section(app, "Sizes (K/M/G 1024-based)");
  add_size_sweep(app, options.sweep, {"SIZE", "smallest copy (default 8)", "largest copy (default 64M)", "additive step",
                                      "multiplicative step (default 4); conflicts with -i"});
  start_section(app, "Options");
  add_loop_flags(app, options);
  add_run_flags(app, options);
  add_report_flags(app, options);
  add_flag(app, "--host-only", "only the host memcpy baseline", options.host_only);
  add_help_flags(app, options);
  app.footer("Exit codes: 0 ok, 1 runtime error, 2 bad usage, 3 wrong bytes, 4 timeout.");
  if (!args) return command_line.help();
  parse_flags(command_line, *args, options);
  if (!options.show_help && !options.show_version) expand_sweep(options.sweep);  // validates now
  return "";
}

// Where rows go as they complete: the table line and the report.
using RowSink = std::function<void(CopyRow row)>;

// Times one copy through the harness's loop; `bytes_moved` per iteration gives GB/s.
void time_copy(const RunContext& run, const CopyOptions& options, CopyRow row, std::uint64_t bytes_moved,
               TimedOperation& operation, const RowSink& sink, const RowCheck* check = nullptr) {
  const std::string step = "copy " + row.mode + " " + row.engine + " " + row.direction + " at " + std::to_string(row.bytes) + " B";
  LoopSettings settings;
  settings.warmup_iterations = options.warmup_iterations;
  settings.iterations = options.iterations;
  settings.aggregation = TimeAggregation::kMax;  // one process: the same figure under any estimator
  settings.inject_slowdown_percent = options.inject_slowdown_percent;
  settings.check_iterations = check ? options.check_iterations : 0;
  LoopResult timed = time_iterations(run.world, settings, operation, run.watchdog, step, check);
  row.iterations = options.iterations;
  row.check_iterations = settings.check_iterations;
  row.wrong = timed.wrong;
  row.time_us = timed.combined;
  row.gbps = row.time_us.mean > 0 ? static_cast<double>(bytes_moved) / (row.time_us.mean * 1e3) : 0.0;
  if (options.keep_samples) row.samples_us = std::move(timed.combined_us);
  sink(std::move(row));
}

void measure_host_memcpy(const RunContext& run, const CopyOptions& options, int cycle, const RowSink& sink) {
  const auto sizes = expand_sweep(options.sweep);
  const std::uint64_t largest = sizes.back();
  std::vector<unsigned char> source(largest, 0x5a), destination(largest, 0);  // touched: no page faults timed
  for (std::uint64_t bytes : sizes) {
    CopyRow row{"host", "host", "cpu", "uni", -1, -1, bytes, {}, 0, 0, cycle, 0, std::nullopt, {}};
    FunctionOperation copy(TimingSchedule::kBarrierEachIteration,
                           [&](int) { std::memcpy(destination.data(), source.data(), bytes); });
    // The check: the destination poisoned, one copy, then every byte compared with the source.
    RowCheck check;
    check.prepare = [&](int) { std::memset(destination.data(), 0, bytes); };
    check.count_wrong = [&](int) {
      if (options.inject_corrupt_output) destination[bytes - 1] ^= 0xff;
      std::int64_t wrong = 0;
      for (std::uint64_t i = 0; i < bytes; ++i) wrong += destination[i] != source[i];
      return wrong;
    };
    time_copy(run, options, row, bytes, copy, sink, &check);
  }
}

#ifdef COLLBENCH_HAVE_CUDA
struct DeviceSide {
  int device = 0;
  int sm_blocks = 0;
  cudaStream_t streams[2] = {nullptr, nullptr};
  cudaEvent_t main_ready = nullptr, other_done = nullptr;  // ordering only, not timing
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
      CB_CUDA_CHECK(cudaEventCreateWithFlags(&side.main_ready, cudaEventDisableTiming));
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
      cudaEventDestroy(side.main_ready);
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
  // second's, started together and joined back into the first device's stream; the loop times
  // batches of them as nccl-tests does, waiting on that stream.
  void issue(DeviceSide& first, DeviceSide& second, const std::function<void(cudaStream_t)>& forward,
             const std::function<void(cudaStream_t)>& backward) {
    cudaStream_t main = first.streams[0];
    cudaStream_t other = second.streams[1];
    CB_CUDA_CHECK(cudaSetDevice(first.device));
    if (backward) {
      CB_CUDA_CHECK(cudaEventRecord(first.main_ready, main));
      CB_CUDA_CHECK(cudaStreamWaitEvent(other, first.main_ready, 0));
    }
    forward(main);
    if (backward) {
      CB_CUDA_CHECK(cudaSetDevice(second.device));
      backward(other);
      CB_CUDA_CHECK(cudaEventRecord(second.other_done, other));
      CB_CUDA_CHECK(cudaSetDevice(first.device));
      CB_CUDA_CHECK(cudaStreamWaitEvent(main, second.other_done, 0));
    }
  }

  void run(const RunContext& run, const CopyOptions& options, int cycle, const RowSink& sink) {
    for (std::uint64_t bytes : expand_sweep(options.sweep)) {
      auto sample = [&](CopyRow row, DeviceSide& first, DeviceSide& second, std::function<void(cudaStream_t)> forward,
                        std::function<void(cudaStream_t)> backward) {
        row.bytes = bytes;
        row.direction = backward ? "bi" : "uni";
        row.cycle = cycle;
        FunctionOperation copy(
            TimingSchedule::kBatch, [&](int) { issue(first, second, forward, backward); },
            [&] {
              CB_CUDA_CHECK(cudaSetDevice(first.device));
              CB_CUDA_CHECK(cudaStreamSynchronize(first.streams[0]));
            });
        time_copy(run, options, row, backward ? 2 * bytes : bytes, copy, sink);
      };
      for (auto& side : sides_) {
        const int d = side.device;
        for (const bool pinned : {true, false}) {
          void* host_in = pinned ? pinned_[0] : pageable_[0].data();
          void* host_out = pinned ? pinned_[1] : pageable_[1].data();
          const char* memory = pinned ? "pinned" : "pageable";
          auto h2d = [&, host_in](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyAsync(side.b, host_in, bytes, cudaMemcpyHostToDevice, s)); };
          auto d2h = [&, host_out](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyAsync(host_out, side.a, bytes, cudaMemcpyDeviceToHost, s)); };
          sample({"h2d", memory, "ce", "", -1, d, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, side, side, h2d, nullptr);
          sample({"d2h", memory, "ce", "", d, -1, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, side, side, d2h, nullptr);
          // From pageable memory the driver stages each copy through a pinned bounce buffer with the
          // calling host thread, so two directions at once are serialized on it: no bidirectional
          // row is offered there (it would measure the host thread, not the link).
          if (pinned) sample({"h2d+d2h", memory, "ce", "", d, d, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, side, side, h2d, d2h);
        }
        auto ce_copy = [&](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyAsync(side.b, side.a, bytes, cudaMemcpyDeviceToDevice, s)); };
        auto sm_copy = [&](cudaStream_t s) { gpu::launch_sm_copy(side.b, side.a, bytes, side.sm_blocks, s); };
        // cudaMemcpyAsync within one device runs as the driver's copy kernel on the SMs, not on a
        // copy engine: labelled "driver" so it is not read as copy-engine bandwidth.
        sample({"d2d", "device", "driver", "", d, d, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, side, side, ce_copy, nullptr);
        sample({"d2d", "device", "sm", "", d, d, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, side, side, sm_copy, nullptr);
      }
      for (auto& from : sides_) {
        for (auto& to : sides_) {
          if (from.device == to.device) continue;
          auto ce_there = [&](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyPeerAsync(to.b, to.device, from.a, from.device, bytes, s)); };
          auto ce_back = [&](cudaStream_t s) { CB_CUDA_CHECK(cudaMemcpyPeerAsync(from.b, from.device, to.a, to.device, bytes, s)); };
          sample({"p2p", "device", "ce", "", from.device, to.device, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, from, to, ce_there, nullptr);
          sample({"p2p", "device", "ce", "", from.device, to.device, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, from, to, ce_there, ce_back);
          // SM copies write into the peer's memory, so they need peer access both ways for bi.
          if (!peer_access(from.device, to.device)) continue;
          auto sm_there = [&](cudaStream_t s) { gpu::launch_sm_copy(to.b, from.a, bytes, from.sm_blocks, s); };
          auto sm_back = [&](cudaStream_t s) { gpu::launch_sm_copy(from.b, to.a, bytes, to.sm_blocks, s); };
          sample({"p2p", "device", "sm", "", from.device, to.device, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, from, to, sm_there, nullptr);
          if (peer_access(to.device, from.device)) sample({"p2p", "device", "sm", "", from.device, to.device, 0, {}, 0, 0, 1, 0, std::nullopt, {}}, from, to, sm_there, sm_back);
        }
      }
    }
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
                        {"iterations", row.iterations}, {"cycle", row.cycle},
                        {"time_us", {{"min", row.time_us.min}, {"p10", row.time_us.p10}, {"p50", row.time_us.p50}, {"mean", row.time_us.mean},
                                     {"p95", row.time_us.p95}, {"p99", row.time_us.p99}, {"max", row.time_us.max},
                                     {"stdev", row.time_us.stdev}}},
                        {"gbps", row.gbps}};
  if (row.mode == "d2d") out["read_plus_write_gbps"] = 2 * row.gbps;
  out["check_iterations"] = row.check_iterations;
  out["wrong"] = row.wrong ? nlohmann::json(*row.wrong) : nlohmann::json(nullptr);
  if (!row.samples_us.empty()) out["samples_us"] = row.samples_us;
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

// copy_perf in the harness's program shell: host memcpy, or every GPU copy mode, as one workload.
class CopyBenchmark final : public Program {
 public:
  explicit CopyBenchmark(CopyOptions options) : options_(std::move(options)) {}

  const RunFlags& run_flags() const override { return options_; }
  std::string help_text() const override {
    CopyOptions unused;
    return declare_and_parse(unused, nullptr);
  }
  std::string build_features() const override {
#ifdef COLLBENCH_HAVE_CUDA
    return "host memcpy; gpu: cuda copy engines and sm copies";
#else
    return "host memcpy; gpu: not built (no CUDA toolkit found)";
#endif
  }
  std::string check_for_world(World&) override { return ""; }
  MemoryNeed memory_need(int) const override {
    // Two host buffers of the largest size; the GPU modes add two pinned ones.
    const std::uint64_t largest = expand_sweep(options_.sweep).back();
#ifdef COLLBENCH_HAVE_CUDA
    const std::uint64_t buffers = options_.host_only ? 2 : 4;
#else
    const std::uint64_t buffers = 2;
#endif
    return {largest > UINT64_MAX / buffers ? UINT64_MAX : buffers * largest, "the sweep needs", "lower -e"};
  }
  int measure(RunContext& run) override;

 private:
  nlohmann::json options_json() const {
    return {{"sizes", expand_sweep(options_.sweep)}, {"iterations", options_.iterations},
            {"warmup_iterations", options_.warmup_iterations}, {"host_only", options_.host_only}, {"cycles", options_.cycles},
            {"timeout_s", options_.timeout_seconds}, {"keep_samples", options_.keep_samples},
            {"check_iterations", options_.check_iterations}, {"inject_slowdown_percent", options_.inject_slowdown_percent}};
  }

  CopyOptions options_;
};

int CopyBenchmark::measure(RunContext& run) {
  const bool leader = run.world.rank() == 0;
  report::Report envelope;
  envelope.benchmark = "copy";
  envelope.context = collect_context(run.world, "copy", "host", run.argv, options_, options_json());
  nlohmann::json report = report::to_json(envelope);
  report.erase("skipped");
  report["summary"] = {{"rows", 0}, {"max_gbps", nullptr}};
  std::vector<CopyRow> rows;
  int devices = 0;
  std::string unavailable;
#ifdef COLLBENCH_HAVE_CUDA
  std::string why_none;
  devices = options_.host_only ? 0 : cuda::visible_device_count(&why_none);
  if (devices == 0 && !options_.host_only) unavailable = "no CUDA device is visible (" + why_none + ")";
  if (devices > 0) {
    report["context"]["versions"]["cuda_runtime"] = cuda::runtime_version();
    report["context"]["versions"]["cuda_driver"] = cuda::driver_version();
    for (int d = 0; d < devices; ++d) report["context"]["devices"].push_back(cuda::device_info(d).describe());
  }
#else
  unavailable = "this build has no CUDA";
#endif
  if (!unavailable.empty()) report["context"]["gpu_modes_unavailable"] = unavailable;
  run.report.save(report);
  if (leader) {
    if (!unavailable.empty()) std::printf("# GPU modes unavailable: %s; measuring host memcpy only\n", unavailable.c_str());
    std::printf("# %-8s %-8s %-3s %-3s %4s %4s %12s %12s %10s\n", "mode", "memory", "eng", "dir", "src", "dst", "size", "time(us)", "GB/s");
  }
  double max_gbps = 0;
  std::int64_t wrong_total = 0;  // every rank: a check's count is already summed over ranks
  const RowSink sink = [&](CopyRow row) {
    wrong_total += row.wrong.value_or(0);
    if (!leader) return;
    std::printf("  %-8s %-8s %-3s %-3s %4d %4d %12llu %12.2f %10.2f\n", row.mode.c_str(), row.memory.c_str(), row.engine.c_str(),
                row.direction.c_str(), row.src, row.dst, static_cast<unsigned long long>(row.bytes), row.time_us.mean, row.gbps);
    std::fflush(stdout);
    max_gbps = std::max(max_gbps, row.gbps);
    report["results"].push_back(row_json(row));
    report["summary"] = {{"rows", report["results"].size()}, {"max_gbps", max_gbps}};
    run.report.save(report);
    rows.push_back(std::move(row));
  };
#ifdef COLLBENCH_HAVE_CUDA
  std::optional<GpuCopies> copies;
  if (devices > 0) copies.emplace(devices, expand_sweep(options_.sweep).back());
#endif
  for (int cycle = 1; cycle <= options_.cycles; ++cycle) {
#ifdef COLLBENCH_HAVE_CUDA
    if (copies) copies->run(run, options_, cycle, sink);
#endif
    if (devices == 0) measure_host_memcpy(run, options_, cycle, sink);
  }
  if (leader) report["matrices"] = pair_matrices(rows, devices);
  run.report.save(report);
  return wrong_total > 0 ? static_cast<int>(ExitCode::kWrongResults) : 0;
}

}  // namespace
}  // namespace collbench

int main(int argc, char** argv) {
  using namespace collbench;
  return run_program("copy_perf", argc, argv, [](const std::vector<std::string>& args) {
    CopyOptions options;
    declare_and_parse(options, &args);
    return std::make_unique<CopyBenchmark>(std::move(options));
  });
}
