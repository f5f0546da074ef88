// -B's comparison in closed form: identical buffers differ nowhere, one flipped bit is found at its
// element with both values' bits, and the row's fields survive the report's writer and reader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/stats.h"
#include "report/report_json.h"
#include "workloads/collectives/bitwise.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench {
namespace {

std::vector<float> ramp(std::size_t n) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = 0.5f * static_cast<float>(i) - 3.0f;
  return values;
}

void flip_lowest_bit(std::vector<float>& values, std::size_t index) {
  std::uint32_t bits;
  std::memcpy(&bits, &values[index], sizeof(bits));
  bits ^= 1u;
  std::memcpy(&values[index], &bits, sizeof(bits));
}

TEST(Bitwise, IdenticalBuffersDifferNowhere) {
  const auto a = ramp(1000), b = ramp(1000);
  const BitComparison found = compare_bits(a.data(), b.data(), a.size(), sizeof(float));
  EXPECT_EQ(found.differing, 0);
  EXPECT_FALSE(found.first.has_value());
}

TEST(Bitwise, OneFlippedBitIsFoundAtItsElement) {
  const auto a = ramp(1000);
  auto b = a;
  flip_lowest_bit(b, 617);
  const BitComparison found = compare_bits(a.data(), b.data(), a.size(), sizeof(float));
  EXPECT_EQ(found.differing, 1);
  ASSERT_TRUE(found.first.has_value());
  EXPECT_EQ(*found.first, 617u);
  // 0.5 * 617 - 3 = 305.5 = 0x4398c000; its lowest bit flipped.
  EXPECT_EQ(element_bits_hex(a.data(), 617, sizeof(float)), "0x4398c000");
  EXPECT_EQ(element_bits_hex(b.data(), 617, sizeof(float)), "0x4398c001");
}

TEST(Bitwise, ValuesEqualAsNumbersButNotAsBitsDiffer) {
  const std::vector<float> a{0.0f, 1.0f}, b{-0.0f, 1.0f};  // a tolerance check passes these
  const BitComparison found = compare_bits(a.data(), b.data(), a.size(), sizeof(float));
  EXPECT_EQ(found.differing, 1);
  EXPECT_EQ(*found.first, 0u);
}

TEST(Bitwise, PiecesReportWholeBufferIndicesAndSkipUncomparedElements) {
  const auto a = ramp(64);
  auto b = a;
  flip_lowest_bit(b, 3);
  flip_lowest_bit(b, 10);
  // A piece that starts at element 100 of the whole buffer; element 103 is not compared.
  const BitComparison found =
      compare_bits(a.data(), b.data(), a.size(), sizeof(float), 100, [](std::size_t index) { return index != 103; });
  EXPECT_EQ(found.differing, 1);
  EXPECT_EQ(*found.first, 110u);
}

TEST(Bitwise, EveryElementWidthPrintsItsBits) {
  const std::uint8_t byte = 0x7f;
  const std::uint16_t half = 0x3c00;
  const double one = 1.0;
  EXPECT_EQ(element_bits_hex(&byte, 0, 1), "0x7f");
  EXPECT_EQ(element_bits_hex(&half, 0, 2), "0x3c00");
  EXPECT_EQ(element_bits_hex(&one, 0, 8), "0x3ff0000000000000");
}

TEST(Bitwise, HashSeesOneBit) {
  const auto a = ramp(256);
  auto b = a;
  EXPECT_EQ(fnv1a_64(a.data(), a.size() * 4), fnv1a_64(b.data(), b.size() * 4));
  flip_lowest_bit(b, 200);
  EXPECT_NE(fnv1a_64(a.data(), a.size() * 4), fnv1a_64(b.data(), b.size() * 4));
}

// -B's inputs must make the order of additions visible, or every algorithm would pass trivially.
TEST(Bitwise, RoundingInputsMakeTheOrderOfAdditionsVisible) {
  int order_dependent = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float a = static_cast<float>(rounding_input(1, 0, i)), b = static_cast<float>(rounding_input(1, 1, i)),
                c = static_cast<float>(rounding_input(1, 2, i));
    for (float v : {a, b, c}) {
      EXPECT_GE(std::fabs(v), 0.5f);
      EXPECT_LE(std::fabs(v), 2.0f);
    }
    if ((a + b) + c != a + (b + c)) ++order_dependent;
  }
  EXPECT_GT(order_dependent, 100);  // about a third of the triples
  EXPECT_EQ(rounding_input(1, 2, 3), rounding_input(1, 2, 3));
  EXPECT_NE(rounding_input(1, 2, 3), rounding_input(2, 2, 3));
}

// The writer's side (bitdiff null and no first_bitdiff without -B) is in test_backend_support's
// rows, made by the collectives' own writer.
TEST(Bitwise, RowFieldsRoundTrip) {
  report::Measurement measured;
  measured.iterations = 1;
  measured.time_us = summarize_samples({2.0, 3.0});
  nlohmann::json fields = {{"bytes", 1024}, {"count", 256}, {"dtype", "float32"}, {"op", "sum"}, {"root", -1},
                           {"placement", "out"}, {"backend", "mpi"}, {"algorithm", "default"}, {"algbw_gbps", 0.0},
                           {"bus_bandwidth_factor", 0.0}, {"busbw_gbps", nullptr}};
  fields["bitwise_repeats"] = 3;
  fields["bitdiff"] = 2;
  fields["first_bitdiff"] = {{{"between", "ranks"}, {"elements", 2}, {"rank", 1}, {"repeat", 0}, {"reference_rank", 0},
                              {"reference_repeat", 0}, {"element", 17}, {"reference_bits", "0x3f800000"}, {"bits", "0x3f800001"}}};
  fields["bitwise_hash"] = "0123456789abcdef";
  report::Report document;
  document.benchmark = "all_reduce";
  document.rows.push_back(report::row_from_json(report::row_json(report::kCollectiveRows, fields, measured), document.kind));
  const report::Report back = report::report_from_json(report::to_json(document));
  ASSERT_EQ(back.rows.size(), 1u);
  const nlohmann::json& read = back.rows.front().fields;
  EXPECT_EQ(read["bitwise_repeats"], 3);
  ASSERT_TRUE(read["bitdiff"].is_number_integer());
  EXPECT_EQ(read["bitdiff"], 2);
  ASSERT_EQ(read["first_bitdiff"].size(), 1u);
  EXPECT_EQ(read["first_bitdiff"][0]["between"], "ranks");
  EXPECT_EQ(read["first_bitdiff"][0]["rank"], 1);
  EXPECT_EQ(read["first_bitdiff"][0]["element"], 17u);
  EXPECT_EQ(read["first_bitdiff"][0]["bits"], "0x3f800001");
  EXPECT_EQ(read["bitwise_hash"], "0123456789abcdef");
  // The reader checks them as it reads: a difference between neither repeats nor ranks is refused.
  nlohmann::json bad = report::to_json(document);
  bad["results"][0]["first_bitdiff"][0]["between"] = "sideways";
  EXPECT_THROW(report::report_from_json(bad), report::ReportFormatError);
}

}  // namespace
}  // namespace collbench
