# Writes OUTPUT, a C++ file naming the code a build is made from: the commit (git rev-parse HEAD)
# and, where the tree differs from it, a hash of the difference (tracked changes as `git diff HEAD
# --binary` gives them, plus every untracked file that git does not ignore, by name and content).
# Run with cmake -P at every build (CMakeLists.txt), so a report names the code it was built
# from, not the code at configure time; the file is rewritten only when that changes, so an
# unchanged tree rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P SourceState.cmake
cmake_minimum_required(VERSION 3.25)  # script mode: this version's policies, as the project's
set(commit "unknown")
set(tree "unknown (not built from a git checkout)")
find_program(git_program git)
if(git_program AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${git_program}" rev-parse HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE head RESULT_VARIABLE head_status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(head_status EQUAL 0 AND head)
    set(commit "${head}")
    execute_process(COMMAND "${git_program}" diff HEAD --binary WORKING_DIRECTORY "${SOURCE_DIR}"
                    OUTPUT_VARIABLE diff ERROR_QUIET)
    execute_process(COMMAND "${git_program}" ls-files --others --exclude-standard WORKING_DIRECTORY "${SOURCE_DIR}"
                    OUTPUT_VARIABLE untracked ERROR_QUIET)
    # Untracked files count by content too: their names go to git hash-object on its stdin.
    set(untracked_hashes "")
    if(NOT untracked STREQUAL "")
      file(WRITE "${OUTPUT}.untracked" "${untracked}")
      execute_process(COMMAND "${git_program}" hash-object --stdin-paths WORKING_DIRECTORY "${SOURCE_DIR}"
                      INPUT_FILE "${OUTPUT}.untracked" OUTPUT_VARIABLE untracked_hashes ERROR_QUIET)
      file(REMOVE "${OUTPUT}.untracked")
    endif()
    if(diff STREQUAL "" AND untracked STREQUAL "")
      set(tree "clean")
    else()
      string(SHA256 diff_hash "${diff}\n${untracked}\n${untracked_hashes}")
      string(SUBSTRING "${diff_hash}" 0 16 diff_hash)
      set(tree "modified (diff sha256 ${diff_hash})")
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT "// Generated at build time by cmake/SourceState.cmake: do not edit.
#include \"harness/source_state.h\"

namespace collbench {
std::string collbench_source_commit() { return \"@commit@\"; }
std::string collbench_source_tree() { return \"@tree@\"; }
}  // namespace collbench
" @ONLY)
