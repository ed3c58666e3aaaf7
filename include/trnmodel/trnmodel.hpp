#pragma once
// Everything public in one include. The namespaces' documentation is here, so that the
// reference (make docs-cpp) lists and checks the free functions and constants of each.
#include "trnmodel/calibrate/backtest.hpp"
#include "trnmodel/calibrate/calibrate.hpp"
#include "trnmodel/calibrate/journal.hpp"
#include "trnmodel/calibrate/log_console.hpp"
#include "trnmodel/calibrate/log_csv.hpp"
#include "trnmodel/calibrate/log_hf_trainer.hpp"
#include "trnmodel/calibrate/log_mlflow.hpp"
#include "trnmodel/calibrate/statistics.hpp"
#include "trnmodel/calibrate/log_step_times.hpp"
#include "trnmodel/calibrate/tfrecord.hpp"
#include "trnmodel/calibrate/trial_summary.hpp"
#include "trnmodel/decisions/advisor.hpp"
#include "trnmodel/decisions/payback.hpp"
#include "trnmodel/decisions/plan.hpp"
#include "trnmodel/check.hpp"
#include "trnmodel/dist/distributions.hpp"
#include "trnmodel/dist/mixture.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/lifecycle/restart_time.hpp"
#include "trnmodel/lifecycle/simulate.hpp"
#include "trnmodel/lifecycle/theory.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
#include "trnmodel/montecarlo/order_statistics.hpp"
#include "trnmodel/prices/block_offerings.hpp"
#include "trnmodel/prices/price_list.hpp"
#include "trnmodel/prices/spot_history.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/scenario/completeness.hpp"
#include "trnmodel/scenario/fields.hpp"
#include "trnmodel/scenario/hf_config.hpp"
#include "trnmodel/scenario/inputs.hpp"
#include "trnmodel/scenario/plausibility.hpp"
#include "trnmodel/scenario/scenario.hpp"
#include "trnmodel/scenario/schema.hpp"
#include "trnmodel/sensitivity/checkpoint_interval.hpp"
#include "trnmodel/sensitivity/compare.hpp"
#include "trnmodel/sensitivity/pairing.hpp"
#include "trnmodel/sensitivity/parallelism_search.hpp"
#include "trnmodel/sensitivity/rank_correlation.hpp"
#include "trnmodel/sensitivity/sobol.hpp"
#include "trnmodel/sensitivity/sweep.hpp"
#include "trnmodel/sensitivity/tornado.hpp"
#include "trnmodel/throughput/profile_files.hpp"
#include "trnmodel/throughput/step_time.hpp"
#include "trnmodel/version.hpp"

/// The lifecycle wall-time and cost model of training jobs: scenarios, their simulation on the
/// Monte Carlo engine, and the results (docs/cpp.md). Internals are in trnmodel::detail.
namespace trnmodel {
/// Trial-run journals, their step analysis and backtest, and the calibration of a scenario from them
/// (docs/journal.md).
namespace calibrate {}
/// Collective-communication times of the analytic step-time model (docs/throughput.md).
namespace collectives {}
/// The distribution families of uncertain inputs and their quantile functions (docs/distributions.md).
namespace dist {}
/// Sensitivity, comparison and what-if: tornado, Sobol indices, rank correlations, compare,
/// break-even, sweeps, the checkpoint interval and the layout search (docs/sensitivity.md).
namespace sensitivity {}
/// Closed forms the simulator is tested against (Young's and Daly's intervals, expected wall
/// times; docs/reliability.md).
namespace theory {}
/// The metrics of a simulation, by id (docs/metrics.md).
namespace metric {}
}  // namespace trnmodel
