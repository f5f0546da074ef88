// Report text (a benchmark name, a setting's value) as part of a file name that collbench writes.
#pragma once

#include <string>

namespace collbench::summarize {

// Letters, digits, '_', '-' and '.' stay; every other byte becomes %XX. One-to-one, so two names
// ("a/b" and "a_b", "^lo" and "=lo") never share a file, and no '/' or control character survives.
std::string file_safe(const std::string& text);

}  // namespace collbench::summarize
