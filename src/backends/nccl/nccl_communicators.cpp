// comm_init_perf's NCCL methods: a communicator of world ranks 0..k-1 made by each of NCCL's ways
// the loaded library has, checked (its size, this rank's place) and destroyed. Blocking
// communicators, as the backend's own. The unique id's exchange over the World is part of an init's
// time, as it is part of every job's init.
#include <algorithm>

#include "backends/nccl/nccl_backend_impl.h"
#include "core/world.h"

namespace collbench::nccl {
namespace {

ncclConfig_t blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  return config;
}

// Why the loaded NCCL (`loaded`, ncclGetVersion's code) cannot run a call added in `needed`; "" if it can.
std::string needs_version(int loaded, int needed, const char* call, bool built) {
  if (!built) return std::string(call) + " needs NCCL headers of " + std::to_string(needed) + " or newer at build time";
  if (loaded < needed) {
    return std::string(call) + " needs NCCL " + std::to_string(needed) + " or newer; the loaded library is " +
           std::to_string(loaded);
  }
  return "";
}

}  // namespace

void NcclBackend::declare_communicator_methods() {
  constexpr bool kBuiltWithSplit = NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0);
  constexpr bool kBuiltWithScalable = NCCL_VERSION_CODE >= NCCL_VERSION(2, 23, 0);
  constexpr bool kBuiltWithShrink = NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0);
  support_.communicators = {
      {"ncclCommInitRank", [this](const std::vector<int>& members) { init_members(members, false); }, "", {}, ""},
      {"ncclCommSplit", [this](const std::vector<int>& members) { split_members(members); },
       needs_version(loaded_version_, NCCL_VERSION(2, 18, 0), "ncclCommSplit", kBuiltWithSplit), {}, ""},
      {"ncclCommShrink", [this](const std::vector<int>& members) { shrink_to_members(members); },
       needs_version(loaded_version_, NCCL_VERSION(2, 27, 0), "ncclCommShrink", kBuiltWithShrink), {},
       // NCCL returns ncclInvalidArgument for an empty exclude list (seen with 2.28.3 on one H100, 2026-11-26).
       "ncclCommShrink must leave at least one rank out (NCCL rejects an empty exclude list), so it makes no "
       "communicator of the whole world"},
      {"ncclCommInitRankScalable", [this](const std::vector<int>& members) { init_members(members, true); },
       needs_version(loaded_version_, NCCL_VERSION(2, 23, 0), "ncclCommInitRankScalable", kBuiltWithScalable), {}, ""}};
}

void NcclBackend::check_and_destroy(ncclComm_t made, const std::vector<int>& members, const char* call) {
  int count = 0, rank = -1;
  CB_NCCL_ISSUE(ncclCommCount(made, &count));
  CB_NCCL_ISSUE(ncclCommUserRank(made, &rank));
  CB_NCCL_ISSUE(ncclCommDestroy(made));
  if (static_cast<std::size_t>(count) != members.size() || rank != rank_) {
    throw Error(std::string(call) + " made a communicator of " + std::to_string(count) + " rank(s) with this rank as " +
                std::to_string(rank) + "; expected " + std::to_string(members.size()) + " and " + std::to_string(rank_));
  }
}

// World rank 0 (always a member) makes the id; every world rank takes part in its broadcast.
void NcclBackend::init_members(const std::vector<int>& members, bool scalable) {
  ncclUniqueId id{};
  if (rank_ == 0) CB_NCCL_ISSUE(ncclGetUniqueId(&id));
  const std::string shared = world_->broadcast_string(std::string(id.internal, sizeof(id.internal)));
  if (!is_member(members, rank_)) return;
  std::copy(shared.begin(), shared.end(), id.internal);
  ncclConfig_t config = blocking_config();
  ncclComm_t made = nullptr;
  const int size = static_cast<int>(members.size());
  current_step_ = std::string(scalable ? "ncclCommInitRankScalable" : "ncclCommInitRank") + " of " + std::to_string(size) + " ranks";
  if (scalable) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 23, 0)
    CB_NCCL_ISSUE(ncclCommInitRankScalable(&made, size, rank_, 1, &id, &config));
#endif
  } else {
    CB_NCCL_ISSUE(ncclCommInitRankConfig(&made, size, id, rank_, &config));
  }
  check_and_destroy(made, members, scalable ? "ncclCommInitRankScalable" : "ncclCommInitRank");
}

// Every rank of the parent takes part; the others pass NCCL_SPLIT_NOCOLOR and get no communicator.
void NcclBackend::split_members(const std::vector<int>& members) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
  const bool member = is_member(members, rank_);
  ncclConfig_t config = blocking_config();
  ncclComm_t made = nullptr;
  current_step_ = "ncclCommSplit to " + std::to_string(members.size()) + " ranks";
  CB_NCCL_ISSUE(ncclCommSplit(comm_, member ? 0 : NCCL_SPLIT_NOCOLOR, rank_, &made, &config));
  if (member) check_and_destroy(made, members, "ncclCommSplit");
#else
  (void)members;
#endif
}

// The ranks left out do not call: ncclCommShrink is called by the ranks that stay.
void NcclBackend::shrink_to_members(const std::vector<int>& members) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (!is_member(members, rank_)) return;
  std::vector<int> excluded;
  for (int rank = 0; rank < ranks_; ++rank) {
    if (!is_member(members, rank)) excluded.push_back(rank);
  }
  ncclConfig_t config = blocking_config();
  ncclComm_t made = nullptr;
  current_step_ = "ncclCommShrink to " + std::to_string(members.size()) + " ranks";
  CB_NCCL_ISSUE(ncclCommShrink(comm_, excluded.data(), static_cast<int>(excluded.size()), &made, &config, NCCL_SHRINK_DEFAULT));
  check_and_destroy(made, members, "ncclCommShrink");
#else
  (void)members;
#endif
}

}  // namespace collbench::nccl
