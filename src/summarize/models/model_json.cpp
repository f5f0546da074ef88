// collbench model's file: the fitted model as JSON, and read back with every field checked.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "summarize/common/input_error.h"
#include "summarize/models/model_internal.h"

namespace collbench::summarize {
namespace {

using nlohmann::json;

constexpr int kModelVersion = 2;  // 2: protocol segments across world sizes, the rows' time aggregation

json interval_json(const ParameterInterval& interval) { return {interval.value, interval.low, interval.high}; }
ParameterInterval interval_from(const json& value, const std::string& what) {
  if (!value.is_array() || value.size() != 3) throw InputError(what + ": expected [value, low, high]");
  for (std::size_t i = 0; i < 3; ++i) {
    if (!value[i].is_number() || !std::isfinite(value[i].get<double>()) || value[i].get<double>() < 0) {
      throw InputError(what + ": expected three non-negative numbers");
    }
  }
  return {value[0].get<double>(), value[1].get<double>(), value[2].get<double>()};
}

// One set of fitted levels as the model file holds it: alpha and beta, the link between hosts
// where it was fitted, and the bootstrap draws (four numbers each with that link, else two).
json levels_json(const ParameterInterval& alpha_us, const ParameterInterval& beta_gbps,
                 const std::optional<LinkParameters>& inter, const std::vector<BootstrapDraw>& bootstrap) {
  json draws = json::array();
  for (const auto& draw : bootstrap) {
    draws.push_back(inter ? json{draw.alpha_us, draw.beta_gbps, draw.inter_alpha_us, draw.inter_beta_gbps}
                          : json{draw.alpha_us, draw.beta_gbps});
  }
  json out = {{"alpha_us", interval_json(alpha_us)}, {"beta_gbps", interval_json(beta_gbps)}, {"bootstrap", draws}};
  if (inter) {
    out["inter_alpha_us"] = interval_json(inter->alpha_us);
    out["inter_beta_gbps"] = interval_json(inter->beta_gbps);
  }
  return out;
}

}  // namespace

json model_json(const Model& model) {
  json series = json::array();
  for (const auto& one : model.series) {
    json key = json::object();
    for (const auto& [name, value] : one.key) key[name] = value;
    json worlds = json::array();
    for (const auto& world : one.per_world_size) {
      json pieces = json::array();
      for (const auto& piece : world.pieces) {
        pieces.push_back({{"from_bytes", piece.from_bytes}, {"to_bytes", piece.to_bytes}, {"alpha_us", interval_json(piece.alpha_us)},
                          {"beta_gbps", interval_json(piece.beta_gbps)}, {"points", piece.points},
                          {"rms_relative_error", piece.rms_relative_error}});
      }
      // (size, time) pairs as [bytes, time] arrays.
      worlds.push_back(
          {{"world_size", world.world_size}, {"hosts", world.hosts}, {"pieces", pieces}, {"measured", json(world.measured)}});
      if (!world.library_estimates.empty()) worlds.back()["library_estimates"] = world.library_estimates;
    }
    json entry = {{"key", key}, {"bus_factor", one.bus_factor}, {"time_aggregation", one.time_aggregation}, {"smallest_bytes", one.smallest_bytes}, {"largest_bytes", one.largest_bytes},
                  {"per_world_size", worlds}, {"notes", one.notes}};
    if (one.across) {
      const AcrossWorldSizes& fit = *one.across;
      json across = levels_json(fit.alpha_us, fit.beta_gbps, fit.inter, fit.bootstrap);
      across.update({{"form", fit.form}, {"chosen_by_fit", fit.chosen_by_fit}, {"intra_measured", fit.intra_measured},
                     {"rms_relative_error", fit.rms_relative_error}});
      json segments = json::array();
      for (const auto& segment : fit.larger_messages) {
        segments.push_back(levels_json(segment.alpha_us, segment.beta_gbps, segment.inter, segment.bootstrap));
        segments.back()["above_step_bytes"] = segment.above_step_bytes;
      }
      if (!segments.empty()) across["larger_messages"] = segments;
      entry["across_world_sizes"] = across;
    }
    series.push_back(entry);
  }
  return {{"collbench_model", kModelVersion}, {"figure", model.figure}, {"machine", model.machine}, {"sources", model.sources}, {"series", series}};
}

namespace {

// model_from_json's parts, one level of the file each; every error names the file and what is
// wrong with it.
class ModelFileReader {
 public:
  explicit ModelFileReader(const std::string& path) : path_(path) {}

  InputError bad(const std::string& why) const { return InputError(path_ + ": not a collbench model (" + why + ")"); }

  // A byte count must be a whole number of at least 0: nlohmann's get<uint64_t> would wrap -5 into
  // 2^64 - 5 and 1.5 into 1 without a word.
  std::uint64_t bytes_at(const json& value, const char* name) const {
    if (!value.is_number_unsigned()) throw bad(std::string(name) + " is not a byte count");
    return value.get<std::uint64_t>();
  }

  SeriesModel series(const json& entry) const {
    SeriesModel series;
    for (const char* name : {"benchmark", "backend", "algorithm", "dtype", "op", "root", "placement"}) {
      series.key.emplace_back(name, entry.at("key").at(name).get<std::string>());
    }
    const std::string& root = series.key[5].second;
    char* end = nullptr;
    const long root_rank = std::strtol(root.c_str(), &end, 10);
    if (root.empty() || *end != '\0' || root_rank < -1 || root_rank > std::numeric_limits<int>::max()) throw bad("root must be a rank or -1");
    series.bus_factor = entry.at("bus_factor").get<std::string>();
    series.time_aggregation = entry.value("time_aggregation", std::string("mean"));
    series.smallest_bytes = bytes_at(entry.at("smallest_bytes"), "smallest_bytes");
    series.largest_bytes = bytes_at(entry.at("largest_bytes"), "largest_bytes");
    for (const auto& world : entry.at("per_world_size")) series.per_world_size.push_back(world_fit(world));
    if (entry.contains("across_world_sizes")) series.across = across(entry.at("across_world_sizes"), series.key.front().second);
    return series;
  }

 private:
  WorldSizeFit world_fit(const json& world) const {
    WorldSizeFit fit;
    fit.world_size = world.at("world_size").get<int>();
    if (fit.world_size < 1) throw bad("world_size below 1");
    fit.hosts = world.value("hosts", 1);
    if (fit.hosts < 1 || fit.hosts > fit.world_size) throw bad("hosts outside 1 to world_size");
    for (const auto& piece : world.at("pieces")) {
      HockneyPiece one;
      one.from_bytes = bytes_at(piece.at("from_bytes"), "from_bytes");
      one.to_bytes = bytes_at(piece.at("to_bytes"), "to_bytes");
      one.alpha_us = interval_from(piece.at("alpha_us"), path_ + ": alpha_us");
      one.beta_gbps = interval_from(piece.at("beta_gbps"), path_ + ": beta_gbps");
      if (!(one.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
      fit.pieces.push_back(one);
    }
    if (fit.pieces.empty()) throw bad("a world size without pieces");
    // [bytes, time above 0] points under `key`, into `points`; `what` names one in the error.
    const auto read_points = [&](const char* key, const char* what, auto& points) {
      for (const auto& point : world.value(key, json::array())) {
        if (!point.is_array() || point.size() != 2 || !point[0].is_number_unsigned() || !point[1].is_number() ||
            !(point[1].get<double>() > 0)) {
          throw bad(std::string(what) + " is not [bytes, time above 0]");
        }
        points.emplace_back(point[0].get<std::uint64_t>(), point[1].get<double>());
      }
    };
    read_points("measured", "a measured point", fit.measured);
    read_points("library_estimates", "a library estimate", fit.library_estimates);
    return fit;
  }

  AcrossWorldSizes across(const json& across, const std::string& benchmark) const {
    AcrossWorldSizes fit;
    fit.form = across.at("form").get<std::string>();
    fit.chosen_by_fit = across.at("chosen_by_fit").get<bool>();
    fit.alpha_us = interval_from(across.at("alpha_us"), path_ + ": alpha_us");
    fit.beta_gbps = interval_from(across.at("beta_gbps"), path_ + ": beta_gbps");
    if (!(fit.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
    fit.intra_measured = across.value("intra_measured", true);
    if (across.contains("inter_alpha_us") || across.contains("inter_beta_gbps")) {
      fit.inter = LinkParameters{interval_from(across.at("inter_alpha_us"), path_ + ": inter_alpha_us"),
                                 interval_from(across.at("inter_beta_gbps"), path_ + ": inter_beta_gbps")};
      if (!(fit.inter->beta_gbps.value > 0)) throw bad("inter_beta_gbps must be above 0");
    }
    fit.bootstrap = draws(across.at("bootstrap"), fit.inter.has_value());
    std::uint64_t previous_above = 0;
    for (const auto& item : across.value("larger_messages", json::array())) {
      const std::uint64_t above = bytes_at(item.at("above_step_bytes"), "above_step_bytes");
      if (above <= previous_above && !fit.larger_messages.empty()) throw bad("larger_messages out of size order");
      previous_above = above;
      fit.larger_messages.push_back(larger_messages_segment(item, above, fit.inter.has_value()));
    }
    const auto forms = algorithm_forms(benchmark);
    if (std::none_of(forms.begin(), forms.end(), [&](const AlgorithmForm& form) { return form.name == fit.form; })) {
      throw bad("unknown form '" + fit.form + "' for " + benchmark);
    }
    return fit;
  }

  ProtocolSegment larger_messages_segment(const json& item, std::uint64_t above_step_bytes, bool inter) const {
    ProtocolSegment segment;
    segment.above_step_bytes = above_step_bytes;
    segment.alpha_us = interval_from(item.at("alpha_us"), path_ + ": alpha_us");
    segment.beta_gbps = interval_from(item.at("beta_gbps"), path_ + ": beta_gbps");
    if (!(segment.beta_gbps.value > 0)) throw bad("beta_gbps must be above 0");
    // Every segment has the levels the first one has: a prediction picks any of them.
    if (item.contains("inter_alpha_us") != inter) throw bad("a segment without the first segment's levels");
    if (inter) {
      segment.inter = LinkParameters{interval_from(item.at("inter_alpha_us"), path_ + ": inter_alpha_us"),
                                     interval_from(item.at("inter_beta_gbps"), path_ + ": inter_beta_gbps")};
      if (!(segment.inter->beta_gbps.value > 0)) throw bad("inter_beta_gbps must be above 0");
    }
    segment.bootstrap = draws(item.at("bootstrap"), inter);
    return segment;
  }

  std::vector<BootstrapDraw> draws(const json& list, bool inter) const {
    const std::size_t width = inter ? 4 : 2;
    std::vector<BootstrapDraw> out;
    for (const auto& draw : list) {
      if (!draw.is_array() || draw.size() != width) throw bad("a bootstrap draw of " + std::to_string(width) + " numbers expected");
      BootstrapDraw one{draw.at(0).get<double>(), draw.at(1).get<double>(), 0, 0};
      if (width == 4) {
        one.inter_alpha_us = draw.at(2).get<double>();
        one.inter_beta_gbps = draw.at(3).get<double>();
      }
      const auto finite = [](double value) { return std::isfinite(value); };
      if (!(one.beta_gbps > 0) || !(one.alpha_us >= 0) || !finite(one.alpha_us) || !finite(one.beta_gbps) ||
          (width == 4 && (!(one.inter_beta_gbps > 0) || !(one.inter_alpha_us >= 0) || !finite(one.inter_alpha_us) ||
                          !finite(one.inter_beta_gbps)))) {
        throw bad("a bootstrap draw out of range");
      }
      out.push_back(one);
    }
    return out;
  }

  const std::string& path_;
};

}  // namespace

Model model_from_json(const json& document, const std::string& path) {
  const ModelFileReader reader(path);
  // Version 1 files (one alpha and beta for every size) read as version 2 files without segments.
  if (!document.is_object() || !document.contains("collbench_model") || !document.at("collbench_model").is_number_integer() ||
      document.at("collbench_model").get<int>() < 1 || document.at("collbench_model").get<int>() > kModelVersion) {
    throw reader.bad("no \"collbench_model\": 1 or " + std::to_string(kModelVersion));
  }
  Model model;
  try {
    model.figure = document.at("figure").get<std::string>();
    model.machine = document.at("machine").get<std::string>();
    for (const auto& entry : document.at("series")) model.series.push_back(reader.series(entry));
  } catch (const json::exception& e) {
    throw reader.bad(e.what());
  }
  if (model.series.empty()) throw reader.bad("no series");
  return model;
}

Model read_model_file(const std::string& path) {
  // A fit of many series is tens of KB; JSON may be one line, so only the size is capped.
  const std::string text = read_input(path, {"model file", 64u << 20, 64u << 20});
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception&) {
    throw InputError(path + ": not JSON");
  }
  return model_from_json(document, path);
}

}  // namespace collbench::summarize
