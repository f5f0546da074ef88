#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <cstdlib>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "backends/nccl/nccl_backend_impl.h"
#include "backends/registry.h"
#include "core/printable.h"
#include "core/world.h"
#include "cuda/check.h"
#include "cuda/memory.h"

namespace collbench::nccl {

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

// The row's call as nccl-tests issues it: on the communicator's stream, -m calls per iteration
// in one group, timed in batches; CUDA events between iterations for -I; a CUDA graph for -G.
class NcclOperation final : public TimedOperation {
 public:
  NcclOperation(NcclBackend& backend, std::function<void()> issue_one_call, int calls)
      : backend_(backend), issue_(std::move(issue_one_call)), calls_(calls) {}
  ~NcclOperation() override {
    if (capturing_) {
      cudaGraph_t abandoned = nullptr;
      cudaStreamEndCapture(backend_.stream(), &abandoned);  // leave the stream usable
      if (abandoned) cudaGraphDestroy(abandoned);
    }
    release_graph();
  }
  NcclOperation(const NcclOperation&) = delete;
  NcclOperation& operator=(const NcclOperation&) = delete;

  TimingSchedule schedule() const override { return TimingSchedule::kBatch; }
  int calls_per_iteration() const override { return calls_; }
  void issue(int) override {
    if (calls_ > 1) backend_.begin_group();
    for (int call = 0; call < calls_; ++call) issue_();
    if (calls_ > 1) backend_.end_group();
  }
  void issue_check() override { issue_(); }
  void wait() override { backend_.synchronize(); }

  bool can_mark() const override { return true; }
  void prepare_marks(int marks) override {
    while (static_cast<int>(events_.size()) < marks) events_.push_back(cuda::create_event());
    recorded_ = 0;
  }
  void mark() override { CB_CUDA_CHECK(cudaEventRecord(events_.at(recorded_++).get(), backend_.stream())); }
  std::vector<double> elapsed_between_marks_us() override {
    std::vector<double> intervals;
    for (std::size_t i = 1; i < recorded_; ++i) {
      float milliseconds = 0;
      CB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, events_[i - 1].get(), events_[i].get()));
      intervals.push_back(static_cast<double>(milliseconds) * 1e3);
    }
    return intervals;
  }

  bool can_capture() const override { return true; }
  void begin_capture() override {
    release_graph();
    CB_CUDA_CHECK(cudaStreamBeginCapture(backend_.stream(), cudaStreamCaptureModeThreadLocal));
    capturing_ = true;
  }
  void end_capture() override {
    capturing_ = false;
    CB_CUDA_CHECK(cudaStreamEndCapture(backend_.stream(), &graph_));
    CB_CUDA_CHECK(cudaGraphInstantiate(&executable_, graph_, 0));
  }
  void replay() override { CB_CUDA_CHECK(cudaGraphLaunch(executable_, backend_.stream())); }

 private:
  void release_graph() {
    if (executable_) cudaGraphExecDestroy(executable_);
    if (graph_) cudaGraphDestroy(graph_);
    executable_ = nullptr;
    graph_ = nullptr;
  }

  NcclBackend& backend_;
  std::function<void()> issue_;
  int calls_;
  std::vector<cuda::Event> events_;
  std::size_t recorded_ = 0;
  bool capturing_ = false;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t executable_ = nullptr;
};

// The backend's Buffer: device memory on the communicator's stream.
class NcclBuffer final : public Buffer {
 public:
  explicit NcclBuffer(cuda::DeviceBuffer memory) : memory_(std::move(memory)) {}
  void* data() override { return memory_.data(); }
  std::size_t bytes() const override { return memory_.bytes(); }
  void copy_from_host(const void* source, std::size_t offset, std::size_t bytes) override { memory_.copy_from_host(source, offset, bytes); }
  void copy_to_host(void* destination, std::size_t offset, std::size_t bytes) const override { memory_.copy_to_host(destination, offset, bytes); }
  void fill_bytes(unsigned char value, std::size_t offset, std::size_t bytes) override { memory_.fill_bytes(value, offset, bytes); }
  void copy_within(std::size_t from, std::size_t to, std::size_t bytes) override { memory_.copy_within(from, to, bytes); }
  void fill_inputs(const ValueSpec& spec, int rank, std::size_t offset, std::size_t count) override {
    memory_.fill_inputs(spec, rank, offset, count);
  }

 private:
  cuda::DeviceBuffer memory_;
};

// NCCL's own log lines that are not tuning lines (warnings above all), so deleting the temporary
// debug file of --capture-algo does not delete them too.
void echo_non_tuning_lines(const std::string& path) {
  std::FILE* log = std::fopen(path.c_str(), "r");
  if (!log) return;
  char line[4096];
  while (std::fgets(line, sizeof(line), log)) {
    if (!std::strstr(line, " WARN ") && !std::strstr(line, "NCCL WARN")) continue;
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    print_line(stderr, text);  // a log file's text: the peers' host names and errors included
  }
  std::fclose(log);
}

}  // namespace

NcclBackend::NcclBackend(World& world, const BackendConfig& config)
    : world_(&world),
      rank_(world.rank()),
      ranks_(world.size()),
      timeout_seconds_(config.timeout_seconds),
      registration_(config.registration) {
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

  // The local rank picks the device (cuda/device.h); oversubscription is caught below.
  std::string why_not;
  const int device_index = cuda::device_for_local_rank(world.local_rank(), &why_not);
  if (device_index < 0) throw Error("the nccl backend needs a GPU, but " + why_not + " on " + cuda::where_this_process_runs());
  CB_CUDA_CHECK(cudaSetDevice(device_index));
  device_ = cuda::device_info(device_index);
  offer_fp8_where_the_device_has_it();
  reject_shared_gpus(world, device_);
  stream_ = cuda::create_stream(cudaStreamNonBlocking);

  ncclUniqueId id{};
  if (rank_ == 0) CB_NCCL_CHECK(ncclGetUniqueId(&id));
  const std::string shared = world.broadcast_string(std::string(id.internal, sizeof(id.internal)));
  std::copy(shared.begin(), shared.end(), id.internal);

  // Always a blocking communicator, as nccl-tests uses: a non-blocking one makes NCCL 2.28 start a
  // launch thread for every call and answer ncclInProgress, which changes every timing. -T is kept
  // by polling the stream and NCCL's asynchronous error in synchronize(), then ncclCommAbort.
  ncclConfig_t comm_config = NCCL_CONFIG_INITIALIZER;
  comm_config.blocking = 1;
  current_step_ = "communicator init (" + std::to_string(ranks_) + " ranks)";
  CB_NCCL_ISSUE(ncclCommInitRankConfig(&comm_, ranks_, id, rank_, &comm_config));
  CB_NCCL_CHECK(ncclGetVersion(&loaded_version_));
  declare_communicator_methods();
}

NcclBackend::~NcclBackend() {
  if (comm_) {
    // Unwinding from an error: calls may still be in flight and peers may be gone, and
    // ncclCommDestroy would wait for them after the job watchdog is already down. Abort instead.
    if (std::uncaught_exceptions() > 0) ncclCommAbort(comm_);
    else ncclCommDestroy(comm_);
  }
  if (!tuning_log_path_.empty()) {
    echo_non_tuning_lines(tuning_log_path_);
    ::unlink(tuning_log_path_.c_str());
  }
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

void NcclBackend::issued(ncclResult_t result, const char* call, const char* file, int line) {
  if (result != ncclSuccess) cuda::throw_call_error(call, ncclGetErrorString(result), file, line, ncclGetLastError(comm_));
}

// The call in a group that NCCL only costs: ncclGroupSimulateEnd plans it with NCCL's tuning
// model (the algorithm and protocol it would choose) and launches nothing. Its estimatedTime is in
// microseconds, as NCCL's own tuning tables are; a value not above 0 (NCCL_UNDEF_FLOAT is -1)
// means it gave none.
// Only NCCL's own collectives at two ranks or more are simulated. At one rank NCCL runs a
// collective at once, inside a simulated group too, and estimates nothing. Calls made of
// ncclSend/ncclRecv (sendrecv, alltoallv; NCCL 2.28 builds alltoall, gather and scatter from them
// too) get no estimate, and a simulated group leaves their tasks queued (NCCL 2.28 resets its
// planner only after a real launch), so the next real group paired its receives with stale sends:
// on one H100 with NCCL 2.28.3 (2026-11-27) out-of-place sendrecv and alltoallv rows received an
// earlier row's bytes. By the same source a simulated collective's tasks run with the next real
// launch (not verified yet: needs 2 GPUs), which is why the workload asks only with --nccl-estimate
// and before a warm-up.
std::optional<double> NcclBackend::library_estimate_us(std::string_view collective,
                                                        const std::function<void()>& issue_one_call) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 22, 0)
  if (loaded_version_ < NCCL_VERSION(2, 22, 0)) return std::nullopt;
  if (ranks_ == 1 || nccl_function_name(collective).empty()) return std::nullopt;
  ncclSimInfo_t info = NCCL_SIM_INFO_INITIALIZER;
  CB_NCCL_ISSUE(ncclGroupStart());
  issue_one_call();
  CB_NCCL_ISSUE(ncclGroupSimulateEnd(&info));
  if (!(info.estimatedTime > 0)) return std::nullopt;
  return static_cast<double>(info.estimatedTime);
#else
  (void)collective;
  (void)issue_one_call;
  return std::nullopt;
#endif
}

void NcclBackend::begin_group() { CB_NCCL_ISSUE(ncclGroupStart()); }
void NcclBackend::end_group() { CB_NCCL_ISSUE(ncclGroupEnd()); }

// nccl-tests' testStreamSynchronize: poll the stream and NCCL's asynchronous error, so a network
// failure ends the wait with NCCL's reason instead of hanging it; with -T, also a deadline.
void NcclBackend::synchronize() {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream());
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) CB_CUDA_CHECK(status);
    ncclResult_t state = ncclSuccess;
    CB_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
    if (state != ncclSuccess && state != ncclInProgress) {
      abort_communicator(current_step_, std::string("failed: ") + ncclGetErrorString(state), ExitCode::kRuntimeError);
    }
    if (timeout_seconds_ > 0 && std::chrono::duration<double>(Clock::now() - started).count() > nccl_deadline_seconds()) {
      abort_communicator(current_step_, "did not complete within " + std::to_string(nccl_deadline_seconds()) + " s",
                         ExitCode::kTimeout);
    }
    std::this_thread::yield();
  }
}

// -R 1|2: buffers from ncclMemAlloc, registered with the communicator (1) or as a symmetric
// window (2, a collective call: every rank allocates the same buffers in the same order).
std::unique_ptr<Buffer> NcclBackend::allocate(std::size_t bytes) {
  if (registration_ == 0 || bytes == 0) return std::make_unique<NcclBuffer>(cuda::DeviceBuffer(bytes, stream()));
  void* memory = nullptr;
  CB_NCCL_CHECK(ncclMemAlloc(&memory, bytes));
  void* handle = nullptr;
  ncclWindow_t window{};
  if (registration_ == 1) {
    CB_NCCL_ISSUE(ncclCommRegister(comm_, memory, bytes, &handle));
  } else {
    CB_NCCL_ISSUE(ncclCommWindowRegister(comm_, memory, bytes, &window, NCCL_WIN_COLL_SYMMETRIC));
  }
  return std::make_unique<NcclBuffer>(cuda::DeviceBuffer(memory, bytes, stream(), [this, handle, window](void* allocated) {
    if (comm_) {  // an aborted communicator has no registrations left to undo
      if (handle) ncclCommDeregister(comm_, handle);
      else ncclCommWindowDeregister(comm_, window);
    }
    ncclMemFree(allocated);
  }));
}

std::unique_ptr<TimedOperation> NcclBackend::make_operation(std::function<void()> issue_one_call, int calls_per_iteration) {
  return std::make_unique<NcclOperation>(*this, std::move(issue_one_call), calls_per_iteration);
}

bool NcclBackend::has_native(const char* /*collective*/) const {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  return loaded_version_ >= NCCL_VERSION(2, 28, 0);
#else
  return false;
#endif
}

std::map<std::string, std::string> NcclBackend::versions() const {
  return {
      {"nccl", nccl_version_text(loaded_version_)},
      {"nccl_header", nccl_version_text(NCCL_VERSION_CODE)},
      {"cuda_runtime", cuda::runtime_version()},
      {"cuda_driver", cuda::driver_version()},
      {"nccl_algorithm_capture", algorithm_capture_},
      {"nccl_buffers", registration_ == 0   ? "cudaMalloc, unregistered (-R 0)"
                       : registration_ == 1 ? "ncclMemAlloc + ncclCommRegister (-R 1)"
                                            : "ncclMemAlloc + ncclCommWindowRegister, symmetric (-R 2)"},
      {"nccl_alltoall_gather_scatter", has_native("alltoall") ? "native ncclAlltoAll/ncclGather/ncclScatter"
                                                               : "grouped ncclSend/ncclRecv"},
  };
}

void NcclBackend::remember_call(const char* collective, const CollectiveCall& call) {
  current_bytes_ = static_cast<std::uint64_t>(call.count) * dtype_info(call.dtype).size_bytes;
  current_step_ = std::string(collective) + " of " + std::to_string(current_bytes_) + " B per call";
}

std::string NcclBackend::algorithm(const std::string& collective) const {
  // One rank: NCCL copies locally (its one-rank path) and chooses no algorithm, so it logs none.
  if (ranks_ == 1) return "one-rank copy";
  const std::string function = nccl_function_name(collective);
  if (function.empty()) {  // NCCL's tuning log does not cover these
    // sendrecv and alltoallv are always grouped ncclSend/ncclRecv.
    if (collective != "sendrecv" && collective != "alltoallv" && has_native(collective.c_str())) return "native";
    return "p2p";  // grouped ncclSend/ncclRecv
  }
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
