// One group's World (issue 62): the ranks of one concurrent group seen as a world of their own, so
// that a backend and the collectives' buffers made over it run the group's communicator with the
// group's rank and size, unchanged.
//
// Every control-plane call goes through the parent world, laid out per group (a combine carries
// one slot per group, a gather every rank's string), so every rank of the parent must make the
// same calls in the same order: the groups run the same sweep in step, which is what concurrent
// groups mean. The barrier is the parent's: all groups start together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rank_groups.h"
#include "core/world.h"

namespace collbench {

class GroupWorld final : public World {
 public:
  // `groups` cover every rank of `parent`; this rank's group is the one holding parent.rank().
  GroupWorld(World& parent, std::vector<RankGroup> groups);

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(group().ranks.size()); }
  int local_rank() const override { return parent_.local_rank(); }
  std::string host() const override { return parent_.host(); }
  void barrier() override { parent_.barrier(); }
  void combine(std::vector<double>& values, Combine how) override;
  std::int64_t sum(std::int64_t value) override;
  std::vector<std::string> gather_strings(const std::string& mine) override;
  std::string broadcast_string(const std::string& from_rank_zero) override;
  [[noreturn]] void abort(int exit_code) override;
  std::string library_version() const override { return parent_.library_version(); }
  ControlPlane control_plane() const override { return parent_.control_plane(); }
  std::string listen_address() const override { return parent_.listen_address(); }

  World& parent() { return parent_; }
  const std::vector<RankGroup>& groups() const { return groups_; }
  const RankGroup& group() const { return groups_[group_index_]; }
  std::size_t group_index() const { return group_index_; }

  // Every group's values at once, `values` this rank's (the same length on every rank), combined
  // over each group's ranks by `how`: result[g] is group g's. A collective call of the parent.
  std::vector<std::vector<double>> combine_per_group(const std::vector<double>& values, Combine how);

 private:
  World& parent_;
  std::vector<RankGroup> groups_;
  std::size_t group_index_ = 0;
  int rank_ = 0;  // in the group
};

}  // namespace collbench
