// The gloo tuning file that `collbench tune` writes and the collective programs read
// (--algo-file): an algorithm per collective and message size range, one rule a line,
//   all_reduce 1024 65535 ring
// (collective, first and last byte count, both inclusive, and an --algo name), '#' starting a
// comment line. Sizes no rule covers keep the library's default. It lives in core because both the
// programs (which obey it) and the summarizer (which writes and verifies it) read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collbench {

struct AlgorithmRange {
  std::string collective;
  std::uint64_t first_bytes = 0, last_bytes = 0;
  std::string algorithm;
};

// Rules in file order. Throws UsageError naming the path and line for a malformed line, a range
// whose end is before its start, or two rules of one collective that overlap.
std::vector<AlgorithmRange> parse_algorithm_ranges(const std::string& text, const std::string& path);

// The algorithm a rule gives `collective` at `bytes`, or nullopt (the library's default).
std::optional<std::string> algorithm_at(const std::vector<AlgorithmRange>& ranges, const std::string& collective, std::uint64_t bytes);

// The text of a small input file (a tuning file): at most 1 MiB, so a wrong path (a device, a
// huge log) fails with one line instead of filling memory. Throws UsageError naming the path.
// The one place tuning files are read, so that the shared bounded reader replaces it in one step.
std::string read_tuning_file_text(const std::string& path);

}  // namespace collbench
