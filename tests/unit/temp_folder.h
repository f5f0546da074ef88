// A fresh folder per test for the tests that write files (reports), removed after the test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace collbench::testing {

class TempFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    // The process id and the test's name: tests of several programs may run at once (ctest -j).
    folder_ = std::filesystem::temp_directory_path() /
              ("collbench-test-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::filesystem::path folder_;
};

}  // namespace collbench::testing
