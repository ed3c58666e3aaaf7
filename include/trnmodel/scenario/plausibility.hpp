#pragma once
// Magnitudes that are almost surely a unit mistake (docs/scenario.md, "Plausibility"): each
// check names the field, the value and what was probably meant. They are warnings, not errors:
// the value is legal, only unlikely (40 training tokens, a per-node MTBF of 20 million hours).
// The thresholds sit orders of magnitude away from any real training job, so a warning is worth
// reading and a real job raises none.
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

namespace detail {
// The median of a known quantity, or NaN.
inline double median_of(const scenario& s, field f) {
  const quantity* q = s.find(f);
  return q == nullptr || q->is_unknown() ? std::numeric_limits<double>::quiet_NaN() : q->ppf(0.5);
}
}  // namespace detail

/// Sentences naming the values of `s` outside what the hardware and the field make plausible
/// (warnings, not errors). Thread-safe: reads `s` only.
inline std::vector<std::string> implausible_values(const scenario& s) {
  std::vector<std::string> out;
  const auto given = [&](field f) { return s.has(f); };
  // Training tokens: even a short LoRA run reads millions.
  if (given(field::job_tokens)) {
    const double tokens = detail::median_of(s, field::job_tokens);
    if (tokens < 1e5)
      out.push_back("job.tokens: " + detail::format_number(tokens) +
                    " tokens is far too few for a training job; did you mean " + detail::format_number(tokens) +
                    "e9 (" + detail::format_number(tokens) + "B) or " + detail::format_number(tokens) + "e6 (" +
                    detail::format_number(tokens) + "M)?");
  }
  // A node MTBF in seconds reads as centuries; a job MTBF given per node reads as hours.
  if (given(field::failures_node_mtbf_h)) {
    const double mtbf_h = detail::median_of(s, field::failures_node_mtbf_h);
    if (mtbf_h > 1e6)
      out.push_back("failures.node_mtbf_h: " + detail::format_number(mtbf_h) +
                    " h per node is over a century; if it is in "
                    "seconds, that is " +
                    detail::format_approx(mtbf_h / 3600) + " h");
    else if (mtbf_h < 24)
      out.push_back("failures.node_mtbf_h: " + detail::format_number(mtbf_h) +
                    " h per node means each node fails daily; if "
                    "it is the job's MTBF, the per-node figure is nodes × that = " +
                    detail::format_approx(mtbf_h * static_cast<double>(s.integer(field::cluster_nodes))) + " h");
  }
  // A price per chip-hour typed as the node's.
  if (given(field::prices_node_hour_usd) && s.profile() != nullptr &&
      s.profile()->figures.count("price_node_hour_usd") &&
      !s.profile()->figures.at("price_node_hour_usd").is_unknown()) {
    const double price = detail::median_of(s, field::prices_node_hour_usd);
    const double list = s.profile()->figures.at("price_node_hour_usd").ppf(0.5);
    if (price < 0.2 * list)
      out.push_back("prices.node_hour_usd: " + detail::format_number(price) + " USD per node-hour is far below the " +
                    s.profile()->name + " list price of " + detail::format_approx(list) +
                    "; if it is per chip, the node of " + std::to_string(s.profile()->chips_per_node) +
                    " chips costs " + detail::format_approx(price * static_cast<double>(s.profile()->chips_per_node)));
  }
  // A rerun more likely than not is a percentage typed as a probability, or a job not ready.
  if (given(field::quality_rerun_prob)) {
    const quantity& q = s.q(field::quality_rerun_prob);
    if (!q.is_unknown() && q.mean() > 0.5)
      out.push_back("quality.rerun_prob: a mean of " + detail::format_approx(q.mean()) +
                    " makes a failed quality gate more likely than not; if it is a percentage, the probability is " +
                    detail::format_approx(q.mean() / 100));
  }
  // A platform name that is no profile, when a profile's name starts with it.
  if (s.has_text(field::cluster_platform) && s.profile() == nullptr) {
    const std::string& name = s.text(field::cluster_platform);
    std::string matches;
    for (const auto& known : s.profile_names())
      if (known.rfind(name, 0) == 0) matches += (matches.empty() ? "" : " or ") + known;
    if (!matches.empty())
      out.push_back("cluster.platform: \"" + name + "\" names no hardware profile; did you mean " + matches + "?");
  }
  return out;
}

}  // namespace trnmodel
