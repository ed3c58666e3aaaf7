"""trnmodel: the wall time and cost of a training job over its whole lifecycle, with every
input uncertain, on AWS Trainium or GPUs.

    import trnmodel as tm
    d = tm.LogNormal.from_quantiles(p50=2, p90=3)
    r = tm.monte_carlo(lambda x: x[:, 0] * x[:, 1], {"steps": 1000, "step_s": d})
    r.summary()
"""

from . import _core, fields, plot, theory
from ._advisor import Advice, advise
from ._builder import read_hf_config
from ._calibrate import (
    BacktestResult,
    CalibratedScenario,
    CalibrationReport,
    Journal,
    JournalWarning,
    backtest,
    calibrate,
)
from ._core import collectives
from ._decision_page import decision
from ._distributions import (
    PERT,
    Bernoulli,
    Beta,
    Distribution,
    Empirical,
    Exponential,
    Fixed,
    Gamma,
    LogNormal,
    Mixture,
    Normal,
    Triangular,
    Uniform,
    Unknown,
    Weibull,
)
from ._ec2_quotes import (
    BlockFee,
    BlockOfferings,
    SpotHistory,
    SpotPrice,
    block_fee,
    read_block_offerings,
    read_spot_history,
    spot_price,
)
from ._errors import CompletenessWarning, PlausibilityWarning, ScenarioError, UnknownFieldError, UnknownInputError
from ._log_journal import journal_from_log
from ._logs import StepLog, StepSeries, read_log
from ._montecarlo import MonteCarloResult, array_cache, monte_carlo
from ._payback import PaybackResult, payback
from ._plan import Plan, PlanResult
from ._purchase import PurchaseOptions, purchase_options
from ._quote import PriceList, Quote, quote, read_price_list
from ._report import report
from ._scenario import Scenario, json_schema, load_profile, profiles
from ._search import search_parallelism
from ._sensitivity import (
    Comparison,
    checkpoint_interval,
    compare,
    rank_correlations,
    sobol,
    sobol_function,
    sweep,
    tornado,
)
from ._simulate import METRICS, PHASES, STAGE_METRICS, SimulationResult, simulate
from ._trial_summary import TrialSummary

__version__ = _core.__version__

__all__ = [
    "Distribution",
    "Fixed",
    "Uniform",
    "Normal",
    "LogNormal",
    "Triangular",
    "PERT",
    "Gamma",
    "Weibull",
    "Exponential",
    "Beta",
    "Bernoulli",
    "Empirical",
    "Mixture",
    "Unknown",
    "ScenarioError",
    "CompletenessWarning",
    "PlausibilityWarning",
    "UnknownFieldError",
    "UnknownInputError",
    "monte_carlo",
    "MonteCarloResult",
    "array_cache",
    "__version__",
    "Scenario",
    "json_schema",
    "profiles",
    "load_profile",
    "read_hf_config",
    "collectives",
    "search_parallelism",
    "simulate",
    "SimulationResult",
    "METRICS",
    "PHASES",
    "STAGE_METRICS",
    "theory",
    "fields",
    "plot",
    "report",
    "Journal",
    "JournalWarning",
    "TrialSummary",
    "payback",
    "decision",
    "PaybackResult",
    "advise",
    "Advice",
    "Plan",
    "PlanResult",
    "calibrate",
    "backtest",
    "CalibratedScenario",
    "CalibrationReport",
    "BacktestResult",
    "sobol",
    "sobol_function",
    "tornado",
    "rank_correlations",
    "compare",
    "Comparison",
    "sweep",
    "checkpoint_interval",
    "purchase_options",
    "PurchaseOptions",
    "quote",
    "read_price_list",
    "PriceList",
    "Quote",
    "read_block_offerings",
    "block_fee",
    "BlockOfferings",
    "BlockFee",
    "read_spot_history",
    "spot_price",
    "SpotHistory",
    "SpotPrice",
    "read_log",
    "journal_from_log",
    "StepLog",
    "StepSeries",
]
