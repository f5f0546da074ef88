#include "core/state_probe.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>
#include <thread>

#include "core/process_threads.h"

namespace collbench {
namespace {

struct alignas(64) Line {
  std::atomic<long> value{0};
};

bool place_this_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace

std::optional<double> StateProbe::measure(std::chrono::milliseconds patience, ProbeSize size) const {
  if (cpu_a < 0 || cpu_b < 0 || size.bursts < 1 || size.round_trips < 1) return std::nullopt;
  const int bursts = size.bursts;
  const long round_trips = size.round_trips;
  Line line;
  std::atomic<int> placed{0};
  std::atomic<bool> failed{false}, stopped{false};
  std::vector<double> burst_ns;
  // Both sides on threads of their own: placing this thread would also place the runs it starts.
  const auto answer = [&] {
    if (!place_this_thread(cpu_b)) failed = true;
    ++placed;
    while (placed.load() < 2) {}
    if (failed) return;
    for (long i = 0; i < bursts * round_trips; ++i) {
      while (line.value.load(std::memory_order_acquire) != 2 * i + 1) {
        if (stopped.load(std::memory_order_relaxed)) return;
      }
      line.value.store(2 * i + 2, std::memory_order_release);
    }
  };
  const auto ask = [&] {
    if (!place_this_thread(cpu_a)) failed = true;
    ++placed;
    while (placed.load() < 2) {}
    if (failed) return;
    long i = 0;
    const auto first = std::chrono::steady_clock::now();
    for (int burst = 0; burst < bursts; ++burst) {
      const auto start = std::chrono::steady_clock::now();
      for (long end = i + round_trips; i < end; ++i) {
        line.value.store(2 * i + 1, std::memory_order_release);
        // A side that lost its CPU to other work stalls a burst for whole time slices (a burst of
        // 180 ms was seen under load 11): give up within the patience, not after the burst. The
        // clock is read once in 4096 spins, far more than a round trip waits in either state.
        for (unsigned spins = 1; line.value.load(std::memory_order_acquire) != 2 * i + 2; ++spins) {
          if (spins % 4096 == 0 && std::chrono::steady_clock::now() - first > patience) {
            stopped = true;
            return;
          }
        }
      }
      const auto finished = std::chrono::steady_clock::now();
      burst_ns.push_back(std::chrono::duration<double, std::nano>(finished - start).count() / static_cast<double>(round_trips));
      // Other work on these CPUs, not a state of the machine, makes a probe this slow.
      if (finished - first > patience) {
        stopped = true;
        return;
      }
    }
  };
  std::thread answerer, asker;
  try {
    answerer = std::thread(answer);
    asker = std::thread(ask);
  } catch (const std::system_error&) {  // no thread to spare: no probe, and a started side stops
    failed = true;
    placed = 2;
  }
  if (asker.joinable()) asker.join();
  if (answerer.joinable()) answerer.join();
  if (failed || stopped) return std::nullopt;
  std::nth_element(burst_ns.begin(), burst_ns.begin() + bursts / 2, burst_ns.end());
  return burst_ns[bursts / 2];
}

std::string StateProbe::describe() const {
  if (cpu_a < 0 || cpu_b < 0) return "no probe (this process may run on one CPU only)";
  return "cache-line round trip between CPUs " + std::to_string(cpu_a) + " and " + std::to_string(cpu_b);
}

StateProbe state_probe_for_this_process() {
  StateProbe probe;
  const std::vector<int> allowed = thread_affinity(0);
  if (allowed.size() < 2) return probe;
  probe.cpu_a = allowed[0];
  probe.cpu_b = allowed[1];
  return probe;
}

int first_cpu_of_this_process() {
  const std::vector<int> allowed = thread_affinity(0);
  return allowed.empty() ? -1 : allowed.front();
}

StateProbe state_probe_between(int own_cpu, int partner_cpu) {
  StateProbe probe;
  if (own_cpu < 0) return probe;
  if (partner_cpu < 0 || partner_cpu == own_cpu) {
    // The next CPU of the host after own_cpu, wrapping round: this process's binding
    // (one CPU under mpirun) says nothing about which CPUs the host has.
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    partner_cpu = -1;
    for (int step = 1; step < online && partner_cpu < 0; ++step) partner_cpu = static_cast<int>((own_cpu + step) % online);
    if (partner_cpu < 0 || partner_cpu == own_cpu) return probe;
  }
  probe.cpu_a = own_cpu;
  probe.cpu_b = partner_cpu;
  return probe;
}

bool one_machine_state(const std::vector<std::optional<double>>& probes_ns, double factor) {
  double low = 0, high = 0;
  for (const auto& probe : probes_ns) {
    if (!probe || !(*probe > 0)) continue;
    low = low > 0 ? std::min(low, *probe) : *probe;
    high = std::max(high, *probe);
  }
  return low == 0 || high <= factor * low;
}

}  // namespace collbench
