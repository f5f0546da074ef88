// The policy put on Gloo's I/O thread (backends/gloo/io_thread.h): a thread started after the
// snapshot is switched to SCHED_BATCH and nothing else is; COLLBENCH_GLOO_IO_THREAD=normal leaves it.
// Either way the new thread is named, so that ddp_step_perf can say which threads communicated.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "backends/gloo/io_thread.h"
#include "core/process_threads.h"

namespace collbench::gloo_backend {
namespace {

// A thread that reports its kernel id and waits until told to end, like Gloo's loop.
class IdleThread {
 public:
  IdleThread() : thread_([this] {
    tid_ = static_cast<int>(::syscall(SYS_gettid));
    std::unique_lock<std::mutex> lock(mutex_);
    started_.notify_all();
    stop_.wait(lock, [this] { return stopping_; });
  }) {
    std::unique_lock<std::mutex> lock(mutex_);
    started_.wait(lock, [this] { return tid_.load() != 0; });
  }
  ~IdleThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
  }
  int tid() const { return tid_; }

 private:
  std::mutex mutex_;
  std::condition_variable started_, stop_;
  bool stopping_ = false;
  std::atomic<int> tid_{0};
  std::thread thread_;
};

TEST(GlooIoThread, OnlyThreadsStartedAfterTheSnapshotBecomeBatch) {
  ::unsetenv("COLLBENCH_GLOO_IO_THREAD");
  const std::set<int> before = threads_of_this_process();
  ASSERT_TRUE(before.count(static_cast<int>(::syscall(SYS_gettid))));
  IdleThread io_thread;
  const std::string caller_name = thread_name(static_cast<int>(::syscall(SYS_gettid)));
  EXPECT_EQ(calm_new_io_threads(before, kGlooDataIoThreadName), "SCHED_BATCH");
  EXPECT_EQ(sched_getscheduler(io_thread.tid()), SCHED_BATCH);
  EXPECT_EQ(thread_name(io_thread.tid()), kGlooDataIoThreadName);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);  // the calling thread keeps its policy and its name
  EXPECT_EQ(thread_name(static_cast<int>(::syscall(SYS_gettid))), caller_name);
  // Nothing new since: nothing to change, and it says so.
  EXPECT_EQ(calm_new_io_threads(threads_of_this_process(), kGlooDataIoThreadName), "normal (no new thread found)");
}

TEST(GlooIoThread, TheEnvironmentCanAskForTheDefaultPolicy) {
  ::setenv("COLLBENCH_GLOO_IO_THREAD", "normal", 1);
  const std::set<int> before = threads_of_this_process();
  IdleThread io_thread;
  EXPECT_EQ(calm_new_io_threads(before, kGlooControlIoThreadName), "normal (COLLBENCH_GLOO_IO_THREAD)");
  EXPECT_EQ(sched_getscheduler(io_thread.tid()), SCHED_OTHER);
  EXPECT_EQ(thread_name(io_thread.tid()), kGlooControlIoThreadName);
  ::unsetenv("COLLBENCH_GLOO_IO_THREAD");
}

}  // namespace
}  // namespace collbench::gloo_backend
