// probe_host() against the kernel's own view: the figures callers size thread pools and reports by.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <string>

#include "engines/host_info.h"

using namespace collbench::compute;

namespace {

// Restores the calling thread's affinity on scope exit, so a failed assertion leaves no binding behind.
class AffinityGuard {
 public:
  AffinityGuard() { saved_ok_ = ::sched_getaffinity(0, sizeof(saved_), &saved_) == 0; }
  ~AffinityGuard() {
    if (saved_ok_) ::sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  bool saved_ok() const { return saved_ok_; }
  const cpu_set_t& saved() const { return saved_; }

 private:
  cpu_set_t saved_{};
  bool saved_ok_ = false;
};

}  // namespace

TEST(HostInfo, CountsAgreeWithTheKernel) {
  const HostInfo host = probe_host();
  EXPECT_GT(host.online_cores, 0);
  EXPECT_EQ(host.online_cores, ::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GT(host.affinity_cores, 0);
  EXPECT_LE(host.affinity_cores, host.online_cores);
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(host.affinity_cores, CPU_COUNT(&set));
  EXPECT_FALSE(host.affinity_list.empty());
  EXPECT_GT(host.memory_bytes, 0u);
  EXPECT_GE(host.numa_node, -1);
  if (host.current_cpu < 0) EXPECT_EQ(host.numa_node, -1);  // no CPU, no node to look up
  EXPECT_FALSE(host.cpu_model.empty());
}

TEST(HostInfo, RestrictedAffinityIsOneCore) {
  AffinityGuard guard;
  ASSERT_TRUE(guard.saved_ok());
  int cpu = 0;  // the first CPU this process may use: CPU 0 may be outside a cgroup's cpuset
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &guard.saved())) ++cpu;
  ASSERT_LT(cpu, CPU_SETSIZE);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);

  const HostInfo host = probe_host();
  EXPECT_EQ(host.affinity_cores, 1);
  EXPECT_EQ(host.affinity_list, std::to_string(cpu));
  EXPECT_EQ(host.current_cpu, cpu);  // sched_setaffinity migrates the calling thread before returning
  EXPECT_GE(host.numa_node, -1);
  EXPECT_GE(host.online_cores, 1);
}

TEST(HostInfo, AffinityListUsesRanges) {  // the "0-1" / "0,2" syntax reports and notes have always shown
  AffinityGuard guard;
  ASSERT_TRUE(guard.saved_ok());
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &guard.saved())) ++first;
  int second = first + 1;
  while (second < CPU_SETSIZE && !CPU_ISSET(second, &guard.saved())) ++second;
  if (second >= CPU_SETSIZE) GTEST_SKIP() << "this process may use only one CPU";
  cpu_set_t two;
  CPU_ZERO(&two);
  CPU_SET(first, &two);
  CPU_SET(second, &two);
  ASSERT_EQ(::sched_setaffinity(0, sizeof(two), &two), 0);

  const HostInfo host = probe_host();
  EXPECT_EQ(host.affinity_cores, 2);
  const std::string separator = second == first + 1 ? "-" : ",";
  EXPECT_EQ(host.affinity_list, std::to_string(first) + separator + std::to_string(second));
}
