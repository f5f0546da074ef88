#include "workloads/ddp/compute_profile.h"


#include "core/error.h"
#include "core/flag_values.h"
#include "core/input_file.h"
#include "core/printable.h"

namespace collbench::ddp {
namespace {

constexpr double kMaxLayerMicroseconds = 1e9;

[[noreturn]] void bad_profile(const std::string& what, const std::string& problem) {
  throw UsageError("compute profile " + printable(what) + ": " + problem);
}

}  // namespace

ComputeProfile parse_compute_profile_csv(const std::string& text, const std::string& what, const Model& model) {
  ComputeProfile profile;
  profile.path = what;
  profile.forward_us.assign(model.layers.size(), 0);
  profile.backward_us.assign(model.layers.size(), 0);
  std::vector<bool> seen(model.layers.size(), false);
  for_each_csv_row(text, "layer,", [&](int number, const std::vector<std::string>& fields, const std::string&) {
    const std::string where = "line " + std::to_string(number);
    if (fields.size() != 3) bad_profile(what, where + ": expected layer,forward_us,backward_us");
    const int layer = model.find_layer(fields[0]);
    if (layer < 0) bad_profile(what, where + ": the model " + shown_name(model.name) + " has no layer " + shown_name(fields[0]));
    const auto index = static_cast<std::size_t>(layer);
    if (seen[index]) bad_profile(what, where + ": layer " + shown_name(fields[0]) + " appears twice");
    seen[index] = true;
    try {
      profile.forward_us[index] = parse_real(fields[1], where + " forward_us", 0, kMaxLayerMicroseconds);
      profile.backward_us[index] = parse_real(fields[2], where + " backward_us", 0, kMaxLayerMicroseconds);
    } catch (const UsageError& e) {
      bad_profile(what, e.what());
    }
    ++profile.layers_timed;
  });
  if (profile.layers_timed == 0) bad_profile(what, "has no layer,forward_us,backward_us line");
  return profile;
}

ComputeProfile load_compute_profile(const std::string& path, const Model& model) {
  // A profile is one line per layer: a few hundred KiB for the largest models there are.
  return parse_compute_profile_csv(read_input_file(path, {"compute profile", 16u << 20, 64u << 10}), path, model);
}

}  // namespace collbench::ddp
