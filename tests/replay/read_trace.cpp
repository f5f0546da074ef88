// replay_read_trace [--calls] FILE...: reads a trace set as replay_perf does (src/workloads/replay),
// checks it for its own world size, and prints what it holds: ranks, calls, skipped calls with their
// share of the bytes, and the time and peak memory the reading took. The bad-trace tests (exit 2,
// one line) and scripts/validate/replay_read_scale.sh run it. --calls lists every call first, one a
// line ("call RANK COLLECTIVE COUNT DTYPE GROUP_SIZE PAYLOAD_BYTES ROOT_OR_PEER START_US DURATION_US GAP_US"):
// what replay_perf's report is checked against (tests/replay/check_replay_report.py); the last three are
// the trace's times ("-" where it has none), GAP_US the idle time --gaps trace sleeps before the call
// (scripts/validate/replay_vs_torch.py breaks the job's time down with them).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/printable.h"
#include "workloads/replay/report/trace_readers.h"

int main(int argc, char** argv) {
  using namespace collbench;
  const bool list_calls = argc > 1 && std::string(argv[1]) == "--calls";
  const int first_file = list_calls ? 2 : 1;
  if (argc <= first_file) {
    std::fprintf(stderr, "usage: replay_read_trace [--calls] FILE...\n");
    return 2;
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const replay::Trace trace = replay::read_trace(std::vector<std::string>(argv + first_file, argv + argc));
    const auto read = std::chrono::steady_clock::now();
    replay::check_trace(trace, trace.world_size, argv[first_file]);
    const auto checked = std::chrono::steady_clock::now();
    const auto time_text = [](std::optional<double> us) { return us ? formatted("%.3f", *us) : std::string("-"); };
    for (const auto& [rank, sequence] : trace.sequences) {
      for (std::size_t index = 0; list_calls && index < sequence.size(); ++index) {
        const replay::TraceCall& call = sequence[index];
        std::printf("call %d %s %llu %s %zu %llu %d %s %s %s\n", rank, std::string(replay::to_string(call.collective)).c_str(),
                    static_cast<unsigned long long>(call.count), std::string(to_string(call.dtype)).c_str(),
                    trace.groups.at(call.group).ranks.size(), static_cast<unsigned long long>(replay::payload_bytes(call, trace)),
                    call.root, time_text(call.start_us).c_str(), time_text(call.job_duration_us).c_str(),
                    time_text(replay::gap_before_us(sequence, index)).c_str());
      }
    }
    std::size_t calls = 0;
    for (const auto& [rank, sequence] : trace.sequences) calls += sequence.size();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("format %s ranks %d groups %zu calls %zu bytes %llu\n", trace.format.c_str(), trace.world_size,
                trace.groups.size(), calls, static_cast<unsigned long long>(replay::replayed_bytes(trace)));
    for (const auto& skipped : trace.skipped)
      std::printf("skipped %s: %llu calls, %llu bytes\n", printable(skipped.name).c_str(),
                  static_cast<unsigned long long>(skipped.calls), static_cast<unsigned long long>(skipped.bytes));
    std::printf("read_s %.3f check_s %.3f max_rss_mib %ld\n", std::chrono::duration<double>(read - start).count(),
                std::chrono::duration<double>(checked - read).count(), usage.ru_maxrss / 1024);
    return 0;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "replay_read_trace: %s\n", printable(error.what()).c_str());
    return 2;
  }
}
