// Concurrent groups (issue 62) through the summarizer: table's rows carry their group and the
// per-group summary judges as the run did; compare, history and plot take each group as a series of
// its own, paired by id and ranks. On the fixtures of tests/data/summarize/groups (make_fixtures.py:
// groups of 2 ranks, so busbw = algbw = bytes / time).
#include "summarize_test_helpers.h"

#include "report/group_view.h"
#include "summarize/common/group_series.h"

namespace collbench::summarize {
namespace {

// alone.json at 1 MiB: group 0 400 us (320 alone), group 1 520 us (400 alone).
constexpr double kMiB = 1048576;
constexpr double kGroup0Busbw = kMiB / 400e3, kGroup1Busbw = kMiB / 520e3;

std::vector<LoadedReport> alone_report() { return load_reports({data("groups/alone.json")}); }

std::size_t column_of(const Table& table, const std::string& name) {
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].name == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

bool any_note_has(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

TEST(GroupTable, EveryRowCarriesItsGroupAndContention) {
  const Document document = nccl_table_document(alone_report());
  const Table& table = document.tables.at(0);
  EXPECT_EQ(table.group_columns, (std::vector<std::string>{"report", "benchmark", "world_size", "status", "group", "ranks", "hosts"}));
  ASSERT_EQ(table.groups.size(), 2u);  // one block per group
  const Table::Group& slow = table.groups[1];
  EXPECT_EQ(slow.key[4], 1);
  EXPECT_EQ(slow.key[5], "1,3");
  EXPECT_EQ(slow.key[6], "h0,h1");
  ASSERT_EQ(slow.rows.size(), 2u);
  const auto& at_mib = slow.rows[1];
  EXPECT_EQ(at_mib[column_of(table, "bytes")], 1048576u);
  EXPECT_DOUBLE_EQ(at_mib[column_of(table, "time_us")].get<double>(), 520.0);
  EXPECT_DOUBLE_EQ(at_mib[column_of(table, "busbw_gbps")].get<double>(), kGroup1Busbw);
  EXPECT_DOUBLE_EQ(at_mib[column_of(table, "alone_time_us")].get<double>(), 400.0);
  EXPECT_DOUBLE_EQ(at_mib[column_of(table, "contention")].get<double>(), 1.3);
  EXPECT_DOUBLE_EQ(table.groups[0].rows[0][column_of(table, "contention")].get<double>(), 1.25);
  EXPECT_TRUE(any_note_has(document.notes, "SLOW group 1 (ranks 1,3; hosts h0,h1)"));

  // CSV: one table, a line per (group, size), the group's columns first.
  const std::string csv = render(document, Format::kCsv);
  EXPECT_EQ(csv.rfind("report,benchmark,world_size,status,group,ranks,hosts,bytes,", 0), 0u) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_NE(csv.find(",1,\"1,3\",\"h0,h1\",1048576,"), std::string::npos) << csv;
  // JSON: each row an object with its group.
  const nlohmann::json json = nlohmann::json::parse(render(document, Format::kJson));
  const auto& rows = json["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3]["group"], 1);
  EXPECT_EQ(rows[3]["ranks"], "1,3");
  EXPECT_DOUBLE_EQ(rows[3]["contention"].get<double>(), 1.3);
  // Markdown: a heading per group.
  EXPECT_NE(render(document, Format::kMarkdown).find("group=1, ranks=1,3, hosts=h0,h1"), std::string::npos);
}

TEST(GroupTable, AggregateRowsAreEveryGroupsBytesOverTheSlowestTime) {
  const Table table = nccl_table_document(alone_report(), GroupsView::kAggregate).tables.at(0);
  ASSERT_EQ(table.groups.size(), 1u);
  EXPECT_EQ(table.groups[0].key[4], "all");
  EXPECT_EQ(table.groups[0].key[5], "0,1,2,3");
  const auto& at_mib = table.groups[0].rows.at(1);
  EXPECT_EQ(at_mib[column_of(table, "bytes")], 2097152u);
  EXPECT_DOUBLE_EQ(at_mib[column_of(table, "time_us")].get<double>(), 520.0);
  EXPECT_DOUBLE_EQ(at_mib[column_of(table, "busbw_gbps")].get<double>(), kGroup0Busbw + kGroup1Busbw);
}

TEST(GroupTable, SummaryJudgesAsTheRunDid) {
  const Document document = group_summary_document(alone_report());
  const Table& table = document.tables.at(0);
  const auto& rows = table.groups.at(0).rows;
  ASSERT_EQ(rows.size(), 3u);  // group 0, group 1, all
  // Of two groups the faster half is the faster one: group 0's busbw is the reference of both.
  EXPECT_EQ(rows[0][column_of(table, "verdict")], "ok");
  EXPECT_DOUBLE_EQ(rows[0][column_of(table, "busbw_gbps")].get<double>(), kGroup0Busbw);
  EXPECT_DOUBLE_EQ(rows[0][column_of(table, "reference_busbw_gbps")].get<double>(), kGroup0Busbw);
  EXPECT_DOUBLE_EQ(rows[1][column_of(table, "reference_busbw_gbps")].get<double>(), kGroup0Busbw);
  EXPECT_DOUBLE_EQ(rows[0][column_of(table, "alone_time_us")].get<double>(), 320.0);
  EXPECT_DOUBLE_EQ(rows[0][column_of(table, "contention")].get<double>(), 1.25);
  EXPECT_EQ(rows[1][column_of(table, "verdict")], "SLOW");  // 2.0165 < 0.9 x 2.6214
  EXPECT_EQ(rows[1][column_of(table, "hosts")], "h0,h1");
  EXPECT_DOUBLE_EQ(rows[1][column_of(table, "time_us")].get<double>(), 520.0);
  EXPECT_DOUBLE_EQ(rows[1][column_of(table, "contention")].get<double>(), 1.3);
  EXPECT_EQ(rows[2][column_of(table, "group")], "all");
  EXPECT_EQ(rows[2][column_of(table, "bytes")], 2097152u);
  EXPECT_DOUBLE_EQ(rows[2][column_of(table, "busbw_gbps")].get<double>(), kGroup0Busbw + kGroup1Busbw);
  EXPECT_EQ(rows[2][column_of(table, "verdict")], "1 of 2 SLOW");
  EXPECT_EQ(document.notes.back().rfind(report::kSlowGroupRule, 0), 0u) << document.notes.back();
  // The report's own factor: at 0.5 nothing is SLOW (2.0165 >= 0.5 x 2.6214).
  auto lenient = alone_report();
  lenient[0].report.context.options["slow_group_factor"] = 0.5;
  EXPECT_EQ(group_summary_document(lenient).tables[0].groups[0].rows[1][column_of(table, "verdict")], "ok");
  // A report from before the faster half's reference (no slow_group_reference) is judged as it
  // was, against the median of the two, 2.319: at 0.85 group 1 is SLOW by the rule it ran under
  // (2.0165 < 0.85 x 2.6214 = 2.228) and not by the median's (0.85 x 2.319 = 1.971).
  auto strict = alone_report();
  strict[0].report.context.options["slow_group_factor"] = 0.85;
  EXPECT_EQ(group_summary_document(strict).tables[0].groups[0].rows[1][column_of(table, "verdict")], "SLOW");
  auto before = strict;
  before[0].report.context.options.erase("slow_group_reference");
  const auto before_rows = group_summary_document(before).tables[0].groups[0].rows;
  EXPECT_EQ(before_rows[1][column_of(table, "verdict")], "ok");
  EXPECT_DOUBLE_EQ(before_rows[1][column_of(table, "reference_busbw_gbps")].get<double>(), (kGroup0Busbw + kGroup1Busbw) / 2);
  before[0].report.context.options["slow_group_factor"] = 0.9;
  EXPECT_NE(nccl_table_text(before).find("is below 0.9 x 2.319 GB/s, the median of the 2-rank groups"), std::string::npos);
  // A reference no collbench wrote is bad input, not a guess.
  auto unknown = alone_report();
  unknown[0].report.context.options["slow_group_reference"] = "mean\x1b[31m";
  try {
    group_summary_document(unknown);
    ADD_FAILURE() << "an unknown slow_group_reference was read";
  } catch (const InputError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("names no reference (median_of_all, median_of_faster_half)"), std::string::npos) << what;
    EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;  // the file's text, made printable
  }
  // A report from before groups: one group, the world.
  const auto plain = group_summary_document(load_reports({data("groups/ungrouped/run-1.json")})).tables[0].groups[0].rows;
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0][column_of(table, "ranks")], "0,1,2,3");
  EXPECT_EQ(plain[0][column_of(table, "verdict")], "one group (no groups)");
  // Through the command line, every format.
  std::string out;
  EXPECT_EQ(run_cli({"table", "--groups", "summary", "--format", "csv", data("groups/alone.json")}, nullptr, &out), 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4) << out;
  EXPECT_NE(out.find(",SLOW,"), std::string::npos) << out;
  EXPECT_EQ(run_cli({"table", "--groups", "summary", data("groups/alone.json")}, nullptr, &out), 0);
  EXPECT_NE(out.find("SLOW group 1 (ranks 1,3; hosts h0,h1)"), std::string::npos) << out;
  EXPECT_EQ(run_cli({"table", "--groups", "some", data("groups/alone.json")}), 2);
}

TEST(GroupTable, TextTableSaysTheSlowGroupUnderItsBlocks) {
  const std::string text = nccl_table_text(alone_report());
  EXPECT_NE(text.find("# group 1: ranks 1,3; hosts h0,h1"), std::string::npos) << text;
  EXPECT_NE(text.find("# SLOW group 1 (ranks 1,3; hosts h0,h1)"), std::string::npos) << text;
  EXPECT_EQ(nccl_table_text(load_reports({data("groups/base/run-1.json")})).find("SLOW"), std::string::npos);
}

TEST(GroupCompare, EachGroupIsComparedWithTheSameGroup) {
  // slower1: group 1 (ranks 1,3) 1.3x, group 0 as base; the runs' noise the same pattern.
  const CompareResult result = compare_folders("groups/base", "groups/slower1");
  std::size_t lines_of[2] = {0, 0};
  for (const auto& line : result.lines) {
    const std::string group = key_value(line.key, kGroupKey);
    ASSERT_TRUE(group == "0" || group == "1") << describe_key(line.key);
    EXPECT_EQ(key_value(line.key, kGroupRanksKey), group == "0" ? "0,2" : "1,3");
    ++lines_of[group == "1"];
    if (group == "1") {
      EXPECT_EQ(line.verdict, Verdict::kSlower) << describe_key(line.key);
      EXPECT_NEAR(line.change, 0.30, 1e-9);
    } else {
      EXPECT_EQ(line.verdict, Verdict::kSame) << describe_key(line.key);
      EXPECT_NEAR(line.change, 0.0, 1e-9);
    }
  }
  EXPECT_EQ(lines_of[0], 3u);  // two sizes and the group as a whole
  EXPECT_EQ(lines_of[1], 3u);
  EXPECT_FALSE(any_note_has(result.notes, "group layouts differ"));
}

TEST(GroupCompare, ALayoutMismatchIsOneLineAndNothingIsPairedAcrossIt) {
  // three: group 0 {0,2} as base's, group 1 of rank 1 alone (base's group 1 is {1,3}), group 2 {3}.
  const CompareResult result = compare_folders("groups/base", "groups/three");
  ASSERT_FALSE(result.lines.empty());
  for (const auto& line : result.lines) EXPECT_EQ(key_value(line.key, kGroupKey), "0") << describe_key(line.key);
  EXPECT_EQ(std::count_if(result.notes.begin(), result.notes.end(), [](const std::string& note) { return note.find("group layouts differ") != std::string::npos; }), 1);
  EXPECT_TRUE(any_note_has(result.notes, "BASE 0 [0,2], 1 [1,3]; NEW 0 [0,2], 1 [1], 2 [3]"));
  EXPECT_TRUE(any_note_has(result.notes, "(6 row(s) of groups only one side has left out)"));
  EXPECT_TRUE(result.only_in_base.empty());
  EXPECT_TRUE(result.only_in_new.empty());
  // No group in common: refused with the line (exit 2).
  for (const char* other : {"groups/layout_div", "groups/ungrouped"}) {
    try {
      compare_folders("groups/base", other);
      ADD_FAILURE() << other << " was compared";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("group layouts differ"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("no group is in both"), std::string::npos) << e.what();
    }
  }
  std::string err;
  EXPECT_EQ(run_cli({"compare", data("groups/base"), data("groups/layout_div")}, &err), 2);
  EXPECT_NE(err.find("BASE 0 [0,2], 1 [1,3]; NEW 0 [0,1], 1 [2,3]"), std::string::npos) << err;
  // One group of every rank reads as a report from before groups: paired, no group key, no line.
  const CompareResult world = compare_folders("groups/ungrouped", "groups/world_group");
  ASSERT_FALSE(world.lines.empty());
  for (const auto& line : world.lines) EXPECT_EQ(key_value(line.key, kGroupKey), "<missing>");
  EXPECT_FALSE(any_note_has(world.notes, "group layouts differ"));
}

TEST(GroupHistory, EachGroupIsASeriesOfItsOwn) {
  // Four runs of base, then four of slower1 (group 1 1.3x from the fifth run on).
  const HistoryResult result = compute_history(load_reports({data("groups/base"), data("groups/slower1")}), HistoryOptions{});
  ASSERT_EQ(result.series.size(), 4u);  // 2 groups x 2 sizes
  for (const auto& series : result.series) {
    ASSERT_EQ(series.points.size(), 8u);
    if (key_value(series.key, kGroupKey) == "1") {
      EXPECT_EQ(key_value(series.key, kGroupRanksKey), "1,3");
      ASSERT_EQ(series.changes.size(), 1u) << describe_key(series.key);
      EXPECT_EQ(series.changes[0].index, 4u);
      EXPECT_NEAR(series.changes[0].change, 0.30, 1e-9);
    } else {
      EXPECT_TRUE(series.changes.empty()) << describe_key(series.key);
    }
  }
  EXPECT_FALSE(result.group_layouts.has_value());
  // Runs of two layouts: four groups, each its own series, and one line saying so.
  const HistoryResult mixed = compute_history(load_reports({data("groups/base"), data("groups/layout_div")}), HistoryOptions{});
  EXPECT_EQ(mixed.series.size(), 8u);
  ASSERT_TRUE(mixed.group_layouts.has_value());
  EXPECT_NE(mixed.group_layouts->find("0 [0,1], 1 [2,3]; 0 [0,2], 1 [1,3]"), std::string::npos) << *mixed.group_layouts;
  EXPECT_TRUE(any_note_has(history_document(mixed, HistoryOptions{}).notes, "group layouts differ between runs"));
}

TEST(GroupPlot, OneLinePerGroup) {
  const std::vector<PlotSeries> series = plot_series(alone_report(), "busbw");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_NE(series[0].title.find("group=0 ranks=0,2"), std::string::npos) << series[0].title;
  EXPECT_NE(series[1].title.find("group=1 ranks=1,3"), std::string::npos) << series[1].title;
  ASSERT_EQ(series[1].points.size(), 2u);
  EXPECT_EQ(series[1].points[1].first, 1048576u);
  EXPECT_DOUBLE_EQ(series[1].points[1].second, kGroup1Busbw);
  EXPECT_DOUBLE_EQ(series[1].points[0].second, 65536 / 52e3);
  // A report before groups: one line, no group words.
  const std::vector<PlotSeries> plain = plot_series(load_reports({data("groups/ungrouped/run-1.json")}), "busbw");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].title.find("group="), std::string::npos);
}

TEST(GroupReader, AGroupThatIsNotAWholeRowIsRefusedWhenRead) {
  std::ifstream file(data("groups/alone.json"));
  nlohmann::json document = nlohmann::json::parse(file);
  document["results"][1]["groups"][1]["time_us"]["p50"] = 0.0;  // a time must be positive
  try {
    report::report_from_json(document);
    ADD_FAILURE() << "a group with a zero p50 was read";
  } catch (const report::ReportFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(".results[1].groups[1].time_us.p50"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collbench::summarize
