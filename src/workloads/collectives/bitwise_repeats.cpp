#include "workloads/collectives/bitwise_repeats.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <tuple>

#include "core/printable.h"
#include "workloads/collectives/bitwise.h"

namespace collbench {
namespace {

// "index bits bits" for a difference found on this rank, "" for none: what ranks exchange.
std::string describe_difference(std::int64_t differing, std::size_t element, const std::string& reference_bits,
                                const std::string& bits, int repeat) {
  if (differing == 0) return "";
  return std::to_string(differing) + " " + std::to_string(element) + " " + reference_bits + " " + bits + " " +
         std::to_string(repeat);
}

// The first rank's difference of every rank's descriptions, with the count summed over ranks, as
// a row's first_bitdiff holds it: the element and both values' bits, whose output differs (rank,
// repeat, 0-based) and what it was compared with (reference_rank: rank 0, or the first rank whose
// whole output is checked; reference_repeat: repeat 0, or the same repeat across ranks).
// `reference_rank` < 0: each rank was compared with its own first repeat.
std::optional<nlohmann::json> first_over_ranks(const std::vector<std::string>& descriptions, const char* between,
                                               int reference_rank) {
  std::optional<nlohmann::json> first;
  std::int64_t total = 0;
  for (std::size_t rank = 0; rank < descriptions.size(); ++rank) {
    if (descriptions[rank].empty()) continue;
    std::istringstream fields(descriptions[rank]);
    std::int64_t differing = 0;
    std::uint64_t element = 0;
    std::string reference_bits, bits;
    int repeat = 0;
    fields >> differing >> element >> reference_bits >> bits >> repeat;
    total += differing;
    if (first) continue;
    first = {{"between", between},
             {"rank", rank},
             {"repeat", repeat},
             {"reference_rank", reference_rank >= 0 ? reference_rank : static_cast<int>(rank)},
             {"reference_repeat", reference_rank >= 0 ? repeat : 0},
             {"element", element},
             {"reference_bits", reference_bits},
             {"bits", bits}};
  }
  if (first) (*first)["elements"] = total;
  return first;
}

}  // namespace

// --inject-bitwise-diff: the rank and output element that get the flipped bit, where -B must find
// it. `repeat`: the last rank holding a checked output element (the root of reduce and gather), at
// its first checked element from the middle of its output on. `rank`: the last of the ranks that
// must agree (those holding the whole output), at the middle, so it differs from the reference (the
// first of them). Rank -1: no injection (none asked, or no rank where it could be seen).
std::pair<int, std::size_t> BitwiseRepeats::injection_site(const BufferLayout& layout, const std::function<bool(std::size_t)>& compared,
                                                           bool whole_output) {
  if (options_.inject_bitwise_difference.empty()) return {-1, 0};
  const bool by_rank = options_.inject_bitwise_difference == "rank";
  std::optional<std::size_t> element;
  if (by_rank ? whole_output : true) {
    for (std::size_t i = layout.recv_count / 2; i < layout.recv_count && !element; ++i) {
      if (compared(i)) element = i;
    }
    for (std::size_t i = 0; i < layout.recv_count / 2 && !element; ++i) {
      if (compared(i)) element = i;
    }
  }
  const std::vector<std::string> candidates = world_.gather_strings(element ? std::to_string(*element) : std::string("-"));
  int chosen = -1;
  int eligible = 0;
  for (std::size_t r = 0; r < candidates.size(); ++r) {
    if (candidates[r] == "-") continue;
    ++eligible;
    chosen = static_cast<int>(r);
  }
  // Across ranks a difference needs a second rank holding the same elements to differ from.
  if (chosen < 0 || (by_rank && eligible < 2)) return {-1, 0};
  return {chosen, std::stoull(candidates[static_cast<std::size_t>(chosen)])};
}

// -B N: the case's call N more times with the same inputs (refilled each time: in place, the
// output overwrote them), each rank's outputs compared with its first repeat a staging piece at a
// time, then, where every rank must hold the same result, the first repeat's bits compared across
// ranks: a hash from each rank, and only when they differ the reference rank's outputs sent to the
// others to find the first differing element. Compares only the elements the check would check.
BitwiseResult BitwiseRepeats::compare(const CollectiveCase& one_case, CollectiveBuffers& buffers, TimedOperation& operation) {
  const BufferLayout& layout = one_case.size.layout;
  const std::size_t element = dtype_info(one_case.dtype).size_bytes;
  const int rank = world_.rank();
  const OutputContext where = buffers.output_context(one_case);
  const auto compared = [this, &where](std::size_t index) {
    return collective_.expected_output(where, index).kind != Expected::Kind::kUnchecked;
  };
  // Where every rank must hold the same bits, only ranks whose every output element is checked take
  // part: out of place, broadcast's root keeps its data in its send buffer and its receive buffer
  // holds no output. The first of them is the reference.
  bool whole_output = true;
  for (std::size_t i = 0; i < layout.recv_count && whole_output; ++i) whole_output = compared(i);
  const auto [injecting_rank, injected_element] = injection_site(layout, compared, whole_output);
  const std::size_t piece = buffers.staging_elements(one_case.dtype);
  std::vector<unsigned char> first_repeat(layout.recv_count * element);
  std::int64_t repeat_differing = 0;
  // The first difference from the first repeat: element, its two values' bits, the repeat.
  std::optional<std::tuple<std::size_t, std::string, std::string, int>> first_difference;
  for (int repeat = 0; repeat < options_.bitwise_repeats; ++repeat) {
    buffers.fill_inputs(one_case, true);
    world_.barrier();
    operation.issue_check();
    operation.wait();
    for (std::size_t first = 0; first < layout.recv_count; first += piece) {
      const std::size_t count = std::min(piece, layout.recv_count - first);
      unsigned char* outputs = buffers.read_outputs(one_case, first, count);
      const bool inject = rank == injecting_rank && injected_element >= first && injected_element < first + count &&
                          ((options_.inject_bitwise_difference == "repeat" && repeat == options_.bitwise_repeats - 1) ||
                           options_.inject_bitwise_difference == "rank");
      if (inject) outputs[(injected_element - first) * element] ^= 1u;  // the lowest bit on a little-endian host
      unsigned char* kept = first_repeat.data() + first * element;
      if (repeat == 0) {
        std::copy(outputs, outputs + count * element, kept);
        continue;
      }
      const BitComparison found = compare_bits(kept, outputs, count, element, first, compared);
      if (found.differing == 0) continue;
      if (!first_difference) {
        first_difference.emplace(*found.first, element_bits_hex(first_repeat.data(), *found.first, element),
                                 element_bits_hex(outputs, *found.first - first, element), repeat);
      }
      repeat_differing += found.differing;
    }
    if (watchdog_) watchdog_->progress();
  }
  std::string repeat_description;  // the count is over every repeat
  if (first_difference) {
    const auto& [index, reference_bits, bits, repeat] = *first_difference;
    repeat_description = describe_difference(repeat_differing, index, reference_bits, bits, repeat);
  }

  BitwiseResult result;
  if (auto first = first_over_ranks(world_.gather_strings(repeat_description), "repeats", -1)) {
    result.differing += (*first)["elements"].get<std::int64_t>();
    result.first.push_back(std::move(*first));
  }
  const std::string hash = formatted("%016llx", static_cast<unsigned long long>(fnv1a_64(first_repeat.data(), first_repeat.size())));
  if (!collective_.same_output_on_every_rank || world_.size() < 2) {
    result.hash = world_.broadcast_string(hash);
    return result;
  }

  const std::vector<std::string> hashes = world_.gather_strings(whole_output ? std::string(hash) : std::string("-"));
  const auto reference = std::find_if(hashes.begin(), hashes.end(), [](const std::string& h) { return h != "-"; });
  if (reference == hashes.end()) {
    result.hash = hashes.front();
    return result;
  }
  const int reference_rank = static_cast<int>(reference - hashes.begin());
  result.hash = *reference;
  if (std::all_of(hashes.begin(), hashes.end(), [&reference](const std::string& h) { return h == "-" || h == *reference; })) {
    return result;
  }
  // Rare: the reference rank's outputs go to every rank, which finds its own first difference from them.
  const std::vector<std::string> exchanged =
      world_.gather_strings(rank == reference_rank ? std::string(first_repeat.begin(), first_repeat.end()) : std::string());
  const std::string& reference_bytes = exchanged[static_cast<std::size_t>(reference_rank)];
  std::string rank_description;
  if (whole_output && rank != reference_rank && reference_bytes.size() == first_repeat.size()) {
    const BitComparison found = compare_bits(reference_bytes.data(), first_repeat.data(), layout.recv_count, element);
    if (found.differing > 0) {
      rank_description = describe_difference(found.differing, *found.first,
                                             element_bits_hex(reference_bytes.data(), *found.first, element),
                                             element_bits_hex(first_repeat.data(), *found.first, element), 0);
    }
  }
  if (auto first = first_over_ranks(world_.gather_strings(rank_description), "ranks", reference_rank)) {
    result.differing += (*first)["elements"].get<std::int64_t>();
    result.first.push_back(std::move(*first));
  }
  return result;
}

}  // namespace collbench
