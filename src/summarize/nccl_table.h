// collbench table: the nccl-tests table again, from reports.
#pragma once

#include <string>
#include <vector>

#include "summarize/document.h"
#include "summarize/load.h"

namespace collbench::summarize {

// A grouped report's table (concurrent groups): one block per group, or the aggregate's.
enum class GroupsView { kEach, kAggregate };

// The text form is exactly what the *_perf executable printed (same writer), one block per report;
// a grouped report's, one block per group (or the aggregate) in the same columns.
std::string nccl_table_text(const std::vector<LoadedReport>& reports, GroupsView groups_view = GroupsView::kEach);
// Any other kind's text table, as its program printed it live (report::KindTableWriter).
std::string kind_table_text(const std::vector<LoadedReport>& reports);

// The same rows as a table for Markdown, CSV and JSON: one group per report. Reports of other
// kinds (every format, text included) get the kind's columns: key fields, size, time, figures, #wrong.
Document nccl_table_document(const std::vector<LoadedReport>& reports);

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
