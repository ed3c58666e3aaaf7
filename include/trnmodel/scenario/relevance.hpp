#pragma once
// Whether a scenario reads a field at all, from the field's `when` column (fields.hpp): an input
// its throughput mode, failure model, step source or purchase option never reads is neither
// drawn nor able to block a metric, and no phase of the completeness table needs it.
#include "trnmodel/choices.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/scenario.hpp"

namespace trnmodel {

/// Whether the simulator reads field `f` when it runs `s` (one stage, or a job without stages).
inline bool reads_field(const scenario& s, const field_spec& f) {
  const throughput_mode mode = s.mode();
  switch (f.when) {
    case relevance::always: return true;
    case relevance::measured: return mode == throughput_mode::measured;
    case relevance::derived: return mode != throughput_mode::measured;
    case relevance::modelled: return mode == throughput_mode::analytic || mode == throughput_mode::extrapolated;
    case relevance::flops: return mode == throughput_mode::flops;
    case relevance::extrapolated: return mode == throughput_mode::extrapolated;
    case relevance::weibull:
      return s.find(field::failures_node_mtbf_h) &&
             s.choice<failure_distribution>(field::failures_distribution) == failure_distribution::weibull;
    case relevance::tokens_given: return s.has(field::job_tokens);
    case relevance::steps_given: return !s.has(field::job_tokens);
    case relevance::capacity_block: return s.purchase() == purchase_mode::capacity_block;
    case relevance::spot: return s.purchase() == purchase_mode::spot;
    case relevance::not_spot: return s.purchase() != purchase_mode::spot;
  }
  return true;
}

}  // namespace trnmodel
