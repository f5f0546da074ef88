#include "workloads/ddp/communication_thread.h"

#include <utility>

#include "core/process_threads.h"

namespace collbench::ddp {

// Returns once the thread carries its name: --comm-cores binds threads by their names right after
// this, and a thread still under the process's name was bound to the compute cores (the
// communication thread on the compute CPU in 4 of 6 runs of gloo.ddp.comm_cores, 2026-12-01).
CommunicationThread::CommunicationThread() : thread_([this] { serve(); }) {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return named_; });
}

CommunicationThread::~CommunicationThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  thread_.join();
}

std::uint64_t CommunicationThread::submit(std::function<void()> job) {
  std::uint64_t number = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    number = ++submitted_;
  }
  work_ready_.notify_one();
  return number;
}

void CommunicationThread::wait_finished(std::uint64_t number) {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this, number] { return finished_ >= number || error_ != nullptr; });
  if (error_) {
    idle_.wait(lock, [this] { return jobs_.empty() && !busy_; });  // the rest are skipped
    std::rethrow_exception(std::exchange(error_, nullptr));
  }
}

void CommunicationThread::serve() {
  set_thread_name(this_thread_id(), kCommunicationThreadName);
  std::unique_lock<std::mutex> lock(mutex_);
  named_ = true;
  idle_.notify_all();
  while (true) {
    work_ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping with nothing left
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    busy_ = true;
    // After an error the remaining jobs are dropped: the caller rethrows and ends the job.
    const bool skip = error_ != nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      if (!skip) job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    busy_ = false;
    ++finished_;
    idle_.notify_all();  // wait_finished waits for one job
  }
}

}  // namespace collbench::ddp
