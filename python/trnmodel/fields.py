"""The scenario format's field paths and the formats' choices as constants, for code that
names them: a misspelt constant is an AttributeError at once (and tab-completes in Jupyter),
where a misspelt string would reach the loader. ``tm.fields.CHECKPOINT_EVERY_STEPS ==
"checkpoint.every_steps"``; ``tm.fields.ALL`` lists every path in format order; each choice field's
spellings are ``<NAME>_CHOICES`` (``tm.fields.PRICES_PURCHASE_CHOICES``), and each choice is an
enum of str whose members equal the spellings (``tm.fields.PurchaseMode.SPOT == "spot"``), so
code compares members, never spellings. Generated from the C++ field table and choices.hpp by
scripts/gen_fields.py; do not edit by hand."""

import enum
from typing import Tuple


class Choice(str, enum.Enum):
    """A spelling of a choice: a str equal to the spelling, printed and formatted as it."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class JobKind(Choice):
    """The spellings of job.kind (C++: trnmodel::job_kind)."""

    LORA = "lora"
    FULL = "full"
    CONTINUED = "continued"


class RecomputeKind(Choice):
    """The spellings of job.recompute (C++: trnmodel::recompute_kind)."""

    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


class ThroughputMode(Choice):
    """The spellings of throughput.mode (C++: trnmodel::throughput_mode)."""

    MEASURED = "measured"
    EXTRAPOLATED = "extrapolated"
    FLOPS = "flops"
    ANALYTIC = "analytic"


class ComputePrecision(Choice):
    """The spellings of throughput.precision (C++: trnmodel::compute_precision)."""

    BF16 = "bf16"
    FP8 = "fp8"
    FP32 = "fp32"


class FailureDistribution(Choice):
    """The spellings of failures.distribution (C++: trnmodel::failure_distribution)."""

    EXPONENTIAL = "exponential"
    WEIBULL = "weibull"


class PurchaseMode(Choice):
    """The spellings of prices.purchase (C++: trnmodel::purchase_mode)."""

    ON_DEMAND = "on_demand"
    CAPACITY_BLOCK = "capacity_block"
    SPOT = "spot"


class ChangeRate(Choice):
    """The spellings of project.architecture_changes (C++: trnmodel::change_rate)."""

    RARE = "rare"
    FREQUENT = "frequent"


class NeuronExperience(Choice):
    """The spellings of project.team_neuron_experience (C++: trnmodel::neuron_experience)."""

    NONE = "none"
    SOME = "some"
    EXPERIENCED = "experienced"


class ErrorCost(Choice):
    """The spellings of project.error_cost (C++: trnmodel::error_cost)."""

    LOW = "low"
    HIGH = "high"


class CycleLength(Choice):
    """The spellings of project.training_cycle (C++: trnmodel::cycle_length)."""

    SHORT = "short"
    LONG = "long"


class PurchaseOption(Choice):
    """A choice of the journal format (docs/journal.md) (C++: trnmodel::purchase_option)."""

    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED = "reserved"
    CAPACITY_BLOCK = "capacity_block"
    SAVINGS_PLAN = "savings_plan"
    OTHER = "other"


class TimeUnit(Choice):
    """A choice of the journal format (docs/journal.md) (C++: trnmodel::time_unit)."""

    S = "s"
    MS = "ms"


class InterruptionCause(Choice):
    """A choice of the journal format (docs/journal.md) (C++: trnmodel::interruption_cause)."""

    NODE_HEALTH_CHECK = "node_health_check"
    ACCELERATOR_ERROR = "accelerator_error"
    HARDWARE_ERROR = "hardware_error"
    NETWORK_ERROR = "network_error"
    STORAGE_ERROR = "storage_error"
    HANG_TIMEOUT = "hang_timeout"
    OUT_OF_MEMORY = "out_of_memory"
    SOFTWARE_ERROR = "software_error"
    PREEMPTION = "preemption"
    MAINTENANCE = "maintenance"
    USER = "user"
    OTHER = "other"


class QualityDirection(Choice):
    """A choice of the journal format (docs/journal.md) (C++: trnmodel::quality_direction)."""

    LOWER = "lower"
    HIGHER = "higher"


class QualityScope(Choice):
    """A choice of the journal format (docs/journal.md) (C++: trnmodel::quality_scope)."""

    TRIAL = "trial"
    JOB = "job"


class LogFormat(Choice):
    """A choice of the log importers (docs/importing.md) (C++: trnmodel::log_format)."""

    TENSORBOARD = "tensorboard"
    MLFLOW = "mlflow"
    HF_TRAINER = "hf_trainer"
    CSV = "csv"
    CONSOLE = "console"


class MetricMeaning(Choice):
    """A choice of the log importers (docs/importing.md) (C++: trnmodel::metric_meaning)."""

    CLOCK = "clock"
    STEP_TIME_S = "step_time_s"
    THROUGHPUT = "throughput"


#: text: short name of the scenario
NAME = "name"
#: text: what the scenario describes
DESCRIPTION = "description"
#: choice: lora, full or continued training
JOB_KIND = "job.kind"
#: The spellings job.kind allows.
JOB_KIND_CHOICES: Tuple[str, ...] = ("lora", "full", "continued")
#: quantity: optimizer steps to the quality bar; drawn values round up, at least 1 (required unless job.tokens)
JOB_EFFECTIVE_STEPS = "job.effective_steps"
#: quantity: training tokens to the quality bar: steps = tokens / (global batch x sequence length)
JOB_TOKENS = "job.tokens"
#: integer: LoRA adapter rank (job.kind lora)
JOB_LORA_RANK = "job.lora_rank"
#: choice: activation recomputation: none, selective or full
JOB_RECOMPUTE = "job.recompute"
#: The spellings job.recompute allows.
JOB_RECOMPUTE_CHOICES: Tuple[str, ...] = ("none", "selective", "full")
#: integer: number of nodes (instances)
CLUSTER_NODES = "cluster.nodes"
#: text: hardware profile name, e.g. trn2.48xlarge
CLUSTER_PLATFORM = "cluster.platform"
#: choice: where the step time comes from: measured, extrapolated, flops or analytic
THROUGHPUT_MODE = "throughput.mode"
#: The spellings throughput.mode allows.
THROUGHPUT_MODE_CHOICES: Tuple[str, ...] = ("measured", "extrapolated", "flops", "analytic")
#: quantity: steady-state seconds per effective step (required in measured mode)
THROUGHPUT_STEP_TIME_S = "throughput.step_time_s"
#: choice: compute precision whose peak the model uses
THROUGHPUT_PRECISION = "throughput.precision"
#: The spellings throughput.precision allows.
THROUGHPUT_PRECISION_CHOICES: Tuple[str, ...] = ("bf16", "fp8", "fp32")
#: quantity: flops mode: executed TFLOPS per chip, recomputation included
THROUGHPUT_ACHIEVED_TFLOPS_PER_CHIP = "throughput.achieved_tflops_per_chip"
#: quantity: flops mode: model FLOPs / (chips x peak)
THROUGHPUT_MODEL_FLOPS_UTILIZATION = "throughput.model_flops_utilization"
#: quantity: analytic and extrapolated modes: achieved / peak FLOPS of the compute alone
THROUGHPUT_COMPUTE_EFFICIENCY = "throughput.compute_efficiency"
#: quantity: analytic and extrapolated modes: multiple of the activations moved through HBM per pass by memory-
#: bound work (0: folded into compute_efficiency)
THROUGHPUT_ELEMENTWISE_TRAFFIC = "throughput.elementwise_traffic"
#: quantity: fraction of step time spent waiting for data
THROUGHPUT_DATA_STALL_FRACTION = "throughput.data_stall_fraction"
#: quantity: parameter count N (default: from the architecture)
MODEL_PARAMETERS = "model.parameters"
#: integer: transformer layers L
MODEL_LAYERS = "model.layers"
#: integer: hidden size h
MODEL_HIDDEN_SIZE = "model.hidden_size"
#: integer: attention heads a
MODEL_HEADS = "model.heads"
#: integer: MLP inner size (default 4h)
MODEL_FFN_SIZE = "model.ffn_size"
#: integer: key/value heads (grouped-query attention; default: model.heads)
MODEL_KV_HEADS = "model.kv_heads"
#: integer: vocabulary size
MODEL_VOCAB_SIZE = "model.vocab_size"
#: integer: tokens per sequence T
MODEL_SEQUENCE_LENGTH = "model.sequence_length"
#: integer: tensor-parallel degree
PARALLELISM_TP = "parallelism.tp"
#: integer: pipeline-parallel degree
PARALLELISM_PP = "parallelism.pp"
#: integer: data-parallel degree
PARALLELISM_DP = "parallelism.dp"
#: integer: context-parallel degree: each sequence split across cp chips
PARALLELISM_CP = "parallelism.cp"
#: integer: sequences per micro-batch
PARALLELISM_MICRO_BATCH = "parallelism.micro_batch"
#: integer: sequences per optimizer step
PARALLELISM_GLOBAL_BATCH = "parallelism.global_batch"
#: integer: model chunks per pipeline rank (interleaved schedule)
PARALLELISM_VIRTUAL_STAGES = "parallelism.virtual_stages"
#: integer: ZeRO/FSDP stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights
PARALLELISM_ZERO_STAGE = "parallelism.zero_stage"
#: quantity: fraction of data-parallel communication hidden behind compute
PARALLELISM_DP_OVERLAP = "parallelism.dp_overlap"
#: quantity: extrapolated mode: step time measured at the reference configuration
REFERENCE_STEP_TIME_S = "reference.step_time_s"
#: integer: reference configuration: nodes
REFERENCE_NODES = "reference.nodes"
#: integer: reference configuration: tensor-parallel degree
REFERENCE_TP = "reference.tp"
#: integer: reference configuration: pipeline-parallel degree
REFERENCE_PP = "reference.pp"
#: integer: reference configuration: data-parallel degree
REFERENCE_DP = "reference.dp"
#: integer: reference configuration: context-parallel degree (absent: 1)
REFERENCE_CP = "reference.cp"
#: integer: reference configuration: micro-batch
REFERENCE_MICRO_BATCH = "reference.micro_batch"
#: integer: reference configuration: global batch
REFERENCE_GLOBAL_BATCH = "reference.global_batch"
#: integer: reference configuration: sequence length
REFERENCE_SEQUENCE_LENGTH = "reference.sequence_length"
#: integer: reference model, when another size: parameter count N
REFERENCE_PARAMETERS = "reference.parameters"
#: integer: reference model, when another size: transformer layers L
REFERENCE_LAYERS = "reference.layers"
#: integer: reference model, when another size: hidden size h
REFERENCE_HIDDEN_SIZE = "reference.hidden_size"
#: integer: reference model, when another size: attention heads a
REFERENCE_HEADS = "reference.heads"
#: quantity: seconds waiting in a queue or for quota
STARTUP_QUEUE_WAIT_S = "startup.queue_wait_s"
#: boolean: whether the queue wait is billed
STARTUP_QUEUE_BILLED = "startup.queue_billed"
#: quantity: seconds of environment preparation
STARTUP_ENV_PREP_S = "startup.env_prep_s"
#: quantity: seconds of data loading and warm-up before the first step
STARTUP_DATA_LOAD_S = "startup.data_load_s"
#: quantity: seconds of compilation before the first step
COMPILE_INITIAL_S = "compile.initial_s"
#: quantity: seconds of a full compile after a cache miss
COMPILE_RECOMPILE_S = "compile.recompile_s"
#: quantity: seconds to load cached graphs on a cache hit
COMPILE_CACHE_LOAD_S = "compile.cache_load_s"
#: quantity: probability that a recovery finds its graphs cached
COMPILE_CACHE_HIT_PROB = "compile.cache_hit_prob"
#: quantity: graph changes during the job, each a full recompile (rounded)
COMPILE_PLANNED_CHANGES = "compile.planned_changes"
#: boolean: stages: the stage's graphs were compiled ahead, so its transition loads them (compile.cache_load_s)
COMPILE_PRECOMPILED = "compile.precompiled"
#: quantity: steps per checkpoint segment (rounded); 0: one segment
CHECKPOINT_EVERY_STEPS = "checkpoint.every_steps"
#: quantity: blocking seconds per checkpoint save
CHECKPOINT_SAVE_S = "checkpoint.save_s"
#: quantity: blocking seconds per checkpoint verification
CHECKPOINT_VERIFY_S = "checkpoint.verify_s"
#: quantity: seconds to restore a checkpoint in a recovery
CHECKPOINT_LOAD_S = "checkpoint.load_s"
#: boolean: whether the last segment ends with a save
CHECKPOINT_FINAL = "checkpoint.final"
#: quantity: gigabytes per checkpoint
CHECKPOINT_SIZE_GB = "checkpoint.size_gb"
#: integer: checkpoints kept in storage
CHECKPOINT_KEEP_LAST = "checkpoint.keep_last"
#: quantity: probability that a restored checkpoint fails its check (the job falls back to an older one)
CHECKPOINT_RESTORE_FAIL_PROB = "checkpoint.restore_fail_prob"
#: quantity: steps between periodic evaluations; 0: none
EVAL_EVERY_STEPS = "eval.every_steps"
#: quantity: seconds per periodic evaluation
EVAL_TIME_S = "eval.time_s"
#: quantity: seconds of the final evaluation
EVAL_FINAL_S = "eval.final_s"
#: quantity: per-node mean time between failures, hours; absent: no failures
FAILURES_NODE_MTBF_H = "failures.node_mtbf_h"
#: choice: times between failures
FAILURES_DISTRIBUTION = "failures.distribution"
#: The spellings failures.distribution allows.
FAILURES_DISTRIBUTION_CHOICES: Tuple[str, ...] = ("exponential", "weibull")
#: quantity: Weibull shape of the times between failures
FAILURES_WEIBULL_SHAPE = "failures.weibull_shape"
#: quantity: seconds of detection, re-provisioning and restart
FAILURES_RESTART_S = "failures.restart_s"
#: quantity: seconds of re-warm-up after a restart
FAILURES_WARMUP_S = "failures.warmup_s"
#: boolean: whether failures can interrupt a recovery
FAILURES_DURING_RECOVERY = "failures.during_recovery"
#: quantity: probability that the final quality check fails
QUALITY_RERUN_PROB = "quality.rerun_prob"
#: quantity: fraction of the steps redone when it fails
QUALITY_RERUN_FRACTION = "quality.rerun_fraction"
#: quantity: USD per node-hour; absent: costs are unknown
PRICES_NODE_HOUR_USD = "prices.node_hour_usd"
#: quantity: USD per GB-month of storage
PRICES_STORAGE_GB_MONTH_USD = "prices.storage_gb_month_usd"
#: quantity: USD per GB transferred
PRICES_TRANSFER_GB_USD = "prices.transfer_gb_usd"
#: quantity: USD per GB of logs
PRICES_LOGS_GB_USD = "prices.logs_gb_usd"
#: choice: how the nodes are bought: on_demand, capacity_block or spot
PRICES_PURCHASE = "prices.purchase"
#: The spellings prices.purchase allows.
PRICES_PURCHASE_CHOICES: Tuple[str, ...] = ("on_demand", "capacity_block", "spot")
#: integer: capacity_block: the block's length in whole hours (1 to 14 days, then 7-day steps up to 182 days)
PRICES_BLOCK_HOURS = "prices.block_hours"
#: quantity: capacity_block: the upfront fee for the whole block, all nodes, USD
PRICES_BLOCK_USD = "prices.block_usd"
#: quantity: capacity_block: seconds from booking to the block's start (the job's queue, not billed)
PRICES_BLOCK_LEAD_S = "prices.block_lead_s"
#: quantity: capacity_block: hours before the block's end at which the instances stop
PRICES_BLOCK_END_MARGIN_H = "prices.block_end_margin_h"
#: quantity: spot: USD per node-hour; absent: costs are unknown
PRICES_SPOT_NODE_HOUR_USD = "prices.spot_node_hour_usd"
#: quantity: gigabytes of training data stored
DATA_DATASET_GB = "data.dataset_gb"
#: quantity: gigabytes transferred
DATA_TRANSFER_GB = "data.transfer_gb"
#: quantity: gigabytes of logs per wall-clock hour
DATA_LOGS_GB_PER_HOUR = "data.logs_gb_per_hour"
#: quantity: engineering hours to port the job (a separate risk line)
ENGINEERING_ADAPTATION_H = "engineering.adaptation_h"
#: quantity: USD per engineering hour
ENGINEERING_RATE_USD_PER_H = "engineering.rate_usd_per_h"
#: quantity: calendar days from the start of the port until the job can run on this platform
ENGINEERING_PORT_DAYS = "engineering.port_days"
#: quantity: spot: interruptions per node-hour of exposed time (required for spot)
SPOT_INTERRUPTIONS_PER_NODE_H = "spot.interruptions_per_node_h"
#: quantity: spot: seconds of warning before an interruption
SPOT_NOTICE_S = "spot.notice_s"
#: quantity: spot: seconds waiting for capacity after an interruption (not billed)
SPOT_REACQUIRE_S = "spot.reacquire_s"
#: quantity: stages: seconds to relaunch with a stage's configuration (default: its failures.restart_s)
TRANSITION_S = "transition_s"
#: text: the code version the job runs (a commit, a tag or a container image)
CARD_CODE_VERSION = "card.code_version"
#: text: the data set and its version
CARD_DATASET = "card.dataset"
#: text: the sequence lengths, per stage if they change
CARD_SEQUENCE_LENGTHS = "card.sequence_lengths"
#: text: micro-batch size and gradient-accumulation steps
CARD_MICRO_BATCH_AND_ACCUMULATION = "card.micro_batch_and_accumulation"
#: text: when a run is restored from a checkpoint, and from which one
CARD_RESTORE_CONDITIONS = "card.restore_conditions"
#: number: the longest acceptable time, in hours, from a failure to resumed training
CARD_MAX_ERROR_TO_RESTART_H = "card.max_error_to_restart_h"
#: text: what counts as matching the baseline (metrics and tolerances)
CARD_BASELINE_MATCH_CRITERIA = "card.baseline_match_criteria"
#: text: the loss range expected at the end (and at milestones)
CARD_EXPECTED_LOSS_RANGE = "card.expected_loss_range"
#: text: the control questions and the answers the result must give
CARD_CONTROL_ANSWERS = "card.control_answers"
#: text: the checkpoint format (sharded or not, framework, optimizer state included)
CARD_CHECKPOINT_FORMAT = "card.checkpoint_format"
#: text: who accepts the result's quality
CARD_OWNERS_QUALITY = "card.owners.quality"
#: text: who accepts the loss trajectory
CARD_OWNERS_TRAJECTORY = "card.owners.trajectory"
#: text: who runs and restores the job
CARD_OWNERS_OPERATIONS = "card.owners.operations"
#: choice: advisor: how often the model architecture changes (rare or frequent)
PROJECT_ARCHITECTURE_CHANGES = "project.architecture_changes"
#: The spellings project.architecture_changes allows.
PROJECT_ARCHITECTURE_CHANGES_CHOICES: Tuple[str, ...] = ("rare", "frequent")
#: boolean: advisor: the job uses experimental operators
PROJECT_EXPERIMENTAL_OPS = "project.experimental_ops"
#: boolean: advisor: the job relies on custom CUDA extensions or kernels
PROJECT_CUSTOM_CUDA_EXTENSIONS = "project.custom_cuda_extensions"
#: boolean: advisor: the team needs a fast edit-run-debug loop
PROJECT_FAST_DEBUG_LOOP = "project.fast_debug_loop"
#: boolean: advisor: the job mixes non-standard model parts
PROJECT_MIXED_NONSTANDARD_MODELS = "project.mixed_nonstandard_models"
#: boolean: advisor: the job would need manual compiler tuning
PROJECT_MANUAL_COMPILER_TUNING = "project.manual_compiler_tuning"
#: choice: advisor: the team's Neuron experience (none, some, experienced)
PROJECT_TEAM_NEURON_EXPERIENCE = "project.team_neuron_experience"
#: The spellings project.team_neuron_experience allows.
PROJECT_TEAM_NEURON_EXPERIENCE_CHOICES: Tuple[str, ...] = ("none", "some", "experienced")
#: choice: advisor: the cost of an error in the job's output (low or high)
PROJECT_ERROR_COST = "project.error_cost"
#: The spellings project.error_cost allows.
PROJECT_ERROR_COST_CHOICES: Tuple[str, ...] = ("low", "high")
#: boolean: advisor: acceptance metrics are agreed against a baseline
PROJECT_AGREED_METRICS = "project.agreed_metrics"
#: choice: advisor: the training cycle (short or long)
PROJECT_TRAINING_CYCLE = "project.training_cycle"
#: The spellings project.training_cycle allows.
PROJECT_TRAINING_CYCLE_CHOICES: Tuple[str, ...] = ("short", "long")

#: The blocks a stage may give (the others belong to the whole job), in the format's order.
STAGE_BLOCKS: Tuple[str, ...] = (
    "job",
    "cluster",
    "model",
    "parallelism",
    "throughput",
    "compile",
    "checkpoint",
    "eval",
    "failures",
    "quality",
)

#: Every field path, in the format's order.
ALL: Tuple[str, ...] = (
    NAME,
    DESCRIPTION,
    JOB_KIND,
    JOB_EFFECTIVE_STEPS,
    JOB_TOKENS,
    JOB_LORA_RANK,
    JOB_RECOMPUTE,
    CLUSTER_NODES,
    CLUSTER_PLATFORM,
    THROUGHPUT_MODE,
    THROUGHPUT_STEP_TIME_S,
    THROUGHPUT_PRECISION,
    THROUGHPUT_ACHIEVED_TFLOPS_PER_CHIP,
    THROUGHPUT_MODEL_FLOPS_UTILIZATION,
    THROUGHPUT_COMPUTE_EFFICIENCY,
    THROUGHPUT_ELEMENTWISE_TRAFFIC,
    THROUGHPUT_DATA_STALL_FRACTION,
    MODEL_PARAMETERS,
    MODEL_LAYERS,
    MODEL_HIDDEN_SIZE,
    MODEL_HEADS,
    MODEL_FFN_SIZE,
    MODEL_KV_HEADS,
    MODEL_VOCAB_SIZE,
    MODEL_SEQUENCE_LENGTH,
    PARALLELISM_TP,
    PARALLELISM_PP,
    PARALLELISM_DP,
    PARALLELISM_CP,
    PARALLELISM_MICRO_BATCH,
    PARALLELISM_GLOBAL_BATCH,
    PARALLELISM_VIRTUAL_STAGES,
    PARALLELISM_ZERO_STAGE,
    PARALLELISM_DP_OVERLAP,
    REFERENCE_STEP_TIME_S,
    REFERENCE_NODES,
    REFERENCE_TP,
    REFERENCE_PP,
    REFERENCE_DP,
    REFERENCE_CP,
    REFERENCE_MICRO_BATCH,
    REFERENCE_GLOBAL_BATCH,
    REFERENCE_SEQUENCE_LENGTH,
    REFERENCE_PARAMETERS,
    REFERENCE_LAYERS,
    REFERENCE_HIDDEN_SIZE,
    REFERENCE_HEADS,
    STARTUP_QUEUE_WAIT_S,
    STARTUP_QUEUE_BILLED,
    STARTUP_ENV_PREP_S,
    STARTUP_DATA_LOAD_S,
    COMPILE_INITIAL_S,
    COMPILE_RECOMPILE_S,
    COMPILE_CACHE_LOAD_S,
    COMPILE_CACHE_HIT_PROB,
    COMPILE_PLANNED_CHANGES,
    COMPILE_PRECOMPILED,
    CHECKPOINT_EVERY_STEPS,
    CHECKPOINT_SAVE_S,
    CHECKPOINT_VERIFY_S,
    CHECKPOINT_LOAD_S,
    CHECKPOINT_FINAL,
    CHECKPOINT_SIZE_GB,
    CHECKPOINT_KEEP_LAST,
    CHECKPOINT_RESTORE_FAIL_PROB,
    EVAL_EVERY_STEPS,
    EVAL_TIME_S,
    EVAL_FINAL_S,
    FAILURES_NODE_MTBF_H,
    FAILURES_DISTRIBUTION,
    FAILURES_WEIBULL_SHAPE,
    FAILURES_RESTART_S,
    FAILURES_WARMUP_S,
    FAILURES_DURING_RECOVERY,
    QUALITY_RERUN_PROB,
    QUALITY_RERUN_FRACTION,
    PRICES_NODE_HOUR_USD,
    PRICES_STORAGE_GB_MONTH_USD,
    PRICES_TRANSFER_GB_USD,
    PRICES_LOGS_GB_USD,
    PRICES_PURCHASE,
    PRICES_BLOCK_HOURS,
    PRICES_BLOCK_USD,
    PRICES_BLOCK_LEAD_S,
    PRICES_BLOCK_END_MARGIN_H,
    PRICES_SPOT_NODE_HOUR_USD,
    DATA_DATASET_GB,
    DATA_TRANSFER_GB,
    DATA_LOGS_GB_PER_HOUR,
    ENGINEERING_ADAPTATION_H,
    ENGINEERING_RATE_USD_PER_H,
    ENGINEERING_PORT_DAYS,
    SPOT_INTERRUPTIONS_PER_NODE_H,
    SPOT_NOTICE_S,
    SPOT_REACQUIRE_S,
    TRANSITION_S,
    CARD_CODE_VERSION,
    CARD_DATASET,
    CARD_SEQUENCE_LENGTHS,
    CARD_MICRO_BATCH_AND_ACCUMULATION,
    CARD_RESTORE_CONDITIONS,
    CARD_MAX_ERROR_TO_RESTART_H,
    CARD_BASELINE_MATCH_CRITERIA,
    CARD_EXPECTED_LOSS_RANGE,
    CARD_CONTROL_ANSWERS,
    CARD_CHECKPOINT_FORMAT,
    CARD_OWNERS_QUALITY,
    CARD_OWNERS_TRAJECTORY,
    CARD_OWNERS_OPERATIONS,
    PROJECT_ARCHITECTURE_CHANGES,
    PROJECT_EXPERIMENTAL_OPS,
    PROJECT_CUSTOM_CUDA_EXTENSIONS,
    PROJECT_FAST_DEBUG_LOOP,
    PROJECT_MIXED_NONSTANDARD_MODELS,
    PROJECT_MANUAL_COMPILER_TUNING,
    PROJECT_TEAM_NEURON_EXPERIENCE,
    PROJECT_ERROR_COST,
    PROJECT_AGREED_METRICS,
    PROJECT_TRAINING_CYCLE,
)
