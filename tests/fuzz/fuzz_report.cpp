// libFuzzer target for the report reader: any bytes in, either a Report or a ReportFormatError
// out, never a crash, a sanitizer report or an uncaught exception. A report that was accepted must
// survive a round trip through the writer (what we write, we can read), and, when the summarizer
// is built, its pure functions must digest it too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "report/report_json.h"
#ifdef COLLBENCH_FUZZ_SUMMARIZE
#include "summarize/common/document.h"
#include "summarize/common/input_error.h"
#include "summarize/common/load.h"
#include "summarize/tables/nccl_table.h"
#include "summarize/tables/scaling.h"
#endif

namespace {

// The reader's own guard against nesting (read_report_file) runs before parsing; the fuzzer's
// inputs go through json::parse directly, so bound depth the same way here.
bool too_deep(const std::string& text) {
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > 64) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

void exercise_summarizer(const collbench::report::Report& report) {
#ifdef COLLBENCH_FUZZ_SUMMARIZE
  using namespace collbench::summarize;
  const std::vector<LoadedReport> reports{{"fuzz.json", report}, {"fuzz2.json", report}};
  try {
    (void)nccl_table_text(reports);
    (void)render(report_summary_document(reports), Format::kCsv);
    (void)render(scaling_document(compute_scaling(reports), std::nullopt), Format::kMarkdown);
  } catch (const InputError&) {
    // a clear refusal is fine
  }
#else
  (void)report;
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (too_deep(text)) return 0;
  const nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return 0;
  collbench::report::Report report;
  try {
    report = collbench::report::report_from_json(document);
  } catch (const collbench::report::ReportFormatError&) {
    return 0;
  } catch (const nlohmann::json::exception&) {
    return 0;  // read_report_file turns these into ReportFormatError too
  }
  // Accepted: writing it and reading it back must work.
  try {
    (void)collbench::report::report_from_json(nlohmann::json::parse(collbench::report::to_json(report).dump()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "round trip failed for an accepted report: %s\n", e.what());
    std::abort();
  }
  exercise_summarizer(report);
  return 0;
}
