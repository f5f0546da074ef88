// What every collbench program's command line has in common.
#pragma once

#include <map>
#include <string>

namespace collbench {

// The flags every program shares, declared once (core/command_line.h) and read by the program shell
// (harness/program_shell.h): how often the sweep repeats, when a stalled run gives up, what the
// report keeps, help and version. Each program's options derive from it.
// How the ranks of a run find each other (--bootstrap); harness/launcher_env.h decides for kAuto.
enum class Bootstrap { kAuto, kMpi, kEnv };

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
  Bootstrap bootstrap = Bootstrap::kAuto;
  std::string rendezvous_directory;  // --rendezvous file:DIR (empty: the TCP store on MASTER_ADDR:MASTER_PORT)
  bool show_help = false;
  bool show_version = false;
};

}  // namespace collbench
