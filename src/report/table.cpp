#include "report/table.h"

#include <string>

namespace collbench::report {
namespace {

void print_bitdiff(std::FILE* out, const ResultRow* row, bool bitdiff_column) {
  if (!bitdiff_column) return;
  if (row && row->bitdiff) std::fprintf(out, "  %8lld", static_cast<long long>(*row->bitdiff));
  else std::fprintf(out, "  %8s", row ? "N/A" : "-");
}

void print_half(std::FILE* out, const ResultRow* row, bool issue_time, bool bitdiff_column) {
  if (!row) {
    std::fprintf(out, "  %9s  %7s  %7s  %6s", "-", "-", "-", "-");
    print_bitdiff(out, row, bitdiff_column);
    return;
  }
  char busbw[32], wrong[32];
  if (row->busbw_gbps) std::snprintf(busbw, sizeof(busbw), "%7.2f", *row->busbw_gbps);
  else std::snprintf(busbw, sizeof(busbw), "%7s", "n/a");
  if (row->wrong) std::snprintf(wrong, sizeof(wrong), "%6lld", static_cast<long long>(*row->wrong));
  else std::snprintf(wrong, sizeof(wrong), "%6s", "N/A");
  if (issue_time && !row->issue_us) {
    std::fprintf(out, "  %9s  %7.2f  %s  %s", "n/a", row->algbw_gbps, busbw, wrong);
    print_bitdiff(out, row, bitdiff_column);
    return;
  }
  std::fprintf(out, "  %9.2f  %7.2f  %s  %s", issue_time ? *row->issue_us : row->time_us.mean, row->algbw_gbps, busbw, wrong);
  print_bitdiff(out, row, bitdiff_column);
}

// One placement's columns ("  time  algbw  busbw  #wrong") are 37 characters wide, 47 with "  #bitdiff".
std::string centered_over_half(const std::string& label, bool bitdiff_column) {
  const std::size_t kHalfWidth = bitdiff_column ? 47 : 37;
  const std::size_t left = (kHalfWidth - label.size()) / 2;
  return std::string(left, ' ') + label + std::string(kHalfWidth - left - label.size(), ' ');
}

}  // namespace

void TableWriter::header(const Report& report, const std::string& sweep_description) {
  const Context& context = report.context;
  std::fprintf(out_, "# collbench %s: %s_perf, backend %s, %d rank(s) on %zu host(s)\n",
               printable(context.versions.count("collbench") ? context.versions.at("collbench") : "?").c_str(),
               printable(report.benchmark).c_str(), printable(context.backend).c_str(), context.world_size, context.hosts.size());
  // One "# " line per line of the description (sweep, then the estimator).
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = sweep_description.find('\n', start);
    std::fprintf(out_, "# %s\n", printable(sweep_description.substr(start, end - start)).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::fprintf(out_, "#\n# Using devices\n");
  for (const RankInfo& rank : context.ranks) {
    std::fprintf(out_, "#  Rank %2d Pid %7lld on %10s device %s\n", rank.rank, static_cast<long long>(rank.pid),
                 printable(rank.host).c_str(), printable(rank.device).c_str());
  }
  std::fprintf(out_, "#\n");
  if (columns_.issue_time) {
    std::fprintf(out_, "# time: the host's time to issue one call (-C 1), not its completion; algbw and busbw use the completion time\n");
  }
  const bool bits = columns_.bitdiff;
  std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s%s%s\n", "", "", "", "", "", centered_over_half("out-of-place", bits).c_str(),
               centered_over_half("in-place", bits).c_str());
  if (!bits) {
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %9s  %7s  %7s  %6s\n", "size", "count", "type",
                 "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %9s  %7s  %7s  %6s\n", "(B)", "(elements)", "",
                 "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  } else {
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %8s  %9s  %7s  %7s  %6s  %8s\n", "size", "count",
                 "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "#bitdiff", "time", "algbw", "busbw", "#wrong",
                 "#bitdiff");
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %5s  %9s  %7s  %7s  %6s  %8s  %9s  %7s  %7s  %6s  %8s\n", "(B)",
                 "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "");
  }
  std::fflush(out_);
}

void TableWriter::line(const ResultRow* out_of_place, const ResultRow* in_place) {
  const ResultRow* any = out_of_place ? out_of_place : in_place;
  if (!any) return;
  std::fprintf(out_, "  %10llu  %12llu  %8s  %6s  %5d", static_cast<unsigned long long>(any->bytes),
               static_cast<unsigned long long>(any->count), printable(any->dtype).c_str(), printable(any->op).c_str(), any->root);
  print_half(out_, out_of_place, columns_.issue_time, columns_.bitdiff);
  print_half(out_, in_place, columns_.issue_time, columns_.bitdiff);
  if (columns_.timestamps) std::fprintf(out_, "  %s", printable((in_place ? in_place : any)->timestamp).c_str());
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

void TableWriter::skipped(const SkippedCase& skipped_case) {
  std::fprintf(out_, "# skipped: %s %s %s placement: %s\n", printable(skipped_case.dtype).c_str(), printable(skipped_case.op).c_str(),
               printable(skipped_case.placement).c_str(), printable(skipped_case.reason).c_str());
}

void TableWriter::footer(const Report& report, const std::string& report_path) {
  const Summary& summary = report.summary;
  if (summary.rows_checked > 0) {
    std::fprintf(out_, "# Out of bounds values : %lld %s\n", static_cast<long long>(summary.wrong_total),
                 summary.wrong_total == 0 ? "OK" : "FAILED");
  } else {
    std::fprintf(out_, "# Out of bounds values : not checked (-c 0)\n");
  }
  if (summary.avg_busbw_gbps) {
    std::fprintf(out_, "# Avg bus bandwidth    : %g GB/s (mean over %d rows)\n", *summary.avg_busbw_gbps, summary.rows);
  } else if (report.context.world_size == 1) {
    std::fprintf(out_, "# Avg bus bandwidth    : not defined for 1 rank (no data crosses ranks; see algbw)\n");
  } else {
    std::fprintf(out_, "# Avg bus bandwidth    : no rows measured\n");
  }
  if (!report_path.empty()) std::fprintf(out_, "# Report               : %s\n", printable(report_path).c_str());
  std::fprintf(out_, "#\n");
  std::fflush(out_);
}

}  // namespace collbench::report
