#include "summarize/state_probe.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>
#include <thread>

namespace collbench::summarize {
namespace {

constexpr int kBursts = 5;
constexpr long kRoundTrips = 2000;
constexpr auto kPatience = std::chrono::milliseconds(100);  // about 5 ms in the slow state

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

std::optional<double> StateProbe::measure() const {
  if (cpu_a < 0 || cpu_b < 0) return std::nullopt;
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
    for (long i = 0; i < kBursts * kRoundTrips; ++i) {
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
    for (int burst = 0; burst < kBursts; ++burst) {
      const auto start = std::chrono::steady_clock::now();
      for (long end = i + kRoundTrips; i < end; ++i) {
        line.value.store(2 * i + 1, std::memory_order_release);
        while (line.value.load(std::memory_order_acquire) != 2 * i + 2) {}
      }
      const auto finished = std::chrono::steady_clock::now();
      burst_ns.push_back(std::chrono::duration<double, std::nano>(finished - start).count() / kRoundTrips);
      // Other work on these CPUs, not a state of the machine, makes a probe this slow.
      if (finished - first > kPatience) {
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
  std::nth_element(burst_ns.begin(), burst_ns.begin() + kBursts / 2, burst_ns.end());
  return burst_ns[kBursts / 2];
}

std::string StateProbe::describe() const {
  if (cpu_a < 0 || cpu_b < 0) return "no probe (this process may run on one CPU only)";
  return "cache-line round trip between CPUs " + std::to_string(cpu_a) + " and " + std::to_string(cpu_b);
}

StateProbe state_probe_for_this_process() {
  StateProbe probe;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return probe;
  for (int cpu = 0; cpu < CPU_SETSIZE && probe.cpu_b < 0; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    (probe.cpu_a < 0 ? probe.cpu_a : probe.cpu_b) = cpu;
  }
  if (probe.cpu_b < 0) probe.cpu_a = -1;
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

}  // namespace collbench::summarize
