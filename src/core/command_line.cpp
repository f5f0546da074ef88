#include "core/command_line.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <memory>

namespace collbench {
namespace {

// "usage: LINE" first, then the description, the flag sections and the footer (CLI11 puts the
// description above a usage line of its own making).
class ProjectFormatter : public CLI::Formatter {
 public:
  explicit ProjectFormatter(std::string usage) : usage_(std::move(usage)) { column_width(28); }
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return CLI::Formatter::make_help(app, name, mode);
    std::string text = "usage: " + usage_ + "\n" + make_description(app) + make_groups(app, mode) + make_subcommands(app, mode) +
                       "\n" + make_footer(app);
    for (std::size_t gap; (gap = text.find("\n\n\n")) != std::string::npos;) text.erase(gap, 1);  // one blank line between sections
    return text;
  }
  // The value's name only: exclusions are said in the descriptions, and CLI11's "Excludes: ..."
  // would push those onto a line of their own.
  std::string make_option_opts(const CLI::Option* option) const override {
    std::string opts = option->get_type_size() != 0 && !option->get_type_name().empty() ? " " + option->get_type_name() : "";
    return option->get_required() ? opts + " (required)" : opts;
  }

 private:
  std::string usage_;
};

// A program's app: CLI11's, with what each of its flags records in context.options. An empty
// record: the flag records nothing, or is recorded by another flag's record.
class DeclaredApp final : public CLI::App {
 public:
  using CLI::App::App;
  std::map<const CLI::Option*, OptionRecord> records;
};

// "-b,--minbytes,--min" -> "-b/--minbytes" (a short name comes first); "--sizes" -> "--sizes".
std::string display_name(const std::string& names) {
  const auto items = split_list(names);
  return items.size() > 1 && items[0].rfind("--", 0) != 0 ? items[0] + "/" + items[1] : items[0];
}

}  // namespace

CommandLine::CommandLine(const std::string& usage, const std::string& description)
    : app_(std::make_unique<DeclaredApp>(description)) {
  set_usage(*app_, usage);
  app_->set_help_flag();  // programs declare -h/--help themselves: it only sets a field, as any flag
}
CommandLine::CommandLine(CommandLine&&) noexcept = default;
CommandLine& CommandLine::operator=(CommandLine&&) noexcept = default;
CommandLine::~CommandLine() = default;

std::string CommandLine::help() const { return app_->help(); }

nlohmann::json CommandLine::recorded_options() const {
  const auto& records = static_cast<const DeclaredApp&>(*app_).records;
  nlohmann::json options = nlohmann::json::object();
  for (const CLI::Option* option : app_->get_options()) {
    const auto found = records.find(option);
    if (found == records.end()) {
      throw Error("flag " + option->get_name() + " declares nothing for the report's context.options (record or not_recorded)");
    }
    if (found->second) found->second(options);
  }
  return options;
}

void record(CLI::App& app, std::initializer_list<CLI::Option*> options, OptionRecord write) {
  auto* declared = dynamic_cast<DeclaredApp*>(&app);
  if (declared == nullptr) return;
  for (CLI::Option* option : options) {
    declared->records[option] = std::move(write);  // the first keeps it; the rest are recorded with it
    write = nullptr;
  }
}

void not_recorded(CLI::App& app, std::initializer_list<CLI::Option*> options) { record(app, options, nullptr); }

std::string record_key(const CLI::Option& option) {
  std::string key = option.get_lnames().empty() ? option.get_name() : option.get_lnames().front();
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

void set_usage(CLI::App& app, const std::string& usage) { app.formatter(std::make_shared<ProjectFormatter>(usage)); }

void CommandLine::parse(const std::vector<std::string>& args) {
  // "--name=" gives the flag an empty value: CLI11 would take the next argument as the value
  // instead (--mpi-algorithms= --np 2 tried "--np" as a list), so the error named another flag.
  // Split, the empty value reaches the flag's own check, which names the flag. Arguments after
  // "--" belong to another program and stay as they are.
  std::vector<std::string> split_args;
  bool own = true;
  for (const auto& arg : args) {
    own = own && arg != "--";
    if (own && arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.back() == '=' && arg.find('=') == arg.size() - 1) {
      split_args.push_back(arg.substr(0, arg.size() - 1));
      split_args.emplace_back();
    } else {
      split_args.push_back(arg);
    }
  }
  std::vector<std::string> reversed(split_args.rbegin(), split_args.rend());  // CLI11 reads from the back
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw;  // only where CLI11's own help flag was set again (collbench's commands)
  } catch (const CLI::ExtrasError&) {
    // CLI11 lists them last to first; say them as they were typed.
    const std::vector<std::string> extras = app_->remaining(true);
    std::string joined;
    for (const auto& extra : extras) joined += (joined.empty() ? "'" : " '") + extra + "'";  // quoted: '' shows
    throw UsageError(std::string(extras.size() > 1 ? "unexpected arguments: " : "unexpected argument: ") + joined + " (see --help)");
  } catch (const CLI::ParseError& error) {
    std::string message = error.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    // CLI11 says "samples was given a disallowed flag override" for --samples=yes.
    const std::string flag_given_value = " was given a disallowed flag override";
    const auto suffix = message.rfind(flag_given_value);
    if (suffix != std::string::npos && suffix + flag_given_value.size() == message.size()) {
      message = "--" + message.substr(0, suffix) + " takes no value";
    }
    throw UsageError(message + " (see --help)");
  }
}

void start_section(CLI::App& app, const std::string& title) { app.option_defaults()->group(title); }

CLI::Option* add_value(CLI::App& app, const std::string& names, const std::string& value_name, const std::string& help,
                       ValueHandler apply) {
  const std::string shown = display_name(names);
  auto* option = app.add_option_function<std::string>(
      names, [apply = std::move(apply), shown](const std::string& value) { apply(value, shown); }, help);
  // Applied as read: the command-line order decides, as in nccl-tests.
  return option->type_name(value_name)->trigger_on_parse();
}

CLI::Option* add_flag(CLI::App& app, const std::string& names, const std::string& help, bool& target) {
  CLI::Option* option = app.add_flag(names, target, help)->disable_flag_override();  // "--samples=no" is an error, not false
  record_as(app, option, record_key(*option), target);
  return option;
}

CLI::Option* add_real(CLI::App& app, const std::string& names, const std::string& value_name, const std::string& help,
                      double& target, double lowest, double highest) {
  CLI::Option* option = add_value(app, names, value_name, help, [&target, lowest, highest](const std::string& value, const std::string& flag) {
    target = parse_real(value, flag, lowest, highest);
  });
  record_as(app, option, record_key(*option), target);
  return option;
}

CLI::Option* add_text(CLI::App& app, const std::string& names, const std::string& value_name, const std::string& help,
                      std::string& target) {
  CLI::Option* option = add_value(app, names, value_name, help, [&target, value_name](const std::string& value, const std::string& flag) {
    if (value.empty()) throw UsageError(flag + " expects a " + value_name + ", got an empty value");
    target = value;
  });
  record_as(app, option, record_key(*option), target);
  return option;
}

void SweepFlags::exclude(CLI::Option* list) const {
  for (CLI::Option* bound : {min, max, step, factor}) list->excludes(bound);
}

SweepFlags add_size_sweep(CLI::App& app, SizeSweep& sweep, const SweepHelp& help) {
  SweepFlags flags;
  const std::string& unit = help.value_name;
  flags.min = add_value(app, "-b,--minbytes", unit, help.min,
                        [&sweep](const std::string& value, const std::string& flag) { sweep.min_bytes = parse_size(value, flag); });
  flags.max = add_value(app, "-e,--maxbytes", unit, help.max,
                        [&sweep](const std::string& value, const std::string& flag) { sweep.max_bytes = parse_size(value, flag); });
  flags.step = add_value(app, "-i,--stepbytes", unit, help.step, [&sweep](const std::string& value, const std::string& flag) {
    sweep.step_bytes = parse_size(value, flag);
    sweep.step_factor = 0;  // additive steps, also where the program's default sweep multiplies
  });
  flags.factor = add_value(app, "-f,--stepfactor", "X", help.factor, [&sweep](const std::string& value, const std::string& flag) {
    sweep.step_factor = parse_real(value, flag, 1.0, 1e6);
    if (!(sweep.step_factor > 1.0)) throw UsageError(flag + " must be greater than 1, got '" + value + "'");
  });
  flags.step->excludes(flags.factor);  // additive or multiplicative, not both
  return flags;
}

CLI::Option* add_size_list(CLI::App& app, const SweepFlags& sweep, std::vector<std::uint64_t>& list, const std::string& help) {
  CLI::Option* option = add_value(app, "--sizes", "LIST", help,
                                  [&list](const std::string& value, const std::string& flag) { list = parse_size_list(value, flag); });
  sweep.exclude(option);
  return option;
}

}  // namespace collbench
