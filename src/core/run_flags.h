// What every collbench program's command line has in common.
#pragma once

#include <map>
#include <string>

namespace collbench {

// The flags every program shares, declared once (core/command_line.h) and read by the program shell
// (harness/program_shell.h): how often the sweep repeats, when a stalled run gives up, what the
// report keeps, help and version. Each program's options derive from it.
struct RunFlags {
  int cycles = 1;
  double timeout_seconds = 0;  // 0: no watchdog
  std::string report_path;     // empty: no JSON report
  bool overwrite_report = false;
  bool keep_samples = false;
  // Testing aid (--inject-slowdown PCT): every timed sample is stretched by this many percent, so
  // that a CI gate can be shown to catch a known slowdown. 0: off.
  double inject_slowdown_percent = 0;
  std::map<std::string, std::string> tags;
  bool show_help = false;
  bool show_version = false;
};

}  // namespace collbench
