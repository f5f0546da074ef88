// collbench model predict: a fitted model priced at a world size, placement and link that may
// not have been measured, as a table, notes and plots.
#include <algorithm>
#include <string>

#include "core/printable.h"
#include "summarize/common/input_error.h"
#include "summarize/models/model_internal.h"

namespace collbench::summarize {

using model_detail::element_bytes_of;
using model_detail::fitted_time_us;
using model_detail::percentile;
using model_detail::piece_for;
using nlohmann::json;

void check_predict_options(const PredictOptions& options) {
  if (options.world_size < 1) throw InputError("model: --np must be at least 1");
  if (options.ranks_per_host < 0 || options.ranks_per_host > options.world_size) {
    throw InputError("model: --ranks-per-host must lie between 1 and --np");
  }
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  if (spans_hosts && options.world_size % options.ranks_per_host != 0) {
    throw InputError("model: --np " + std::to_string(options.world_size) + " is not a multiple of --ranks-per-host " +
                     std::to_string(options.ranks_per_host) + " (every host holds as many ranks)");
  }
  if ((options.inter_latency_us || options.inter_bandwidth_gbps) && !spans_hosts) {
    throw InputError("model: --inter-latency and --inter-bandwidth need ranks on several hosts (--ranks-per-host below --np)");
  }
}

SeriesPredictor::SeriesPredictor(const SeriesModel& series, const PredictOptions& options) : series_(series), options_(options) {
  check_predict_options(options);
  const int p = options.world_size;
  spans_hosts_ = options.ranks_per_host > 0 && options.ranks_per_host < p;
  const int hosts = spans_hosts_ ? p / options.ranks_per_host : 1;
  for (const auto& world : series.per_world_size) {
    fitted_largest_world_ = std::max(fitted_largest_world_, world.world_size);
    if (world.world_size == p && world.hosts == hosts) same_world_ = &world;
  }
  if (options.inter_latency_us || options.inter_bandwidth_gbps) same_world_ = nullptr;
  if (!series.across && !same_world_) {
    throw InputError("model: " + describe_key(series.key) + " was fitted at world size " + std::to_string(fitted_largest_world_) +
                     " only: no world sizes to extrapolate from (fit reports of two world sizes or more)");
  }
  if (series.across) {
    forms_ = algorithm_forms(series.key.front().second);
    for (std::size_t i = 0; i < forms_.size(); ++i) {
      if (forms_[i].name == series.across->form) form_index_ = static_cast<int>(i);
    }
    element_bytes_ = element_bytes_of(series.key[3].second);
    if (form_index_ >= 0) coefficients_ = coefficients_at(forms_[static_cast<std::size_t>(form_index_)]);
  }
}

StepCoefficients SeriesPredictor::coefficients_at(const AlgorithmForm& form) const {
  const int p = options_.world_size;
  return step_coefficients(form, block_placement(p, spans_hosts_ ? options_.ranks_per_host : 0), std::stoi(series_.key[5].second),
                           series_.time_aggregation == "mean");
}

Prediction SeriesPredictor::at(std::uint64_t bytes) const {
  const double m = static_cast<double>(bytes);
  Prediction out;
  if (same_world_) {
    // Measured at this world size and placement: the piece holding this size (the nearest at the ends).
    const HockneyPiece* piece = &piece_for(*same_world_, bytes);
    const auto hockney = [m](double alpha_us, double beta_gbps) { return alpha_us + m / (beta_gbps * 1e3); };
    out.from_world_size_fit = true;
    out.latency_us = piece->alpha_us.value;
    out.bandwidth_us = m / (piece->beta_gbps.value * 1e3);
    out.time_us = out.latency_us + out.bandwidth_us;
    const double a = hockney(piece->alpha_us.low, piece->beta_gbps.high), b = hockney(piece->alpha_us.high, piece->beta_gbps.low);
    out.low_us = std::min(a, b);
    out.high_us = std::max(a, b);
  } else if (form_index_ >= 0) {
    const AcrossWorldSizes& across = *series_.across;
    const int p = options_.world_size;
    const AlgorithmForm& form = forms_[static_cast<std::size_t>(form_index_)];
    // What Open MPI runs at this count, and the protocol segment its message per step falls in.
    const AlgorithmForm& run = form_run_at(form, forms_, series_.key[2].second, p, element_bytes_ > 0 ? m / element_bytes_ : 0);
    const StepCoefficients coefficients = run.name == form.name ? coefficients_ : coefficients_at(run);
    const double step_bytes = step_message_share(run, p) * m;
    std::size_t segment = 0;
    while (segment < across.larger_messages.size() && step_bytes > static_cast<double>(across.larger_messages[segment].above_step_bytes)) {
      ++segment;
    }
    // The link between hosts: the fitted one, else the one within a host (not measured), and the
    // options replace either parameter. --inter-latency replaces the first segment's alpha; the
    // others keep their ratio to it (a rendezvous step's alpha is a number of crossings of the
    // same link, so it scales with its delay).
    const auto cost = [&](const BootstrapDraw& first, const BootstrapDraw& here) {
      double inter_alpha = here.inter_alpha_us, inter_beta = here.inter_beta_gbps;
      double first_inter_alpha = first.inter_alpha_us;
      if (!across.inter) {
        inter_alpha = here.alpha_us;
        inter_beta = here.beta_gbps;
        first_inter_alpha = first.alpha_us;
      }
      if (options_.inter_latency_us) {
        inter_alpha = first_inter_alpha > 0 ? inter_alpha * *options_.inter_latency_us / first_inter_alpha : *options_.inter_latency_us;
      }
      if (options_.inter_bandwidth_gbps) inter_beta = *options_.inter_bandwidth_gbps;
      return cost_of(coefficients, m, here.alpha_us, here.beta_gbps, inter_alpha, inter_beta);
    };
    const auto central_of = [&](const ParameterInterval& alpha, const ParameterInterval& beta, const std::optional<LinkParameters>& inter) {
      return BootstrapDraw{alpha.value, beta.value, inter ? inter->alpha_us.value : 0, inter ? inter->beta_gbps.value : 0};
    };
    const BootstrapDraw first = central_of(across.alpha_us, across.beta_gbps, across.inter);
    const ProtocolSegment* larger = segment == 0 ? nullptr : &across.larger_messages[segment - 1];
    const BootstrapDraw here = larger ? central_of(larger->alpha_us, larger->beta_gbps, larger->inter) : first;
    const LinkCost central = cost(first, here);
    out.time_us = central.time_us;
    out.latency_us = central.latency_us;
    out.bandwidth_us = central.bandwidth_us;
    std::vector<double> draws;
    const std::size_t count = larger ? std::min(across.bootstrap.size(), larger->bootstrap.size()) : across.bootstrap.size();
    for (std::size_t d = 0; d < count; ++d) draws.push_back(cost(across.bootstrap[d], larger ? larger->bootstrap[d] : across.bootstrap[d]).time_us);
    out.low_us = draws.empty() ? out.time_us : percentile(draws, 0.025);
    out.high_us = draws.empty() ? out.time_us : percentile(draws, 0.975);
  }
  std::vector<std::string> labels;
  if (options_.world_size > 2 * fitted_largest_world_) labels.push_back("ranks");
  if (bytes < series_.smallest_bytes || bytes > series_.largest_bytes) labels.push_back("size");
  if (options_.inter_latency_us || options_.inter_bandwidth_gbps) labels.push_back("link");
  if (spans_hosts_ && !same_world_ && series_.across && !series_.across->inter &&
      !(options_.inter_latency_us && options_.inter_bandwidth_gbps)) {
    labels.push_back("hosts");
  }
  for (const auto& label : labels) out.extrapolated += (out.extrapolated.empty() ? "" : "+") + label;
  return out;
}

std::vector<std::string> SeriesPredictor::notes() const {
  const std::string name = describe_key(series_.key);
  std::vector<std::string> notes;
  if (same_world_) {
    notes.push_back(name + ": measured at " + std::to_string(options_.world_size) + " ranks on " + std::to_string(same_world_->hosts) +
                    " host(s): its own Hockney fit");
    return notes;
  }
  const AcrossWorldSizes& across = *series_.across;
  notes.push_back(name + ": " + across.form + " cost form" + (across.chosen_by_fit ? " (chosen by fit)" : "") +
                  ", fitted from world sizes up to " + std::to_string(fitted_largest_world_));
  for (const auto& segment : across.larger_messages) {
    notes.push_back(name + ": messages per step above " + std::to_string(segment.above_step_bytes) +
                    " bytes are priced with the alpha and beta fitted above that protocol breakpoint");
  }
  if (across.form == "ring" && model_detail::runs_ompi_ring(series_.key[2].second)) {
    notes.push_back(name + ": below one element per rank Open MPI's ring runs recursive doubling, and so does the model");
  }
  if (options_.world_size > 2 * fitted_largest_world_) {
    notes.push_back(name + ": " + std::to_string(options_.world_size) + " ranks is far outside the fitted world sizes (up to " +
                    std::to_string(fitted_largest_world_) + "): the interval covers the fit's noise, not the model's form");
  }
  if (!spans_hosts_) return notes;
  const auto link = [](double alpha_us, double beta_gbps) {
    return "alpha " + formatted("%.3g", alpha_us) + " us, beta " + formatted("%.3g", beta_gbps) + " GB/s";
  };
  std::string inter = across.inter ? "fitted " + link(across.inter->alpha_us.value, across.inter->beta_gbps.value)
                                   : "not measured (no report spanned hosts): the intra-host fit stands in";
  if (options_.inter_latency_us) inter += "; alpha replaced by --inter-latency " + formatted("%.6g", *options_.inter_latency_us) + " us";
  if (options_.inter_bandwidth_gbps) {
    inter += "; beta replaced by --inter-bandwidth " + formatted("%.6g", *options_.inter_bandwidth_gbps) + " GB/s";
  }
  notes.push_back(name + ": between hosts " + inter + "; within a host " +
                  (across.intra_measured ? "fitted " + link(across.alpha_us.value, across.beta_gbps.value)
                                         : std::string("not measured: the inter-host fit stands in")));
  notes.push_back(name + ": " + std::to_string(options_.ranks_per_host) + " consecutive ranks per host; " +
                  formatted("%.0f", coefficients_.intra_steps) + " intra-host and " + formatted("%.0f", coefficients_.inter_steps) +
                  " inter-host steps; ranks of one host that send across at once share its link");
  return notes;
}

namespace {

// The sizes to predict: the options', else the fitted range in powers of two.
std::vector<std::uint64_t> prediction_sizes(const SeriesModel& series, const PredictOptions& options) {
  std::vector<std::uint64_t> sizes = options.sizes;
  if (sizes.empty()) {
    for (std::uint64_t bytes = series.smallest_bytes; bytes && bytes <= series.largest_bytes; bytes *= 2) sizes.push_back(bytes);
  }
  return sizes;
}

std::string world_words(const WorldSizeFit& world) {
  return std::to_string(world.world_size) + " ranks, " + std::to_string(world.hosts) + (world.hosts == 1 ? " host" : " hosts");
}

}  // namespace

std::vector<ModelPlot> model_plots(const Model& model, const PredictOptions& options) {
  check_predict_options(options);
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  std::vector<ModelPlot> plots;
  for (const auto& series : model.series) {
    const SeriesPredictor predictor(series, options);
    ModelPlot plot;
    plot.title = describe_key(series.key);
    plot.predicted.title = "predicted " + std::to_string(options.world_size) + " ranks" +
                           (spans_hosts ? ", " + std::to_string(options.ranks_per_host) + " per host" : "");
    for (const std::uint64_t bytes : prediction_sizes(series, options)) {
      const Prediction prediction = predictor.at(bytes);
      plot.predicted.sizes.push_back(bytes);
      plot.predicted.time_us.push_back(prediction.time_us);
      plot.predicted.low_us.push_back(prediction.low_us);
      plot.predicted.high_us.push_back(prediction.high_us);
    }
    for (const auto& world : series.per_world_size) {
      plot.measured.push_back({"measured " + world_words(world), world.measured});
      // The fit drawn over its own sizes (the measured ones, or its pieces' ends in older files).
      PlotSeries fitted{"fit " + world_words(world), {}};
      std::vector<std::uint64_t> sizes;
      for (const auto& point : world.measured) sizes.push_back(point.first);
      if (sizes.empty()) {
        for (const auto& piece : world.pieces) {
          sizes.push_back(piece.from_bytes);
          sizes.push_back(piece.to_bytes);
        }
      }
      for (const std::uint64_t bytes : sizes) fitted.points.emplace_back(bytes, fitted_time_us(world, bytes));
      plot.fitted.push_back(fitted);
    }
    plots.push_back(std::move(plot));
  }
  return plots;
}

Document predict_document(const Model& model, const PredictOptions& options) {
  check_predict_options(options);
  const bool spans_hosts = options.ranks_per_host > 0 && options.ranks_per_host < options.world_size;
  Document document;
  Table table;
  table.title = "Predicted at " + std::to_string(options.world_size) + " ranks" +
                (spans_hosts ? ", " + std::to_string(options.ranks_per_host) + " per host" : "");
  table.group_columns = {"series"};
  table.columns = {{"bytes"}, {"time_us", 2}, {"low_us", 2}, {"high_us", 2}, {"busbw_gbps", 3}, {"dominant"}, {"extrapolated"}};
  for (const auto& series : model.series) {
    const SeriesPredictor predictor(series, options);
    const int p = options.world_size;
    const std::vector<std::uint64_t> sizes = prediction_sizes(series, options);
    Table::Group group{{describe_key(series.key)}, {}};
    for (std::uint64_t bytes : sizes) {
      const Prediction prediction = predictor.at(bytes);
      const double algbw_gbps = static_cast<double>(bytes) / prediction.time_us / 1e3;
      group.rows.push_back({bytes, prediction.time_us, prediction.low_us, prediction.high_us,
                            p > 1 ? json(algbw_gbps * model_detail::bus_factor_at(series.bus_factor, p)) : json(nullptr),
                            prediction.latency_us >= prediction.bandwidth_us ? "latency" : "bandwidth",
                            prediction.extrapolated.empty() ? "no" : prediction.extrapolated});
    }
    table.groups.push_back(group);
    for (const auto& note : predictor.notes()) document.notes.push_back(note);
  }
  document.tables.push_back(table);
  return document;
}

}  // namespace collbench::summarize
