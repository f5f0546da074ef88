// The scheduling policy of Gloo's I/O thread, and why it is not the default one.
//
// Gloo's TCP transport moves every message of a device on one I/O thread (its epoll loop). When a
// message arrives while the calling thread holds that pair's lock (it writes to the socket under
// it), the I/O thread will not wait for the lock (tcp::Pair::handleEvents takes it with
// try_to_lock, to avoid deadlocks) and goes back to epoll, which reports the same unread bytes at
// once: it spins. Woken by the message, a normal thread preempts the caller on a shared core (the
// rank's one core when mpirun binds it, or any core beside a busy process) and then spins until
// the scheduler tick gives the caller its core back: 4 ms per call at HZ=250, measured on the
// 2-core VM at every size from 64 B (results/gloo-stall/). Gloo 0.5.0 (Debian's 2022 snapshot) and
// its 2026 head behave alike. Under SCHED_BATCH the I/O thread never preempts on wake-up: it runs
// when the caller blocks in its wait (or on a free core), which is when the lock is free.
#pragma once

#include <set>
#include <string>

#include "core/process_threads.h"  // the threads' names

namespace collbench::gloo_backend {

// Names the threads started since `before` (the I/O thread of a Gloo device made in between)
// `name` (kGlooDataIoThreadName for the backend's, kGlooControlIoThreadName for the control plane's)
// and puts them under SCHED_BATCH, unless COLLBENCH_GLOO_IO_THREAD=normal asks for the default policy (to reproduce
// what a plain Gloo user gets). Returns what it did, for the report: "SCHED_BATCH",
// "normal (COLLBENCH_GLOO_IO_THREAD)" or "normal (<why the change failed>)".
std::string calm_new_io_threads(const std::set<int>& before, const std::string& name);


}  // namespace collbench::gloo_backend
