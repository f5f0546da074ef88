// Checks how many distinct hosts a report's context.hosts names: the simulated cluster must show
// two (check_report does not look at hosts, since most tests run on one).
// usage: report_hosts REPORT --expect N      exit 0 when there are N, 1 otherwise, 2 on bad input
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[2]) != "--expect") {
    std::fprintf(stderr, "usage: report_hosts REPORT --expect N\n");
    return 2;
  }
  std::set<std::string> hosts;
  try {
    std::ifstream in(argv[1]);
    const auto document = nlohmann::json::parse(in);
    for (const auto& host : document.at("context").at("hosts")) hosts.insert(host.get<std::string>());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "report_hosts: %s: %s\n", argv[1], e.what());
    return 2;
  }
  std::string names;
  for (const auto& host : hosts) names += (names.empty() ? "" : ", ") + host;
  const auto expected = std::stoul(argv[3]);
  std::printf("report_hosts: %s: %zu host(s): %s\n", argv[1], hosts.size(), names.c_str());
  return hosts.size() == expected ? 0 : 1;
}
