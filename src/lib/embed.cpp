// trnmodel::trnmodel_lib: the thin interface of <trnmodel/embed.hpp> over the header-only
// library, compiled once (the engine instantiated here for the lifecycle, metric-subset and
// comparison models), so that an embedder's files include only the standard library.
#include "trnmodel/embed.hpp"

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/throughput/profile_files.hpp"

namespace trnmodel::embed {

struct profiles::impl {
  profile_library library;
};

namespace {

profiles wrap(profile_library library) {
  return profiles(std::make_shared<const profiles::impl>(profiles::impl{std::move(library)}));
}

output_stats stats_of(const moments& m) { return {m.count, m.nan_count, m.mean, m.sd(), m.min, m.max}; }

ordered_json parsed_value(const std::string& path, const std::string& text) {
  try {
    return ordered_json::parse(text);
  } catch (const ordered_json::exception&) {
    trnmodel::detail::fail(path, "the new value is not JSON text: " + text);
  }
}

}  // namespace

profiles::profiles() : impl_(std::make_shared<const impl>()) {}

std::vector<std::string> profiles::names() const {
  std::vector<std::string> names;
  for (const auto& [name, doc] : impl_->library) names.push_back(name);
  return names;
}

bool profiles::contains(const std::string& name) const { return impl_->library.count(name) > 0; }

profiles profiles::with_file(const std::string& name, const std::string& file) const {
  std::ifstream in(file, std::ios::binary);
  if (!in) trnmodel::detail::fail(file, "cannot open the profile file");
  std::ostringstream text;
  text << in.rdbuf();
  ordered_json doc = trnmodel::detail::parse_strict_json(text.str(), file);
  platform_profile::from_json(doc, "profile " + name);
  profile_library library = impl_->library;
  library[name] = std::move(doc);
  return wrap(std::move(library));
}

profiles load_profiles(const std::string& dir) { return wrap(trnmodel::load_profiles(dir)); }

profiles detail::shipped_profiles_from(const char* configured_dir) {
  static std::mutex mutex;
  static std::map<std::string, profiles> read;
  const std::string dir = trnmodel::detail::directory_from("TRNMODEL_PROFILES_DIR", configured_dir);
  const std::lock_guard<std::mutex> lock(mutex);
  const auto it = read.find(dir);
  if (it != read.end()) return it->second;
  return read.emplace(dir, load_profiles(dir)).first->second;
}

scenario scenario::from_file(const std::string& file, const profiles& library) {
  return scenario(
      std::make_shared<const trnmodel::scenario>(trnmodel::scenario::from_file(file, library.internals().library)));
}

scenario scenario::from_text(const std::string& json_text, const profiles& library) {
  return scenario(std::make_shared<const trnmodel::scenario>(
      trnmodel::scenario::from_text(json_text, library.internals().library)));
}

scenario scenario::updated(const std::vector<std::pair<std::string, std::string>>& changes_json) const {
  std::vector<std::pair<std::string, ordered_json>> changes;
  for (const auto& [path, text] : changes_json) changes.emplace_back(path, parsed_value(path, text));
  return scenario(std::make_shared<const trnmodel::scenario>(impl_->updated(changes)));
}

scenario scenario::updated(const std::string& path, double value) const {
  trnmodel::detail::check_finite(path, value);
  return scenario(std::make_shared<const trnmodel::scenario>(impl_->updated({{path, ordered_json(value)}})));
}

std::string scenario::to_json(int indent) const { return impl_->to_json().dump(indent); }
std::string scenario::name() const { return impl_->name(); }
std::string scenario::mode() const { return name_of_choice(impl_->mode()); }
std::string scenario::profile_name() const { return impl_->profile() ? impl_->profile()->name : std::string(); }

std::vector<std::string> scenario::unknown_inputs() const {
  const lifecycle_model model(*impl_);
  std::vector<std::string> list;
  for (std::size_t k = 0; k < model.unknown_inputs().size(); ++k)
    list.push_back(model.unknown_inputs()[k] + " (" + model.unknown_reasons()[k] + ")");
  return list;
}
std::vector<std::string> scenario::unknown_metrics() const { return lifecycle_model(*impl_).unknown_metrics(); }
std::vector<std::string> scenario::uncertain_inputs() const { return lifecycle_model(*impl_).uncertain_inputs(); }

const std::vector<std::string>& result::names() const { return impl_->names(); }
std::uint64_t result::samples() const { return impl_->samples(); }
bool result::kept() const { return impl_->kept(); }
std::size_t result::index(const std::string& name) const { return impl_->index(name); }
output_stats result::stats(const std::string& name) const { return stats_of(impl_->stats(name)); }
output_stats result::stats(std::size_t output) const { return stats_of(impl_->stats(output)); }
double result::quantile(const std::string& name, double probability) const {
  return impl_->quantile(name, probability);
}
double result::quantile(std::size_t output, double probability) const { return impl_->quantile(output, probability); }
std::vector<double> result::quantiles(const std::string& name, const std::vector<double>& probabilities) const {
  return impl_->quantiles(name, probabilities);
}
std::vector<double> result::values(const std::string& name) const {
  const auto column = impl_->values(name);
  return std::vector<double>(column.data(), column.data() + column.size());
}
summary_row result::summary(const std::string& name) const { return impl_->summary(name); }
std::vector<summary_row> result::summary() const { return impl_->summary(); }

std::vector<std::string> metric_names() { return trnmodel::detail::metric_name_list(); }

result simulate(const scenario& s, const run_options& options, bool allow_unknown) {
  return result(std::make_shared<const run_result>(trnmodel::simulate(s.internals(), options, allow_unknown)));
}

result simulate(const scenario& s, const run_options& options, const std::vector<std::string>& metrics,
                bool allow_unknown) {
  return result(std::make_shared<const run_result>(trnmodel::simulate(s.internals(), options, metrics, allow_unknown)));
}

comparison compare(const scenario& a, const scenario& b, const std::string& metric, const run_options& options) {
  auto r = sensitivity::compare(a.internals(), b.internals(), metric, options);
  return comparison(result(std::make_shared<const run_result>(std::move(r))), metric);
}

break_even_result break_even(const scenario& fixed, const scenario& varied, const std::string& metric,
                             const std::string& path, statistic stat, const run_options& options, double lo,
                             double hi) {
  const auto chosen =
      stat.probability < 0 ? sensitivity::statistic::mean() : sensitivity::statistic::quantile(stat.probability);
  const auto r = sensitivity::break_even(fixed.internals(), varied.internals(),
                                         sensitivity::metric_named(metric, "metric"), path, chosen, options, lo, hi);
  return {r.value, r.target, r.achieved, r.evaluations};
}

}  // namespace trnmodel::embed
