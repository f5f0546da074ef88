// The control plane: who the ranks are and how the runner agrees with itself across them.
//
// Separate from the data-plane Backend because every backend (MPI, NCCL, Gloo) is launched and
// coordinated the same way, by MPI, while the data it measures moves through different libraries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

enum class Combine { kMax, kMin, kSum };

class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes on this host
  virtual std::string host() const = 0;
  virtual void barrier() = 0;
  // Element-wise combination across ranks; every rank gets the result.
  virtual void combine(std::vector<double>& values, Combine how) = 0;
  virtual std::int64_t sum(std::int64_t value) = 0;
  // Every rank's string, in rank order, on every rank.
  virtual std::vector<std::string> gather_strings(const std::string& mine) = 0;
  // Rank 0's string on every rank.
  virtual std::string broadcast_string(const std::string& from_rank_zero) = 0;
  // Ends every process of the job with `exit_code`; never returns.
  [[noreturn]] virtual void abort(int exit_code) = 0;
  virtual std::string library_version() const = 0;
};

}  // namespace collbench
