// What the one measurement loop (harness/measurement_loop.h) drives: work that can be issued one
// iteration at a time and waited for. Backends (a collective call), compute engines (a GEMM, a
// STREAM pass) and the DDP step implement it; only the loop decides when the clock runs.
//
// In the bottom layer because both sides of the loop name it: backends and engines make it, the
// harness consumes it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/world.h"

namespace collbench {

// How the loop times an operation, chosen by where the work runs.
enum class TimingSchedule {
  // OSU's method, for libraries whose calls return when the work is done (MPI, Gloo, BLAS): a
  // barrier outside the timed region, then the host clock around one iteration and its wait.
  // One sample per iteration.
  kBarrierEachIteration,
  // nccl-tests' method (BenchTime, 2.19), for devices with a queue (CUDA streams): warm-up, one
  // barrier, the host clock started, the n iterations issued back to back, one wait, the clock
  // stopped: time = elapsed / n. Nothing waits for the device inside the batch (unless -z asks).
  kBatch,
};

class TimedOperation {
 public:
  virtual ~TimedOperation() = default;
  virtual TimingSchedule schedule() const { return TimingSchedule::kBarrierEachIteration; }
  // How many calls one iteration issues (nccl-tests' -m, grouped where the library groups); the
  // loop divides each time by it.
  virtual int calls_per_iteration() const { return 1; }
  // Issues one iteration; may return before the work completes.
  virtual void issue(int iteration) = 0;
  // Issues the one call a correctness check runs (never an -m group: in place, a group would apply
  // the operation several times to the same buffer).
  virtual void issue_check() { issue(0); }
  // Returns when everything issued so far has completed.
  virtual void wait() {}

  // The barrier that starts the ranks together before an iteration (and before a batch): the
  // control plane's unless the operation's library has its own. Gloo's must be its own: under
  // mpirun the control plane is MPI, whose barrier spins on the core while the rank's Gloo I/O
  // thread still has the last bytes of the previous call to send, so the peer waited for a
  // scheduler tick (4 ms at HZ=250) on every call. Torch times Gloo with Gloo's barrier too.
  virtual void start_together(World& world) { world.barrier(); }
  // What start_together() uses when it is not the control plane's ("" when it is), for the
  // row's method line.
  virtual std::string own_barrier() const { return ""; }

  // nccl-tests' -I: device timestamps between iterations, recorded without waiting. `prepare_marks`
  // runs outside timing; after wait(), elapsed_between_marks_us() gives the intervals between
  // consecutive marks. False where the device has no timestamps of its own.
  virtual bool can_mark() const { return false; }
  virtual void prepare_marks(int /*marks*/) {}
  virtual void mark() {}
  virtual std::vector<double> elapsed_between_marks_us() { return {}; }

  // nccl-tests' -G: what is issued between begin_capture and end_capture is recorded once and
  // replayed by replay() (a CUDA graph). False where the device cannot.
  virtual bool can_capture() const { return false; }
  virtual void begin_capture() {}
  virtual void end_capture() {}
  virtual void replay() {}
};

// An operation from functions: issue one iteration, wait for what was issued.
class FunctionOperation final : public TimedOperation {
 public:
  FunctionOperation(TimingSchedule schedule, std::function<void(int iteration)> issue, std::function<void()> wait = {})
      : schedule_(schedule), issue_(std::move(issue)), wait_(std::move(wait)) {}
  // Starts the ranks together through `barrier` instead of the control plane's barrier (see
  // TimedOperation::start_together); `barrier_name` goes in the method line ("": say nothing).
  FunctionOperation& with_barrier(std::function<void(World&)> barrier, std::string barrier_name) {
    barrier_ = std::move(barrier);
    barrier_name_ = std::move(barrier_name);
    return *this;
  }
  TimingSchedule schedule() const override { return schedule_; }
  void issue(int iteration) override { issue_(iteration); }
  void wait() override {
    if (wait_) wait_();
  }
  void start_together(World& world) override {
    if (barrier_) barrier_(world);
    else world.barrier();
  }
  std::string own_barrier() const override { return barrier_name_; }

 private:
  TimingSchedule schedule_;
  std::function<void(int)> issue_;
  std::function<void()> wait_;
  std::function<void(World&)> barrier_;
  std::string barrier_name_;
};

}  // namespace collbench
