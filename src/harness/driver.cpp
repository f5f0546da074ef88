#include "harness/driver.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/error.h"
#include "core/printable.h"
#include "harness/context.h"
#include "report/report_json.h"
#include "report/table.h"

namespace collbench {
namespace {

// A case one rank cannot run is skipped on every rank: the ranks would otherwise wait for each
// other in different cases. The first rank with a reason gives it.
std::optional<report::SkippedCase> skip_agreed(World& world, const CasePlan& plan) {
  const std::string mine = plan.prepared ? std::string() : report::to_json(plan.skipped).dump();
  for (const std::string& theirs : world.gather_strings(mine)) {
    if (theirs.empty()) continue;
    nlohmann::json record = nlohmann::json::parse(theirs);
    report::SkippedCase skipped{record.at("what").get<std::string>(), record.at("reason").get<std::string>()};
    record.erase("what");
    record.erase("reason");
    skipped.fields = std::move(record);
    return skipped;
  }
  return std::nullopt;
}

}  // namespace

report::Measurement Workload::measurement_of(const LoopResult& timed, const LoopSettings& settings, int cycle, bool checked) const {
  report::Measurement measured;
  measured.cycle = cycle;
  measured.iterations = settings.iterations;
  measured.warmup_iterations = settings.warmup_iterations;
  measured.time_aggregation = std::string(to_string(settings.aggregation));
  measured.time_us = timed.combined;
  measured.time_over_ranks_us = timed.views;
  measured.timing = timed.method;
  measured.check_iterations = checked ? settings.check_iterations : 0;
  measured.wrong = timed.wrong;
  measured.timestamp = utc_timestamp_now();
  if (flags_.keep_samples) measured.samples_us = timed.combined_us;
  return measured;
}

void Workload::print_columns() { report::KindTableWriter(stdout, report::row_kind_spec(row_kind_)).header(); }

void Workload::print_row(const nlohmann::json& row) {
  report::KindTableWriter(stdout, report::row_kind_spec(row_kind_)).line(report::row_from_json(row, row_kind_));
}

void Workload::print_skipped(const report::SkippedCase& skipped) {
  print_line(stdout, "# skipped " + skipped.text());
}

std::string report_line(const std::string& report_path) {
  return report_path.empty() ? std::string() : "# report: " + report_path + "\n";
}

LoopSettings loop_settings_from(const RunFlags& flags, TimeAggregation aggregation) {
  LoopSettings settings;
  settings.warmup_iterations = flags.warmup_iterations;
  settings.iterations = flags.iterations;
  settings.aggregation = aggregation;
  settings.check_iterations = flags.check_iterations;
  settings.inject_slowdown_percent = flags.inject_slowdown_percent;
  return settings;
}

std::optional<Workload::Warmed> Workload::warm_first_runnable(RunContext& run, const LoopSettings& settings,
                                                               const std::vector<std::size_t>& order) {
  for (std::size_t index : order) {
    preparing_warmup_ = true;
    CasePlan plan = prepare(index);
    preparing_warmup_ = false;
    // The skip is agreed as the row's will be, so every rank warms up the same case; it is recorded
    // and shown by the row's own turn, not here.
    if (plan.vanished || skip_agreed(run.world, plan)) continue;
    PreparedCase& prepared = *plan.prepared;
    const LoopSettings& case_settings = prepared.settings ? *prepared.settings : settings;
    warm_up(run.world, case_settings, *prepared.operation, run.watchdog, "warm-up before the first row: " + prepared.step);
    const int iterations = case_settings.warmup_iterations;
    return Warmed{index, std::to_string(iterations) + (iterations == 1 ? " iteration at " : " iterations at ") + prepared.step};
  }
  return std::nullopt;
}

// nccl-tests (TimeTest, up to 2.16.7) warms up at its largest size, then at its smallest, before
// the first timed row: with only each row's own warm-up, the first rows of an H100 sweep that began
// at 4 MiB were 13-59 % slower than nccl-tests' (results/gpu/README.md). nccl-tests 2.16.8 and later walk
// every size from the smallest up, doubling; the two ends are kept here because each extra size is
// one more prepare (buffers filled, up to 8 GiB a case).
std::string Workload::warm_up_before_first_row(RunContext& run, const LoopSettings& settings) {
  std::vector<std::size_t> largest_first;
  std::vector<double> sizes(case_count());
  for (std::size_t index = 0; index < case_count(); ++index) {
    const std::optional<double> size = warmup_size(index);
    if (!size) return "";  // a kind without one says nothing of it
    sizes[index] = *size;
    largest_first.push_back(index);
  }
  if (settings.warmup_iterations == 0) return "; no warm-up (-w 0): none before the first row, none in the row";
  // Among equal sizes the case first in the sweep (nccl-tests warms up out of place).
  std::stable_sort(largest_first.begin(), largest_first.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  const std::optional<Warmed> largest = warm_first_runnable(run, settings, largest_first);
  if (!largest) return "";  // every case is skipped: there is no row to say it
  // Only cases no larger than the one warmed up can be the smallest runnable one: the larger ones
  // were all skipped.
  std::vector<std::size_t> smallest_first(std::find(largest_first.begin(), largest_first.end(), largest->index),
                                           largest_first.end());
  std::stable_sort(smallest_first.begin(), smallest_first.end(), [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  const std::string head = "; warm-up once before the first row, untimed (as nccl-tests): ";
  const std::string tail = "; then the row's own warm-up";
  if (sizes[smallest_first.front()] == sizes[largest->index]) return head + largest->text + " (the only size)" + tail;
  const std::optional<Warmed> smallest = warm_first_runnable(run, settings, smallest_first);
  if (!smallest) return head + largest->text + " (the largest case)" + tail;
  return head + largest->text + " (the largest case), then " + smallest->text + " (the smallest)" + tail;
}

int measure(const ProgramSpec& program, RunContext& run) {
  // Dropped however the run leaves: its libraries go while the world they run in still stands.
  const std::unique_ptr<Workload> workload = program.start(run);
  return workload->measure(run);
}

namespace {

// The machine's state before the first row, between each two cycles and after the last row, in
// the report's context, so that history and compare can tell a run (or a cycle of one) made in a
// slow state of the machine from a slow code. The state changes within a run of a few seconds
// too (results/summarize/history-length-2026-12-02): a probe between cycles places each cycle.
class RunStateProbes {
 public:
  enum class When { kBeforeFirstRow, kBetweenCycles, kAfterLastRow };

  RunStateProbes(RunContext& run, int cycles) : run_(run), state_(state_probe_of(run.world)) {
    // Past kMostCyclesProbed cycles the probes between them would cost more than the run's own
    // probes (about 4 ms each): none are made, and the run is judged as a whole, as before 2.6.
    if (cycles <= report::StateProbeRecord::kMostCyclesProbed) state_.between_cycles_ns.emplace();
  }

  // Every rank; rank 0 records the probe in the report's context.
  void probe(When when) {
    World& world = run_.world;
    if (when == When::kBeforeFirstRow) state_.before_ns = probe_machine_state(world, state_, kAroundRunProbe);
    if (when == When::kAfterLastRow) state_.after_ns = probe_machine_state(world, state_, kAroundRunProbe);
    if (when == When::kBetweenCycles) {
      if (!state_.between_cycles_ns) return;
      state_.between_cycles_ns->push_back(probe_machine_state(world, state_, kBetweenCyclesProbe));
    }
    if (world.rank() != 0) return;
    run_.report.update([&](nlohmann::json& document) { document["context"]["state_probe"] = report::to_json(state_); });
  }

 private:
  RunContext& run_;
  report::StateProbeRecord state_;
};

}  // namespace

void Workload::start_report(RunContext& run) {
  nlohmann::json report = std::move(report_without_rows_);
  report["status"] = "partial";
  report["results"] = nlohmann::json::array();
  if (report::row_kind_spec(row_kind_).summary != report::SummaryForm::kByWorkload) report["summary"] = row_summary_.to_json();
  if (run.world.rank() == 0) {
    std::fputs(header(report).c_str(), stdout);
    print_columns();
  }
  // A partial report exists from the start, so even an early failure leaves one. The writer
  // holds it from here on, rows and all; the driver keeps no second copy.
  run.report.save(std::move(report));
}

void Workload::record_skipped(RunContext& run, const report::SkippedCase& skipped) {
  // Recorded and shown once: the same reason for every size and cycle says nothing new.
  bool first = false;
  run.report.update([&](nlohmann::json& document) {
    if (!document.contains("skipped")) return;
    auto& records = document["skipped"];
    const nlohmann::json record = report::to_json(skipped);
    first = std::find(records.begin(), records.end(), record) == records.end();
    if (first) records.push_back(record);
  });
  if (first) print_skipped(skipped);
}

std::int64_t Workload::run_case(RunContext& run, std::size_t index, int cycle, const LoopSettings& settings) {
  World& world = run.world;
  const bool leader = world.rank() == 0;
  CasePlan plan = prepare(index);
  if (plan.vanished) return 0;
  if (const std::optional<report::SkippedCase> skipped = skip_agreed(world, plan)) {
    if (leader) record_skipped(run, *skipped);
    return 0;
  }
  PreparedCase& prepared = *plan.prepared;
  const LoopSettings& case_settings = prepared.settings ? *prepared.settings : settings;
  LoopResult timed = time_iterations(world, case_settings, *prepared.operation, run.watchdog, prepared.step,
                                     prepared.check ? &*prepared.check : nullptr);
  timed.method += run_warmup_timing_;
  nlohmann::json row = prepared.row(timed, measurement_of(timed, case_settings, cycle, prepared.check.has_value()));
  plan.prepared.reset();  // its buffers go before the next case's
  if (leader && !row.is_null()) add_row(run, std::move(row));  // a workload whose rows are not per case returns none
  return timed.wrong.value_or(0);
}

void Workload::add_row(RunContext& run, nlohmann::json row) {
  row_summary_.add(row);
  const nlohmann::json summary = row_summary_.to_json();
  print_row(row);
  run.report.update([&](nlohmann::json& document) {
    document["results"].push_back(std::move(row));
    document["summary"] = summary;
  });
}

int Workload::measure(RunContext& run) {
  start_report(run);
  RunStateProbes probes(run, flags_.cycles);
  probes.probe(RunStateProbes::When::kBeforeFirstRow);

  LoopSettings settings = loop_settings();
  if (flags_.inject_slowdown_rank >= 0 && flags_.inject_slowdown_rank != run.world.rank()) settings.inject_slowdown_percent = 0;
  run_warmup_timing_ = warm_up_before_first_row(run, settings);
  std::int64_t wrong_total = 0;
  for (int cycle = 1; cycle <= flags_.cycles; ++cycle) {
    for (std::size_t index = 0; index < case_count(); ++index) {
      wrong_total += run_case(run, index, cycle, settings);
      case_done(index);
    }
    if (cycle < flags_.cycles) probes.probe(RunStateProbes::When::kBetweenCycles);
  }
  const bool leader = run.world.rank() == 0;
  std::vector<nlohmann::json> closing = closing_rows(run);
  if (leader) {
    for (nlohmann::json& row : closing) add_row(run, std::move(row));
  }
  probes.probe(RunStateProbes::When::kAfterLastRow);

  nlohmann::json report = leader ? run.report.snapshot() : nlohmann::json::object();
  const int code = finish(run, report, wrong_total);
  if (leader) {
    std::fputs(footer(report, wrong_total, run.report.path()).c_str(), stdout);
    std::fflush(stdout);
  }
  run.report.save(std::move(report));
  if (wrong_total > 0) return static_cast<int>(ExitCode::kWrongResults);
  return code;
}

}  // namespace collbench
