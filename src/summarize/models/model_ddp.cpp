#include "summarize/models/model_ddp.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/dtype.h"
#include "core/printable.h"
#include "summarize/common/input_error.h"
#include "summarize/common/series.h"

namespace collbench::summarize {
namespace {

// DDP counts bucket bytes in the parameters' dtype (float32), whatever dtype the gradients travel in.
constexpr double kParameterBytes = 4;

// bucket_cap_mb as DDP reads it: int(mb * 1024 * 1024) bytes (as ddp/buckets.h).
double mib_bytes(double mib) { return std::floor(mib * 1024.0 * 1024.0); }

std::string mb_text(double mb) { return formatted("%g", mb); }

std::size_t gradient_element_bytes(const std::string& dtype, const std::string& where) {
  const auto parsed = parse_dtype(dtype);
  if (!parsed || (*parsed != DType::kFloat32 && *parsed != DType::kFloat16 && *parsed != DType::kBfloat16)) {
    throw InputError(where + ": gradient dtype '" + dtype + "' is not float32, float16 or bfloat16");
  }
  return dtype_info(*parsed).size_bytes;
}

// The buckets' ends, in float32 gradient bytes from the first gradient ready: the first bucket
// against its own cap, every later one against the bucket cap, the last holding what remains.
std::vector<double> bucket_ends(double gradient_bytes, double first_cap_bytes, double cap_bytes) {
  std::vector<double> ends;
  double end = std::min(gradient_bytes, std::max(first_cap_bytes, 1.0));
  ends.push_back(end);
  while (end < gradient_bytes) {
    end = std::min(gradient_bytes, end + std::max(cap_bytes, 1.0));
    ends.push_back(end);
  }
  return ends;
}

// The all_reduce series that costs a bucket of `dtype`: the same dtype (else float32, else any),
// then the report's backend, in-place (as DDP reduces its buckets), sum, and the default algorithm.
const SeriesModel* all_reduce_series(const Model& model, const std::string& dtype, const std::string& backend, const PredictOptions& link,
                                     std::string& why_not) {
  std::vector<std::pair<int, const SeriesModel*>> ranked;
  for (const auto& series : model.series) {
    const auto value = [&](const char* name) {
      for (const auto& [key, text] : series.key) {
        if (key == name) return text;
      }
      return std::string();
    };
    if (value("benchmark") != "all_reduce") continue;
    int score = value("dtype") == dtype ? 0 : value("dtype") == "float32" ? 100 : 200;
    score += value("backend") == backend ? 0 : 10;
    score += value("placement") == "in" ? 0 : 4;
    score += value("op") == "sum" || value("op") == "avg" ? 0 : 2;
    score += value("algorithm") == "default" ? 0 : 1;
    ranked.emplace_back(score, &series);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [score, series] : ranked) {
    try {
      SeriesPredictor check(*series, link);
      return series;
    } catch (const InputError& e) {
      if (why_not.empty()) why_not = e.what();
    }
  }
  if (ranked.empty()) why_not = "the model holds no all_reduce fit (DDP all-reduces its buckets: fit all_reduce reports)";
  return nullptr;
}

struct Chain {
  double finish_us = 0;  // from the start of the last backward pass
  double total_us = 0;
};

// Buckets all-reduced one after another, each from when it is ready.
Chain run_chain(const std::vector<double>& ready_us, const std::vector<double>& allreduce_us) {
  Chain chain;
  double free_at = 0;
  for (std::size_t i = 0; i < ready_us.size(); ++i) {
    free_at = std::max(free_at, ready_us[i]) + allreduce_us[i];
    chain.total_us += allreduce_us[i];
  }
  chain.finish_us = free_at;
  return chain;
}

// ddp_what_if's phases. What the report measured: gradient elements, compute per micro-step
// (means over rows) and the first bucket's cap.
struct MeasuredStep {
  double parameters = 0;
  double forward_us = 0, backward_us = 0;
  bool first_is_cap = true;
  double fixed_first_mb = 0;
};

MeasuredStep measured_step(const std::vector<report::DdpStepRow>& rows, const std::string& path) {
  MeasuredStep measured;
  for (const auto& row : rows) {
    if (row.buckets < 1 || row.allreduce_bytes == 0) {
      throw InputError(path + ": its rows record no bucket schedule (buckets, allreduce_bytes); record it again with this collbench's ddp_step_perf");
    }
    const double row_parameters = static_cast<double>(row.allreduce_bytes) / static_cast<double>(gradient_element_bytes(row.grad_dtype, path));
    if (measured.parameters > 0 && std::abs(row_parameters - measured.parameters) > 0.5) {
      throw InputError(path + ": its rows reduce different gradient sizes (" + std::to_string(static_cast<long long>(measured.parameters)) +
                       " and " + std::to_string(static_cast<long long>(row_parameters)) + " elements): one model per report");
    }
    measured.parameters = row_parameters;
    const double micro_steps = std::max(1, row.accumulate);
    measured.forward_us += row.forward_us / micro_steps;
    measured.backward_us += row.backward_compute_us / micro_steps;
    if (row.first_bucket_mb > 0 && row.first_bucket_mb != row.bucket_mb) {
      measured.first_is_cap = false;
      measured.fixed_first_mb = row.first_bucket_mb;
    }
  }
  const double row_count = static_cast<double>(rows.size());
  measured.forward_us /= row_count;
  measured.backward_us /= row_count;
  if (!(measured.forward_us + measured.backward_us > 0)) {
    throw InputError(path + ": its rows record no compute time (forward_us, backward_compute_us)");
  }
  return measured;
}

// The settings to cost: the options' lists, or the report's.
struct WhatIfSettings {
  std::vector<double> buckets_mb;
  std::vector<std::string> dtypes;
  std::vector<int> accumulations;
};

WhatIfSettings settings_to_cost(const std::vector<report::DdpStepRow>& rows, const DdpWhatIfOptions& options) {
  WhatIfSettings settings{options.bucket_mb, options.grad_dtypes, options.accumulate};
  const auto add_new = [](auto& list, const auto& value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
  };
  for (const auto& row : rows) {
    if (options.bucket_mb.empty()) add_new(settings.buckets_mb, row.bucket_mb);
    if (options.grad_dtypes.empty()) add_new(settings.dtypes, row.grad_dtype);
    if (options.accumulate.empty()) add_new(settings.accumulations, row.accumulate);
  }
  for (double mb : settings.buckets_mb) {
    if (!(mb > 0) || !std::isfinite(mb)) throw InputError("model ddp: --bucket-mb values must be above 0");
  }
  for (int accumulate : settings.accumulations) {
    if (accumulate < 1) throw InputError("model ddp: --accumulate values must be at least 1");
  }
  return settings;
}

// Where the report's buckets closed against where an even rate closes them: a note on the first
// row that differs.
void note_bucket_schedule(const std::vector<report::DdpStepRow>& rows, double gradient_bytes, std::vector<std::string>& notes) {
  for (const auto& row : rows) {
    const double first = row.first_bucket_mb > 0 ? row.first_bucket_mb : row.bucket_mb;
    const auto even = bucket_ends(gradient_bytes, mib_bytes(first), mib_bytes(row.bucket_mb)).size();
    if (static_cast<int>(even) != row.buckets) {
      notes.push_back("at bucket_mb " + mb_text(row.bucket_mb) + " the report formed " + std::to_string(row.buckets) +
                      " bucket(s), the even-rate schedule " + std::to_string(even) + " (the model's tensor sizes decide where buckets close)");
      return;
    }
  }
}

// The step at one world size, costed bucket by bucket: compute scaled to the per-rank batch, the
// buckets ready as the backward pass produces their gradients.
struct StepCosting {
  const MeasuredStep& measured;
  double compute_scale;           // per-rank compute against the measured run's
  double samples_per_micro_step;  // the job's
  double gradient_bytes;          // float32
  const std::vector<report::DdpStepRow>* measured_rows;  // the rows measured at this world size and placement, or nullptr
};

// Every (bucket_mb, accumulate) setting of one gradient dtype, costed by `predictor`.
void cost_dtype(const StepCosting& costing, const std::string& dtype, double element, const SeriesPredictor& predictor,
                const WhatIfSettings& settings, std::vector<DdpSetting>& out) {
  const MeasuredStep& measured = costing.measured;
  for (double mb : settings.buckets_mb) {
    const double first_mb = measured.first_is_cap ? mb : measured.fixed_first_mb;
    const std::vector<double> ends = bucket_ends(costing.gradient_bytes, mib_bytes(first_mb), mib_bytes(mb));
    std::vector<double> ready, central, low, high;
    double begin = 0;
    for (double end : ends) {
      const auto bytes = static_cast<std::uint64_t>(std::llround((end - begin) / kParameterBytes * element));
      const Prediction prediction = predictor.at(std::max<std::uint64_t>(bytes, 1));
      ready.push_back(measured.backward_us * costing.compute_scale * end / costing.gradient_bytes);
      central.push_back(prediction.time_us);
      low.push_back(prediction.low_us);
      high.push_back(prediction.high_us);
      begin = end;
    }
    const double backward = measured.backward_us * costing.compute_scale;
    const double compute = (measured.forward_us + measured.backward_us) * costing.compute_scale;
    const Chain chain = run_chain(ready, central);
    const double exposed = std::max(0.0, chain.finish_us - backward);
    for (int accumulate : settings.accumulations) {
      DdpSetting setting;
      setting.bucket_mb = mb;
      setting.grad_dtype = dtype;
      setting.accumulate = accumulate;
      setting.buckets = static_cast<int>(ends.size());
      setting.allreduce_us = chain.total_us;
      setting.exposed_comm_us = exposed;
      setting.step_us = accumulate * compute + exposed;
      setting.step_low_us = accumulate * compute + std::max(0.0, run_chain(ready, low).finish_us - backward);
      setting.step_high_us = accumulate * compute + std::max(0.0, run_chain(ready, high).finish_us - backward);
      setting.samples_per_s = costing.samples_per_micro_step * accumulate / (setting.step_us * 1e-6);
      if (costing.measured_rows) {
        for (const auto& row : *costing.measured_rows) {
          if (row.bucket_mb == mb && row.grad_dtype == dtype && row.accumulate == accumulate && row.overlap == "on") {
            setting.measured_step_us = row.time_us.mean;
          }
        }
      }
      out.push_back(setting);
    }
  }
}

}  // namespace

DdpWhatIf ddp_what_if(const Model& model, const report::Context& context, const std::vector<report::DdpStepRow>& rows,
                      const std::string& path, const DdpWhatIfOptions& options) {
  check_predict_options(options.link);
  if (rows.empty()) throw InputError(path + ": the ddp report has no rows");
  DdpWhatIf out;
  const int np = options.link.world_size;
  const int measured_world = context.world_size;
  const MeasuredStep measured = measured_step(rows, path);
  const report::DdpStepRow& first_row = rows.front();
  const bool strong = first_row.scaling == "strong";
  // Per-rank compute follows the per-rank batch: unchanged under weak scaling, divided among more
  // ranks under strong scaling.
  const double compute_scale = strong ? static_cast<double>(measured_world) / np : 1.0;
  const double samples_per_micro_step = strong ? first_row.batch : static_cast<double>(first_row.batch) * np;
  const double gradient_bytes = measured.parameters * kParameterBytes;
  const WhatIfSettings settings = settings_to_cost(rows, options);
  note_bucket_schedule(rows, gradient_bytes, out.notes);

  const bool spans_hosts = options.link.ranks_per_host > 0 && options.link.ranks_per_host < np;
  const int hosts = spans_hosts ? np / options.link.ranks_per_host : 1;
  const bool measured_here = np == measured_world && hosts == std::max<int>(1, static_cast<int>(context.hosts.size()));
  const StepCosting costing{measured, compute_scale, samples_per_micro_step, gradient_bytes, measured_here ? &rows : nullptr};
  std::map<std::string, std::string> series_used;
  std::vector<std::string> link_notes;
  for (const auto& dtype : settings.dtypes) {
    const double element = static_cast<double>(gradient_element_bytes(dtype, "model ddp: --grad-dtype"));
    std::string why_not;
    const SeriesModel* series = all_reduce_series(model, dtype, first_row.backend, options.link, why_not);
    if (!series) throw InputError("model ddp: " + why_not);
    const bool same_dtype = series->key[3].second == dtype;
    series_used[dtype] = describe_key(series->key) + (same_dtype ? "" : " (no " + dtype + " fit: costed per byte)");
    const SeriesPredictor predictor(*series, options.link);
    for (const auto& note : predictor.notes()) link_notes.push_back(note);
    cost_dtype(costing, dtype, element, predictor, settings, out.settings);
  }
  for (std::size_t i = 1; i < out.settings.size(); ++i) {
    if (out.settings[i].samples_per_s > out.settings[out.best].samples_per_s) out.best = i;
  }

  const std::string compute_text = formatted("forward %.1f us + backward %.1f us per micro-step", measured.forward_us * compute_scale,
                                             measured.backward_us * compute_scale);
  out.notes.insert(out.notes.begin(),
                   "measured (" + path + ", " + std::to_string(measured_world) + " ranks): " + compute_text +
                       (strong ? " (strong scaling: scaled to the per-rank batch at " + std::to_string(np) + " ranks)" : "") + ", " +
                       std::to_string(static_cast<long long>(measured.parameters)) + " gradient elements; first bucket " +
                       (measured.first_is_cap ? std::string("the bucket cap (torch 2.x with bucket_cap_mb given)")
                                              : mb_text(measured.fixed_first_mb) + " MiB"));
  for (const auto& [dtype, name] : series_used) out.notes.push_back(dtype + " buckets costed by " + name);
  for (const auto& note : link_notes) {
    if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end()) out.notes.push_back(note);
  }
  return out;
}

Document ddp_document(const DdpWhatIf& what_if, const DdpWhatIfOptions& options) {
  const PredictOptions& link = options.link;
  const bool spans_hosts = link.ranks_per_host > 0 && link.ranks_per_host < link.world_size;
  Document document;
  Table table;
  table.title = "DDP step predicted at " + std::to_string(link.world_size) + " ranks" +
                (spans_hosts ? ", " + std::to_string(link.ranks_per_host) + " per host" : "") + " (overlap on, as DDP)";
  table.columns = {{"bucket_mb"},    {"grad_dtype"},       {"accumulate"},    {"buckets"},          {"allreduce_us", 1}, {"exposed_us", 1},
                   {"step_us", 1},   {"step_low_us", 1},   {"step_high_us", 1}, {"samples_per_s", 1}, {"measured_step_us", 1}};
  Table::Group group;
  for (const auto& s : what_if.settings) {
    group.rows.push_back({mb_text(s.bucket_mb), s.grad_dtype, s.accumulate, s.buckets, s.allreduce_us, s.exposed_comm_us, s.step_us,
                          s.step_low_us, s.step_high_us, s.samples_per_s, report::json_or_null(s.measured_step_us)});
  }
  table.groups.push_back(group);
  document.tables.push_back(table);
  const DdpSetting& best = what_if.settings.at(what_if.best);
  document.notes.push_back(formatted("best: bucket_mb %s, grad_dtype %s, accumulate %d: %.1f samples/s, step %.1f us, %.1f us exposed",
                                     mb_text(best.bucket_mb).c_str(), best.grad_dtype.c_str(), best.accumulate, best.samples_per_s,
                                     best.step_us, best.exposed_comm_us));
  for (const auto& note : what_if.notes) document.notes.push_back(note);
  document.notes.push_back(
      "modelled: compute per micro-step as measured; accumulate-1 micro-steps without communication (no_sync); in the last, gradients "
      "ready at an even rate through the backward pass, buckets closing at their cap, each bucket all-reduced when ready and after the "
      "one before (one stream), so communication hides behind the rest of the backward pass; exposed = what runs past it");
  document.notes.push_back(
      "not modelled: the model's tensor sizes and per-layer backward times (not in the report), 16-bit conversion, the optimizer step, "
      "and communication slowing the compute it overlaps (shared cores on a CPU); step_low/high put every all-reduce at its interval's ends");
  document.extra["best"] = {{"bucket_mb", best.bucket_mb}, {"grad_dtype", best.grad_dtype}, {"accumulate", best.accumulate},
                            {"samples_per_s", best.samples_per_s}, {"step_us", best.step_us}, {"exposed_comm_us", best.exposed_comm_us}};
  return document;
}

}  // namespace collbench::summarize
