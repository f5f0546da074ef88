#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_buffer.h"
#include "backends/nccl/nccl_backend_impl.h"
#include "backends/nccl/nccl_check.h"
#include "backends/registry.h"
#include "core/world.h"

namespace collbench::nccl {

void throw_nccl_error(ncclResult_t code, ncclComm_t comm, const char* call, const char* file, int line) {
  std::string message = std::string(call) + " failed on " + cuda::where_this_process_runs() + ": " + ncclGetErrorString(code);
  const char* last = ncclGetLastError(comm);
  if (last && *last) message += " (" + std::string(last) + ")";
  throw Error(located_message(file, line, message));
}

namespace {

// Sets environment variables for NCCL's initialisation and puts back what was there before when
// it goes out of scope, so the report's environment shows the user's settings, not ours.
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else ::unsetenv(it->first.c_str());
    }
  }
  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

bool user_set_nccl_debug() {
  return std::getenv("NCCL_DEBUG") || std::getenv("NCCL_DEBUG_SUBSYS") || std::getenv("NCCL_DEBUG_FILE");
}

std::string nccl_version_text(int code) {  // 2.9 and later encode 2.28.9 as 22809
  return std::to_string(code / 10000) + "." + std::to_string((code % 10000) / 100) + "." + std::to_string(code % 100);
}

// Two ranks on one GPU make NCCL fail with a bare "Duplicate GPU detected"; say who and where.
void reject_shared_gpus(World& world, const cuda::DeviceInfo& device) {
  const auto everyone = world.gather_strings(world.host() + '\n' + device.pci_bus_id);
  for (std::size_t first = 0; first < everyone.size(); ++first) {
    for (std::size_t second = first + 1; second < everyone.size(); ++second) {
      if (everyone[first] != everyone[second]) continue;
      const auto newline = everyone[first].find('\n');
      throw Error("ranks " + std::to_string(first) + " and " + std::to_string(second) + " on host " +
                  everyone[first].substr(0, newline) + " both selected the GPU at PCI " +
                  everyone[first].substr(newline + 1) + " (" + device.name +
                  "): run at most one rank per GPU (check -np against the GPUs per node and CUDA_VISIBLE_DEVICES)");
    }
  }
}

class CudaEventTimer final : public IterationTimer {
 public:
  explicit CudaEventTimer(NcclBackend& backend) : backend_(backend) {
    CB_CUDA_CHECK(cudaEventCreate(&start_));
    CB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~CudaEventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  void start() override { CB_CUDA_CHECK(cudaEventRecord(start_, backend_.stream())); }
  double stop_us() override {
    CB_CUDA_CHECK(cudaEventRecord(stop_, backend_.stream()));
    backend_.synchronize();  // polls under the watchdog's deadline
    float milliseconds = 0;
    CB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_, stop_));
    return static_cast<double>(milliseconds) * 1e3;
  }

 private:
  NcclBackend& backend_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// -G N: the row's call captured N times into one CUDA graph, outside timing; each iteration
// launches the graph once and the runner divides its time by N.
class CudaGraphLauncher final : public IterationLauncher {
 public:
  CudaGraphLauncher(cudaStream_t stream, const std::function<void()>& issue_one_call, int calls)
      : stream_(stream), calls_(calls) {
    CB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      for (int i = 0; i < calls_; ++i) issue_one_call();
    } catch (...) {
      cudaGraph_t abandoned = nullptr;
      cudaStreamEndCapture(stream_, &abandoned);  // leave the stream usable for the next row
      if (abandoned) cudaGraphDestroy(abandoned);
      throw;
    }
    CB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
    CB_CUDA_CHECK(cudaGraphInstantiate(&executable_, graph_, 0));
  }
  ~CudaGraphLauncher() override {
    if (executable_) cudaGraphExecDestroy(executable_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  CudaGraphLauncher(const CudaGraphLauncher&) = delete;
  CudaGraphLauncher& operator=(const CudaGraphLauncher&) = delete;
  void launch() override { CB_CUDA_CHECK(cudaGraphLaunch(executable_, stream_)); }
  int calls_per_launch() const override { return calls_; }

 private:
  cudaStream_t stream_;
  int calls_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t executable_ = nullptr;
};

}  // namespace

NcclBackend::NcclBackend(World& world, const BackendConfig& config)
    : rank_(world.rank()),
      ranks_(world.size()),
      timeout_seconds_(config.timeout_seconds),
      nonblocking_(config.timeout_seconds > 0),
      host_timed_(config.blocking),
      graph_calls_(config.graph_calls) {
  declare_support();
  // NCCL reads its environment once, at the first call into the library: set it before any.
  // NCCL_ALGO/NCCL_PROTO are set here rather than by the harness because only NCCL reads them and
  // only this constructor knows when NCCL's first call happens; an mpi run given --algo then does
  // not claim an NCCL setting it never used. They stay set (unlike the debug variables below), so
  // the report's environment records what the rows ran under and env.NCCL_ALGO comparisons work.
  ScopedEnvironment init_only;
  if (!config.nccl_algo.empty()) ::setenv("NCCL_ALGO", config.nccl_algo.c_str(), 1);
  // Without a captured log, a setting the user forced is still worth saying in every row.
  if (!config.nccl_algo.empty() || !config.nccl_proto.empty()) {
    forced_algorithm_ = "forced:" + (config.nccl_algo.empty() ? std::string("*") : config.nccl_algo) + "/" +
                        (config.nccl_proto.empty() ? std::string("*") : config.nccl_proto);
  }
  if (!config.nccl_proto.empty()) ::setenv("NCCL_PROTO", config.nccl_proto.c_str(), 1);
  if (!config.capture_nccl_algorithm) {
    algorithm_capture_ = "not captured: pass --capture-algo (NCCL then logs every call, which costs time)";
  } else if (user_set_nccl_debug()) {
    algorithm_capture_ = "not captured: NCCL_DEBUG* set by the user";
  } else if (rank_ == 0) {  // NCCL prints its tuning choices on comm rank 0 only
    char path[] = "/tmp/collbench-nccl-tuning-XXXXXX";
    const int descriptor = ::mkstemp(path);
    if (descriptor >= 0) {
      ::close(descriptor);
      tuning_log_path_ = path;
      tuning_log_.emplace(tuning_log_path_);
      init_only.set("NCCL_DEBUG", "INFO");
      init_only.set("NCCL_DEBUG_SUBSYS", "TUNING");
      init_only.set("NCCL_DEBUG_FILE", tuning_log_path_);
      algorithm_capture_ = "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING on rank 0, parsed per row";
    } else {
      algorithm_capture_ = "not captured: no temporary file for NCCL's debug log";
    }
  }

  std::string why_none;
  const int devices = cuda::visible_device_count(&why_none);
  if (devices == 0) {
    throw Error("the nccl backend needs a GPU, but no CUDA device is visible on " + cuda::where_this_process_runs() +
                " (" + why_none + ")");
  }
  // nccl-tests' model: the local rank picks the device. Modulo, so one visible GPU per rank
  // (CUDA_VISIBLE_DEVICES set by srun/the launcher) also works; oversubscription is caught below.
  const int device_index = world.local_rank() % devices;
  CB_CUDA_CHECK(cudaSetDevice(device_index));
  device_ = cuda::device_info(device_index);
  reject_shared_gpus(world, device_);
  CB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));

  ncclUniqueId id{};
  if (rank_ == 0) CB_NCCL_CHECK(ncclGetUniqueId(&id));
  const std::string shared = world.broadcast_string(std::string(id.internal, sizeof(id.internal)));
  std::copy(shared.begin(), shared.end(), id.internal);

  ncclConfig_t comm_config = NCCL_CONFIG_INITIALIZER;
  comm_config.blocking = nonblocking_ ? 0 : 1;
  current_step_ = "communicator init (" + std::to_string(ranks_) + " ranks)";
  CB_NCCL_ISSUE(ncclCommInitRankConfig(&comm_, ranks_, id, rank_, &comm_config));
  if (nonblocking_) wait_for_communicator(current_step_);
}

NcclBackend::~NcclBackend() {
  if (comm_) {
    if (nonblocking_) {
      ncclCommAbort(comm_);  // a finalize could wait on peers that are already gone
    } else {
      ncclCommDestroy(comm_);
    }
  }
  if (stream_) cudaStreamDestroy(stream_);
  if (!tuning_log_path_.empty()) ::unlink(tuning_log_path_.c_str());
}

double NcclBackend::nccl_deadline_seconds() const {
  // A little shorter than the process watchdog's: the NCCL abort frees the communicator and lets
  // the report keep its rows; the process watchdog stays the backstop for hangs outside NCCL.
  return timeout_seconds_ * 0.9;
}

void NcclBackend::abort_communicator(const std::string& step, const std::string& why, ExitCode code) {
  if (comm_) ncclCommAbort(comm_);
  comm_ = nullptr;
  throw Error("NCCL " + step + " " + why + " on " + cuda::where_this_process_runs() +
                  "; communicator aborted (a peer rank did not arrive or failed)",
              code);
}

void NcclBackend::wait_for_communicator(const std::string& step) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  for (;;) {
    ncclResult_t state = ncclSuccess;
    CB_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      abort_communicator(step, std::string("failed: ") + ncclGetErrorString(state), ExitCode::kRuntimeError);
    }
    if (std::chrono::duration<double>(Clock::now() - started).count() > nccl_deadline_seconds()) {
      abort_communicator(step, "made no progress for " + std::to_string(nccl_deadline_seconds()) + " s",
                         ExitCode::kTimeout);
    }
    std::this_thread::yield();
  }
}

void NcclBackend::issued(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclInProgress && nonblocking_) {
    wait_for_communicator(current_step_);
    return;
  }
  if (result != ncclSuccess) throw_nccl_error(result, comm_, call, file, line);
}

void NcclBackend::synchronize() {
  if (!nonblocking_) {
    CB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream_);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) CB_CUDA_CHECK(status);
    ncclResult_t state = ncclSuccess;
    CB_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
    if (state != ncclSuccess && state != ncclInProgress) {
      abort_communicator(current_step_, std::string("failed: ") + ncclGetErrorString(state), ExitCode::kRuntimeError);
    }
    if (std::chrono::duration<double>(Clock::now() - started).count() > nccl_deadline_seconds()) {
      abort_communicator(current_step_, "did not complete within " + std::to_string(nccl_deadline_seconds()) + " s",
                         ExitCode::kTimeout);
    }
    std::this_thread::yield();
  }
}

std::unique_ptr<Buffer> NcclBackend::allocate(std::size_t bytes) { return std::make_unique<cuda::DeviceBuffer>(bytes); }

std::unique_ptr<IterationTimer> NcclBackend::make_timer() {
  if (host_timed_) return std::make_unique<SteadyClockTimer>(*this);
  return std::make_unique<CudaEventTimer>(*this);
}

std::unique_ptr<IterationLauncher> NcclBackend::make_launcher(std::function<void()> issue_one_call) {
  if (graph_calls_ > 0) return std::make_unique<CudaGraphLauncher>(stream_, issue_one_call, graph_calls_);
  return Backend::make_launcher(std::move(issue_one_call));
}

std::map<std::string, std::string> NcclBackend::versions() const {
  int loaded = 0;
  CB_NCCL_CHECK(ncclGetVersion(&loaded));
  return {
      {"nccl", nccl_version_text(loaded)},
      {"nccl_header", nccl_version_text(NCCL_VERSION_CODE)},
      {"cuda_runtime", cuda::runtime_version()},
      {"cuda_driver", cuda::driver_version()},
      {"nccl_algorithm_capture", algorithm_capture_},
  };
}

void NcclBackend::remember_call(const char* collective, const CollectiveCall& call) {
  current_bytes_ = static_cast<std::uint64_t>(call.count) * dtype_info(call.dtype).size_bytes;
  current_step_ = std::string(collective) + " of " + std::to_string(current_bytes_) + " B per call";
}

std::string NcclBackend::algorithm(const std::string& collective) const {
  const std::string function = nccl_function_name(collective);
  if (function.empty()) return "p2p";  // grouped ncclSend/ncclRecv: NCCL does not tune these
  if (!tuning_log_) return forced_algorithm_.empty() ? "default" : forced_algorithm_;
  const std::string chosen = summarize_choices(tuning_log_->read_new(), function, current_bytes_);
  return chosen.empty() ? "default" : chosen;
}

}  // namespace collbench::nccl

namespace collbench::backend_entry {

extern const BackendEntry nccl{
    "nccl",
    [](World& world, const BackendConfig& config) -> std::unique_ptr<Backend> {
      return std::make_unique<nccl::NcclBackend>(world, config);
    },
    []() -> std::string {
      std::string why;
      return cuda::visible_device_count(&why) > 0 ? "" : "no CUDA device is visible (" + why + ")";
    }};

}  // namespace collbench::backend_entry
