// The files collbench writes: report text (a benchmark name, a setting's value) as part of a file
// name, and writing one.
#pragma once

#include <string>

namespace collbench::summarize {

// Letters, digits, '_', '-' and '.' stay; every other byte becomes %XX. One-to-one, so two names
// ("a/b" and "a_b", "^lo" and "=lo") never share a file, and no '/' or control character survives.
std::string file_safe(const std::string& text);

// Writes `text` to `path`, replacing what was there; std::runtime_error when it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace collbench::summarize
