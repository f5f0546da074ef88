#include "harness/interrupt_watcher.h"

#include <pthread.h>
#include <signal.h>


namespace collbench {
namespace {

sigset_t interrupt_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

// A helper process forked by MPI (Open MPI's singleton starts an orted) must stay killable.
void unblock_in_forked_child() {
  const sigset_t signals = interrupt_signals();
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
}

}  // namespace

InterruptWatcher::InterruptWatcher(Handler on_interrupt) : on_interrupt_(std::move(on_interrupt)) {
  const sigset_t signals = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  static const int registered = pthread_atfork(nullptr, nullptr, unblock_in_forked_child);  // once per process
  (void)registered;
  thread_ = std::thread([this] { watch(); });
}

InterruptWatcher::~InterruptWatcher() {
  stopping_ = true;
  pthread_kill(thread_.native_handle(), SIGTERM);  // wakes the watcher, which now ignores it
  thread_.join();
  const sigset_t signals = interrupt_signals();
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
}

void InterruptWatcher::watch() {
  const sigset_t signals = interrupt_signals();
  for (;;) {
    const int signal = sigwaitinfo(&signals, nullptr);
    if (stopping_) return;
    if (signal == SIGINT) on_interrupt_("interrupted by SIGINT");
    if (signal == SIGTERM) on_interrupt_("interrupted by SIGTERM");
  }
}

}  // namespace collbench
