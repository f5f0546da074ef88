#include "core/algorithm_ranges.h"

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace collbench {
namespace {

// A tuning file holds a few dozen lines; anything near this is not one.
constexpr std::size_t kMostTuningFileBytes = 1 << 20;

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
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (is_blank_or_comment(line)) continue;
    const std::string where = path + ":" + std::to_string(number);
    std::istringstream words(line);
    std::string collective, first, last, algorithm, extra;
    if (!(words >> collective >> first >> last >> algorithm) || (words >> extra)) {
      throw UsageError(where + ": expected COLLECTIVE FIRST_BYTES LAST_BYTES ALGORITHM");
    }
    AlgorithmRange range{collective, parse_byte_count(first, where), parse_byte_count(last, where), algorithm};
    if (range.last_bytes < range.first_bytes) throw UsageError(where + ": the range ends before it starts");
    for (const auto& earlier : ranges) {
      if (earlier.collective == collective && range.first_bytes <= earlier.last_bytes && earlier.first_bytes <= range.last_bytes) {
        throw UsageError(where + ": overlaps an earlier rule for " + collective);
      }
    }
    ranges.push_back(std::move(range));
  }
  return ranges;
}

std::optional<std::string> algorithm_at(const std::vector<AlgorithmRange>& ranges, const std::string& collective, std::uint64_t bytes) {
  for (const auto& range : ranges) {
    if (range.collective == collective && range.first_bytes <= bytes && bytes <= range.last_bytes) return range.algorithm;
  }
  return std::nullopt;
}

std::string read_tuning_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read");
  std::string text;
  char chunk[4096];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMostTuningFileBytes) throw UsageError(path + ": larger than 1 MiB; not a tuning file");
  }
  if (in.bad()) throw UsageError(path + ": cannot read");
  return text;
}

}  // namespace collbench
