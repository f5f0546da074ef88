// Expected peaks: the repository's table of links (src/summarize/explain/expected_peaks.txt, built in) and
// a user's --expect file of the same form, read by one reader. What a link gives (its line rate)
// and what nccl-tests users see on it (the practical bus bandwidth), each with its source.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collbench::summarize {

struct LinkPeak {
  std::string name;                      // nic-200g, nvlink4, intra-host, ...
  double line_gbps = 0;                  // GB/s (1e9 B/s)
  std::optional<double> practical_gbps;  // busbw users see; none where no source gives one
  std::string source, meaning;
  std::string origin;                    // "the built-in table, line 23" or "FILE, line 3"
};

struct GpuLink {
  std::string model;  // words of the CUDA device name
  std::string link;   // a LinkPeak's name; empty: no entry for this model
  std::string source;
  std::string origin;
};

class ExpectedPeaks {
 public:
  // The built-in table. Throws InputError only if the table itself is malformed (a build defect).
  static ExpectedPeaks built_in();
  // Entries of `text` (the table's form) replace those of the same name and add the rest.
  // Throws InputError naming `origin_name` and the line: an unknown kind, a missing field, a rate
  // without a unit or not a number, a rate at or below zero or above 100 TB/s, an empty source.
  void add(const std::string& text, const std::string& origin_name);
  void add_file(const std::string& path);  // add() of a file read through the bounded reader

  const LinkPeak* link(const std::string& name) const;
  // The link a GPU's intra-host traffic crosses, by its device name; nullptr when no gpu line
  // names the model (or its line says `-`).
  const LinkPeak* link_of_gpu(const std::string& device_name) const;
  std::vector<std::string> link_names() const;

 private:
  std::map<std::string, LinkPeak> links_;
  std::vector<GpuLink> gpus_;  // in file order, an --expect file's first
};

// "200 Gbit/s", "24 GB/s", "1gbit" (tc's spelling) as GB/s; nullopt when it does not parse.
std::optional<double> parse_rate_gbps(const std::string& text);

}  // namespace collbench::summarize
