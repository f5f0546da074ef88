// The CPU stand-in for NCCL's side stream: one thread that runs bucket all-reduces in the order
// they were handed over, while the caller goes on computing. One job runs at a time, so the
// backend sees serialized calls (MPI_THREAD_SERIALIZED suffices), and the caller makes no call
// into the backend between submit() and wait_finished().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace collbench::ddp {

// The thread's Linux name (top -H, the report's per-rank threads, --comm-cores' binding).
inline constexpr const char* kCommunicationThreadName = "ddp-comm";

class CommunicationThread {
 public:
  CommunicationThread();
  ~CommunicationThread();
  CommunicationThread(const CommunicationThread&) = delete;
  CommunicationThread& operator=(const CommunicationThread&) = delete;

  // Returns the job's number (1, 2, ... over the thread's life) for wait_finished.
  std::uint64_t submit(std::function<void()> job);
  // Returns once job `number` and every job before it have run; rethrows the first error a job
  // threw once the jobs after it have been skipped.
  void wait_finished(std::uint64_t number);

 private:
  void serve();

  std::mutex mutex_;
  std::condition_variable work_ready_, idle_;
  std::deque<std::function<void()>> jobs_;
  bool busy_ = false;
  std::uint64_t submitted_ = 0, finished_ = 0;
  bool named_ = false;  // the thread has set its name (the constructor waits for it)
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once everything it uses exists
};

}  // namespace collbench::ddp
