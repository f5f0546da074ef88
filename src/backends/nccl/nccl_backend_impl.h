// The NCCL backend's class; only the nccl/ sources include this (it needs CUDA and NCCL headers).
// The registry makes it through backend_entry::nccl (nccl_backend.cpp), which CMake compiles in
// only when it finds CUDA and NCCL.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/nccl/tuning_log.h"
#include "core/error.h"
#include "cuda/device.h"
#include "cuda/memory.h"

namespace collbench {
class World;
}  // namespace collbench

namespace collbench::nccl {

class NcclBackend final : public Backend {
 public:
  // Selects this rank's GPU (local rank modulo the visible devices), refuses two ranks on one GPU,
  // and creates the communicator. A collective call on every rank; throws Error.
  NcclBackend(World& world, const BackendConfig& config);
  ~NcclBackend() override;

  std::string name() const override { return "nccl"; }
  std::string algorithm(const std::string& collective) const override;
  std::string device_description() const override { return device_.describe(); }
  const BackendSupport& support() const override { return support_; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  void synchronize() override;
  std::unique_ptr<TimedOperation> make_operation(std::function<void()> issue_one_call, int calls_per_iteration) override;
  std::map<std::string, std::string> versions() const override;
  // ncclGroupSimulateEnd's estimatedTime for one call, where the header and the loaded NCCL have it.
  std::optional<double> library_estimate_us(std::string_view collective, const std::function<void()>& issue_one_call) override;

  cudaStream_t stream() const { return stream_.get(); }
  // -m: the calls of one iteration go to NCCL as one group.
  void begin_group();
  void end_group();

 private:
  // nccl_collectives.cpp: the collectives as NCCL calls, and the table that serves them.
  void declare_support();
  void offer_fp8_where_the_device_has_it();  // NCCL reduces fp8 on sm_90 and newer only
  void all_reduce(const CollectiveCall& call);
  void broadcast(const CollectiveCall& call);
  void reduce(const CollectiveCall& call);
  void all_gather(const CollectiveCall& call);
  void reduce_scatter(const CollectiveCall& call);
  void alltoall(const CollectiveCall& call);
  void gather(const CollectiveCall& call);
  void scatter(const CollectiveCall& call);
  void sendrecv(const CollectiveCall& call);
  void alltoallv(const CollectiveCall& call);
  // comm_init_perf (nccl_communicators.cpp): communicators of world ranks 0..k-1, made and destroyed.
  void declare_communicator_methods();
  void init_members(const std::vector<int>& members, bool scalable);
  void split_members(const std::vector<int>& members);
  void shrink_to_members(const std::vector<int>& members);
  void check_and_destroy(ncclComm_t made, const std::vector<int>& members, const char* call);
  // nccl_pt2pt.cpp: pt2pt_perf's transfers as ncclSend/ncclRecv in one group on the stream.
  void exchange(const std::vector<Transfer>& transfers);

  // Every NCCL call goes through here: anything but success throws with NCCL's last error.
  void issued(ncclResult_t result, const char* call, const char* file, int line);
  [[noreturn]] void abort_communicator(const std::string& step, const std::string& why, ExitCode code);
  bool has_native(const char* collective) const;  // ncclAlltoAll/ncclGather/ncclScatter in the loaded NCCL
  double nccl_deadline_seconds() const;
  void remember_call(const char* collective, const CollectiveCall& call);

  World* world_ = nullptr;  // comm_init_perf exchanges new communicators' unique ids over it
  int rank_ = 0;
  int ranks_ = 1;
  BackendSupport support_;
  cuda::DeviceInfo device_;
  double timeout_seconds_ = 0;  // -T: how long synchronize() polls before it aborts the communicator
  int registration_ = 0;        // -R
  int loaded_version_ = 0;      // ncclGetVersion: the library actually loaded, not the header
  // Destroyed after the communicator (members go in reverse order, after ~NcclBackend has
  // destroyed or aborted comm_), so no NCCL call is left on a freed stream.
  cuda::Stream stream_;
  ncclComm_t comm_ = nullptr;
  std::string current_step_ = "communicator init";
  std::uint64_t current_bytes_ = 0;  // what NCCL's tuning line calls the size of the last call
  std::string algorithm_capture_;    // how (or why not) the tuning choices are known
  std::string forced_algorithm_;     // "forced:ALGO/PROTO" from --algo/--proto, when set
  std::string tuning_log_path_;      // ours to delete; empty when not capturing
  // Reading the log advances a cursor; algorithm() is const for its callers, so the follower is
  // mutable: the log is an outside record of what already ran, not state of this backend.
  mutable std::optional<TuningLogFollower> tuning_log_;
};

ncclDataType_t nccl_type(DType dtype);
ncclRedOp_t nccl_op(ReduceOp op);

}  // namespace collbench::nccl

#define CB_NCCL_ISSUE(call) issued((call), #call, __FILE__, __LINE__)
