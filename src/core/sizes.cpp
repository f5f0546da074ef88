#include "core/sizes.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.h"

namespace collbench {
namespace {

// A sweep longer than this is a typo (for example -i 1 over gigabytes), not a benchmark.
constexpr std::size_t kMaxSweepPoints = 10000;

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view flag) {
  const std::string original(text);
  auto fail = [&](const std::string& why) -> UsageError {
    return UsageError("invalid size '" + original + "' for " + std::string(flag) + ": " + why);
  };
  std::size_t digits_end = 0;
  bool seen_point = false;
  while (digits_end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits_end])) || (text[digits_end] == '.' && !seen_point))) {
    seen_point |= text[digits_end] == '.';
    ++digits_end;
  }
  if (digits_end == 0 || (digits_end == 1 && text[0] == '.')) throw fail("expected a number such as 8, 64K, 1.5M or 8G");
  std::string suffix(text.substr(digits_end));
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double multiplier = 1;
  if (!suffix.empty() && suffix != "B") {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "IB") throw fail("unknown unit '" + suffix + "' (use K, M, G or T)");
    switch (unit) {
      case 'K': multiplier = 1024.0; break;
      case 'M': multiplier = 1024.0 * 1024; break;
      case 'G': multiplier = 1024.0 * 1024 * 1024; break;
      case 'T': multiplier = 1024.0 * 1024 * 1024 * 1024; break;
      default: throw fail("unknown unit '" + suffix + "' (use K, M, G or T)");
    }
  }
  const std::string number(text.substr(0, digits_end));
  if (number.size() > 20) throw fail("too large");
  const double value = std::strtod(number.c_str(), nullptr) * multiplier;
  if (!std::isfinite(value) || value >= 9.0e18) throw fail("too large");
  if (value != std::floor(value)) throw fail("not a whole number of bytes");
  return static_cast<std::uint64_t>(value);
}

std::string format_size(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t value = bytes;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + units[unit];
}

std::vector<std::uint64_t> expand_sweep(const SizeSweep& sweep) {
  if (sweep.min_bytes == 0) throw UsageError("minimum size must be at least 1 byte (-b)");
  if (sweep.min_bytes > sweep.max_bytes) {
    throw UsageError("minimum size " + std::to_string(sweep.min_bytes) + " B (-b) is larger than maximum size " +
                     std::to_string(sweep.max_bytes) + " B (-e)");
  }
  if (sweep.step_factor != 0 && !(sweep.step_factor > 1.0)) {
    throw UsageError("step factor (-f) must be greater than 1, got " + std::to_string(sweep.step_factor));
  }
  if (sweep.step_factor == 0 && sweep.step_bytes == 0 && sweep.min_bytes != sweep.max_bytes) {
    throw UsageError("step size (-i) of 0 never advances from " + std::to_string(sweep.min_bytes) + " B");
  }
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = sweep.min_bytes; size <= sweep.max_bytes;) {
    sizes.push_back(size);
    if (sizes.size() > kMaxSweepPoints) {
      throw UsageError("size sweep has more than " + std::to_string(kMaxSweepPoints) + " points; use a larger -i or -f");
    }
    std::uint64_t next;
    if (sweep.step_factor != 0) {
      const double scaled = std::ceil(static_cast<double>(size) * sweep.step_factor);
      if (scaled >= static_cast<double>(std::numeric_limits<std::uint64_t>::max() / 2)) break;
      next = static_cast<std::uint64_t>(scaled);
    } else {
      if (sweep.step_bytes == 0) break;  // min == max
      next = size + sweep.step_bytes;
    }
    if (next <= size) break;
    size = next;
  }
  return sizes;
}

}  // namespace collbench
