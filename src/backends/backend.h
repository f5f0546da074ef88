// The data plane: one small interface that every communication library sits behind.
//
// Workloads call these methods and never see mpi.h, nccl.h or cuda_runtime.h. Buffers may live in
// host or device memory; the runner only moves data in and out through Buffer, outside timing.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace collbench {

// A backend cannot run this combination (a dtype or op the library lacks, ...). The runner
// records it as skipped with the reason; it is never an error and never faked.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() = 0;  // what the backend's collectives take (host or device pointer)
  virtual std::size_t bytes() const = 0;
  virtual void copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) = 0;
  virtual void copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const = 0;
  virtual void fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) = 0;
};

// The arguments of one collective call, in nccl-tests' terms: `count` is the per-call element
// count the library takes (elements per rank for all-gather, reduce-scatter, all-to-all, gather
// and scatter). For in-place calls send and recv alias one buffer, at the collective's offsets.
struct CollectiveCall {
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  DType dtype = DType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  bool in_place = false;
};

// Times one iteration. stop_us() waits until the iteration's calls are complete and returns its
// duration. CPU backends use a monotonic clock around the calls; GPU backends CUDA events on their
// stream, so the host's launch and wake-up latencies stay out of the figure.
class IterationTimer {
 public:
  virtual ~IterationTimer() = default;
  virtual void start() = 0;
  virtual double stop_us() = 0;
};

// Issues the calls of one iteration. Made once per row, outside timing, so a backend can prepare
// them in advance (NCCL with -G captures several calls into one CUDA graph).
class IterationLauncher {
 public:
  virtual ~IterationLauncher() = default;
  virtual void launch() = 0;
  // How many collective calls one launch() issues; the runner divides the timed launch by it.
  virtual int calls_per_launch() const { return 1; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // What the backend runs for this collective, as far as it can tell ("default" when it cannot).
  virtual std::string algorithm(const std::string& collective) const = 0;
  virtual std::string device_description() const = 0;  // "cpu", "NVIDIA H100 80GB HBM3 [0]", ...

  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  // Waits until every call issued so far has completed (no-op for synchronous libraries).
  virtual void synchronize() = 0;

  // Timing hook (see IterationTimer); the default is a monotonic clock that synchronizes at stop.
  virtual std::unique_ptr<IterationTimer> make_timer();
  // Issuing hook (see IterationLauncher); the default issues `issue_one_call` once per launch.
  virtual std::unique_ptr<IterationLauncher> make_launcher(std::function<void()> issue_one_call);
  // Library versions and settings the report should record ("nccl" -> "2.28.9", ...).
  virtual std::map<std::string, std::string> versions() const { return {}; }

  // MPI's in-place reduce-scatter leaves a rank's block at the start of the buffer, NCCL's at
  // rank * count. The check must look where the library wrote.
  virtual bool in_place_reduce_scatter_output_at_start() const { return false; }

  virtual void all_reduce(const CollectiveCall& call) = 0;
  virtual void broadcast(const CollectiveCall& call) = 0;
  virtual void reduce(const CollectiveCall& call) = 0;
  virtual void all_gather(const CollectiveCall& call) = 0;
  virtual void reduce_scatter(const CollectiveCall& call) = 0;
  virtual void alltoall(const CollectiveCall& call) = 0;
  virtual void gather(const CollectiveCall& call) = 0;
  virtual void scatter(const CollectiveCall& call) = 0;
  // Ring exchange: send to rank + 1, receive from rank - 1.
  virtual void sendrecv(const CollectiveCall& call) = 0;
};

class SteadyClockTimer final : public IterationTimer {
 public:
  explicit SteadyClockTimer(Backend& backend) : backend_(backend) {}
  void start() override { start_ = std::chrono::steady_clock::now(); }
  double stop_us() override {
    backend_.synchronize();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  Backend& backend_;
  std::chrono::steady_clock::time_point start_;
};

class DirectLauncher final : public IterationLauncher {
 public:
  explicit DirectLauncher(std::function<void()> issue_one_call) : issue_(std::move(issue_one_call)) {}
  void launch() override { issue_(); }

 private:
  std::function<void()> issue_;
};

inline std::unique_ptr<IterationTimer> Backend::make_timer() { return std::make_unique<SteadyClockTimer>(*this); }

inline std::unique_ptr<IterationLauncher> Backend::make_launcher(std::function<void()> issue_one_call) {
  return std::make_unique<DirectLauncher>(std::move(issue_one_call));
}

// A buffer in ordinary host memory, for CPU backends.
class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes);
  void* data() override { return storage_.get(); }
  std::size_t bytes() const override { return bytes_; }
  void copy_from_host(const void* source, std::size_t offset_bytes, std::size_t bytes) override;
  void copy_to_host(void* destination, std::size_t offset_bytes, std::size_t bytes) const override;
  void fill_bytes(unsigned char value, std::size_t offset_bytes, std::size_t bytes) override;

 private:
  struct FreeMemory {
    void operator()(unsigned char* memory) const { std::free(memory); }
  };
  std::size_t bytes_;
  std::unique_ptr<unsigned char, FreeMemory> storage_;
};

}  // namespace collbench
