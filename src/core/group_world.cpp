#include "core/group_world.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace collbench {
namespace {

double neutral_of(Combine how) {
  switch (how) {
    case Combine::kMax: return -std::numeric_limits<double>::infinity();
    case Combine::kMin: return std::numeric_limits<double>::infinity();
    case Combine::kSum: break;
  }
  return 0.0;
}

}  // namespace

GroupWorld::GroupWorld(World& parent, std::vector<RankGroup> groups) : parent_(parent), groups_(std::move(groups)) {
  const RankGroup& mine = group_of(groups_, parent_.rank());
  group_index_ = static_cast<std::size_t>(&mine - groups_.data());
  rank_ = static_cast<int>(std::find(mine.ranks.begin(), mine.ranks.end(), parent_.rank()) - mine.ranks.begin());
}

std::vector<std::vector<double>> GroupWorld::combine_per_group(const std::vector<double>& values, Combine how) {
  // Lengths may differ between groups only by a mistake; the longest sets the layout, so no rank
  // of the parent is left waiting on a shorter call.
  std::vector<double> length{static_cast<double>(values.size())};
  parent_.combine(length, Combine::kMax);
  const std::size_t width = static_cast<std::size_t>(length[0]);
  std::vector<double> slots(groups_.size() * width, neutral_of(how));
  std::copy(values.begin(), values.end(), slots.begin() + static_cast<std::ptrdiff_t>(group_index_ * width));
  parent_.combine(slots, how);
  std::vector<std::vector<double>> per_group(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    per_group[g].assign(slots.begin() + static_cast<std::ptrdiff_t>(g * width), slots.begin() + static_cast<std::ptrdiff_t>((g + 1) * width));
  }
  return per_group;
}

void GroupWorld::combine(std::vector<double>& values, Combine how) {
  values = combine_per_group(values, how)[group_index_];
}

std::int64_t GroupWorld::sum(std::int64_t value) {
  // Through strings: an int64 sum must stay exact where a double's would round.
  std::int64_t total = 0;
  for (const std::string& each : gather_strings(std::to_string(value))) total += std::stoll(each);
  return total;
}

std::vector<std::string> GroupWorld::gather_strings(const std::string& mine) {
  const std::vector<std::string> every = parent_.gather_strings(mine);
  std::vector<std::string> ours;
  for (int rank : group().ranks) ours.push_back(every[static_cast<std::size_t>(rank)]);
  return ours;
}

std::string GroupWorld::broadcast_string(const std::string& from_rank_zero) {
  const std::vector<std::string> every = parent_.gather_strings(rank_ == 0 ? from_rank_zero : std::string());
  return every[static_cast<std::size_t>(group().ranks.front())];
}

void GroupWorld::abort(int exit_code) {
  parent_.abort(exit_code);
  std::abort();  // the parent's never returns; this says so to the compiler
}

}  // namespace collbench
