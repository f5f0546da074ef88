// The one command-line layer of every collbench program, on CLI11.
//
// A program declares each flag once (names, help, how its value is read); the same declarations
// parse argv and print --help, so the two cannot drift. Values go through the project's own
// parsers (core/flag_values.h, core/sizes.h), so a value means the same in every program: sizes
// are 1024-based, integers and reals are range-checked and refuse trailing text ("-f 2x").
// CLI11 gives nccl-tests' spellings: -b8, -b 8, --minbytes=8, --minbytes 8.
//
// Each value is applied when it is read, in command-line order, so a repeated flag overrides the
// earlier one (as with nccl-tests' getopt) and a repeatable one (--tag) can accumulate.
//
// The same declarations make a program's report options (context.options): each flag says beside
// its declaration what it records, so a flag added to a program appears in its report without
// another list to update. A flag declared with its target (add_integer, add_real, add_flag,
// add_text) records that value, typed, under its long name with '_' for '-' ("--probe-ms" ->
// "probe_ms"); a flag read by a handler (add_value) must say what it records (record) or that it
// records nothing (not_recorded), or its program's report cannot be made.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/flag_values.h"
#include "core/sizes.h"

// Declared only: CLI11 is header-only and costs every file that includes it about 5 s to compile,
// so only the files that declare flags or parse include <CLI/CLI.hpp>.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace collbench {

// Gets a flag's value and the flag's name for messages ("-b/--minbytes"); throws UsageError.
using ValueHandler = std::function<void(const std::string& value, const std::string& flag)>;

// A program's (or a command's) flags and its --help, with the project's conventions: no flag
// given a value it does not take, no stray words, errors as one-line UsageErrors.
class CommandLine {
 public:
  // `usage` is the usage line's tail, e.g. "[mpirun -np N] all_reduce_perf [options]".
  CommandLine(const std::string& usage, const std::string& description);
  CommandLine(CommandLine&&) noexcept;
  CommandLine& operator=(CommandLine&&) noexcept;
  ~CommandLine();

  CLI::App& app() { return *app_; }

  // Parses args (without argv[0]). Throws UsageError with one line on any bad flag or value, and
  // CLI::CallForHelp where the app set CLI11's own help flag again (for subcommands' help).
  void parse(const std::vector<std::string>& args);

  std::string help() const;

  // context.options: every flag's record (see above), from the values its targets hold now.
  // Throws Error naming a flag that declares no record: a program's mistake, found by any run.
  nlohmann::json recorded_options() const;

 private:
  std::unique_ptr<CLI::App> app_;
};

// The usage line's tail in --help (a CommandLine sets its own; subcommands may set theirs).
void set_usage(CLI::App& app, const std::string& usage);

// Flags declared after this are listed under `title` in --help.
void start_section(CLI::App& app, const std::string& title);

// A flag with one value; `value_name` names it in --help ("SIZE", "N", "LIST").
CLI::Option* add_value(CLI::App& app, const std::string& names, const std::string& value_name, const std::string& help,
                       ValueHandler apply);
CLI::Option* add_flag(CLI::App& app, const std::string& names, const std::string& help, bool& target);
CLI::Option* add_real(CLI::App& app, const std::string& names, const std::string& value_name, const std::string& help,
                      double& target, double lowest, double highest);
// A path or name that must not be empty.
CLI::Option* add_text(CLI::App& app, const std::string& names, const std::string& value_name, const std::string& help,
                      std::string& target);

// What a flag writes into context.options, given the options object; it reads the targets the
// declaration bound, after parsing and after the program's own rules (a default from the environment).
using OptionRecord = std::function<void(nlohmann::json& options)>;

// `write` records `options`' flags together (a sweep's -b/-e/-i/-f and --sizes as the sizes run);
// it replaces what a flag recorded before (a shared flag's record, where a program records it its
// own way). Only a program's command line records; elsewhere (collbench's commands) it does nothing.
void record(CLI::App& app, std::initializer_list<CLI::Option*> options, OptionRecord write);
// Flags whose values the report keeps elsewhere (context.tags, context.backend) or not at all (-J, --help).
void not_recorded(CLI::App& app, std::initializer_list<CLI::Option*> options);
// `target` under `key`, for a flag whose report name is not its long name.
template <typename Value>
void record_as(CLI::App& app, CLI::Option* option, std::string key, const Value& target) {
  record(app, {option}, [key = std::move(key), &target](nlohmann::json& options) { options[key] = target; });
}
// The names of `items` (each one's to_string), for a flag that takes a list of choices.
template <typename Item>
void record_names(CLI::App& app, CLI::Option* option, std::string key, const std::vector<Item>& items) {
  record(app, {option}, [key = std::move(key), &items](nlohmann::json& options) {
    nlohmann::json& names = options[key] = nlohmann::json::array();
    for (const Item& item : items) names.push_back(std::string(to_string(item)));
  });
}
// `target` only where it is not `unset`: a flag added after reports were kept, absent at its
// default so that those reports still compare as the same options.
template <typename Value>
void record_unless(CLI::App& app, CLI::Option* option, std::string key, const Value& target, Value unset) {
  record(app, {option}, [key = std::move(key), &target, unset = std::move(unset)](nlohmann::json& options) {
    if (target != unset) options[key] = target;
  });
}
// The report name of a flag: its first long name, '_' for '-'.
std::string record_key(const CLI::Option& option);

template <typename Integer>
CLI::Option* add_integer(CLI::App& app, const std::string& names, const std::string& help, Integer& target,
                         long long lowest, long long highest) {
  CLI::Option* option = add_value(app, names, "N", help, [&target, lowest, highest](const std::string& value, const std::string& flag) {
    target = static_cast<Integer>(parse_integer(value, flag, lowest, highest));
  });
  record_as(app, option, record_key(*option), target);
  return option;
}

// -b/--minbytes, -e/--maxbytes, -i/--stepbytes, -f/--stepfactor, shared by every sweeping program.
struct SweepHelp {
  std::string value_name;  // "SIZE", or "N" where the sweep counts matrix sides
  std::string min, max, step, factor;
};
struct SweepFlags {
  CLI::Option *min = nullptr, *max = nullptr, *step = nullptr, *factor = nullptr;
  // An explicit list (--sizes) replaces the sweep, so giving both is an error.
  void exclude(CLI::Option* list) const;
};
SweepFlags add_size_sweep(CLI::App& app, SizeSweep& sweep, const SweepHelp& help);
// --sizes LIST into `list` (sizes as core/flag_values.h parses them), replacing the `sweep`.
CLI::Option* add_size_list(CLI::App& app, const SweepFlags& sweep, std::vector<std::uint64_t>& list, const std::string& help);

}  // namespace collbench
