#include <gtest/gtest.h>

#include "core/error.h"
#include "core/sizes.h"

namespace collbench {
namespace {

TEST(ParseSize, UnitsAre1024Based) {
  EXPECT_EQ(parse_size("8", "-b"), 8u);
  EXPECT_EQ(parse_size("64K", "-b"), 65536u);
  EXPECT_EQ(parse_size("1M", "-b"), 1048576u);
  EXPECT_EQ(parse_size("8G", "-b"), 8ull << 30);
  EXPECT_EQ(parse_size("2T", "-b"), 2ull << 40);
  EXPECT_EQ(parse_size("1.5M", "-b"), 1572864u);
  EXPECT_EQ(parse_size("4kb", "-b"), 4096u);
  EXPECT_EQ(parse_size("4KiB", "-b"), 4096u);
  EXPECT_EQ(parse_size("100B", "-b"), 100u);
}

TEST(ParseSize, RejectsGarbage) {
  for (const char* bad : {"", "K", "-8", "abc", "8X", "8KK", "1.5", "0.3K", "1..2", "99999999999999999999999", "20T000"}) {
    EXPECT_THROW(parse_size(bad, "-b"), UsageError) << bad;
  }
}

TEST(ParseSize, MessageNamesFlagAndValue) {
  try {
    parse_size("12Q", "-e");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("-e"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("12Q"), std::string::npos);
  }
}

TEST(ExpandSweep, MultiplicativeAndAdditive) {
  EXPECT_EQ(expand_sweep({8, 1024, 0, 2.0}), (std::vector<std::uint64_t>{8, 16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(expand_sweep({8, 1 << 20, 0, 8.0}), (std::vector<std::uint64_t>{8, 64, 512, 4096, 32768, 262144}));
  EXPECT_EQ(expand_sweep({100, 400, 100, 0}), (std::vector<std::uint64_t>{100, 200, 300, 400}));
  EXPECT_EQ(expand_sweep({64, 64, 0, 0}), (std::vector<std::uint64_t>{64}));
}

TEST(ExpandSweep, FractionalFactorRoundsUpAndAdvances) {
  EXPECT_EQ(expand_sweep({8, 30, 0, 1.5}), (std::vector<std::uint64_t>{8, 12, 18, 27}));
  // A factor barely above 1 still advances by at least one byte per step.
  const auto sizes = expand_sweep({8, 12, 0, 1.01});
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{8, 9, 10, 11, 12}));
}

TEST(ExpandSweep, RejectsSweepsThatCannotWork) {
  EXPECT_THROW(expand_sweep({1024, 8, 0, 2.0}), UsageError);     // -b > -e
  EXPECT_THROW(expand_sweep({0, 8, 0, 2.0}), UsageError);        // zero bytes
  EXPECT_THROW(expand_sweep({8, 1024, 0, 0}), UsageError);       // no step at all
  EXPECT_THROW(expand_sweep({8, 1024, 0, 1.0}), UsageError);     // factor 1 never advances
  EXPECT_THROW(expand_sweep({1, 1ull << 40, 1, 0}), UsageError);  // absurdly many points
}

TEST(FormatSize, ExactBinaryUnits) {
  EXPECT_EQ(format_size(8), "8 B");
  EXPECT_EQ(format_size(65536), "64 KiB");
  EXPECT_EQ(format_size(1536), "1536 B");
  EXPECT_EQ(format_size(8ull << 30), "8 GiB");
}

}  // namespace
}  // namespace collbench
