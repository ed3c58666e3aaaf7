"""A complete scenario from the files a team has (docs/scenario.md, "Building a scenario: the
assumptions"): a Hugging Face config.json, a platform profile, the node count and the job.

Every lifecycle phase comes out described: by a stated assumption (``"source": "assumption"``
with a note saying where its range comes from), by a figure derived from the inputs
(``"source": "model"``), or as ``{"unknown": ...}`` (prices nobody has quoted)."""

from __future__ import annotations

import math
import os
import pathlib
import re
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _core, theory
from ._errors import PlausibilityWarning, in_file
from ._files import read_utf8
from .fields import JOB_KIND_CHOICES, STAGE_BLOCKS, JobKind

PathLike = Union[str, "os.PathLike[str]"]
ConfigArg = Union[PathLike, Mapping[str, Any]]

KINDS = JOB_KIND_CHOICES
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}

# Per-node MTBF (hours), the same lognormal as the example scenarios: see the note below.
_MTBF_P50_H, _MTBF_P90_H = 6150.0, 10250.0
_MTBF_NOTE = (
    "Per-node MTBF, the same in every platform. Llama 3 (arXiv 2407.21783): 419 unexpected interruptions in 54 "
    "days on 16,384 H100 GPUs = 2,048 nodes of 8 -> 2048*54*24/419 = 6,335 h per node; Meta's A100 clusters "
    "(arXiv 2410.21680): 6.50 and 2.34 failures per 1000 node-days -> 3,692 h and 10,256 h. Lognormal with p50 = "
    "sqrt(3692*10256) = 6,150 h and p90 = 10,250 h (p10 3,690 h): the 10-90% band spans both clusters and Llama 3 "
    "sits at the median. No Trainium fleet failure rate is published: the GPU figures are borrowed unchanged."
)


def parse_count(text: Union[str, int, float], what: str = "--tokens") -> float:
    """A count such as 786M, 40B, 1.5T, 2e9 or 3000 (k, M, B/G, T: powers of 1000)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*", str(text))
        if match is None:
            raise _core.ScenarioError(
                f"{what}: must be a positive number, optionally with k, M, B or T (e.g. 786M, 40B), got {text!r}"
            )
        value = float(match.group(1)) * _SUFFIX[match.group(2).lower()]
    if not (math.isfinite(value) and value > 0):
        raise _core.ScenarioError(f"{what}: must be a positive number, got {text!r}")
    return value


def read_config(config: ConfigArg) -> Tuple["_core.HFConfig", str]:
    """The model of a config.json (a file path or a dict) and a name for it."""
    if isinstance(config, Mapping):
        import json

        try:
            text = json.dumps(config, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise _core.ScenarioError(f"config.json: not JSON data ({e})") from None
        return _core.read_hf_config(text), "config"
    path = pathlib.Path(config)
    text = read_utf8(path, "config.json")
    with in_file(path):
        model = _core.read_hf_config(text)
    stem = path.parent.name if path.stem == "config" and path.parent.name else path.stem
    return model, stem


def read_hf_config(config: ConfigArg) -> "_core.HFConfig":
    """The model shape and parameter count of a Hugging Face ``config.json`` (a file path or a
    dict) of a Llama/Mistral/Qwen-style decoder: ``.parameters``, ``.layers``, ``.kv_heads``...
    Bad values raise tm.ScenarioError naming the key, the value and the rule."""
    return read_config(config)[0]


def _short(count: float) -> str:
    """786M, 40B: a token count as people say it."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if count >= scale:
            return f"{count / scale:.4g}{suffix}"
    return f"{count:.4g}"


def _pert(lo: float, mode: float, hi: float, note: str) -> dict:
    return {
        "dist": "pert",
        "lo": _round(lo),
        "mode": _round(mode),
        "hi": _round(hi),
        "source": "assumption",
        "note": note,
    }


def _fixed(value: float, source: str, note: str) -> dict:
    return {
        "dist": "fixed",
        "value": int(value) if float(value).is_integer() else value,
        "source": source,
        "note": note,
    }


def _round(x: float) -> float:
    """Three significant digits: an assumption is not known to more, and the note shows the same figure."""
    if x == 0 or not math.isfinite(x):
        return x
    rounded = float(f"{x:.3g}")
    return int(rounded) if rounded.is_integer() else rounded


def _given_price(value: Optional[float], what: str, flag: str) -> dict:
    if value is None:
        cli = "--" + flag.replace("_", "-")
        return {"unknown": f"no quote for {what}: give {flag}= to Scenario.new or {cli} to trnmodel new"}
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise _core.ScenarioError(f"{flag}: must be a price ≥ 0 in USD, got {value!r}")
    return {
        "dist": "fixed",
        "value": float(value),
        "source": "quote",
        "note": f"{what}, given to Scenario.new ({flag})",
    }


def _layouts(chips: int, chips_per_domain: int, layers: int, global_batch: int) -> List[Tuple[int, int, int]]:
    """(tp, pp, dp) in the order the rule tries them: the least model parallelism first (tp
    within a fast domain, then pp dividing the layers), so that as much as possible is data
    parallel; dp must divide the global batch."""
    out = []
    tps = [t for t in range(1, chips_per_domain + 1) if chips_per_domain % t == 0]
    pps = [p for p in range(1, layers + 1) if layers % p == 0]
    for pp in pps:
        for tp in tps:
            if chips % (tp * pp):
                continue
            dp = chips // (tp * pp)
            if global_batch % dp == 0:
                out.append((tp, pp, dp))
    out.sort(key=lambda layout: (layout[0] * layout[1], layout[1]))
    return out


def _step_time_p50(scn: "_core.Scenario") -> float:
    """The median analytic step time of the scenario (a short simulation on seed 0)."""
    run = _core.LifecycleModel(scn).simulate(
        samples=512, seed=0, threads=1, keep_samples=False, allow_unknown=True, progress=None
    )
    return float(run.quantiles("step_time_s", [0.5])[0])


def new(
    config: ConfigArg,
    platform: str,
    profile: Mapping[str, Any],
    library: Mapping[str, Any],
    nodes: int = 1,
    kind: str = "lora",
    tokens: Optional[Union[str, float]] = None,
    steps: Optional[Union[str, float]] = None,
    sequence_length: Optional[int] = None,
    global_batch: Optional[int] = None,
    lora_rank: int = 16,
    name: Optional[str] = None,
    node_hour_usd: Optional[float] = None,
    storage_gb_month_usd: Optional[float] = None,
    transfer_gb_usd: Optional[float] = None,
    logs_gb_usd: Optional[float] = None,
    stages: Optional[Sequence[StageArg]] = None,
) -> Dict[str, Any]:
    """The document of a complete scenario (see :meth:`Scenario.new`, which loads it). ``profile``
    is the platform's profile document, ``library`` the profiles a scenario may name."""
    if stages is not None:
        if tokens is not None or steps is not None or sequence_length is not None:
            raise _core.ScenarioError(
                "stages: each stage gives its own tokens (or steps) and sequence length; "
                "tokens, steps and sequence_length are not used with stages"
            )
        return _new_staged(
            config,
            platform,
            profile,
            library,
            [_stage_spec(k, stage) for k, stage in enumerate(stages)],
            dict(
                nodes=nodes,
                kind=kind,
                global_batch=global_batch,
                lora_rank=lora_rank,
                name=name,
                node_hour_usd=node_hour_usd,
                storage_gb_month_usd=storage_gb_month_usd,
                transfer_gb_usd=transfer_gb_usd,
                logs_gb_usd=logs_gb_usd,
            ),
        )
    model, model_name = read_config(config)
    if kind not in KINDS:
        raise _core.ScenarioError(f"kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise _core.ScenarioError(f"nodes: must be a whole number ≥ 1, got {nodes!r}")
    if (tokens is None) == (steps is None):
        raise _core.ScenarioError("tokens, steps: give exactly one (the training tokens or the optimizer steps)")
    trainium = str(profile.get("accelerator", "")).startswith("Trainium")
    chips_per_node = int(profile["chips_per_node"])
    chips_per_domain = chips_per_node * int(profile.get("nodes_per_domain", 1))
    chips = nodes * chips_per_node
    lora = kind == JobKind.LORA

    max_positions = int(model.max_position_embeddings)
    if sequence_length is None:
        sequence_length = min(4096, max_positions) if max_positions else 4096
    if isinstance(sequence_length, bool) or not isinstance(sequence_length, int) or sequence_length < 1:
        raise _core.ScenarioError(f"sequence_length: must be a whole number ≥ 1, got {sequence_length!r}")
    if max_positions and sequence_length > max_positions:
        if kind != JobKind.CONTINUED:
            raise _core.ScenarioError(
                f"sequence_length: must be ≤ max_position_embeddings of config.json ({max_positions}), got "
                f"{sequence_length} (a longer context is a context extension: kind continued)"
            )
        warnings.warn(
            f"sequence_length {sequence_length} is beyond max_position_embeddings of config.json ({max_positions}): "
            f"a context extension of {sequence_length / max_positions:g}x; the training script must configure RoPE "
            "scaling for it (rope_scaling in config.json: e.g. rope_type llama3 or yarn with factor "
            f"{sequence_length / max_positions:g}, or a larger rope_theta); this scenario models the step time of "
            "the longer sequences, not the quality of the extension",
            PlausibilityWarning,
            stacklevel=3,
        )
    batch_rule = "given"
    if global_batch is None:
        global_batch = 64 if lora else 256
        batch_rule = f"default for {kind}: {global_batch} sequences"
    if isinstance(global_batch, bool) or not isinstance(global_batch, int) or global_batch < 1:
        raise _core.ScenarioError(f"global_batch: must be a whole number ≥ 1, got {global_batch!r}")
    if isinstance(lora_rank, bool) or not isinstance(lora_rank, int) or lora_rank < 1:
        raise _core.ScenarioError(f"lora_rank: must be a whole number ≥ 1, got {lora_rank!r}")

    tokens_per_step = global_batch * sequence_length
    if tokens is not None:
        n_tokens = float(max(1, round(parse_count(tokens, "tokens"))))  # a count: whole tokens
        n_steps = max(1, math.ceil(n_tokens / tokens_per_step))
        job_amount: Dict[str, Any] = {
            "tokens": _fixed(
                n_tokens,
                "assumption",
                f"training tokens to the quality bar, as planned ({tokens}); "
                f"{tokens_per_step:,} tokens per step -> {n_steps:,} steps",
            ),
        }
    else:
        assert steps is not None  # exactly one of the two is given (checked above)
        n_steps = max(1, math.ceil(parse_count(steps, "steps")))
        n_tokens = float(n_steps * tokens_per_step)
        job_amount = {
            "effective_steps": _fixed(n_steps, "assumption", "optimizer steps to the quality bar, as planned")
        }

    n_params = model.parameters
    weights_gb = 2 * n_params / 1e9  # bf16
    adapter = model.lora_parameters(lora_rank)
    trained = adapter if lora else n_params
    ckpt_gb = (2 + 12) * trained / 1e9  # bf16 weights + fp32 master, Adam m and v
    what_ckpt = (
        f"LoRA rank {lora_rank} on the 7 projections of {model.layers:.0f} layers: {adapter / 1e6:.1f}M parameters"
        if lora
        else f"all {n_params / 1e9:.2f}e9 parameters"
    )
    platform_name = str(profile.get("name", platform))
    doc: Dict[str, Any] = {
        "schema": "trnmodel.scenario/1",
        "name": name or f"{model_name}-{kind}-{platform_name}" + (f"x{nodes}" if nodes > 1 else ""),
        "description": (
            f"Built by trnmodel new from {model_name} config.json ({n_params / 1e9:.3g}e9 parameters), {kind} "
            f"training on {nodes} x {platform_name}: {global_batch} x {sequence_length}-token sequences per step "
            f"({batch_rule}), {_short(n_tokens)} tokens = {n_steps:,} steps. Every input not given is a stated "
            "assumption (docs/scenario.md, 'Building a scenario'); replace them with measurements as they come."
        ),
        "job": {"kind": kind, **job_amount, "recompute": "selective"},
        "cluster": {"nodes": nodes, "platform": platform},
        "model": {
            "parameters": _fixed(
                n_params,
                "model",
                f"counted from config.json by tm.read_hf_config: embedding "
                f"{'once (tied)' if model.tied_embeddings else 'and output head'}, "
                f"{model.kv_heads:.0f} key/value heads, gated MLP, norms",
            ),
            "layers": int(model.layers),
            "hidden_size": int(model.hidden_size),
            "heads": int(model.heads),
            "kv_heads": int(model.kv_heads),
            "ffn_size": int(model.ffn_size),
            "vocab_size": int(model.vocab_size),
            "sequence_length": sequence_length,
        },
    }
    if lora:
        doc["job"]["lora_rank"] = lora_rank
    doc["throughput"] = {
        "mode": "analytic",
        "precision": "bf16",
        "compute_efficiency": _pert(
            *((0.25, 0.40, 0.55) if trainium else (0.30, 0.45, 0.60)),
            (
                "Achieved / peak BF16 FLOPS of the compute alone (no step time measured). Neuron's published Llama-3.1 "
                "8B/70B training runs on trn1.32xlarge reach 25-33% MFU all-in (Neuron 2.24 performance tables, as "
                "derived in examples/llama3-8b-lora-trn2.json); the compute alone is higher, a first "
                "port lower: 25 / 40 / 55%."
            )
            if trainium
            else (
                "Achieved / peak BF16 FLOPS of the compute alone (no step time measured). The vTrain fit of Megatron on "
                "A100 gives 0.58 (docs/validation.md); a first run on a new cluster is lower: 30 / 45 / 60%."
            ),
        ),
        "data_stall_fraction": {
            "dist": "beta",
            "a": 2,
            "b": 30,
            "lo": 0,
            "hi": 0.5,
            "source": "assumption",
            "note": "Share of the step waiting for data with a pre-tokenized packed set on local NVMe/FSx: Beta(2, "
            "30) on [0, 0.5], mean 3%, a long tail for a misconfigured loader (as the example scenarios).",
        },
    }
    zero = 0 if lora else 1
    doc["parallelism"] = {"global_batch": global_batch, "micro_batch": 1, "zero_stage": zero}

    # The layout: the first of the rule's order that the scenario's layout and memory checks accept.
    scn = None
    refusals = []
    for tp, pp, dp in _layouts(chips, chips_per_domain, int(model.layers), global_batch):
        doc["parallelism"].update(tp=tp, pp=pp, dp=dp)
        try:
            scn = _core.Scenario.from_obj(doc, dict(library))
            break
        except _core.ScenarioError as e:
            refusals.append(f"tp={tp} pp={pp} dp={dp}: {e}")
    if scn is None:
        last = refusals[-1] if refusals else f"no layout of {chips} chips divides the global batch {global_batch}"
        raise _core.ScenarioError(
            f"parallelism: no layout of {chips} chips (tp within {chips_per_domain}, pp dividing {model.layers:.0f} "
            f"layers, dp dividing the global batch {global_batch}) passes the checks; the last tried: {last}"
        )
    step_s = _step_time_p50(scn)
    _lifecycle(
        doc,
        trainium=trainium,
        lora=lora,
        nodes=nodes,
        n_steps=n_steps,
        step_s=step_s,
        weights_gb=weights_gb,
        ckpt_gb=ckpt_gb,
        what_ckpt=what_ckpt,
        n_tokens=n_tokens,
        global_batch=global_batch,
        platform=platform_name,
    )
    doc["prices"] = {
        "node_hour_usd": _given_price(node_hour_usd, f"{platform_name} node-hours", "node_hour_usd"),
        "storage_gb_month_usd": _given_price(storage_gb_month_usd, "storage (GB-month)", "storage_gb_month_usd"),
        "transfer_gb_usd": _given_price(transfer_gb_usd, "data transfer (GB)", "transfer_gb_usd"),
        "logs_gb_usd": _given_price(logs_gb_usd, "log ingestion (GB)", "logs_gb_usd"),
    }
    return doc


#: A stage for :func:`new`: ``"NAME:TOKENS:SEQ_LEN"`` (the CLI's ``--stage``), a tuple
#: ``(name, tokens, sequence_length)`` or a mapping with ``name``, ``tokens`` or ``steps``,
#: ``sequence_length`` and optionally ``global_batch``.
StageArg = Union[str, Tuple[str, Union[str, float], int], Mapping[str, Any]]


def _stage_spec(k: int, stage: StageArg) -> Dict[str, Any]:
    """One stage as a dict of name, tokens or steps, sequence_length and global_batch (or None)."""
    where = f"stages[{k}]"
    if isinstance(stage, str):
        parts = stage.split(":")
        if len(parts) != 3 or not all(parts):
            raise _core.ScenarioError(f"{where}: must be NAME:TOKENS:SEQ_LEN (e.g. 8k:180B:8192), got {stage!r}")
        try:
            seq = int(parts[2])
        except ValueError:
            raise _core.ScenarioError(
                f"{where}: the sequence length must be a whole number, got {parts[2]!r}"
            ) from None
        stage = {"name": parts[0], "tokens": parts[1], "sequence_length": seq}
    elif isinstance(stage, tuple):
        if len(stage) != 3:
            raise _core.ScenarioError(f"{where}: must be (name, tokens, sequence_length), got {stage!r}")
        stage = {"name": stage[0], "tokens": stage[1], "sequence_length": stage[2]}
    elif not isinstance(stage, Mapping):
        raise _core.ScenarioError(f"{where}: must be NAME:TOKENS:SEQ_LEN, a tuple or a mapping, got {stage!r}")
    unknown = set(stage) - {"name", "tokens", "steps", "sequence_length", "global_batch"}
    if unknown:
        raise _core.ScenarioError(
            f"{where}.{sorted(unknown)[0]}: unknown key (name, tokens or steps, sequence_length, global_batch)"
        )
    if not isinstance(stage.get("name"), str) or not stage["name"]:
        raise _core.ScenarioError(f"{where}.name: required: a non-empty string naming the stage")
    if ("tokens" in stage) == ("steps" in stage):
        raise _core.ScenarioError(f"{where}: give exactly one of tokens and steps (the stage's own work)")
    if "sequence_length" not in stage:
        raise _core.ScenarioError(f"{where}.sequence_length: required (tokens per sequence in this stage)")
    return {"global_batch": None, "tokens": None, "steps": None, **stage}


def _new_staged(
    config: ConfigArg,
    platform: str,
    profile: Mapping[str, Any],
    library: Mapping[str, Any],
    stages: List[Dict[str, Any]],
    options: Dict[str, Any],
) -> Dict[str, Any]:
    """A job in stages: each stage built as :func:`new` builds a job (its own sequence length,
    work, layout and step time), the top level the first stage's, and each stage giving the
    fields where it differs, its work always. The job-level blocks (startup, data, prices) are
    those of the whole job's tokens. A later stage without its own global batch keeps the first
    stage's tokens per step (global batch × sequence length), at least one sequence."""
    model, _ = read_config(config)
    first_batch = options.pop("global_batch")
    if first_batch is None:
        first_batch = 64 if options["kind"] == JobKind.LORA else 256
    docs = []
    for k, stage in enumerate(stages):
        batch = stage["global_batch"]
        if batch is None:
            batch = (
                first_batch
                if k == 0
                else max(1, round(first_batch * stages[0]["sequence_length"] / stage["sequence_length"]))
            )
        try:
            docs.append(
                new(
                    config,
                    platform,
                    profile,
                    library,
                    tokens=stage["tokens"],
                    steps=stage["steps"],
                    sequence_length=stage["sequence_length"],
                    global_batch=batch,
                    **options,
                )
            )
        except _core.ScenarioError as e:
            raise _core.ScenarioError(f"stages[{k}] ({stage['name']}): {e}") from None
    # The job-level blocks: of the whole job's tokens, at the first stage's shape.
    total_tokens = sum(_doc_tokens(d) for d in docs)
    whole = new(
        config,
        platform,
        profile,
        library,
        tokens=total_tokens,
        sequence_length=stages[0]["sequence_length"],
        global_batch=docs[0]["parallelism"]["global_batch"],
        **options,
    )
    top = {key: value for key, value in whole.items() if key not in STAGE_BLOCKS}
    for block in STAGE_BLOCKS:
        if block in docs[0]:
            top[block] = docs[0][block]
    top["job"] = {key: value for key, value in docs[0]["job"].items() if key not in ("tokens", "effective_steps")}
    plan = ", then ".join(
        f"{stage['name']}: {_short(_doc_tokens(d))} tokens at {stage['sequence_length']:,}-token sequences"
        for stage, d in zip(stages, docs)
    )
    top["description"] = (
        f"Built by trnmodel new from {model.parameters / 1e9:.3g}e9-parameter config.json, "
        f"{options['kind']} training in {len(stages)} stages on {options['nodes']} x {profile.get('name', platform)}: "
        f"{plan}. Each stage gives its own work and the fields where it differs from the first; every input not "
        "given is a stated assumption (docs/scenario.md, 'Building a scenario')."
    )
    top["stages"] = [_stage_block(stage["name"], d, top) for stage, d in zip(stages, docs)]
    return {key: top[key] for key in [*whole.keys(), "stages"] if key in top}


def _doc_tokens(doc: Mapping[str, Any]) -> float:
    """The tokens of a built job: its job.tokens, or its steps × tokens per step."""
    job = doc["job"]
    if "tokens" in job:
        return float(job["tokens"]["value"])
    return float(job["effective_steps"]["value"]) * doc["parallelism"]["global_batch"] * doc["model"]["sequence_length"]


def _stage_block(name: str, doc: Mapping[str, Any], top: Mapping[str, Any]) -> Dict[str, Any]:
    """A stage of `top`: its work, and each field of a stage block where `doc` differs (a
    field the top level has and `doc` lacks is null: back to its default)."""
    stage: Dict[str, Any] = {"name": name}
    for block in STAGE_BLOCKS:
        mine, theirs = doc.get(block, {}), top.get(block, {})
        changed = {key: value for key, value in mine.items() if theirs.get(key) != value}
        changed.update({key: None for key in theirs if key not in mine})
        if block == "cluster":
            changed.pop("platform", None)
        if changed:
            stage[block] = changed
    return stage


def _lifecycle(
    doc: Dict[str, Any],
    *,
    trainium: bool,
    lora: bool,
    nodes: int,
    n_steps: int,
    step_s: float,
    weights_gb: float,
    ckpt_gb: float,
    what_ckpt: str,
    n_tokens: float,
    global_batch: int,
    platform: str,
) -> None:
    """The phases around the steps, each a stated assumption (docs/scenario.md)."""
    load_lo, load_mode, load_hi = 30 + weights_gb / 0.5, 60 + weights_gb / 0.15, 120 + weights_gb / 0.04
    doc["startup"] = {
        "queue_wait_s": {
            "dist": "lognormal",
            "p50": 1800,
            "p90": 14400,
            "source": "assumption",
            "note": f"Wait for on-demand capacity or quota for {nodes} x {platform} (scarce): p50 30 min, p90 4 h, "
            "as the example scenarios; 0 with a capacity reservation. Not billed.",
        },
        "queue_billed": False,
        "env_prep_s": _pert(
            300,
            480,
            1200,
            (
                "Node launch and initialisation 4-5 min for trn nodes on ParallelCluster (AWS NxD Training "
                "Llama 70B tutorial), plus the container pull and the Neuron SDK check: 5 / 8 / 20 min."
            )
            if trainium
            else (
                "Node launch ~4-5 min (as for trn nodes on ParallelCluster), plus a CUDA/PyTorch container pull and a "
                "driver/NCCL check: 5 / 8 / 20 min."
            ),
        ),
        "data_load_s": _pert(
            load_lo,
            load_mode,
            load_hi,
            (
                f"Load the {weights_gb:.3g} GB of bf16 weights and the tokenized data onto each node (in parallel) and "
                "build the loader: 30 s + weights at 0.5 GB/s, 1 min + 0.15 GB/s, 2 min + 0.04 GB/s (lo/mode/hi)."
            ),
        ),
    }
    if trainium:
        doc["compile"] = {
            "initial_s": _pert(
                600,
                1500,
                3600,
                (
                    "Cold Neuron compile of the training and eval graphs (neuron_parallel_compile): 10 / 25 / 60 min, "
                    "from reported compile times (Llama-3.1-8B forward 5-22 min, aws-neuron-sdk issue 1210; > 45 min "
                    "per model change, issue 646), as in the example scenarios."
                ),
            ),
            "recompile_s": _pert(
                600,
                1500,
                3600,
                "A full recompile after a cache miss: the same graphs, the same "
                "range as the initial compile, 10 / 25 / 60 min.",
            ),
            "cache_load_s": _pert(
                30,
                90,
                300,
                "Loading cached NEFFs from the Neuron persistent cache (keyed by graph "
                "hash, flags and compiler version) onto the NeuronCores: 0.5 / 1.5 / 5 min.",
            ),
            "cache_hit_prob": {
                "dist": "beta",
                "a": 18,
                "b": 2,
                "source": "assumption",
                "note": "Chance a recovery finds its graphs in the persistent cache on S3/FSx: a replacement node "
                "hits unless the compiler version or flags changed: Beta(18, 2), mean 0.90.",
            },
            "planned_changes": {
                "dist": "triangular",
                "lo": 0,
                "mode": 0,
                "hi": 2,
                "source": "assumption",
                "note": "Graph changes during the job (batch size, sequence bucket), each a full recompile: "
                "usually none, sometimes a mid-run fix: triangular 0 / 0 / 2, rounded.",
            },
        }
    else:
        doc["compile"] = {
            "initial_s": _pert(
                60,
                180,
                600,
                "No graph compiler on GPU: torch.compile plus CUDA context and NCCL "
                "communicator set-up, a short assumption: 1 / 3 / 10 min.",
            ),
            "recompile_s": _pert(
                60,
                180,
                600,
                "torch.compile from scratch after a restart without the Inductor "
                "cache: as the initial start-up, 1 / 3 / 10 min.",
            ),
            "cache_load_s": _pert(20, 45, 120, "torch.compile with a warm Inductor cache: 20 s / 45 s / 2 min."),
            "cache_hit_prob": {
                "dist": "beta",
                "a": 8,
                "b": 2,
                "source": "assumption",
                "note": "Chance the Inductor cache survives a recovery (lost with a replaced node when it was "
                "local): Beta(8, 2), mean 0.80.",
            },
        }
    save_lo, save_mode, save_hi = 5 + ckpt_gb / (3 * nodes), 10 + ckpt_gb / (1.5 * nodes), 30 + ckpt_gb / (0.5 * nodes)
    mtbf_cluster_s = _MTBF_P50_H * 3600 / nodes
    daly_s = theory.daly_interval(save_mode, mtbf_cluster_s)
    every = max(1, round(daly_s / step_s))
    interval_note = (
        f"Daly's interval (tm.theory.daly_interval) with the median save of {save_mode:.3g} s and the cluster MTBF "
        f"{_MTBF_P50_H:,.0f} h / {nodes} nodes is {daly_s / 3600:.3g} h = {every:,} steps at the median analytic step "
        f"time of {step_s:.3g} s"
    )
    if every >= n_steps:
        interval_note += f": longer than the job ({n_steps:,} steps), so one segment ending with the final save."
    else:
        interval_note += "."
    restore = (max(save_lo, load_lo), max(save_mode, load_mode), max(save_hi, load_hi))
    doc["checkpoint"] = {
        "every_steps": _fixed(every, "assumption", interval_note),
        "save_s": _pert(
            save_lo,
            save_mode,
            save_hi,
            (
                f"Blocking save of the {ckpt_gb:.3g} GB checkpoint to FSx/S3, written by the {nodes} node(s) in parallel: "
                "5 s + 3 GB/s, 10 s + 1.5 GB/s, 30 s + 0.5 GB/s per node (lo/mode/hi)."
            ),
        ),
        "load_s": _pert(
            *restore,
            "Restore in a recovery: reload the weights and the checkpoint, at the slower of the data-load and the "
            "save rates above.",
        ),
        "size_gb": _fixed(
            _round(ckpt_gb), "model", f"{what_ckpt} x 14 bytes (bf16 weights + fp32 master, Adam m and v)."
        ),
        # Three kept: a restore that fails its check falls back one interval, not to the start.
        "keep_last": 3,
        "restore_fail_prob": {
            "dist": "beta",
            "a": 1,
            "b": 39,
            "source": "assumption",
            "note": "Chance that a restored checkpoint fails its check (an upload cut short, a missing optimizer, "
            "scheduler or RNG state): no public rate, and this job's restore is not yet tested. Beta(1, 39), mean "
            "2.5 %; 0 once a trial has restored a checkpoint and checked it.",
        },
    }
    eval_every = every if every < n_steps else max(1, math.ceil(n_steps / 4))
    eval_mode = 30 + (512 / global_batch) * step_s / 3
    doc["eval"] = {
        "every_steps": _fixed(
            eval_every,
            "assumption",
            "A held-out loss with every checkpoint (or four times in the job when it has one segment).",
        ),
        "time_s": _pert(
            eval_mode / 2,
            eval_mode,
            3 * eval_mode,
            (
                "Held-out loss on 512 sequences: forward only (~1/3 of a training step per sequence) at the median step "
                "time, plus 30 s of loader and logging; half to three times that."
            ),
        ),
        "final_s": _pert(
            600,
            1200,
            3600,
            "Final evaluation of the result (task benchmarks with generation): "
            "10 / 20 / 60 min, as the example scenarios.",
        ),
    }
    doc["failures"] = {
        "node_mtbf_h": {
            "dist": "lognormal",
            "p50": _MTBF_P50_H,
            "p90": _MTBF_P90_H,
            "source": "assumption",
            "note": _MTBF_NOTE,
        },
        "restart_s": _pert(
            300,
            600,
            1800,
            "Detection (health check or hang timeout), replacement of the node "
            "(4-5 min launch) and relaunch: 5 / 10 / 30 min; the tail waits for capacity.",
        ),
        "warmup_s": _pert(60, 180, 600, "Data loader refill and the first slow steps after a restart: 1 / 3 / 10 min."),
    }
    doc["quality"] = {
        "rerun_prob": {
            "dist": "beta",
            "a": 2,
            "b": 18,
            "source": "assumption",
            "note": "Chance the final evaluation misses the bar and part of the run is redone: "
            "Beta(2, 18), mean 10%, as the example scenarios.",
        },
        "rerun_fraction": _pert(0.2, 0.5, 1.0, "Share of the steps redone after a failed gate: 20% / 50% / 100%."),
    }
    tokenized_gb = 4 * n_tokens / 1e9
    kept = weights_gb if lora or doc["job"]["kind"] == JobKind.CONTINUED else 0.0
    doc["data"] = {
        "dataset_gb": _fixed(
            _round(kept + 2 * tokenized_gb),
            "assumption",
            (
                f"Kept in S3 for the job: the tokens tokenized (int32, {tokenized_gb:.3g} GB, one epoch assumed) and "
                "the raw text of about the same size"
                + (f", plus the {weights_gb:.3g} GB base weights." if kept else ".")
            ),
        ),
        "transfer_gb": _fixed(
            _round(ckpt_gb),
            "assumption",
            "The final checkpoint copied out of the region once (data coming in is not charged on AWS).",
        ),
        "logs_gb_per_hour": {
            "dist": "uniform",
            "lo": _round(0.01 * nodes),
            "hi": _round(0.05 * nodes),
            "source": "assumption",
            "note": f"Training, runtime and system logs: 10-50 MB/h per node, {nodes} node(s).",
        },
    }
    doc["engineering"] = {
        "adaptation_h": _pert(
            40,
            120,
            400,
            (
                "Porting a PyTorch recipe to the Neuron SDK (XLA device, static shapes, compile errors, loss curves "
                "checked against a GPU baseline): one engineer 1 / 3 / 10 weeks of 40 h."
            ),
        )
        if trainium
        else _pert(
            4, 12, 40, "The recipe already runs on CUDA: container, instance and storage set-up: 4 / 12 / 40 h."
        ),
        "rate_usd_per_h": {
            "dist": "triangular",
            "lo": 90,
            "mode": 120,
            "hi": 180,
            "source": "assumption",
            "note": "Loaded cost of an ML engineer-hour (salary and overhead): 90-180 USD/h, mode "
            "120, as the example scenarios.",
        },
    }


__all__ = ["new", "parse_count", "read_config", "read_hf_config"]
