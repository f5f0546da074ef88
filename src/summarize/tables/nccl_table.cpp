#include "summarize/tables/nccl_table.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>

#include "core/printable.h"
#include "report/group_view.h"
#include "report/report_json.h"
#include "report/table.h"
#include "summarize/common/group_series.h"
#include "summarize/common/input_error.h"
#include "summarize/plots/plot.h"
#include "summarize/common/run_stats.h"
#include "summarize/common/series.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench::summarize {
namespace {

// Two collective rows as the report holds them (report_read.cpp checked their fields): of one
// series (dtype, op, root), and of one case of it (also size and cycle).
bool same_series(const nlohmann::json& a, const nlohmann::json& b) {
  return a.at("dtype") == b.at("dtype") && a.at("op") == b.at("op") && a.at("root").get<int>() == b.at("root").get<int>();
}
bool same_case(const nlohmann::json& a, const nlohmann::json& b) {
  return same_series(a, b) && a.at("bytes") == b.at("bytes") && a.value("cycle", 1) == b.value("cycle", 1);
}

std::string describe_run(const report::Report& report) {
  std::string text = "from report";
  if (const auto it = report.context.options.find("iterations"); it != report.context.options.end()) {
    text += "; iterations " + it->dump();
  }
  if (const auto it = report.context.options.find("time_aggregation"); it != report.context.options.end() && it->is_string()) {
    text += "; iteration time = " + it->get<std::string>() + " over ranks";
  }
  return text;
}

}  // namespace

namespace {

// A cache level as context.machine records it, and the share of it one rank can count on.
struct CacheShare {
  int level = 0;
  std::uint64_t bytes_per_rank = 0;
};

// The caches a rank of this run could use (context.machine.caches), each divided among the ranks
// that share it on one host; empty for a run on GPUs (their rows' buffers live in device memory,
// whose L2 the report does not record) and for reports from before the caches were recorded.
std::vector<CacheShare> host_cache_shares(const report::Report& report) {
  std::vector<CacheShare> shares;
  for (const auto& rank : report.context.ranks) {
    if (!rank.device.empty() && rank.device != "cpu") return shares;
  }
  const auto caches = report.context.machine.find("caches");
  if (caches == report.context.machine.end() || !caches->is_array()) return shares;
  const int hosts = std::max<int>(1, static_cast<int>(report.context.hosts.size()));
  const int ranks_per_host = std::max(1, report.context.world_size / hosts);
  for (const auto& cache : *caches) {
    const auto bytes = cache.find("bytes"), shared_by = cache.find("shared_by_cores"), level = cache.find("level");
    if (bytes == cache.end() || !bytes->is_number_unsigned() || shared_by == cache.end() || !shared_by->is_number_integer()) continue;
    const int sharing_ranks = std::max(1, std::min(shared_by->get<int>(), ranks_per_host));
    shares.push_back({level != cache.end() && level->is_number_integer() ? level->get<int>() : 0, bytes->get<std::uint64_t>() / sharing_ranks});
  }
  return shares;
}

// What one rank's buffers of a row hold, about: its input and its output (in-place rows count the
// same; all_gather's input and reduce_scatter's output are smaller, so this is an upper bound).
std::uint64_t working_set_per_rank(const report::Row& row) { return 2 * row.size; }

// A cache holds a row's buffers only while they fill at most half of the rank's share: the
// transport's own copies (shared-memory fragments, Gloo's buffers) and, on a VM, other guests use
// the rest, so the fall begins before the nominal edge. Seen on an AMD EPYC VM (1 MiB L2 a core,
// a 32 MiB L3 for both cores, 2026-12-01): all_reduce at 2 ranks fell from 8.37 GB/s at 2M to 4.24
// at 8M, whose 16 MiB a rank nominally fit its 16 MiB share of the L3.
bool cache_holds(const CacheShare& cache, const report::Row& row) { return working_set_per_rank(row) <= cache.bytes_per_rank / 2; }

// The innermost cache that holds a row's buffers and not the larger row's: the fall between the
// two sizes is that cache's edge (and the next's: the edges are soft, and a VM's L3 is shared with
// other guests, so the levels past the first edge are not told apart). nullopt where no recorded
// cache lies between them.
std::optional<CacheShare> cache_edge_between(const std::vector<CacheShare>& caches, const report::Row& small,
                                             const report::Row& large) {
  for (const auto& cache : caches) {
    if (cache_holds(cache, small) && !cache_holds(cache, large)) return cache;
  }
  return std::nullopt;
}

std::string busbw_fall_text(const report::Row& peak, const report::Row& last) {
  return formatted("busbw falls with size: %.3g GB/s at %s, %.3g at %s", *headline(peak), size_tick_label(peak.size).c_str(),
                   *headline(last), size_tick_label(last.size).c_str());
}

// A rank far slower than the others shows in the over-ranks views: the slowest rank's time (max
// over ranks, per iteration) far above the fastest's (min). Only where every rank does the same
// work and none can leave before the others (all_reduce, all_gather, reduce_scatter, alltoall): a
// rooted collective's root waits or leaves first by design, and sendrecv's ranks wait only for
// their own two peers (over four simulated hosts with 1 ms links, gather's spread was 995x and
// sendrecv's 89x in a clean run, results/slurm/multinode, 2026-12-01). Even those reach 10x at a
// few sizes on their own (broadcast's root up to 10.3x at 32 B at 2 ranks, 2026-11-28; all_gather
// 5.7x and reduce_scatter 7.2x in 4 of 7 sizes over the four hosts), so a straggler must show in
// at least three quarters of the sizes, as one slows every size.
constexpr double kSlowRankRatio = 3.0;

bool ranks_finish_together(const std::string& benchmark) {
  return benchmark == "all_reduce" || benchmark == "all_gather" || benchmark == "reduce_scatter" || benchmark == "alltoall";
}

std::optional<std::string> slow_rank_finding(const std::vector<const report::Row*>& curve) {
  int with_views = 0, slow = 0;
  double worst = 0;
  for (const auto* row : curve) {
    const auto views = row->fields.find("time_over_ranks_us");  // absent in older reports
    if (views == row->fields.end() || !(views->at("min").get<double>() > 0)) continue;
    ++with_views;
    const double ratio = views->at("max").get<double>() / views->at("min").get<double>();
    worst = std::max(worst, ratio);
    if (ratio > kSlowRankRatio) ++slow;
  }
  if (with_views < 2 || 4 * slow < 3 * with_views) return std::nullopt;
  return formatted("a rank far slower than the others: the slowest rank's time over %.3gx the fastest's in %d of %d sizes (up to %.3gx)",
                   kSlowRankRatio, slow, with_views, worst);
}

}  // namespace

bool row_fits_in_a_cache(const report::Report& report, const report::Row& row) {
  const std::vector<CacheShare> caches = host_cache_shares(report);
  return std::any_of(caches.begin(), caches.end(), [&row](const CacheShare& cache) { return cache_holds(cache, row); });
}

std::string health_of(const LoadedReport& loaded) {
  std::vector<std::string> checks, notes;
  if (loaded.partial()) checks.push_back("partial report");
  // Out-of-place rows of the first dtype and op in size order: the sweep's own curve.
  std::vector<const report::Row*> curve;
  for (const auto& row : loaded.report.rows) {
    if (row.fields.at("placement") == "in" || row.fields.value("cycle", 1) != 1) continue;
    if (!curve.empty() && !same_series(row.fields, curve.front()->fields)) continue;
    curve.push_back(&row);
  }
  std::sort(curve.begin(), curve.end(), [](const auto* a, const auto* b) { return a->size < b->size; });
  std::int64_t wrong = 0;
  for (const auto& row : loaded.report.rows) wrong += row.wrong.value_or(0);
  if (wrong > 0) checks.push_back(std::to_string(wrong) + " wrong elements");
  // Bandwidth that falls at the large end: the largest size well below the peak. On a CPU the
  // caches explain a fall from a size whose buffers fit in one to a size whose buffers do not,
  // and every CPU shows it: that is a note. A fall among sizes past every cache, or on a GPU, or
  // on a CPU whose caches the report does not name, is for a person to look at.
  const auto busiest = [](const std::vector<const report::Row*>& rows) {
    const report::Row* peak = nullptr;
    for (const auto* row : rows) {
      if (headline(*row) && (!peak || *headline(*row) > *headline(*peak))) peak = row;
    }
    return peak;
  };
  const auto falls = [](const report::Row* peak, const report::Row* last) {
    return peak && headline(*last) && last != peak && *headline(*last) < 0.7 * *headline(*peak);
  };
  if (const report::Row* peak = busiest(curve); !curve.empty() && falls(peak, curve.back())) {
    const report::Row& last = *curve.back();
    const std::vector<CacheShare> caches = host_cache_shares(loaded.report);
    if (const auto edge = cache_edge_between(caches, *peak, last)) {
      // Past the last level, the rows no cache holds must not fall on their own.
      std::vector<const report::Row*> uncached;
      for (const auto* row : curve) {
        if (!cache_holds(caches.back(), *row)) uncached.push_back(row);
      }
      const report::Row* uncached_peak = busiest(uncached);
      if (falls(uncached_peak, &last)) {
        checks.push_back(busbw_fall_text(*uncached_peak, last) + ", past every cache the report names");
      } else {
        notes.push_back(busbw_fall_text(*peak, last) + ", past the L" + std::to_string(edge->level) + " (" +
                        size_tick_label(edge->bytes_per_rank) + " a rank), as on any CPU");
      }
    } else if (caches.empty() && loaded.report.context.machine.value("gpus", nlohmann::json::array()).empty()) {
      notes.push_back(busbw_fall_text(*peak, last) + " (a CPU run whose report names no caches: a cache edge cannot be told from a fault)");
    } else {
      checks.push_back(busbw_fall_text(*peak, last));
    }
  }
  // One size far off its neighbours: more than twice the time of both the smaller and the larger,
  // by the median iteration, so that one preempted iteration (tens of ms on a shared machine) does
  // not make a 10 us size look 200x slow. Reports without a median use the mean.
  const auto typical_time = [](const report::Row& row) {
    const double median = row.time_statistics.count("p50") ? row.time_statistics.at("p50") : 0;
    return median > 0 ? median : *row.time_us;
  };
  for (std::size_t i = 1; i + 1 < curve.size(); ++i) {
    const double before = typical_time(*curve[i - 1]), here = typical_time(*curve[i]), after = typical_time(*curve[i + 1]);
    if (before > 0 && after > 0 && here > 2 * before && here > 2 * after) {
      checks.push_back(formatted("%s takes %.1fx its larger neighbour's time", size_tick_label(curve[i]->size).c_str(), here / after));
    }
  }
  if (ranks_finish_together(loaded.report.benchmark)) {
    if (auto slow = slow_rank_finding(curve)) checks.push_back(std::move(*slow));
  }
  if (checks.empty()) return notes.empty() ? "ok" : "ok (note: " + joined(notes, "; ") + ")";
  return "check: " + joined(checks, "; ") + (notes.empty() ? "" : " (note: " + joined(notes, "; ") + ")");
}

namespace {

// A partial report's line under its table.
void print_partial(std::FILE* stream, const LoadedReport& loaded) {
  if (!loaded.partial()) return;
  const std::string& error = loaded.report.error;
  std::fprintf(stream, "# PARTIAL report%s\n", error.empty() ? "" : (": " + report::printable(error)).c_str());
}

}  // namespace

namespace {
// "# group 1: ranks 1,3; hosts a,b" above a group's block.
void print_group_heading(std::FILE* stream, const nlohmann::json& group) {
  std::fprintf(stream, "# group %d: ranks %s; hosts %s\n", group["id"].get<int>(), report::ranks_text(group["ranks"].get<std::vector<int>>()).c_str(),
               report::hosts_text(group["hosts"].get<std::vector<std::string>>()).c_str());
}

// A report's rows as written: what the run judged its groups over.
nlohmann::json rows_json(const report::Report& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : report.rows) rows.push_back(row.fields);
  return rows;
}

// A report's groups judged as its run judged them (report::judge_groups): by its
// --slow-group-factor (the flag's default, 0.9, where the report does not record it) and its
// reference (report::slow_group_reference_of: the median of all in a report from before the
// faster half's). Each verdict's line names the factor.
struct RunVerdicts {
  double factor = 0.9;
  std::vector<report::GroupVerdict> groups;
};
RunVerdicts judged_as_run(const LoadedReport& loaded) {
  const nlohmann::json& options = loaded.report.context.options;
  RunVerdicts judged;
  const auto factor = options.find("slow_group_factor");
  if (factor != options.end() && factor->is_number()) judged.factor = factor->get<double>();
  const auto reference = report::slow_group_reference_of(options);
  if (!reference) {
    throw InputError(loaded.path + ": context.options.slow_group_reference " + printable(options["slow_group_reference"].dump()) +
                     " names no reference (median_of_all, median_of_faster_half)");
  }
  judged.groups = report::judge_groups(rows_json(loaded.report), judged.factor, *reference);
  return judged;
}

// Under a grouped report's table: each SLOW group's line, as the run printed it.
void print_slow_groups(std::FILE* stream, const LoadedReport& loaded) {
  const RunVerdicts judged = judged_as_run(loaded);
  for (const auto& group : judged.groups) {
    if (group.slow) std::fprintf(stream, "# %s\n", report::slow_group_line(group, judged.factor).c_str());
  }
}
}  // namespace

std::string nccl_table_text(const std::vector<LoadedReport>& reports, GroupsView groups_view) {
  return report::written_text([&](std::FILE* stream) {
    report::TableWriter writer(stream);
    for (const auto& loaded : reports) {
      const auto& rows = loaded.report.rows;
      // The one envelope the live table prints from; nccl-tests' footer reads its bus-bandwidth
      // summary, which only the collectives' rows make.
      nlohmann::json envelope = report::envelope_json(loaded.report.benchmark, loaded.report.context);
      envelope["summary"] = report::has_collective_rows(loaded.report.kind) ? loaded.report.summary
                                                                           : report::RowSummary(report::kCollectiveRows).to_json();
      writer.header(envelope, describe_run(loaded.report));
      // Only collective rows have nccl-tests' fields. A grouped report: one block per group (each
      // row's view of it), or the aggregate's; any other: its rows as written.
      const bool grouped = report::has_collective_rows(loaded.report.kind) && !rows.empty() && report::is_grouped(rows.front().fields);
      std::vector<std::function<nlohmann::json(const nlohmann::json&)>> views{[](const nlohmann::json& row) { return row; }};
      if (grouped && groups_view == GroupsView::kAggregate) {
        views = {report::aggregate_row_view};
        std::fprintf(stream, "# all %zu groups: size every group's bytes, time the slowest group's, busbw the groups' sum\n",
                     rows.front().fields["groups"].size());
      } else if (grouped) {
        views.clear();
        for (std::size_t g = 0; g < rows.front().fields["groups"].size(); ++g) views.push_back([g](const nlohmann::json& row) { return report::group_row_view(row, g); });
      }
      for (std::size_t v = 0; v < views.size(); ++v) {
        if (grouped && groups_view == GroupsView::kEach) print_group_heading(stream, rows.front().fields["groups"][v]);
        for (std::size_t i = 0; i < rows.size() && report::has_collective_rows(loaded.report.kind); ++i) {
          const auto placed = [&rows](std::size_t at, const char* placement) {
            return rows[at].fields.at("placement") == placement ? &rows[at].fields : nullptr;
          };
          const nlohmann::json* out_of_place = placed(i, "out");
          const nlohmann::json* in_place = placed(i, "in");
          if (out_of_place && i + 1 < rows.size() && placed(i + 1, "in") && same_case(rows[i].fields, rows[i + 1].fields)) {
            in_place = &rows[++i].fields;
          }
          const std::optional<nlohmann::json> out = out_of_place ? std::optional(views[v](*out_of_place)) : std::nullopt;
          const std::optional<nlohmann::json> in = in_place ? std::optional(views[v](*in_place)) : std::nullopt;
          writer.line(out ? &*out : nullptr, in ? &*in : nullptr);
        }
      }
      for (const auto& skipped : loaded.report.skipped) writer.skipped(skipped);
      writer.footer(envelope, loaded.path);
      if (grouped) print_slow_groups(stream, loaded);
      if (loaded.partial()) {
        print_partial(stream, loaded);
        std::fprintf(stream, "#\n");
      }
    }
  });
}

std::string kind_table_text(const std::vector<LoadedReport>& reports) {
  return report::written_text([&](std::FILE* stream) {
    for (const auto& loaded : reports) {
      const auto& report = loaded.report;
      std::fprintf(stream, "# %s: %d rank(s), %s; from report %s\n", report::printable(report.benchmark).c_str(),
                   report.context.world_size, report::printable(report.status).c_str(), report::printable(loaded.path).c_str());
      report::KindTableWriter writer(stream, report::row_kind_spec(report.kind));
      writer.header();
      for (const auto& row : report.rows) writer.line(row);
      print_partial(stream, loaded);
      std::fprintf(stream, "#\n");
    }
  });
}

namespace {

// Any kind's rows through its spec: key fields, size, mean time, figures and #wrong.
Document rows_document(const std::vector<LoadedReport>& reports) {
  const report::RowKindSpec& kind = kind_of(reports);
  Table table;
  table.title = std::string("Results (") + kind.name + " rows)";
  table.group_columns = {"report", "benchmark", "world_size", "status"};
  for (const char* field : kind.key_fields) table.columns.push_back({field});
  table.columns.push_back({kind.size_column});
  if (kind.time_path) table.columns.push_back({"time_us", 2});
  for (const auto& figure : kind.figures) table.columns.push_back({figure.path, 3});
  table.columns.push_back({"wrong"});
  for (const auto& loaded : reports) {
    const auto& report = loaded.report;
    Table::Group group{{loaded.path, report.benchmark, report.context.world_size, report.status}, {}};
    for (const auto& row : report.rows) {
      std::vector<nlohmann::json> cells;
      for (const auto& key : row.keys) cells.emplace_back(key.second);
      cells.push_back(size_cell(row));
      if (kind.time_path) cells.push_back(report::json_or_null(row.time_us));
      for (const auto& figure : row.figures) cells.push_back(report::json_or_null(figure));
      cells.push_back(report::json_or_null(row.wrong));
      group.rows.push_back(std::move(cells));
    }
    table.groups.push_back(std::move(group));
  }
  Document document;
  document.tables.push_back(std::move(table));
  return document;
}

}  // namespace

namespace {

// nccl-tests' columns of a collective row, or of a group's or the aggregate's view of it.
std::vector<nlohmann::json> collective_cells(const nlohmann::json& fields) {
  const nlohmann::json busbw = fields.value("busbw_gbps", nlohmann::json());
  return {fields.at("bytes"),
          fields.at("count"),
          fields.at("dtype"),
          fields.at("op"),
          fields.at("root").get<int>(),
          fields.at("placement"),
          fields.at("algorithm"),
          fields.at("time_us").at("mean").get<double>(),
          fields.at("algbw_gbps").get<double>(),
          busbw.is_number() ? nlohmann::json(busbw.get<double>()) : nlohmann::json(nullptr),
          fields.value("wrong", nlohmann::json())};
}

std::vector<int> every_rank(int world_size) {
  std::vector<int> ranks(static_cast<std::size_t>(std::max(0, world_size)));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

// group, ranks, hosts: of one group; of a report without groups (group 0, every rank and host);
// of the aggregate ("all", every group's ranks and hosts).
std::vector<nlohmann::json> group_cells(const nlohmann::json& group) {
  return {group["id"], report::ranks_text(group["ranks"].get<std::vector<int>>()), report::hosts_text(group["hosts"].get<std::vector<std::string>>())};
}
std::vector<nlohmann::json> world_group_cells(const report::Report& report) {
  return {0, report::ranks_text(every_rank(report.context.world_size)), report::hosts_text(report.context.hosts)};
}
std::vector<nlohmann::json> aggregate_cells(const nlohmann::json& groups) {
  std::vector<int> ranks;
  std::vector<std::string> hosts;
  for (const auto& group : groups) {
    for (const auto& rank : group["ranks"]) ranks.push_back(rank.get<int>());
    for (const auto& host : group["hosts"]) hosts.push_back(host.get<std::string>());
  }
  std::sort(ranks.begin(), ranks.end());
  return {"all", report::ranks_text(ranks), report::hosts_text(hosts)};
}

// --alone's cells of a group in one row: its mean time alone and its contention (null without).
std::vector<nlohmann::json> alone_cells(const nlohmann::json& group) {
  const auto alone = group.find("alone_time_us");
  return {alone != group.end() && alone->is_object() ? alone->value("mean", nlohmann::json()) : nlohmann::json(nullptr),
          group.value("contention", nlohmann::json())};
}

bool measured_alone(const std::vector<LoadedReport>& reports) {
  for (const auto& loaded : reports) {
    for (const auto& row : loaded.report.rows) {
      if (!report::is_grouped(row.fields)) continue;
      for (const auto& group : row.fields["groups"]) {
        if (group.contains("contention")) return true;
      }
    }
  }
  return false;
}

template <typename... Parts>
std::vector<nlohmann::json> concatenated(std::vector<nlohmann::json> first, const Parts&... rest) {
  (first.insert(first.end(), rest.begin(), rest.end()), ...);
  return first;
}

// One report's blocks of the Results table: per group (each row's view of it), the aggregate's,
// or, without groups, its rows as written (one group, 0, where other reports have groups).
std::vector<Table::Group> report_blocks(const LoadedReport& loaded, GroupsView groups_view, bool grouped, bool alone) {
  const report::Report& report = loaded.report;
  const std::vector<nlohmann::json> report_key{loaded.path, report.benchmark, report.context.world_size, report.status};
  const nlohmann::json* groups = groups_in(report);
  const std::vector<nlohmann::json> no_alone = alone ? std::vector<nlohmann::json>{nullptr, nullptr} : std::vector<nlohmann::json>{};
  std::vector<Table::Group> blocks;
  if (!groups) {
    blocks.push_back({grouped ? concatenated(report_key, world_group_cells(report)) : report_key, {}});
    for (const auto& row : report.rows) blocks.back().rows.push_back(concatenated(collective_cells(row.fields), no_alone));
    return blocks;
  }
  if (groups_view == GroupsView::kAggregate) {
    blocks.push_back({concatenated(report_key, aggregate_cells(*groups)), {}});
    for (const auto& row : report.rows) {
      if (report::is_grouped(row.fields)) blocks.back().rows.push_back(collective_cells(report::aggregate_row_view(row.fields)));
    }
    return blocks;
  }
  for (std::size_t g = 0; g < groups->size(); ++g) {
    blocks.push_back({concatenated(report_key, group_cells((*groups)[g])), {}});
    for (const auto& row : report.rows) {
      if (!report::is_grouped(row.fields) || g >= row.fields["groups"].size()) continue;
      const std::vector<nlohmann::json> cells = collective_cells(report::group_row_view(row.fields, g));
      blocks.back().rows.push_back(alone ? concatenated(cells, alone_cells(row.fields["groups"][g])) : cells);
    }
  }
  return blocks;
}

}  // namespace

Document nccl_table_document(const std::vector<LoadedReport>& reports, GroupsView groups_view) {
  if (kind_of(reports).kind() != report::kCollectiveRows) return rows_document(reports);
  if (groups_view == GroupsView::kSummary) return group_summary_document(reports);
  const bool grouped = std::any_of(reports.begin(), reports.end(), [](const LoadedReport& loaded) { return groups_in(loaded.report) != nullptr; });
  const bool alone = grouped && groups_view == GroupsView::kEach && measured_alone(reports);
  Table table;
  table.title = "Results";
  table.group_columns = {"report", "benchmark", "world_size", "status"};
  if (grouped) table.group_columns.insert(table.group_columns.end(), {"group", "ranks", "hosts"});
  table.columns = {{"bytes"},         {"count"},          {"dtype"},          {"op"},    {"root"},
                   {"placement"},     {"algorithm"},      {"time_us", 2},     {"algbw_gbps", 3},
                   {"busbw_gbps", 3}, {"wrong"}};
  if (alone) table.columns.insert(table.columns.end(), {{"alone_time_us", 2}, {"contention", 3}});
  Document document;
  for (const auto& loaded : reports) {
    for (auto& block : report_blocks(loaded, groups_view, grouped, alone)) table.groups.push_back(std::move(block));
    const RunVerdicts judged = judged_as_run(loaded);
    for (const auto& group : judged.groups) {
      if (group.slow) document.notes.push_back(loaded.path + ": " + report::slow_group_line(group, judged.factor));
    }
  }
  document.tables.push_back(std::move(table));
  return document;
}

namespace {

std::optional<double> mean_if_any(const std::vector<double>& values) {
  return values.empty() ? std::nullopt : std::optional<double>(mean_of(values));
}

// One group's row of the summary: its figures over the rows of the size it was judged at.
std::vector<nlohmann::json> judged_group_row(const report::Report& report, const report::GroupVerdict& verdict) {
  std::vector<double> times, alone_times, contentions;
  for (const auto& row : report.rows) {
    if (!report::is_grouped(row.fields) || row.fields.value("bytes", std::uint64_t{0}) != verdict.bytes) continue;
    for (const auto& group : row.fields["groups"]) {
      if (group["id"].get<int>() != verdict.id) continue;
      times.push_back(group["time_us"]["mean"].get<double>());
      const std::vector<nlohmann::json> alone = alone_cells(group);
      if (alone[0].is_number()) alone_times.push_back(alone[0].get<double>());
      if (alone[1].is_number()) contentions.push_back(alone[1].get<double>());
    }
  }
  const char* said = verdict.slow                    ? "SLOW"
                     : verdict.reference_busbw_gbps    ? "ok"
                     : verdict.ranks.size() == 1       ? "not judged (one rank)"
                                                       : "not judged (no same-size peer)";
  return concatenated(group_cells(nlohmann::json{{"id", verdict.id}, {"ranks", verdict.ranks}, {"hosts", verdict.hosts}}),
                      std::vector<nlohmann::json>{verdict.bytes, report::json_or_null(mean_if_any(times)), verdict.busbw_gbps,
                                                  report::json_or_null(verdict.reference_busbw_gbps), said,
                                                  report::json_or_null(mean_if_any(alone_times)), report::json_or_null(mean_if_any(contentions))});
}

// The aggregate's row of the summary, over the rows of the largest size.
std::vector<nlohmann::json> aggregate_summary_row(const report::Report& report, const std::vector<report::GroupVerdict>& verdicts) {
  nlohmann::json bytes;  // every group's: the same in each row of the size, but for the rounding of another dtype
  std::vector<double> times, busbw;
  const nlohmann::json* groups = groups_in(report);
  for (const auto& row : report.rows) {
    if (!report::is_grouped(row.fields) || row.fields.value("bytes", std::uint64_t{0}) != verdicts.front().bytes) continue;
    const nlohmann::json& aggregate = row.fields["aggregate"];
    if (bytes.is_null()) bytes = aggregate["bytes_total"];
    times.push_back(aggregate["time_us"].get<double>());
    busbw.push_back(aggregate["busbw_sum_gbps"].get<double>());
  }
  const auto slow = std::count_if(verdicts.begin(), verdicts.end(), [](const report::GroupVerdict& verdict) { return verdict.slow; });
  return concatenated(aggregate_cells(*groups),
                      std::vector<nlohmann::json>{bytes, report::json_or_null(mean_if_any(times)),
                                                  report::json_or_null(mean_if_any(busbw)), nullptr,
                                                  std::to_string(slow) + " of " + std::to_string(verdicts.size()) + " SLOW", nullptr, nullptr});
}

// A report from before groups: one group, the world, at its largest size.
std::vector<nlohmann::json> world_summary_row(const report::Report& report) {
  std::uint64_t largest = 0;
  for (const auto& row : report.rows) largest = headline(row) ? std::max(largest, row.size) : largest;
  std::vector<double> times, busbw;
  for (const auto& row : report.rows) {
    if (row.size != largest || !headline(row)) continue;
    times.push_back(*row.time_us);
    busbw.push_back(*headline(row));
  }
  return concatenated(world_group_cells(report),
                      std::vector<nlohmann::json>{largest, report::json_or_null(mean_if_any(times)), report::json_or_null(mean_if_any(busbw)),
                                                  nullptr, "one group (no groups)", nullptr, nullptr});
}

}  // namespace

Document group_summary_document(const std::vector<LoadedReport>& reports) {
  Table table;
  table.title = "Groups";
  table.group_columns = {"report", "benchmark", "world_size"};
  table.columns = {{"group"},        {"ranks"},          {"hosts"},       {"bytes"},         {"time_us", 2},
                   {"busbw_gbps", 3}, {"reference_busbw_gbps", 3}, {"verdict"}, {"alone_time_us", 2}, {"contention", 3}};
  Document document;
  for (const auto& loaded : reports) {
    const report::Report& report = loaded.report;
    Table::Group block{{loaded.path, report.benchmark, report.context.world_size}, {}};
    const RunVerdicts judged = judged_as_run(loaded);
    const std::vector<report::GroupVerdict>& verdicts = judged.groups;
    if (verdicts.empty() || !groups_in(report)) {
      block.rows.push_back(world_summary_row(report));
    } else {
      for (const auto& verdict : verdicts) block.rows.push_back(judged_group_row(report, verdict));
      block.rows.push_back(aggregate_summary_row(report, verdicts));
    }
    table.groups.push_back(std::move(block));
    for (const auto& verdict : verdicts) {
      if (verdict.slow) document.notes.push_back(loaded.path + ": " + report::slow_group_line(verdict, judged.factor));
    }
  }
  document.tables.push_back(std::move(table));
  document.notes.push_back(std::string(report::kSlowGroupRule) +
                           " (F: the run's, 0.9 where the report does not say; a report without slow_group_reference, from before it, "
                           "against the median of all of them, as it was judged); contention: its time beside the others over its time "
                           "alone (--alone); all: every group's bytes, the slowest group's time, the sum of the groups' busbw");
  return document;
}

Document report_summary_document(const std::vector<LoadedReport>& reports) {
  const std::string rate = kind_of(reports).figures.front().path;
  Table table;
  table.title = "Summary";
  const bool collective = reports.front().report.kind == report::kCollectiveRows;
  table.columns = {{"benchmark"}, {"world_size"}, {"status"}, {"rows"}, {"avg_" + rate, 3}, {"max_" + rate, 3}, {"wrong"}, {"report"}};
  if (collective) table.columns.insert(table.columns.end(), {{"peak_at"}, {"health"}});
  Table::Group group;
  for (const auto& loaded : reports) {
    // The mean and peak over rows that have the headline figure (nccl-tests' footer for busbw).
    std::optional<double> total, peak;
    int with_rate = 0, checked = 0;
    std::int64_t wrong_total = 0;
    for (const auto& row : loaded.report.rows) {
      if (const auto value = headline(row)) {
        total = total.value_or(0) + *value;
        peak = std::max(peak.value_or(0), *value);
        ++with_rate;
      }
      if (row.wrong) {
        wrong_total += *row.wrong;
        ++checked;
      }
    }
    group.rows.push_back({loaded.report.benchmark, loaded.report.context.world_size, loaded.report.status, loaded.report.rows.size(),
                          total ? nlohmann::json(*total / with_rate) : nlohmann::json(nullptr), report::json_or_null(peak),
                          checked > 0 ? nlohmann::json(wrong_total) : nlohmann::json("not checked"), loaded.path});
    if (collective) {
      const report::Row* best = nullptr;
      for (const auto& row : loaded.report.rows) {
        if (headline(row) && (!best || *headline(row) > *headline(*best))) best = &row;
      }
      group.rows.back().push_back(best ? nlohmann::json(size_tick_label(best->size)) : nlohmann::json(nullptr));
      group.rows.back().push_back(health_of(loaded));
    }
  }
  table.groups.push_back(std::move(group));
  Document document;
  document.tables.push_back(std::move(table));
  return document;
}

}  // namespace collbench::summarize
