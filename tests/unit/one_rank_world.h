// A world of one rank for unit tests of the harness: every collective is the identity. A test may
// derive from it to script what the other ranks answer (tests/unit/test_driver.cpp).
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "core/world.h"

namespace collbench::testing {

class OneRankWorld : public World {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  std::string host() const override { return "test-host"; }
  void barrier() override {}
  void combine(std::vector<double>&, Combine) override {}
  std::int64_t sum(std::int64_t value) override { return value; }
  std::vector<std::string> gather_strings(const std::string& mine) override { return {mine}; }
  std::string broadcast_string(const std::string& from_rank_zero) override { return from_rank_zero; }
  [[noreturn]] void abort(int) override { std::abort(); }
  std::string library_version() const override { return "none"; }
  ControlPlane control_plane() const override { return ControlPlane::kMpi; }
};

}  // namespace collbench::testing
