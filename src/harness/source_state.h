#pragma once
// The code a build was made from, recorded at build time (cmake/SourceState.cmake writes the
// definitions into the build folder at every build): every report's context names it, so two
// reports made by different code never read as the same code, even when they share a commit.
#include <string>

namespace collbench {

// The commit checked out when this binary was built (40 hex digits), or "unknown" outside git.
std::string collbench_source_commit();
// "clean", "modified (diff sha256 <16 hex>)": a hash of the tracked changes and untracked files,
// so two builds from the same dirty tree match and from different ones differ; or "unknown (...)".
std::string collbench_source_tree();

}  // namespace collbench
