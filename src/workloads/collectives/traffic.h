// alltoallv's traffic: how many bytes every rank sends to every other rank, the pattern of
// mixture-of-experts token routing. From a seeded generator (--pattern uniform|zipf:S|hotspot:K,
// each rank's total from the size sweep) or a rank x rank CSV file of bytes (--matrix FILE, the row
// is the sender), as nccl-tests' alltoallv takes a traffic matrix file.
//
// Pure: no MPI, no world. Every rank computes the same matrix from the same spec, seed and text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

enum class TrafficPattern { kUniform, kZipf, kHotspot, kMatrix };

struct TrafficSpec {
  TrafficPattern pattern = TrafficPattern::kUniform;
  double zipf_exponent = 0;  // zipf:S
  int hot_ranks = 0;         // hotspot:K
  std::string matrix_path;   // --matrix

  bool from_matrix() const { return pattern == TrafficPattern::kMatrix; }
  // "uniform", "zipf:1.2", "hotspot:2", "matrix": the rows' traffic.pattern key.
  std::string text() const;
};

// --pattern's value; throws UsageError naming `flag`.
TrafficSpec parse_traffic_pattern(const std::string& value, const std::string& flag);

// Bytes from sender (row) to receiver (column) as a file gives them.
struct ByteMatrix {
  int ranks = 0;
  std::vector<std::uint64_t> bytes;  // row-major, ranks x ranks
};

// A CSV matrix (commas and/or blanks between values, one row per line, '#' starts a comment):
// square, as many rows as the world has ranks, whole non-negative byte counts. Throws UsageError
// with one line naming `source` and the line and column at fault; file text in it is made printable.
ByteMatrix parse_byte_matrix(const std::string& text, const std::string& source, int world_size);

// Elements from each rank to each rank for one row of the sweep.
class TrafficMatrix {
 public:
  TrafficMatrix(int ranks, std::vector<std::size_t> pair_elements);  // row-major, ranks x ranks
  int ranks() const { return ranks_; }
  std::size_t elements(int from, int to) const { return elements_[index(from, to)]; }
  std::size_t sent_by(int rank) const;
  std::size_t received_by(int rank) const;
  // Where `to`'s block starts in `from`'s send buffer, and where `from`'s block starts in `to`'s
  // receive buffer: blocks lie in rank order, back to back (MPI_Alltoallv's packed displacements).
  // `to` (`from`) may be ranks(): the total.
  std::size_t send_offset(int from, int to) const;
  std::size_t receive_offset(int to, int from) const;
  // The rank whose send or receive total is largest, in elements: nccl-tests' alltoallv size.
  std::size_t busiest_elements() const;
  // The sender of element `index` of `to`'s receive buffer, and that element's index in the
  // sender's send buffer. `index` < received_by(to).
  struct Source {
    int rank;
    std::size_t index;
  };
  Source source_of(int to, std::size_t index) const;
  const std::vector<std::size_t>& all_elements() const { return elements_; }
  bool operator==(const TrafficMatrix& other) const { return ranks_ == other.ranks_ && elements_ == other.elements_; }

 private:
  std::size_t index(int from, int to) const { return static_cast<std::size_t>(from) * ranks_ + to; }
  int ranks_;
  std::vector<std::size_t> elements_;
  std::vector<std::size_t> send_offsets_;     // [from * (ranks + 1) + to]
  std::vector<std::size_t> receive_offsets_;  // [to * (ranks + 1) + from]
};

// The ranks in an order drawn from `seed` (splitmix64 and Fisher-Yates, written out so that the
// same seed gives the same order with any standard library): zipf's popularity order, hotspot's
// hot ranks first.
std::vector<int> seeded_rank_order(int ranks, std::uint64_t seed);

// Each sender's share of its total for each receiver (every row the same; sums to 1):
// - uniform: 1/n;
// - zipf:S: receiver at popularity place p (0 the hottest, seeded_rank_order) gets 1/(p+1)^S,
//   normalized: experts' popularity in token routing follows a power law;
// - hotspot:K: the first K ranks of seeded_rank_order share half of every sender's bytes evenly,
//   and all n ranks share the other half evenly.
std::vector<double> receiver_shares(const TrafficSpec& spec, int ranks, std::uint64_t seed);

// A generated row: each pair gets floor(total * share) bytes rounded down to a multiple of 16, as
// nccl-tests aligns each peer's block, in elements of `element_bytes`. A total too small for one
// 16-byte block to the busiest receiver is raised to 16 bytes per rank, instead of timing a call
// that moves nothing (the collectives raise such sizes the same way).
TrafficMatrix generate_traffic(const TrafficSpec& spec, std::uint64_t total_bytes_per_rank, int ranks,
                               std::size_t element_bytes, std::uint64_t seed);
// A matrix row: each pair's bytes rounded down to whole elements.
TrafficMatrix traffic_from_bytes(const ByteMatrix& matrix, std::size_t element_bytes);

// nccl-tests' alltoallv bus bandwidth (src/alltoallv.cu, AlltoAllvGetBw): the algorithm bandwidth
// is the busiest rank's bytes (the largest of every rank's send and receive totals) over the time,
// and the bus bandwidth that times (n - 1) / n, alltoall's factor: with uneven traffic the busiest
// rank bounds the call.
double alltoallv_bus_bandwidth_gbps(std::uint64_t busiest_bytes, double time_us, int ranks);

}  // namespace collbench
