"""The trnmodel command line.

    trnmodel estimate SCENARIO [-n SAMPLES] [--seed S] [-o REPORT.md]
    trnmodel report SCENARIO [SCENARIO_B] [--plan PLAN] [-o report.html]   (HTML sign-off + Markdown twin)
    trnmodel compare SCENARIO_A SCENARIO_B [--metric METRIC] [--break-even PATH]
    trnmodel payback SCENARIO_A SCENARIO_B [--side a|b]      (runs until a port pays back)
    trnmodel advise SCENARIO | --project FACTS.json --job-kind K   (GPU, pilot or dual track)
    trnmodel plan PLAN.json [-n SAMPLES] [--seed S]            (the strategies of a migration)
    trnmodel sensitivity SCENARIO [--metric METRIC] [--method tornado|sobol|rank]
    trnmodel sweep SCENARIO PATH=V1,V2,... [PATH=...] [--metric METRIC]
    trnmodel validate FILE...              (scenarios, trial-run journals and trial summaries)
    trnmodel calibrate JOURNAL... --base SCENARIO [-o CALIBRATED.json]   (or one TRIAL_SUMMARY.json)
    trnmodel new --config config.json --platform P --kind lora --tokens 786M -o SCENARIO.json
    trnmodel quote PRICE_LIST --instance-type T --region R [--scenario SCENARIO.json [-o OUT.json]]

Exit codes: 0 success, 2 bad input (one line naming the field), 1 internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import pathlib
import sys
import warnings
from typing import Any, Iterator, List, Optional

import numpy as np

from . import _core
from ._calibrate import Journal, JournalWarning, calibrate
from ._errors import PlausibilityWarning, in_file, scenario_error
from ._files import is_journal_file, read_utf8
from ._log_journal import journal_from_log
from ._logs import read_log
from ._scenario import Scenario, check_quantity_path
from ._simulate import simulate
from ._trial_summary import TrialSummary, is_trial_summary_file
from .fields import (
    CLUSTER_NODES,
    CLUSTER_PLATFORM,
    JOB_KIND_CHOICES,
    PRICES_BLOCK_HOURS,
    PRICES_BLOCK_USD,
    PRICES_NODE_HOUR_USD,
    PRICES_PURCHASE_CHOICES,
    PRICES_SPOT_NODE_HOUR_USD,
    ComputePrecision,
    JobKind,
    LogFormat,
    MetricMeaning,
)


def _write(path: Optional[str], text: str, what: str) -> None:
    if path:
        out = pathlib.Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"{what} written: {out}", file=sys.stderr)


@contextlib.contextmanager
def _executor(args: argparse.Namespace) -> Iterator[Any]:
    """The executor of --scheduler ADDRESS (a running Dask scheduler) or --workers N (a local
    cluster of N worker processes, one thread each), closed on the way out; None without them."""
    if args.scheduler is None and args.workers is None:
        yield None
        return
    if args.scheduler is not None and args.workers is not None:
        raise _core.ScenarioError("--scheduler and --workers: give one of them, not both")
    if args.workers is not None and args.workers < 1:
        raise _core.ScenarioError(f"--workers: must be a whole number ≥ 1, got {args.workers}")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise _core.ScenarioError(
            "--scheduler and --workers need Dask: pip install 'trnmodel[dask]' (docs/scaling.md)"
        ) from None
    with contextlib.ExitStack() as stack:
        if args.workers is not None:
            cluster = stack.enter_context(
                LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
            )
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(args.scheduler, timeout=SCHEDULER_TIMEOUT_S))
            except OSError as e:
                raise _core.ScenarioError(
                    f"--scheduler {args.scheduler}: no Dask scheduler answered within {SCHEDULER_TIMEOUT_S} s ({e})"
                ) from None
        yield client


#: How long --scheduler waits for the scheduler to answer.
SCHEDULER_TIMEOUT_S = 10


def _estimate(args: argparse.Namespace) -> int:
    from ._report import budget_report

    scn = Scenario.from_json(args.scenario)
    with _executor(args) as executor:
        result = simulate(
            scn, samples=args.samples, seed=args.seed, allow_unknown=True, keep_samples=True, executor=executor
        )
    report = budget_report(result)
    print(report)
    _write(args.output, report, "report")
    return 0


def _report(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    from ._plan import Plan
    from ._report import report

    a = Scenario.from_json(args.scenario)
    b = Scenario.from_json(args.scenario_b) if args.scenario_b else None
    if b is not None:
        check_quantity_path(args.break_even, "--break-even")
    html_path = pathlib.Path(args.output)
    if html_path.suffix.lower() not in (".html", ".htm"):
        raise _core.ScenarioError(
            f"-o: must name an .html file (the Markdown twin is written beside it), got {args.output}"
        )
    plan = Plan.from_json(args.plan) if args.plan else None
    with _executor(args) as executor:
        doc = report(
            a,
            b,
            html_path,
            samples=args.samples,
            seed=args.seed,
            output=args.output_metric,
            break_even_path=args.break_even,
            offerings=args.offerings,
            offerings_date=args.offerings_date,
            spot_history=args.spot_history,
            plan=plan,
            executor=executor,
        )
    for line in doc.summary:
        print("- " + line.replace("**", "").replace("`", ""))
    print(f"report written: {html_path} (Markdown twin: {html_path.with_suffix('.md')})")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from ._sensitivity import compare

    a, b = Scenario.from_json(args.scenario_a), Scenario.from_json(args.scenario_b)
    if args.break_even:
        check_quantity_path(args.break_even, "--break-even")
    with _executor(args) as executor:
        cmp = compare(a, b, output=args.output_metric, samples=args.samples, seed=args.seed, executor=executor)
        print(cmp.summary().to_string())
        print(f"\nP({a.name or 'A'} < {b.name or 'B'}) = {cmp.p_a_less_b:.4f} (common random numbers)")
        if args.break_even:
            value = cmp.break_even(args.break_even, executor=executor)
            print(f"break-even: {args.break_even} of {b.name or 'B'} = {value:.6g}")
    return 0


def _payback(args: argparse.Namespace) -> int:
    from ._payback import payback

    a, b = Scenario.from_json(args.scenario_a), Scenario.from_json(args.scenario_b)
    with _executor(args) as executor:
        result = payback(a, b, side=args.side, samples=args.samples, seed=args.seed, executor=executor)
    print(result.sentence())
    print(result.summary().to_string())
    return 0


def _advise(args: argparse.Namespace) -> int:
    from ._advisor import advise

    if (args.scenario is None) == (args.project is None):
        raise _core.ScenarioError("advise: give a scenario with a project block, or --project FACTS.json")
    if args.scenario is not None:
        advice = advise(Scenario.from_json(args.scenario), job_kind=args.job_kind)
    else:
        path = pathlib.Path(args.project)
        with in_file(path):
            try:
                facts = json.loads(read_utf8(path, "project"))
            except json.JSONDecodeError as e:
                raise _core.ScenarioError(f"not JSON ({e})") from None
            advice = advise(facts, job_kind=args.job_kind)
    print(advice._text())
    return 0


def _plan(args: argparse.Namespace) -> int:
    from ._plan import Plan

    plan = Plan.from_json(args.plan)
    with _executor(args) as executor:
        result = plan.evaluate(samples=args.samples, seed=args.seed, executor=executor)
    print(result._text())
    drivers = result.choice_drivers()
    print(
        f"\nwhat decides {drivers.attrs['favourite']} against {drivers.attrs['runner_up']} "
        "(rank correlations with the margin, docs/decisions.md):"
    )
    print(drivers.head(5).round(3).to_string())
    try:
        print(plan.advise()._text())
    except _core.ScenarioError as e:
        print(f"advice: none ({e})")
    return 0


def _sensitivity(args: argparse.Namespace) -> int:
    from . import _sensitivity as sens

    scn = Scenario.from_json(args.scenario)
    with _executor(args) as executor:
        if args.method == "sobol":
            frame = sens.sobol(
                scn, output=args.output_metric, base_samples=args.base_samples, seed=args.seed, executor=executor
            )
        elif args.method == "rank":
            frame = sens.rank_correlations(
                scn, output=args.output_metric, samples=args.samples, seed=args.seed, executor=executor
            )
        else:
            frame = sens.tornado(
                scn, output=args.output_metric, samples=args.samples, seed=args.seed, executor=executor
            )
    print(frame.to_string())
    return 0


def _grid_argument(text: str) -> tuple:
    """PATH=V1,V2,... where each value is JSON (a number, an object such as
    {"dist":"fixed","value":3}, or a quoted string) or a bare word taken as a string."""
    path, sep, values = text.partition("=")
    if not sep or not values:
        raise _core.ScenarioError(f"grid: must be PATH=V1,V2,..., got {text!r}")
    try:
        parsed = json.loads(f"[{values}]")
    except json.JSONDecodeError:
        parsed = []
        for v in values.split(","):
            try:
                parsed.append(json.loads(v))
            except json.JSONDecodeError:
                if not v or any(c in v for c in '{}[]"'):
                    raise _core.ScenarioError(
                        f"{path}: every value must be a number, JSON or a word, got {v!r}"
                    ) from None
                parsed.append(v)  # a bare word: a text value such as full or lora
    return path, parsed


def _sweep(args: argparse.Namespace) -> int:
    from ._sensitivity import sweep

    scn = Scenario.from_json(args.scenario)
    grid = dict(_grid_argument(g) for g in args.grid)
    with _executor(args) as executor:
        frame = sweep(scn, grid, output=args.output_metric, samples=args.samples, seed=args.seed, executor=executor)
    print(frame.to_string(index=False))
    return 0


def _purchase(args: argparse.Namespace) -> int:
    from ._purchase import purchase_options

    scn = Scenario.from_json(args.scenario)
    hours = [int(h) for h in args.block_hours.split(",")] if args.block_hours else None
    spot = json.loads(args.spot) if args.spot else None
    with _executor(args) as executor:
        options = purchase_options(
            scn,
            block_hours=hours,
            fit_prob=args.fit_prob,
            samples=args.samples,
            seed=args.seed,
            block_node_hour_usd=args.block_node_hour_usd,
            spot=spot,
            offerings=args.offerings,
            offerings_date=args.offerings_date,
            spot_history=args.spot_history,
            search=not args.no_search,
            executor=executor,
        )
    print(options._text())
    return 0


# What a journal needs stated beside the log: (argument, journal_from_log's keyword).
_JOURNAL_ARGS = [
    ("--platform", "platform"),
    ("--nodes", "nodes"),
    ("--job-kind", "kind"),
    ("--model", "model"),
    ("--global-batch", "global_batch"),
    ("--micro-batch", "micro_batch"),
    ("--seq-len", "sequence_length"),
    ("--tp", "tp"),
    ("--pp", "pp"),
    ("--dp", "dp"),
    ("--precision", "precision"),
]


def _write_journal(log: Any, args: argparse.Namespace) -> None:
    """The run's journal from the log and the arguments, checked by loading it, then written."""
    values = {key: getattr(args, flag[2:].replace("-", "_")) for flag, key in _JOURNAL_ARGS}
    missing = [flag for flag, key in _JOURNAL_ARGS if values[key] is None]
    if missing:
        raise scenario_error(
            f"-o: a journal needs what the log cannot hold; missing: {', '.join(missing)} (docs/importing.md)",
            [f"{flag}: required with -o" for flag in missing],
        )
    doc = journal_from_log(
        log,
        lora_rank=args.lora_rank,
        experiment_id=args.experiment_id,
        steps_planned=args.steps_planned,
        region=args.region,
        framework=args.framework,
        neuron_sdk=args.neuron_sdk,
        cuda=args.cuda,
        **values,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JournalWarning)
        journal = Journal.from_dict(doc)
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"journal written: {out} ({journal.experiment_id})")
    print(f"  not recorded (unknown): {', '.join(journal.unknown)}")
    for path, rule in journal.derived.items():
        print(f"  derived {path}: {rule}")
    for w in caught:
        print(f"  warning: {w.message}")


def _import(args: argparse.Namespace) -> int:
    log = read_log(
        args.paths if len(args.paths) > 1 else args.paths[0],
        args.kind,
        metric=args.metric,
        metric_is=args.metric_is,
        global_batch=args.global_batch,
        throughput_window_steps=args.throughput_window,
        resumed_from_step=args.resumed_from_step,
        pattern=args.pattern,
        run=args.mlflow_run,
    )
    print(f"{log.source}: {log.format} log")
    if not len(log.points):
        print(f"  mean step time {log.mean_step_time_s:.6g} s over {log.mean_over_steps} steps (no series)")
    else:
        series = log.series()
        t = series.table["step_time_s"].to_numpy()
        parts = int(log.points["part"].max()) + 1
        print(f"  {len(log.points)} points in {parts} part(s); {len(t)} step times of {series.steps_per_value} step(s)")
        print(f"  {series.rule}")
        print(f"  step time: first {t[0]:.6g} s, median {float(np.median(t)):.6g} s, max {t.max():.6g} s")
        for note in series.notes:
            print(f"  note: {note}")
        if args.steps_csv:
            series.to_csv(args.steps_csv)
            print(f"  wrote {args.steps_csv} (step,part,step_time_s; steps_per_value {series.steps_per_value})")
    for note in log.notes:
        print(f"  note: {note}")
    if args.output:
        _write_journal(log, args)
    if args.steps_csv and not len(log.points):
        print("trnmodel: the log holds only a mean: no step-time CSV written", file=sys.stderr)
        return 2
    return 0


def _validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.files:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", JournalWarning)
                warnings.simplefilter("ignore", PlausibilityWarning)  # listed below, once
                loaded: Any
                if is_journal_file(path):
                    loaded = Journal.from_json(path)
                elif is_trial_summary_file(path):
                    loaded = TrialSummary.from_json(path)
                else:
                    loaded = Scenario.from_json(path)
            messages = [str(w.message) for w in caught]
            left_out: list = []
            assumed: list = []
            if isinstance(loaded, Scenario):
                # Nothing silently left out: the phases counted as 0, the defaults that are not
                # zeros, and the unmet expectations.
                left_out = loaded.not_described()
                assumed = loaded.defaults_assumed()
                messages += [m for m in loaded.implausible() if m not in messages] + loaded.expectations()
            print(f"{path}: valid" + (f", {len(messages)} warning(s)" if messages else ""))
            if left_out:
                print(f"  not described (counted as 0): {'; '.join(left_out)}")
            if assumed:
                print(f"  defaults assumed: {'; '.join(assumed)}")
            for m in messages:
                print(f"  warning: {m}")
        except _core.ScenarioError as e:
            message = str(e)
            print(message if message.startswith(f"{path}:") else f"{path}: {message}", file=sys.stderr)
            bad += 1
    return 2 if bad else 0


def _short_values(values: list) -> str:
    shown = ", ".join(f"{v:.4g}" for v in values[:4])
    return shown + (f", … ({len(values)})" if len(values) > 4 else "")


def _calibrate(args: argparse.Namespace) -> int:
    base = Scenario.from_json(args.base)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JournalWarning)
        scn = calibrate(args.journals, base)
    report = scn.calibration
    table = report.inputs[["status", "method", "n"]].copy()
    table["measured"] = [_short_values(report.values(p)) for p in table.index]
    print(table.to_string())
    for path, row in report.inputs.iterrows():
        if row["status"] != "measured":
            print(f"  {path}: {row['note']}")
    print(f"\nunmeasured (kept from {args.base}): {', '.join(report.unmeasured.index) or 'none'}")
    if report.stayed_assumed:
        print("stayed assumed (the trials did not record what would measure them):")
        for line in report.stayed_assumed:
            print(f"  {line}")
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if args.output:
        scn.to_json(pathlib.Path(args.output))
        print(f"calibrated scenario written: {args.output}", file=sys.stderr)
    return 0


def _new(args: argparse.Namespace) -> int:
    scn = Scenario.new(
        args.config,
        args.platform,
        nodes=args.nodes,
        kind=args.kind,
        tokens=args.tokens,
        steps=args.steps,
        sequence_length=args.seq_len,
        stages=args.stage,
        global_batch=args.global_batch,
        lora_rank=args.lora_rank,
        name=args.name,
        node_hour_usd=args.node_hour_usd,
        storage_gb_month_usd=args.storage_gb_month_usd,
        transfer_gb_usd=args.transfer_gb_usd,
        logs_gb_usd=args.logs_gb_usd,
    )
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    scn.to_json(out)
    doc = scn.to_dict()
    par = doc["parallelism"]
    print(f"scenario written: {out}")
    print(f"  model: {doc['model']['parameters']['value']:.4g} parameters, {doc['model']['layers']} layers")
    print(f"  layout: tp={par['tp']} pp={par['pp']} dp={par['dp']}, global batch {par['global_batch']}")
    for stage in doc.get("stages", []):
        own = stage.get("parallelism", {})
        layout = ", ".join(f"{key}={own[key]}" for key in ("tp", "pp", "dp", "cp", "global_batch") if key in own)
        print(
            f"  stage {stage['name']}: gives {', '.join(k for k in stage if k != 'name')}"
            + (f" (layout: {layout})" if layout else "")
        )
    print(f"  assumptions: {len(scn.assumptions())} (each with its source in the note; docs/scenario.md)")
    unknown = scn.unknowns()
    print(f"  unknown: {', '.join(unknown) if unknown else 'none'}")
    return 0


def _quote(args: argparse.Namespace) -> int:
    from ._quote import quote

    scn = Scenario.from_json(args.scenario) if args.scenario else None
    instance_type, region = args.instance_type, args.region
    if scn is not None:
        check_quantity_path(args.field, "--field")
        doc = scn.to_dict()
        # Re-quoting a scenario: its platform and the region of its current quote by default.
        instance_type = instance_type or doc.get("cluster", {}).get("platform")
        current: object = doc
        for part in args.field.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        if region is None and isinstance(current, dict):
            region = current.get("region")
    if not instance_type:
        raise _core.ScenarioError("--instance-type: required (e.g. trn2.48xlarge) unless --scenario names a platform")
    if not region:
        raise _core.ScenarioError(
            "--region: required (a region code such as us-east-1, or its location name such as "
            "'US East (N. Virginia)') unless the scenario's current quote names one"
        )
    if args.output and scn is None:
        raise _core.ScenarioError("-o: writes an updated scenario, so it needs --scenario")
    attributes = {}
    for item in args.attribute or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise _core.ScenarioError(f"--attribute: must be NAME=VALUE (a product attribute), got {item!r}")
        attributes[name] = value
    q = quote(
        args.price_list,
        instance_type,
        region,
        purchase=args.purchase,
        operating_system=args.os,
        tenancy=args.tenancy,
        attributes=attributes,
    )
    if args.json:
        print(json.dumps(q.to_dict(), indent=2))
    else:
        print(q)
        print(f"  {q.note}")
    if q.age_days() > 30:
        print(
            f"warning: the price list is {q.age_days()} days old (published {q.date}): fetch a current one",
            file=sys.stderr,
        )
    if scn is not None:
        updated = scn.updated({args.field: q.to_distribution()})
        out = pathlib.Path(args.output or args.scenario)
        out.parent.mkdir(parents=True, exist_ok=True)
        updated.to_json(out)
        print(f"{args.field} = {q.usd_per_node_hour:g} (quote of {q.date}, {q.region}) written: {out}", file=sys.stderr)
    return 0


def _write_quote(scn: Optional[Scenario], args: argparse.Namespace, path: str, value: Any, what: str) -> None:
    """Writes a quote into the scenario (in place unless -o)."""
    if scn is None:
        if args.output:
            raise _core.ScenarioError("-o: writes an updated scenario, so it needs --scenario")
        return
    out = pathlib.Path(args.output or args.scenario)
    out.parent.mkdir(parents=True, exist_ok=True)
    scn.updated({path: value}).to_json(out)
    print(f"{path} = {what} written: {out}", file=sys.stderr)


def _quote_block(args: argparse.Namespace) -> int:
    from ._ec2_quotes import read_block_offerings

    scn = Scenario.from_json(args.scenario) if args.scenario else None
    instance_type, nodes, hours = args.instance_type, args.nodes, args.hours
    if scn is not None:
        instance_type = instance_type or scn[CLUSTER_PLATFORM]
        nodes = nodes or scn[CLUSTER_NODES]
        hours = hours or scn[PRICES_BLOCK_HOURS]
    for flag, value in (("--instance-type", instance_type), ("--nodes", nodes), ("--hours", hours)):
        if not value:
            raise _core.ScenarioError(f"{flag}: required unless --scenario gives it")
    offers = read_block_offerings(args.offerings, args.date)
    fee = offers.fee(instance_type, nodes, hours, region=args.region, zone=args.zone)
    print(json.dumps(fee.to_dict(), indent=2) if args.json else f"{fee}\n  {fee.note}")
    if offers.date_source != "given":
        print(f"note: the offerings are dated {offers.date} ({offers.date_source}): give --date", file=sys.stderr)
    _write_quote(scn, args, PRICES_BLOCK_USD, fee.to_dict(), f"{fee.fee_usd:,.2f} (offering of {fee.date})")
    return 0


def _quote_spot(args: argparse.Namespace) -> int:
    from ._ec2_quotes import spot_price

    scn = Scenario.from_json(args.scenario) if args.scenario else None
    instance_type = args.instance_type or (scn[CLUSTER_PLATFORM] if scn is not None else None)
    if not instance_type:
        raise _core.ScenarioError("--instance-type: required (e.g. p5.48xlarge) unless --scenario names a platform")
    price = spot_price(args.history, instance_type, region=args.region, zone=args.zone, product=args.product)
    print(json.dumps(price.to_dict(), indent=2) if args.json else f"{price}\n  {price.note}")
    _write_quote(
        scn, args, PRICES_SPOT_NODE_HOUR_USD, price.to_dict(), f"{len(price.hourly_usd)} hourly prices to {price.date}"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trnmodel",
        description="Wall time and cost of a training job over its whole lifecycle, with every input "
        "uncertain (Monte Carlo). Exit codes: 0 success, 2 bad input, 1 internal error.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p: argparse.ArgumentParser, samples: int) -> None:
        p.add_argument("-n", "--samples", type=int, default=samples, help=f"Monte Carlo samples (default {samples})")
        p.add_argument("--seed", type=int, default=0, help="random seed; same seed, same result (default 0)")

    def cluster(p: argparse.ArgumentParser) -> None:
        where = p.add_mutually_exclusive_group()
        where.add_argument(
            "--scheduler",
            metavar="ADDRESS",
            help="run on a Dask cluster: its scheduler's address (tcp://host:8786); the same bits (docs/scaling.md)",
        )
        where.add_argument("--workers", type=int, metavar="N", help="run on a local Dask cluster of N worker processes")

    def ec2_quotes(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--offerings",
            action="append",
            metavar="FILE",
            help="a saved 'aws ec2 describe-capacity-block-offerings' output: the block fees as quoted (repeatable)",
        )
        p.add_argument(
            "--offerings-date", help="YYYY-MM-DD: the day the offerings were read (default: the file's date)"
        )
        p.add_argument(
            "--spot-history",
            action="append",
            metavar="FILE",
            help="a saved 'aws ec2 describe-spot-price-history' output: the spot price as its history (repeatable)",
        )

    def metric(p: argparse.ArgumentParser, default: str = "run_cost_usd") -> None:
        p.add_argument(
            "--metric",
            dest="output_metric",
            default=default,
            help=f"the metric to analyse, e.g. run_cost_usd, wall_h, total_cost_usd (default {default}; "
            f"every metric: docs/metrics.md)",
        )

    p = sub.add_parser(
        "estimate",
        help="simulate a scenario and print its budget study (Markdown)",
        description="Simulate a scenario and print its budget study: P50/P80/P90 time and cost, the phase "
        "breakdown, cost per step, the ledger, assumptions and unknowns.",
    )
    p.add_argument("scenario", help="scenario JSON file")
    common(p, 100_000)
    p.add_argument("-o", "--output", help="also write the report to this Markdown file")
    cluster(p)
    p.set_defaults(run=_estimate)

    p = sub.add_parser(
        "report",
        help="write the budget sign-off: self-contained HTML with plots, and a Markdown twin",
        description="Write the budget sign-off of SCENARIO (and its comparison with SCENARIO_B): the job "
        "card, assumptions and unknowns, quotes with their dates, P50/P80/P90 time and cost, the breakdown, "
        "cost of a useful step beside lifecycle cost per step, top drivers, how much is chance, and the "
        "comparison with break-even; with SCENARIO_B or --plan it opens with the decision page (what to do and "
        "why, each track's cost, payback, what to measure next). Writes OUTPUT (HTML, plots embedded) and OUTPUT with .md (figures in "
        "OUTPUT_files/).",
    )
    p.add_argument("scenario", help="scenario JSON file (A)")
    p.add_argument("scenario_b", nargs="?", help="a second scenario to compare with (B)")
    p.add_argument(
        "--plan",
        help="a migration plan (trnmodel.plan/1) whose strategies the decision page costs: the dual track "
        "beside GPU only and Trainium only",
    )
    p.add_argument(
        "-o",
        "--output",
        dest="output",
        default="report.html",
        help="the HTML file to write (default report.html); the Markdown twin goes beside it",
    )
    common(p, 100_000)
    metric(p)
    p.add_argument(
        "--break-even",
        default=PRICES_NODE_HOUR_USD,
        help="path of B solved for equal means (default prices.node_hour_usd)",
    )
    ec2_quotes(p)
    cluster(p)
    p.set_defaults(run=_report)

    p = sub.add_parser(
        "compare",
        help="compare two scenarios on common random numbers",
        description="Compare two scenarios on common random numbers: both distributions, the difference, "
        "P(A < B), and optionally the break-even value of a path of B.",
    )
    p.add_argument("scenario_a")
    p.add_argument("scenario_b")
    common(p, 100_000)
    metric(p)
    p.add_argument("--break-even", metavar="PATH", help="solve PATH of B (e.g. prices.node_hour_usd) for equal means")
    cluster(p)
    p.set_defaults(run=_compare)

    p = sub.add_parser(
        "payback",
        help="how many runs until a port pays back (common random numbers)",
        description="Per sample, the runs after which the side cheaper to run has earned back its extra porting "
        "cost (engineering.adaptation_h x rate): P50, P90, P(within n runs), P(never).",
    )
    p.add_argument("scenario_a")
    p.add_argument("scenario_b")
    common(p, 100_000)
    p.add_argument("--side", choices=["a", "b"], help="the side whose porting is paid back (default: cheaper to run)")
    cluster(p)
    p.set_defaults(run=_payback)

    p = sub.add_parser(
        "advise",
        help="GPU, a Trainium pilot or a dual track: the advisor's rules over a project's facts",
        description="The advisor (docs/decisions.md): the recommendation, every rule that fired with the facts "
        "that fired it, and the suitability score of LoRA on Trainium.",
    )
    p.add_argument("scenario", nargs="?", help="a scenario JSON with a project block")
    p.add_argument("--project", help="a JSON file of the project's facts instead of a scenario")
    p.add_argument("--job-kind", choices=["lora", "full", "continued"], help="the job kind (default: the scenario's)")
    p.set_defaults(run=_advise)

    p = sub.add_parser(
        "plan",
        help="cost GPU only, Trainium only and a dual track on common random numbers",
        description="A migration plan (trnmodel.plan/1, docs/decisions.md): the three strategies' time and cost, "
        "P(each is cheapest), and the advisor on the plan's project block.",
    )
    p.add_argument("plan", help="the plan's JSON file")
    common(p, 100_000)
    cluster(p)
    p.set_defaults(run=_plan)

    p = sub.add_parser(
        "sensitivity",
        help="which inputs move the estimate (tornado, Sobol, rank correlations)",
        description="Which inputs move the estimate: tornado (each input at its P10 and P90), Sobol "
        "indices (S1, ST with intervals; 'chance' is all aleatory randomness) or rank correlations.",
    )
    p.add_argument("scenario")
    p.add_argument("--method", choices=["tornado", "sobol", "rank"], default="tornado", help="default tornado")
    common(p, 20_000)
    p.add_argument("--base-samples", type=int, default=2**13, help="Sobol base samples N (default 8192)")
    metric(p)
    cluster(p)
    p.set_defaults(run=_sensitivity)

    p = sub.add_parser(
        "sweep",
        help="a grid over one or two scenario paths, on common random numbers",
        description="Simulate the scenario on a grid of one or two dotted paths, e.g. "
        "checkpoint.every_steps=250,500,1000; every point on the same seed.",
    )
    p.add_argument("scenario")
    p.add_argument("grid", nargs="+", metavar="PATH=V1,V2,...")
    common(p, 20_000)
    metric(p, "wall_h")
    cluster(p)
    p.set_defaults(run=_sweep)

    p = sub.add_parser(
        "purchase",
        help="on demand, capacity blocks and spot side by side; the shortest block that holds the job",
        description="Simulate the job on demand, on a capacity block of each length and on spot (same seed), "
        "and name the shortest block whose P(fit) reaches --fit-prob, with its cost P50/P90.",
    )
    p.add_argument("scenario")
    p.add_argument(
        "--block-hours", help="block lengths in hours, e.g. 168,336 (default: the scenario's, or 7 and 14 days)"
    )
    p.add_argument("--fit-prob", type=float, default=0.9, help="target P(fit) (default 0.9)")
    p.add_argument(
        "--no-search",
        action="store_true",
        help="only the lengths given (by default, when none fits, the longer ones up to 182 days are searched)",
    )
    p.add_argument("--block-node-hour-usd", type=float, help="a block's rate per node-hour (default: the scenario's)")
    p.add_argument("--spot", help="spot fields as JSON, e.g. '{\"prices.spot_node_hour_usd\": 20, ...}'")
    ec2_quotes(p)
    common(p, 20_000)
    cluster(p)
    p.set_defaults(run=_purchase)

    p = sub.add_parser("validate", help="check scenario and journal files; print every problem of each")
    p.add_argument("files", nargs="+", help="scenario, trial-run journal or trial-summary JSON files")
    p.set_defaults(run=_validate)

    p = sub.add_parser(
        "import",
        help="read a training log's step times (TensorBoard, MLflow, trainer_state.json, a CSV, a console log)",
        description="Read the steps a training log holds and turn them into step times (docs/importing.md): "
        "TensorBoard event files (a run folder or a file), an MLflow run folder, the Hugging Face Trainer's trainer_state.json, a CSV of step and wall_time or "
        "step_time_s (several files: a run and its restarts), or a console log (Megatron-LM, NxD, or --pattern). "
        "Prints what was read and how; --steps-csv writes the series a journal's step_times can reference.",
    )
    p.add_argument("kind", choices=[m.value for m in LogFormat], help="the kind of log")
    p.add_argument("paths", nargs="+", metavar="PATH", help="the log (a CSV run and its restarts: several files)")
    p.add_argument("--metric", help="tensorboard, mlflow: the tag or metric to read (default: the one logged most)")
    p.add_argument(
        "--metric-is",
        choices=[m.value for m in MetricMeaning],
        default="clock",
        help="tensorboard, mlflow: what the metric's values are (default clock: only its timestamps count)",
    )
    p.add_argument("--global-batch", type=int, help="sequences per step, to turn a throughput into step times")
    p.add_argument("--throughput-window", type=int, default=10, help="steps a throughput averages (NxD: 10)")
    p.add_argument("--resumed-from-step", type=int, help="hf_trainer: the step the last training call resumed from")
    p.add_argument(
        "--pattern", help="console: a regular expression with named groups step and step_time_s or timestamp"
    )
    p.add_argument(
        "--run", dest="mlflow_run", help="mlflow: the run's id or name in a SQLite store (mlflow.db) of several runs"
    )
    p.add_argument("--steps-csv", metavar="FILE", help="write the step-time series to this CSV")
    j = p.add_argument_group(
        "a journal (-o)",
        "the run's journal from the log and what you state (docs/importing.md, 'A journal from a log'): "
        "what the log cannot hold is listed as unknown, not invented",
    )
    j.add_argument("-o", "--output", metavar="JOURNAL", help="write the run's journal (trnmodel.journal/1) here")
    j.add_argument("--experiment-id", help="the run's id (default: from the log's name)")
    j.add_argument("--platform", help="the instance type it ran on, e.g. trn2.48xlarge")
    j.add_argument("--nodes", type=int, help="nodes of the run")
    j.add_argument("--job-kind", choices=[m.value for m in JobKind], help="lora, full or continued")
    j.add_argument("--model", help="the model id, e.g. meta-llama/Meta-Llama-3-70B")
    j.add_argument("--micro-batch", type=int, help="sequences per micro-batch per data-parallel rank")
    j.add_argument("--seq-len", type=int, help="tokens per sequence")
    j.add_argument("--tp", type=int, help="tensor-parallel degree")
    j.add_argument("--pp", type=int, help="pipeline-parallel degree")
    j.add_argument("--dp", type=int, help="data-parallel degree")
    j.add_argument("--precision", choices=[m.value for m in ComputePrecision], help="compute precision")
    j.add_argument("--lora-rank", type=int, help="LoRA rank (a LoRA run)")
    j.add_argument("--steps-planned", type=int, help="optimizer steps the trial was planned to run")
    j.add_argument("--region", help="cloud region")
    j.add_argument("--framework", help='training framework and version, e.g. "pytorch 2.9.0"')
    j.add_argument("--neuron-sdk", help="AWS Neuron SDK release")
    j.add_argument("--cuda", help="CUDA version")
    p.set_defaults(run=_import)

    p = sub.add_parser("calibrate", help="replace a scenario's inputs by what trial-run journals measured")
    p.add_argument(
        "journals",
        nargs="+",
        help="journal JSON files (trnmodel.journal/1) of one configuration, or one trial summary "
        "(trnmodel.trial-summary/1)",
    )
    p.add_argument("--base", required=True, help="the scenario to calibrate (JSON file)")
    p.add_argument("-o", "--output", help="write the calibrated scenario to this JSON file")
    p.set_defaults(run=_calibrate)

    p = sub.add_parser(
        "new",
        help="build a complete scenario from a Hugging Face config.json, a platform and the job",
        description="Build a complete scenario: the model from a Hugging Face config.json, the step time from "
        "the platform profile (analytic), and every lifecycle phase as a stated assumption with its source "
        "(docs/scenario.md, 'Building a scenario'). Prices are unknown unless given.",
    )
    p.add_argument("--config", required=True, help="the model's config.json (Llama/Mistral/Qwen-style)")
    p.add_argument("--platform", required=True, help="a hardware profile, e.g. trn2.48xlarge (tm.profiles())")
    p.add_argument("--nodes", type=int, default=1, help="number of nodes (default 1)")
    p.add_argument("--kind", choices=list(JOB_KIND_CHOICES), default="lora", help="default lora")
    amount = p.add_mutually_exclusive_group(required=True)
    amount.add_argument("--tokens", help="training tokens, e.g. 786M, 40B, 1.5T")
    amount.add_argument("--steps", help="optimizer steps, e.g. 3000 or 10k")
    amount.add_argument(
        "--stage",
        action="append",
        metavar="NAME:TOKENS:SEQ_LEN",
        help="a stage of a job in stages, e.g. --stage 8k:180B:8192 --stage 32k:20B:32768 (repeatable, in order; "
        "instead of --tokens, --steps and --seq-len)",
    )
    p.add_argument("--seq-len", type=int, help="tokens per sequence (default 4096, at most the config allows)")
    p.add_argument("--global-batch", type=int, help="sequences per step (default 64 for lora, 256 otherwise)")
    p.add_argument("--lora-rank", type=int, default=16, help="LoRA rank (default 16)")
    p.add_argument("--name", help="scenario name (default from the config, kind and platform)")
    p.add_argument("--node-hour-usd", type=float, help="price of a node-hour, USD (a quote; default unknown)")
    p.add_argument("--storage-gb-month-usd", type=float, help="storage price, USD per GB-month (default unknown)")
    p.add_argument("--transfer-gb-usd", type=float, help="transfer price, USD per GB (default unknown)")
    p.add_argument("--logs-gb-usd", type=float, help="log ingestion price, USD per GB (default unknown)")
    p.add_argument("-o", "--output", required=True, help="the scenario JSON file to write")
    p.set_defaults(run=_new)

    p = sub.add_parser(
        "quote",
        help="read a price per node-hour from AWS's price list; print it or write it into a scenario",
        description="Read the price of one instance type in one region from an AWS Price List offer file or "
        "a saved 'aws pricing get-products' output, with the documented filters (docs/prices.md), and print "
        "the quote (price, list date, region, SKU) or write it into a scenario as a quantity with source quote.",
    )
    p.add_argument("price_list", help="offer file (index.json) or get-products output (JSON)")
    p.add_argument("--instance-type", help="e.g. trn2.48xlarge (default: the scenario's cluster.platform)")
    p.add_argument(
        "--region", help="region code or location name (default: the region of the scenario's current quote)"
    )
    p.add_argument("--purchase", choices=list(PRICES_PURCHASE_CHOICES), default="on_demand", help="default on_demand")
    p.add_argument("--os", default="Linux", help="operatingSystem (default Linux)")
    p.add_argument("--tenancy", default="Shared", help="tenancy (default Shared)")
    p.add_argument(
        "--attribute",
        action="append",
        metavar="NAME=VALUE",
        help="a further product attribute to match, e.g. licenseModel='No License required' (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print the quote as a scenario quantity (JSON)")
    p.add_argument("--scenario", help="write the quote into this scenario (in place unless -o)")
    p.add_argument("--field", default=PRICES_NODE_HOUR_USD, help="the scenario path (default prices.node_hour_usd)")
    p.add_argument("-o", "--output", help="write the updated scenario here instead of in place")
    p.set_defaults(run=_quote)

    p = sub.add_parser(
        "quote-block",
        help="read a capacity block's fee from saved describe-capacity-block-offerings outputs",
        description="Read the upfront fee of a capacity block (instance type, node count, length) from saved "
        "'aws ec2 describe-capacity-block-offerings' outputs: the cheapest matching offering, with its ID, zone, "
        "start and the day the offerings were read; print it or write it into a scenario as prices.block_usd.",
    )
    p.add_argument("offerings", nargs="+", help="saved describe-capacity-block-offerings output(s) (JSON)")
    p.add_argument("--instance-type", help="default: the scenario's cluster.platform")
    p.add_argument("--nodes", type=int, help="default: the scenario's cluster.nodes")
    p.add_argument("--hours", type=int, help="the block's length (default: the scenario's prices.block_hours)")
    p.add_argument("--date", help="YYYY-MM-DD: the day the offerings were read (default: the file's date)")
    p.add_argument("--region", help="only offerings in this region")
    p.add_argument("--zone", help="only offerings in this availability zone")
    p.add_argument("--json", action="store_true", help="print the fee as a scenario quantity (JSON)")
    p.add_argument("--scenario", help="write the fee into this scenario's prices.block_usd (in place unless -o)")
    p.add_argument("-o", "--output", help="write the updated scenario here instead of in place")
    p.set_defaults(run=_quote_block)

    p = sub.add_parser(
        "quote-spot",
        help="read a spot price distribution from a saved describe-spot-price-history output",
        description="Read the spot price of an instance type from saved 'aws ec2 describe-spot-price-history' "
        "outputs: the price in effect at each whole hour of the history, per availability zone, as an empirical "
        "distribution dated by the last price; print it or write it into a scenario as prices.spot_node_hour_usd.",
    )
    p.add_argument("history", nargs="+", help="saved describe-spot-price-history output(s) (JSON)")
    p.add_argument("--instance-type", help="default: the scenario's cluster.platform")
    p.add_argument("--region", help="only zones of this region (needed when the history spans regions)")
    p.add_argument("--zone", help="one availability zone (default: every zone of the region, pooled)")
    p.add_argument("--product", default="Linux/UNIX", help="ProductDescription (default Linux/UNIX)")
    p.add_argument("--json", action="store_true", help="print the price as a scenario quantity (JSON)")
    p.add_argument("--scenario", help="write the price into this scenario's prices.spot_node_hour_usd")
    p.add_argument("-o", "--output", help="write the updated scenario here instead of in place")
    p.set_defaults(run=_quote_spot)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except _core.ScenarioError as e:
        print(f"trnmodel: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("trnmodel: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # an internal error: say so, without hiding it
        print(f"trnmodel: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
