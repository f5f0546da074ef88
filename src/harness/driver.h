// The one driver of every workload: a workload describes its cases and what one case is, and the
// driver runs the sweep. It owns the cycles (-N), the cases in order, skips (a case one rank cannot
// run is skipped on every rank, with that rank's reason), warm-up, timing and checks through
// harness/measurement_loop.h, the rows into the report as they complete, the running summary, the
// live table's calls and the exit code for wrong results. The shell (harness/program_shell.h, the
// layer above the driver) owns the rest: launch, agreement, -T, the report file and "complete".
//
// Modelled on nccl-tests' testColl and nvbench's state, without their globals: the program
// (harness/program_spec.h's ProgramSpec) starts a Workload for one run, once the world exists, and
// the driver sweeps its cases and drops it, releasing its libraries, however the run ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timed_operation.h"
#include "harness/measurement_loop.h"
#include "harness/program_spec.h"
#include "report/report.h"

namespace collbench {

using report::SkippedCase;  // the one skipped case, as the report records it

// One case, ready to time: made by Workload::prepare on every rank, used once.
struct PreparedCase {
  std::string step;  // what the watchdog and error messages name: "matmul 64x64x64 float32"
  std::unique_ptr<TimedOperation> operation;
  std::optional<RowCheck> check;  // run -c times after timing; none: the case has no check
  // This case's own loop settings where they differ from case to case (pt2pt_perf takes OSU's
  // iteration counts per message size); none: the workload's loop_settings().
  std::optional<LoopSettings> settings;
  // Every rank, after timing and checks; may exchange with the other ranks (every rank's figures).
  // `measured` is how the row was measured as the loop saw it (settings, statistics of the
  // combined samples, check, cycle, time); a kind whose time is made otherwise replaces what
  // differs. Returns the row as report::row_json writes it; rank 0's goes into the report (null:
  // no row, where a workload's rows are not one per case, as envcheck's per-rank rows).
  std::function<nlohmann::json(LoopResult& timed, report::Measurement measured)> row;
};

// What prepare() gives: a case to time, or why it is skipped.
struct CasePlan {
  std::optional<PreparedCase> prepared;
  // When nothing is prepared: the case the report's "skipped" records (report.h: one shape for
  // every kind) and the table shows.
  SkippedCase skipped;
  // A case that is no case at all (rounding made it the row before): no row, no skip.
  bool vanished = false;

  static CasePlan run(PreparedCase prepared) { return {std::move(prepared), {}, false}; }
  static CasePlan skip(SkippedCase skipped) { return {std::nullopt, std::move(skipped), false}; }
  // A skip with nothing of the kind's own beside what and why.
  static CasePlan skip_what(const std::string& what, const std::string& reason) { return skip({what, reason}); }
  static CasePlan none() { return {std::nullopt, {}, true}; }
};

// The loop settings of the shared loop group (-n -w -c --inject-slowdown) with the row's time
// combined over ranks by `aggregation`; a workload sets what else its kind has (-z -G -I).
LoopSettings loop_settings_from(const RunFlags& flags, TimeAggregation aggregation);

// The last line of most kinds' footers: "# report: PATH", none without a report.
std::string report_line(const std::string& report_path);

// The driver: starts `program`'s run, measures it, saving the report as rows complete, and drops
// the run on the way out; returns 0, or 3 for wrong results. Throws on failures.
int measure(const ProgramSpec& program, RunContext& run);

// One run of a program: made by its ProgramSpec::start on every rank, once the world exists; what
// the run uses (backend or engine, buffers) are its members, released in reverse order when the
// driver drops it. Its constructor makes the report without rows (report_without_rows_).
class Workload {
 public:
  Workload(World& world, const RunFlags& flags, report::RowKind row_kind)
      : world_(world), flags_(flags), row_kind_(row_kind), row_summary_(row_kind) {}
  virtual ~Workload() = default;

 protected:
  // Rank 0: the lines above the live table, once the report has its context (what ran, where,
  // how the figures are made), for the driver to print; the columns' header follows from
  // print_columns. None by default.
  virtual std::string header(const nlohmann::json& /*report*/) const { return {}; }
  // Rank 0: the live table's column header and one row's line. By default the row kind's table,
  // drawn by the renderer `collbench table` uses; the collectives print nccl-tests' table.
  virtual void print_columns();
  // The cases of one cycle, in order (WorkloadOver: a list's).
  virtual std::size_t case_count() const = 0;
  virtual CasePlan prepare(std::size_t index) = 0;
  // By default the shared loop group's, the row's time the slowest rank's: every kind but the
  // collectives times each rank's own work (a single process: the same figure under any estimator).
  virtual LoopSettings loop_settings() const { return loop_settings_from(flags_, TimeAggregation::kMax); }
  virtual void print_row(const nlohmann::json& row);
  // Rank 0: one skipped case's line.
  virtual void print_skipped(const SkippedCase& skipped);
  // Every rank, after each case (run, skipped or vanished): where a table line spans cases.
  virtual void case_done(std::size_t /*index*/) {}
  // The run's warm-up (nccl-tests' TimeTest before its first timed row): once, before the first
  // row of the first cycle, the driver prepares the largest case by this measure, then the smallest,
  // and issues each one's -w iterations untimed, with no row, check or case_done. A case that is
  // skipped or vanishes gives way to the next larger (smaller) one. The measure is the case's size
  // on its sweep axis (bytes moved, FLOPs), the same on every rank. None (the default): the kind
  // has no run warm-up, and its rows say nothing of one.
  virtual std::optional<double> warmup_size(std::size_t /*index*/) const { return std::nullopt; }
  // True while prepare() makes a case for the run's warm-up: what only a row uses (a library's
  // cost estimate) can be left out.
  bool preparing_warmup() const { return preparing_warmup_; }
  // What the rows' `timing` says of the run's warm-up ("; ..."), for a kind that writes its own
  // timing text instead of the loop's; empty for a kind without one.
  const std::string& run_warmup_timing() const { return run_warmup_timing_; }
  // The kind of the run's rows, as the constructor was given it.
  report::RowKind row_kind() const { return row_kind_; }
  // The report's summary as it stands, in the kind's form (RowKindSpec::summary): the driver writes
  // it into the report from the report without rows on and after every row; finish() reads it for
  // the footer.
  const report::RowSummary& row_summary() const { return row_summary_; }
  // Every rank, after the last case of the last cycle: rows made from every case's figures at once
  // (envcheck's, one per rank, each rank judged against the others), which the driver adds as it
  // adds every row (printed by print_row, summarised, written). May exchange with the other ranks;
  // only rank 0's are used. None by default.
  virtual std::vector<nlohmann::json> closing_rows(RunContext& /*run*/) { return {}; }
  // Every rank, after the last case, with the report as rank 0 holds it (its rows are rank 0's
  // only): the kind's closing fields go into `report`, and the exit code other than wrong results
  // is returned (0; 1 for a gate such as --min-busbw; 3 for envcheck's slow ranks). Collective
  // calls are allowed: every rank makes it.
  virtual int finish(RunContext& /*run*/, nlohmann::json& /*report*/, std::int64_t /*wrong_total*/) { return 0; }
  // Rank 0, after finish(): the lines under the table, for the driver to print, from the report as
  // finish() left it; `report_path` is the report's file, empty without one. None by default.
  virtual std::string footer(const nlohmann::json& /*report*/, std::int64_t /*wrong*/, const std::string& /*report_path*/) const { return {}; }

  World& world_;  // the world of this run, which outlives it
  // The report without rows: benchmark, context and the kind's own fields, made by the
  // constructor. A "skipped" array in it asks the driver to record skipped cases there.
  nlohmann::json report_without_rows_;

 private:
  friend int measure(const ProgramSpec& program, RunContext& run);
  int measure(RunContext& run);
  // measure()'s phases: the report without rows saved as partial, the header and columns printed;
  // one case of a cycle, returning its wrong elements; a skipped case recorded once.
  void start_report(RunContext& run);
  std::int64_t run_case(RunContext& run, std::size_t index, int cycle, const LoopSettings& settings);
  void record_skipped(RunContext& run, const SkippedCase& skipped);
  void add_row(RunContext& run, nlohmann::json row);  // rank 0
  report::Measurement measurement_of(const LoopResult& timed, const LoopSettings& settings, int cycle, bool checked) const;
  // Runs the run's warm-up (warmup_size) and returns what the rows' timing says of it.
  std::string warm_up_before_first_row(RunContext& run, const LoopSettings& settings);
  // The first case by warmup_size in `order` that prepares on every rank, warmed up; its step, or
  // none when every case in it is skipped or vanishes.
  struct Warmed {
    std::size_t index;
    std::string text;  // "5 iterations at <step>"
  };
  std::optional<Warmed> warm_first_runnable(RunContext& run, const LoopSettings& settings,
                                            const std::vector<std::size_t>& order);

  const RunFlags& flags_;
  report::RowKind row_kind_;
  report::RowSummary row_summary_;
  bool preparing_warmup_ = false;
  std::string run_warmup_timing_;  // made by measure() before the first row
};

// A run whose cases are one list, made by its constructor: the driver sweeps it in order.
template <typename Case>
class WorkloadOver : public Workload {
 protected:
  using Workload::Workload;
  std::size_t case_count() const final { return cases_.size(); }
  std::vector<Case> cases_;
};

// The spec of a program whose runs are `Run(run, *state)`: `state` (the parsed options, or the
// program's own struct around them) is shared by the spec, its checks and every run; `flags` are
// the options in it.
template <typename Run, typename State>
ProgramSpec program_spec_of(const std::shared_ptr<State>& state, const RunFlags& flags) {
  ProgramSpec program;
  program.flags = std::shared_ptr<const RunFlags>(state, &flags);
  program.start = [state](RunContext& run) { return std::make_unique<Run>(run, *state); };
  return program;
}

}  // namespace collbench
