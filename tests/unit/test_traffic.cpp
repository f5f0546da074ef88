// alltoallv's traffic (workloads/collectives/traffic.h): the generators' closed forms, the matrix
// file's errors, the blocks' offsets and sources, nccl-tests' bus bandwidth, and the rows' report form.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string>

#include "core/error.h"
#include "report/report_json.h"
#include "workloads/collectives/collective.h"
#include "workloads/collectives/traffic.h"
#include "workloads/collectives/report/collective_rows.h"

namespace collbench {
namespace {

TrafficSpec pattern(const std::string& text) { return parse_traffic_pattern(text, "--pattern"); }

std::string usage_error_of(const std::string& text, int world_size) {
  try {
    parse_byte_matrix(text, "m.csv", world_size);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrafficPattern, ParsesEachGeneratorAndRefusesTheRest) {
  EXPECT_EQ(pattern("uniform").pattern, TrafficPattern::kUniform);
  EXPECT_EQ(pattern("zipf:1.5").pattern, TrafficPattern::kZipf);
  EXPECT_DOUBLE_EQ(pattern("zipf:1.5").zipf_exponent, 1.5);
  EXPECT_EQ(pattern("hotspot:3").hot_ranks, 3);
  EXPECT_EQ(pattern("hotspot:3").text(), "hotspot:3");
  EXPECT_EQ(pattern("zipf:1.5").text(), "zipf:1.5");
  for (const char* bad : {"", "zipf", "zipf:", "zipf:-1", "zipf:x", "hotspot:0", "hotspot:1.5", "uniform:2", "gaussian"}) {
    EXPECT_THROW(pattern(bad), UsageError) << bad;
  }
}

TEST(TrafficPattern, SeededOrderIsAPermutationFixedBySeed) {
  const std::vector<int> order = seeded_rank_order(8, 42);
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(8);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_EQ(order, seeded_rank_order(8, 42));
  std::set<std::vector<int>> orders;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) orders.insert(seeded_rank_order(8, seed));
  EXPECT_GT(orders.size(), 10u);  // the seed decides, not a fixed shuffle
}

TEST(TrafficPattern, SharesHaveTheirClosedForms) {
  const std::vector<double> uniform = receiver_shares(pattern("uniform"), 4, 1);
  for (double share : uniform) EXPECT_DOUBLE_EQ(share, 0.25);
  // zipf:0 is uniform; zipf:1 over 4 ranks: 1/(p+1) over H4 = 25/12 by popularity place p.
  for (double share : receiver_shares(pattern("zipf:0"), 4, 7)) EXPECT_DOUBLE_EQ(share, 0.25);
  const std::vector<int> order = seeded_rank_order(4, 7);
  const std::vector<double> zipf = receiver_shares(pattern("zipf:1"), 4, 7);
  for (int place = 0; place < 4; ++place) EXPECT_NEAR(zipf[order[place]], (1.0 / (place + 1)) * 12.0 / 25.0, 1e-12);
  // hotspot:1 over 4 ranks: the hot rank 1/2 + 1/8, the others 1/8.
  const std::vector<double> hot = receiver_shares(pattern("hotspot:1"), 4, 7);
  for (int rank = 0; rank < 4; ++rank) EXPECT_DOUBLE_EQ(hot[rank], rank == order[0] ? 0.625 : 0.125);
  const std::vector<double> two_hot = receiver_shares(pattern("hotspot:2"), 4, 7);
  EXPECT_DOUBLE_EQ(std::accumulate(two_hot.begin(), two_hot.end(), 0.0), 1.0);
  EXPECT_DOUBLE_EQ(two_hot[order[1]], 0.375);
}

TEST(TrafficPattern, UniformIsAlltoallsLayout) {
  const TrafficMatrix traffic = generate_traffic(pattern("uniform"), 1u << 20, 4, 4, 1);
  for (int from = 0; from < 4; ++from) {
    for (int to = 0; to < 4; ++to) EXPECT_EQ(traffic.elements(from, to), aligned_rank_block((1u << 20) / 4, 4, 4));
  }
  EXPECT_EQ(traffic.busiest_elements(), (1u << 20) / 4);
  // 1000 B over 3 ranks: 333 B per pair, 320 once aligned to 16 B, 80 float32 elements.
  EXPECT_EQ(generate_traffic(pattern("uniform"), 1000, 3, 4, 1).elements(2, 1), 80u);
}

TEST(TrafficPattern, ZipfAndHotspotRowsHaveTheirClosedForms) {
  // zipf:1, 4 ranks, 12000 B per rank: 5760, 2880, 1920 and 1440 B by place, already 16-aligned.
  const std::vector<int> order = seeded_rank_order(4, 3);
  const TrafficMatrix zipf = generate_traffic(pattern("zipf:1"), 12000, 4, 4, 3);
  const std::size_t by_place[] = {1440, 720, 480, 360};
  for (int from = 0; from < 4; ++from) {
    for (int place = 0; place < 4; ++place) EXPECT_EQ(zipf.elements(from, order[place]), by_place[place]);
  }
  EXPECT_EQ(zipf.received_by(order[0]), 4u * 1440u);
  EXPECT_EQ(zipf.busiest_elements(), 4u * 1440u);  // the hottest receiver, not a sender
  // hotspot:1, 4 ranks, 1024 B of int8: 640 B to the hot rank, 128 B to each other.
  const TrafficMatrix hot = generate_traffic(pattern("hotspot:1"), 1024, 4, 1, 3);
  for (int to = 0; to < 4; ++to) EXPECT_EQ(hot.elements(1, to), to == order[0] ? 640u : 128u);
  EXPECT_EQ(hot.busiest_elements(), 2560u);
}

TEST(TrafficPattern, ATotalTooSmallForOneBlockIsRaised) {
  const TrafficMatrix traffic = generate_traffic(pattern("uniform"), 8, 4, 4, 1);
  for (std::size_t elements : traffic.all_elements()) EXPECT_EQ(elements, 4u);  // 16 B each
}

TEST(TrafficMatrixBlocks, OffsetsAndSourcesFollowTheRankOrder) {
  // Bytes of int8: sender rows, zeros included.
  const TrafficMatrix traffic(3, {0, 5, 2,  //
                                  3, 0, 0,  //
                                  1, 4, 6});
  EXPECT_EQ(traffic.sent_by(0), 7u);
  EXPECT_EQ(traffic.received_by(1), 9u);
  EXPECT_EQ(traffic.send_offset(2, 2), 5u);
  EXPECT_EQ(traffic.receive_offset(1, 2), 5u);
  EXPECT_EQ(traffic.busiest_elements(), 11u);
  for (int to = 0; to < 3; ++to) {
    std::size_t index = 0;
    for (int from = 0; from < 3; ++from) {
      for (std::size_t k = 0; k < traffic.elements(from, to); ++k, ++index) {
        const TrafficMatrix::Source source = traffic.source_of(to, index);
        EXPECT_EQ(source.rank, from) << to << " " << index;
        EXPECT_EQ(source.index, traffic.send_offset(from, to) + k) << to << " " << index;
      }
    }
  }
  // The descriptor's expected output is the same lookup.
  const Collective* alltoallv = find_collective("alltoallv");
  ASSERT_NE(alltoallv, nullptr);
  OutputContext where{1, 3, 0, traffic.busiest_elements(), false, &traffic};
  const Expected expected = alltoallv->expected_output(where, 6);  // rank 2's block, its element 1
  EXPECT_EQ(expected.kind, Expected::Kind::kCopyOf);
  EXPECT_EQ(expected.source_rank, 2);
  EXPECT_EQ(expected.source_index, 2u);
  const BufferLayout layout = alltoallv->traffic_layout(traffic, 1);
  EXPECT_EQ(layout.send_count, 3u);
  EXPECT_EQ(layout.recv_count, 9u);
  EXPECT_EQ(layout.call_count, 11u);
}

TEST(TrafficMatrixFile, ParsesCommasBlanksAndComments) {
  const ByteMatrix matrix = parse_byte_matrix("# bytes, row = sender\n0, 64,128\n\n 32 0\t16 # rank 1\r\n8,8,8\n", "m.csv", 3);
  EXPECT_EQ(matrix.ranks, 3);
  EXPECT_EQ(matrix.bytes, (std::vector<std::uint64_t>{0, 64, 128, 32, 0, 16, 8, 8, 8}));
  const TrafficMatrix traffic = traffic_from_bytes(matrix, 8);  // whole float64 elements
  EXPECT_EQ(traffic.elements(0, 2), 16u);
  EXPECT_EQ(traffic.elements(1, 2), 2u);
  EXPECT_EQ(traffic.elements(2, 0), 1u);
}

TEST(TrafficMatrixFile, EachMalformationIsOneLineNamingWhere) {
  const std::string bad_number = usage_error_of("1,2\n3,abc\n", 2);
  EXPECT_NE(bad_number.find("m.csv line 2, column 2: 'abc' is not a whole number of bytes"), std::string::npos) << bad_number;
  EXPECT_NE(usage_error_of("1,-5\n3,4\n", 2).find("line 1, column 2: '-5' is negative"), std::string::npos);
  EXPECT_NE(usage_error_of("1,2.5\n3,4\n", 2).find("not a whole number"), std::string::npos);
  EXPECT_NE(usage_error_of("1,2\n3\n", 2).find("line 2: 1 value(s), but the world has 2 rank(s)"), std::string::npos);
  EXPECT_NE(usage_error_of("1,2\n", 2).find("1 row(s), but the world has 2 rank(s)"), std::string::npos);
  EXPECT_NE(usage_error_of("", 2).find("0 row(s)"), std::string::npos);
  const std::string extra_row = usage_error_of("1,2\n3,4\n5,6\n", 2);
  EXPECT_NE(extra_row.find("line 3, column 1: row 3 is a sender (rank 2) outside the world of 2 rank(s)"), std::string::npos)
      << extra_row;
  const std::string extra_column = usage_error_of("1,2,3\n3,4\n", 2);
  EXPECT_NE(extra_column.find("column 3 is a receiver (rank 2) outside the world of 2 rank(s)"), std::string::npos) << extra_column;
  EXPECT_NE(usage_error_of("1,99999999999999999999999\n3,4\n", 2).find("not a whole number"), std::string::npos);
  // File text reaches a terminal only made printable, and one line stays one line.
  const std::string escaped = usage_error_of("1,\x1b]0;owned\x07\n3,4\n", 2);
  EXPECT_EQ(escaped.find('\x1b'), std::string::npos) << escaped;
  EXPECT_EQ(escaped.find('\n'), std::string::npos) << escaped;
}

TEST(AlltoallvBusBandwidth, IsNcclTestsBusiestRankTimesAllButOneShare) {
  // 1e9 B in 1 s: algbw 1 GB/s; busbw (n - 1) / n of it.
  EXPECT_DOUBLE_EQ(alltoallv_bus_bandwidth_gbps(1000000000ull, 1e6, 4), 0.75);
  EXPECT_DOUBLE_EQ(alltoallv_bus_bandwidth_gbps(2000000000ull, 1e6, 2), 1.0);
}

TEST(AlltoallvReport, RowsAreTheirOwnKindKeyedByPattern) {
  report::Measurement measured;
  measured.iterations = 2;
  measured.time_us.min = measured.time_us.p10 = measured.time_us.p50 = measured.time_us.mean = measured.time_us.p95 =
      measured.time_us.p99 = measured.time_us.max = 10;
  const nlohmann::json fields = {
      {"bytes", 2560}, {"requested_bytes", 0}, {"count", 2560}, {"dtype", "int8"}, {"op", "none"}, {"root", 0},
      {"placement", "out"}, {"backend", "mpi"}, {"algorithm", "default"}, {"algbw_gbps", 0.256},
      {"bus_bandwidth_factor", 0.0}, {"busbw_gbps", 0.192}, {"bitdiff", nullptr},
      {"traffic", {{"pattern", "hotspot:1"}, {"seed", 3}, {"bytes_per_rank", 1024}, {"max_send_bytes", 1024},
                   {"min_send_bytes", 1024}, {"max_receive_bytes", 2560}, {"min_receive_bytes", 512},
                   {"total_bytes", 4096}, {"largest_pair_bytes", 640}}}};
  nlohmann::json document = {{"schema_version", report::schema_version()}, {"benchmark", "alltoallv"}, {"status", "complete"},
                             {"context", nlohmann::json::object()},
                             {"results", {report::row_json(report::kAlltoallvRows, fields, measured)}}};
  document["context"] = report::envelope_json("alltoallv", report::Context{})["context"];
  EXPECT_EQ(document["results"][0]["kind"], "alltoallv");
  const report::Report read = report::report_from_json(document);
  EXPECT_EQ(read.kind, report::kAlltoallvRows);
  ASSERT_EQ(read.rows.size(), 1u);
  ASSERT_TRUE(read.rows[0].fields.contains("traffic"));
  EXPECT_EQ(read.rows[0].fields["traffic"]["pattern"], "hotspot:1");
  EXPECT_EQ(read.rows[0].fields["traffic"]["max_receive_bytes"], 2560u);
  const auto& keys = read.rows[0].keys;
  EXPECT_TRUE(std::find(keys.begin(), keys.end(), std::make_pair(std::string("traffic.pattern"), std::string("hotspot:1"))) !=
              keys.end());
  // The reader checks the traffic as it checked every other field: one sentence naming the key.
  nlohmann::json bad = document;
  bad["results"][0]["traffic"].erase("total_bytes");
  EXPECT_THROW(report::report_from_json(bad), report::ReportFormatError);
}

}  // namespace
}  // namespace collbench
