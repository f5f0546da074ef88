#include "core/algorithm_ranges.h"

#include <sstream>

#include "core/error.h"
#include "core/input_file.h"

namespace collbench {
namespace {

// A tuning file holds a few dozen lines; anything near this is not one.
constexpr std::size_t kMostTuningFileBytes = 1 << 20;
// The NCCL example tuner reads lines of at most 255 characters; a few times that is no tuning file.
constexpr std::size_t kMostTuningLineBytes = 4096;

bool is_blank_or_comment(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}

std::uint64_t parse_byte_count(const std::string& word, const std::string& where) {
  // 19 digits at most: every such number fits 64 bits.
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 19) {
    throw UsageError(where + ": '" + word + "' is not a byte count");
  }
  return std::stoull(word);
}

}  // namespace

std::vector<AlgorithmRange> parse_algorithm_ranges(const std::string& text, const std::string& path) {
  std::vector<AlgorithmRange> ranges;
  std::vector<int> lines;  // of each range, for a message naming both
  // Through the shared line reader (core/input_file.h): its line ends and comments hold here too.
  for_each_csv_row(text, "", [&](int number, const std::vector<std::string>&, const std::string& line) {
    if (is_blank_or_comment(line)) return;
    const std::string where = path + ":" + std::to_string(number);
    std::istringstream words(line);
    std::string collective, first, last, algorithm, extra;
    if (!(words >> collective >> first >> last >> algorithm) || (words >> extra)) {
      throw UsageError(where + ": expected COLLECTIVE FIRST_BYTES LAST_BYTES ALGORITHM");
    }
    AlgorithmRange range{collective, parse_byte_count(first, where), parse_byte_count(last, where), algorithm};
    if (range.last_bytes < range.first_bytes) {
      throw UsageError(where + ": the range " + first + "-" + last + " ends before it starts");
    }
    for (std::size_t e = 0; e < ranges.size(); ++e) {
      const AlgorithmRange& earlier = ranges[e];
      if (earlier.collective == collective && range.first_bytes <= earlier.last_bytes && earlier.first_bytes <= range.last_bytes) {
        throw UsageError(where + ": " + collective + " " + std::to_string(range.first_bytes) + "-" + std::to_string(range.last_bytes) + " overlaps " +
                         std::to_string(earlier.first_bytes) + "-" + std::to_string(earlier.last_bytes) + " at line " + std::to_string(lines[e]));
      }
    }
    ranges.push_back(std::move(range));
    lines.push_back(number);
  });
  return ranges;
}

std::optional<std::string> algorithm_at(const std::vector<AlgorithmRange>& ranges, const std::string& collective, std::uint64_t bytes) {
  for (const auto& range : ranges) {
    if (range.collective == collective && range.first_bytes <= bytes && bytes <= range.last_bytes) return range.algorithm;
  }
  return std::nullopt;
}

std::string read_tuning_file_text(const std::string& path) {
  // The one reader: its caps, pipes and line ends (CR LF read as LF) as for every other input.
  return read_input_file(path, {"tuning file", kMostTuningFileBytes, kMostTuningLineBytes});
}

}  // namespace collbench
