// copy_perf's host copy: memcpy between two host buffers, every byte checkable.
#include <cstring>

#include "engines/engines.h"
#include "engines/host_info.h"

namespace collbench::compute {
namespace {

class HostCopyEngine final : public CopyEngine {
 public:
  // Both buffers are written here, so no page fault is timed.
  explicit HostCopyEngine(std::uint64_t largest) : source_(largest, 0x5a), destination_(largest, 0) {
    paths_.front().cache_bytes = host_last_level_cache_bytes();
  }

  const std::vector<CopyPath>& paths() const override { return paths_; }
  TimingSchedule schedule() const override { return TimingSchedule::kBarrierEachIteration; }
  void issue(std::size_t, std::uint64_t bytes) override { std::memcpy(destination_.data(), source_.data(), bytes); }
  void wait(std::size_t) override {}

  bool checks() const override { return true; }
  void poison(std::uint64_t bytes) override { std::memset(destination_.data(), 0, bytes); }
  std::int64_t count_wrong(std::uint64_t bytes, bool corrupt_last_byte) override {
    if (corrupt_last_byte) destination_[bytes - 1] ^= 0xff;
    std::int64_t wrong = 0;
    for (std::uint64_t i = 0; i < bytes; ++i) wrong += destination_[i] != source_[i];
    return wrong;
  }

 private:
  std::vector<CopyPath> paths_{{"host", "host", "cpu", -1, -1}};
  std::vector<unsigned char> source_, destination_;
};

}  // namespace

std::unique_ptr<CopyEngine> make_host_copy_engine(std::uint64_t largest) { return std::make_unique<HostCopyEngine>(largest); }

}  // namespace collbench::compute
