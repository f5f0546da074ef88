// collbench table: the nccl-tests table again, from reports.
#pragma once

#include <string>
#include <vector>

#include "summarize/common/document.h"
#include "summarize/common/load.h"

namespace collbench::summarize {

// A grouped report's table (concurrent groups): one block per group, the aggregate's, or the
// per-group summary (group_summary_document).
enum class GroupsView { kEach, kAggregate, kSummary };

// The text form is exactly what the *_perf executable printed (same writer), one block per report;
// a grouped report's, one block per group (or the aggregate) in the same columns, and under it the
// line of each SLOW group, as the run printed it.
std::string nccl_table_text(const std::vector<LoadedReport>& reports, GroupsView groups_view = GroupsView::kEach);
// Any other kind's text table, as its program printed it live (report::KindTableWriter).
std::string kind_table_text(const std::vector<LoadedReport>& reports);

// The same rows as a table for Markdown, CSV and JSON: one group per report. Reports of other
// kinds (every format, text included) get the kind's columns: key fields, size, time, figures, #wrong.
// Where a report has concurrent groups, every row carries its group (group, ranks, hosts: one
// block per report and group), with --alone its alone_time_us and contention; a report without
// groups is one group, 0, of every rank. kAggregate: the aggregate's rows (group "all"); kSummary:
// group_summary_document. A note names each SLOW group.
Document nccl_table_document(const std::vector<LoadedReport>& reports, GroupsView groups_view = GroupsView::kEach);

// One row per group of each report, judged at the largest size as the run judged it
// (report::judge_groups, the report's --slow-group-factor): its busbw there (the mean over that
// size's rows), the reference it was judged against (the median busbw of the faster half of its
// same-size groups), its verdict (SLOW, ok, or not judged without a same-size peer), its time, and with --alone its time alone and contention (each the
// mean over those rows); then the aggregate's row (group "all": every group's bytes, the slowest
// group's time, the sum of the groups' busbw). A report without groups is one group, 0.
Document group_summary_document(const std::vector<LoadedReport>& reports);

// One row per report: benchmark, ranks, status, rows, average and peak of the headline rate (bus
// bandwidth for collectives), #wrong (the footer of each nccl-tests table, side by side); for
// collectives also the size of the peak and a health verdict (health_of).
Document report_summary_document(const std::vector<LoadedReport>& reports);

// "ok", or "check: " and what looks wrong in a collective report: a partial report, wrong
// elements, bus bandwidth at the largest size below 70 % of the peak, a size taking more than
// twice the time of both its neighbours. A reader's first look, not a verdict on the machine.
std::string health_of(const LoadedReport& loaded);

// A CPU row whose buffers one of the caches the report names (context.machine.caches) holds, by
// the rule health_of judges a fall with; false on GPUs and where the report names no caches.
bool row_fits_in_a_cache(const report::Report& report, const report::Row& row);

}  // namespace collbench::summarize
