#include "harness/agreement.h"

#include <algorithm>

#include "report/report_file.h"

namespace collbench {
namespace {

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    // argv[0] is shown by its last component: paths to the same program may differ per host.
    const std::string& word = i == 0 ? argv[i].substr(argv[i].find_last_of('/') + 1) : argv[i];
    line += (i ? " " : "") + word;
  }
  return line;
}

}  // namespace

std::string options_identity_text(const std::string& program, const nlohmann::json& program_identity, const RunFlags& flags) {
  std::string text = program + '\0' + report::json_text(program_identity);
  for (const auto& [flag, values] : flags.given) {
    text += '\0' + flag;
    for (const auto& value : values) text += '\0' + std::to_string(value.size()) + ':' + value;  // sized: no value can fake a boundary
  }
  return text;
}

std::string options_disagreement(World& world, const std::string& identity, const std::vector<std::string>& argv) {
  const std::vector<std::string> fingerprints = world.gather_strings(std::to_string(fnv1a(identity)));
  std::vector<int> differing;
  for (std::size_t rank = 1; rank < fingerprints.size(); ++rank) {
    if (fingerprints[rank] != fingerprints[0]) differing.push_back(static_cast<int>(rank));
  }
  if (differing.empty()) return "";
  // Every rank saw the same list, so every rank joins this second exchange. Where a command line is
  // rank 0's, the difference came from the environment (NCCL_TESTS_SPLIT, NCCL_TESTS_MIN_BW): such a
  // rank and rank 0 are shown with the settings they made of it (the identity's program part,
  // between its first two NULs).
  const std::size_t settings_start = identity.find('\0') + 1;
  const std::string settings = identity.substr(settings_start, identity.find('\0', settings_start) - settings_start);
  const std::vector<std::string> lines = world.gather_strings(command_line(argv));
  const std::vector<std::string> every_settings = world.gather_strings(settings);
  bool from_environment = false;
  const auto described = [&](int rank) {
    const std::size_t at = static_cast<std::size_t>(rank);
    if (rank == 0 ? !from_environment : lines[at] != lines[0]) return "'" + lines[at] + "'";
    from_environment = true;
    return "'" + lines[at] + "' with " + every_settings[at] + " from its environment";
  };
  std::string text = "ranks were started with different options (every rank needs the same flags): ";
  const std::size_t shown = std::min<std::size_t>(differing.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) {
    const int rank = differing[i];
    text += (i ? "; rank " : "rank ") + std::to_string(rank) + " ran " + described(rank);
  }
  if (differing.size() > shown) text += " and " + std::to_string(differing.size() - shown) + " more rank(s) differ";
  return text + "; rank 0 ran " + described(0);
}

}  // namespace collbench
