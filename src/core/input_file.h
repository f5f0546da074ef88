// The one reader of the files a user hands collbench (traffic matrices, model files, compute
// profiles, rules and fingerprint files, reports, the summarizer's inputs).
//
// An input is read once, as a stream: a pipe or `<(...)` reads like a regular file (a second open
// of a pipe sees nothing). Both caps are checked while the bytes arrive, so an endless input
// (/dev/zero, a runaway generator) ends at the cap with one line, never in std::bad_alloc.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collbench {

struct InputLimits {
  const char* kind;             // what the file is, for the message: "traffic matrix", "report"
  std::uint64_t max_bytes;      // the whole file
  std::uint64_t max_line_bytes; // one line; a JSON document may be one line, so JSON passes max_bytes
};

// "64 KiB", "256 MiB": a cap as the messages state it.
std::string describe_cap(std::uint64_t bytes);

// The file's bytes, with Windows line ends (CR LF) read as LF: every text file collbench reads
// accepts them, its parsers never see a CR at a line's end. A CR that ends no line is refused in
// a line-oriented file (max_line_bytes below max_bytes), naming the line; in JSON it is left to
// the parser (white space between values). Throws UsageError with one line naming the file and,
// past a cap, the cap (exit 2 on every rank, as every rank reads the same argv).
std::string read_input_file(const std::string& path, const InputLimits& limits);

// `text` with each CR LF made LF; a lone CR refused as read_input_file says (`named`: the file, as
// the message names it).
std::string with_lf_line_ends(std::string text, const std::string& named, bool line_oriented);

// The data lines of a CSV text, split at commas, in order: a trailing CR stripped; blank lines and
// '#' comments skipped (given to `on_comment` when set); the first non-comment line skipped when it
// starts with `header`. `on_row` gets the 1-based line number, the fields and the line.
using CsvRow = std::function<void(int line_number, const std::vector<std::string>& fields, const std::string& line)>;
void for_each_csv_row(const std::string& text, const std::string& header, const CsvRow& on_row,
                      const std::function<void(const std::string& comment)>& on_comment = {});

}  // namespace collbench
