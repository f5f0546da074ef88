#include "harness/measurement_loop.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/error.h"
#include "harness/watchdog.h"

namespace collbench {
namespace {

class SteadyLoopClock final : public LoopClock {
 public:
  double now_us() override {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};

double mean_of(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// -z 3 is nccl-tests' "wait and barrier after each iteration, time the collective alone": OSU's schedule.
bool runs_as_batch(const LoopSettings& settings, const TimedOperation& operation) {
  return operation.schedule() == TimingSchedule::kBatch && settings.blocking != 3;
}

// Untimed iterations as the timed ones of OSU's schedule are made: each after the barrier.
void warm_each_iteration(World& world, int iterations, TimedOperation& operation, Watchdog* watchdog) {
  for (int i = 0; i < iterations; ++i) {
    operation.start_together(world);
    operation.issue(i);
    operation.wait();
    if (watchdog) watchdog->progress();
  }
}

// Untimed iterations as nccl-tests' batch issues them: back to back, one wait.
void warm_batch(int iterations, TimedOperation& operation, Watchdog* watchdog) {
  for (int i = 0; i < iterations; ++i) operation.issue(i);
  operation.wait();
  if (watchdog) watchdog->progress();
}

// OSU: every sample is one iteration alone, the barrier outside it.
std::vector<double> time_each_iteration(World& world, const LoopSettings& settings, TimedOperation& operation,
                                        Watchdog* watchdog, LoopClock& clock) {
  warm_each_iteration(world, settings.warmup_iterations, operation, watchdog);
  const double calls = operation.calls_per_iteration();
  std::vector<double> samples(static_cast<std::size_t>(settings.iterations));
  for (int i = 0; i < settings.iterations; ++i) {
    operation.start_together(world);  // outside the timed region, so ranks start each iteration together
    const double start = clock.now_us();
    operation.issue(i);
    operation.wait();
    samples[static_cast<std::size_t>(i)] =
        stretch_sample_us((clock.now_us() - start) / calls, settings.inject_slowdown_percent);
    if (watchdog) watchdog->progress();
  }
  return samples;
}

struct BatchTimes {
  std::vector<double> samples;  // per iteration with -I, else one: the batch's time per call
  double issue_us = 0;          // host time to issue, per call
};

// nccl-tests: the iterations back to back between one clock pair and one wait.
BatchTimes time_batch(World& world, const LoopSettings& settings, TimedOperation& operation, Watchdog* watchdog,
                      LoopClock& clock) {
  const bool graph = settings.graph_launches > 0;
  const bool marks = settings.per_iteration_marks;
  if (graph && !operation.can_capture()) throw UsageError("-G needs a device that can capture work (a GPU backend)");
  if (marks && !operation.can_mark()) throw UsageError("-I needs a device with its own timestamps (a GPU backend)");
  if (graph && marks) throw UsageError("-I and -G cannot be combined: a replayed graph has one set of marks");

  warm_batch(settings.warmup_iterations, operation, watchdog);

  const int n = settings.iterations;
  if (graph) {  // captured after warm-up, so the library's lazy connection set-up is not inside it
    operation.begin_capture();
    for (int i = 0; i < n; ++i) operation.issue(i);
    operation.end_capture();
  }
  if (marks) operation.prepare_marks(n + 1);
  operation.start_together(world);
  const double start = clock.now_us();
  if (graph) {
    for (int launch = 0; launch < settings.graph_launches; ++launch) operation.replay();
  } else {
    for (int i = 0; i < n; ++i) {
      if (marks) operation.mark();
      operation.issue(i);
      if (settings.blocking == 1 || settings.blocking == 2) operation.wait();
      if (settings.blocking == 1) operation.start_together(world);
    }
    if (marks) operation.mark();
  }
  const double issued = clock.now_us();
  operation.wait();
  const double finished = clock.now_us();
  if (watchdog) watchdog->progress();

  const double calls = static_cast<double>(n) * operation.calls_per_iteration() * std::max(1, settings.graph_launches);
  BatchTimes times;
  times.issue_us = (issued - start) / calls;
  if (marks) {
    times.samples = operation.elapsed_between_marks_us();
    for (double& sample : times.samples) sample /= operation.calls_per_iteration();
  } else {
    times.samples = {(finished - start) / calls};
  }
  for (double& sample : times.samples) sample = stretch_sample_us(sample, settings.inject_slowdown_percent);
  return times;
}

std::string describe_method(const LoopSettings& settings, bool batch, int calls_per_iteration, const std::string& own_barrier) {
  std::string method;
  if (!batch) {
    method = "barrier before each iteration; host clock around one iteration and its completion (OSU)";
  } else if (settings.graph_launches > 0) {
    method = "batch: " + std::to_string(settings.iterations) + " iterations captured once after warm-up, replayed " +
             std::to_string(settings.graph_launches) + " times between one host clock pair and one wait (nccl-tests -G)";
  } else {
    method = "batch: " + std::to_string(settings.iterations) +
             " iterations issued back to back between one host clock pair and one wait (nccl-tests)";
    if (settings.per_iteration_marks) method += "; per-iteration samples from device timestamps (-I)";
    if (settings.blocking == 1) method += "; wait and barrier after each iteration (-z 1)";
    if (settings.blocking == 2) method += "; wait after each iteration (-z 2)";
  }
  if (calls_per_iteration > 1) method += "; " + std::to_string(calls_per_iteration) + " calls per iteration (-m)";
  if (!own_barrier.empty()) method += "; the barrier is " + own_barrier;
  return method;
}

}  // namespace

double stretch_sample_us(double sample_us, double percent) {
  if (!(percent > 0) || !(sample_us > 0)) return sample_us;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto target = std::chrono::duration<double, std::micro>(sample_us * percent / 100);
  auto now = start;
  while (now - start < target) now = Clock::now();
  return sample_us + std::chrono::duration<double, std::micro>(now - start).count();
}

LoopClock& steady_loop_clock() {
  static SteadyLoopClock clock;  // stateless: reads the system's clock
  return clock;
}

std::vector<double> combine_across_ranks(World& world, std::vector<double> samples_us, TimeAggregation aggregation) {
  switch (aggregation) {
    case TimeAggregation::kMax: world.combine(samples_us, Combine::kMax); break;
    case TimeAggregation::kMin: world.combine(samples_us, Combine::kMin); break;
    case TimeAggregation::kMean:
      world.combine(samples_us, Combine::kSum);
      for (double& sample : samples_us) sample /= world.size();
      break;
    case TimeAggregation::kRankZero:
      if (world.rank() != 0) std::fill(samples_us.begin(), samples_us.end(), 0.0);
      world.combine(samples_us, Combine::kSum);
      break;
  }
  return samples_us;
}

void warm_up(World& world, const LoopSettings& settings, TimedOperation& operation, Watchdog* watchdog, const std::string& step) {
  if (watchdog) watchdog->enter(step);
  if (runs_as_batch(settings, operation)) warm_batch(settings.warmup_iterations, operation, watchdog);
  else warm_each_iteration(world, settings.warmup_iterations, operation, watchdog);
}

LoopResult time_iterations(World& world, const LoopSettings& settings, TimedOperation& operation, Watchdog* watchdog,
                           const std::string& step, const RowCheck* check, LoopClock& clock) {
  if (watchdog) watchdog->enter(step);
  const bool batch = runs_as_batch(settings, operation);
  LoopResult result;
  result.method = describe_method(settings, batch, operation.calls_per_iteration(), operation.own_barrier());
  if (batch) {
    BatchTimes times = time_batch(world, settings, operation, watchdog, clock);
    result.mine_us = std::move(times.samples);
    result.issue_us = combine_across_ranks(world, {times.issue_us}, settings.aggregation).front();
  } else {
    result.mine_us = time_each_iteration(world, settings, operation, watchdog, clock);
  }

  const std::vector<double> mean = combine_across_ranks(world, result.mine_us, TimeAggregation::kMean);
  const std::vector<double> slowest = combine_across_ranks(world, result.mine_us, TimeAggregation::kMax);
  const std::vector<double> fastest = combine_across_ranks(world, result.mine_us, TimeAggregation::kMin);
  result.views = {mean_of(mean), mean_of(slowest), mean_of(fastest)};
  switch (settings.aggregation) {
    case TimeAggregation::kMean: result.combined_us = mean; break;
    case TimeAggregation::kMax: result.combined_us = slowest; break;
    case TimeAggregation::kMin: result.combined_us = fastest; break;
    case TimeAggregation::kRankZero: result.combined_us = combine_across_ranks(world, result.mine_us, settings.aggregation); break;
  }
  result.mine = summarize_samples(result.mine_us);
  result.combined = summarize_samples(result.combined_us);

  if (check && settings.check_iterations > 0) {
    std::int64_t wrong = 0;
    for (int c = 0; c < settings.check_iterations; ++c) {
      check->prepare(c);
      world.barrier();
      if (batch && settings.graph_launches > 0) {  // the check runs through a graph too, as nccl-tests' does
        operation.begin_capture();
        operation.issue_check();
        operation.end_capture();
        operation.replay();
      } else {
        operation.issue_check();
      }
      operation.wait();
      if (watchdog) watchdog->progress();
      wrong += check->count_wrong(c);
    }
    result.wrong = world.sum(wrong);
  }
  return result;
}

}  // namespace collbench
