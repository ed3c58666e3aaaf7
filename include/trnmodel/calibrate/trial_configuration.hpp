#pragma once
// A trial's configuration against the scenario's (docs/journal.md, "A small trial becomes the
// reference"): the layout in chips, what differs from the scenario, and, when something does,
// the reference block (reference.*) that extrapolated mode carries to the scenario's
// configuration. Journals and trial summaries share these rules.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "trnmodel/calibrate/journal_record.hpp"
#include "trnmodel/check.hpp"
#include "trnmodel/detail/json.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel::calibrate {

/// A trial's tensor-, pipeline- and data-parallel degrees in chips, as the scenario counts them,
/// with how the trial's ranks were read as chips when they were. A plain value.
struct layout_in_chips {
  std::int64_t tp = 1, pp = 1, dp = 1;
  std::string note;  ///< how the ranks were counted as chips; "" when tp × pp × dp already counts chips
};

/// The trial's layout in chips. A trial counts ranks (worker processes): on Trainium2 a chip runs
/// several (4 logical NeuronCores a chip at LNC 2), so tp × pp × dp may be a multiple r of the
/// chips. The ranks of one chip belong to one tensor-parallel group when r divides tp (tp / r
/// chips), else to data parallelism (dp / r). Chips per node come from the trial or, failing
/// that, from the scenario's hardware profile. Throws input_error at `tp_path` when the ranks do
/// not divide into chips.
inline layout_in_chips chip_layout(const journal_instance& instance, const journal_training& t,
                                   const std::string& experiment_id, const scenario& base,
                                   const std::string& tp_path) {
  layout_in_chips out{t.tp, t.pp, t.dp, ""};
  std::int64_t chips = 0;
  if (instance.chips_per_node) chips = instance.nodes * *instance.chips_per_node;
  else if (base.profile()) chips = instance.nodes * static_cast<std::int64_t>(base.profile()->chips_per_node);
  const std::int64_t ranks = t.tp * t.pp * t.dp;
  if (chips <= 0 || ranks == chips) return out;
  if (ranks % chips != 0)
    detail::fail(tp_path, experiment_id + ": tp x pp x dp = " + std::to_string(ranks) + " ranks on " +
                              std::to_string(chips) +
                              " chips: not a whole number of ranks a chip, so the layout cannot be read in chips");
  const std::int64_t r = ranks / chips;
  if (t.tp % r == 0) out.tp = t.tp / r;
  else if (t.dp % r == 0) out.dp = t.dp / r;
  else detail::fail(tp_path, experiment_id + ": " + std::to_string(r) + " ranks a chip divide neither tp nor dp");
  out.note = "the trials count " + std::to_string(ranks) + " ranks on " + std::to_string(chips) + " chips (" +
             std::to_string(r) + " a chip): in chips their layout is tp " + std::to_string(out.tp) + ", pp " +
             std::to_string(out.pp) + ", dp " + std::to_string(out.dp);
  return out;
}

/// What differs between the trial's configuration and the scenario's, each compared where the
/// scenario states it: "nodes 2 → 16, global batch 16 → 512"; "" when nothing does.
inline std::string configuration_differences(const scenario& base, std::int64_t nodes, const journal_training& t,
                                             const layout_in_chips& layout) {
  const std::vector<std::tuple<field, std::int64_t, const char*>> compared{
      {field::cluster_nodes, nodes, "nodes"},
      {field::parallelism_global_batch, t.global_batch, "global batch"},
      {field::model_sequence_length, t.sequence_length, "sequence length"},
      {field::parallelism_micro_batch, t.micro_batch, "micro-batch"},
      {field::parallelism_tp, layout.tp, "tp"},
      {field::parallelism_pp, layout.pp, "pp"},
      {field::parallelism_dp, layout.dp, "dp"}};
  std::string differences;
  for (const auto& [f, trial, name] : compared)
    if (base.has(f) && base.integer(f) != trial)
      differences += (differences.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(trial) + " → " +
                     std::to_string(base.integer(f));
  return differences;
}

/// The warning a trial of another configuration gets: its step time becomes the reference.
inline std::string extrapolation_warning(const std::string& differences, const layout_in_chips& layout) {
  return "the trials ran another configuration than the scenario (" + differences +
         "): their step time becomes the reference (reference.*) that the step-time model extrapolates to the "
         "scenario's (throughput.mode extrapolated, docs/throughput.md); data_stall_fraction is not calibrated" +
         (layout.note.empty() ? "" : "; " + layout.note);
}

/// The scenario changes that make the trial's configuration the reference of extrapolated mode
/// (reference.* but the step time itself, the mode, and no step time of the scenario's own).
inline std::vector<std::pair<std::string, ordered_json>> reference_changes(const scenario& base, std::int64_t nodes,
                                                                           const journal_training& t,
                                                                           const layout_in_chips& layout) {
  std::vector<std::pair<std::string, ordered_json>> changes;
  const std::vector<std::pair<field, std::int64_t>> reference{
      {field::reference_nodes, nodes},          {field::reference_tp, layout.tp},
      {field::reference_pp, layout.pp},         {field::reference_dp, layout.dp},
      {field::reference_micro_batch, t.micro_batch}, {field::reference_global_batch, t.global_batch},
      {field::reference_sequence_length, t.sequence_length}};
  for (const auto& [f, value] : reference) changes.emplace_back(path_of(f), value);
  changes.emplace_back(path_of(field::throughput_mode), name_of_choice(throughput_mode::extrapolated));
  if (base.has(field::throughput_step_time_s)) changes.emplace_back(path_of(field::throughput_step_time_s), nullptr);
  return changes;
}

/// The refusal when the scenario cannot take the reference (extrapolated mode needs its model and
/// layout): the scenario's own problem, with what the trial differed in.
[[noreturn]] inline void fail_extrapolation(const std::string& path, const std::string& differences,
                                            const std::string& why) {
  detail::fail(path, "the trials ran another configuration (" + differences +
                               "), so their step time is the reference of extrapolated mode, which needs the "
                               "scenario's model and layout (docs/throughput.md): " + why);
}

}  // namespace trnmodel::calibrate
