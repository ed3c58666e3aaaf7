"""The trnmodel command line.

    trnmodel estimate SCENARIO [-n SAMPLES] [--seed S] [-o REPORT.md]
    trnmodel validate FILE...              (scenarios and trial-run journals)
    trnmodel calibrate JOURNAL... --base SCENARIO [-o CALIBRATED.json]

Exit codes: 0 success, 2 bad input (one line naming the field), 1 internal error.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import warnings
from typing import List, Optional

from . import _core
from ._calibrate import Journal, JournalWarning, calibrate
from ._report import budget_report
from ._scenario import Scenario
from ._simulate import simulate


def _estimate(args: argparse.Namespace) -> int:
    scn = Scenario.from_json(args.scenario)
    result = simulate(scn, samples=args.samples, seed=args.seed, allow_unknown=True, keep_samples=True)
    report = budget_report(result)
    print(report)
    if args.output:
        out = pathlib.Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(report, encoding="utf-8")
        print(f"report written: {out}", file=sys.stderr)
    return 0


def _is_journal(path: str) -> bool:
    try:
        return '"trnmodel.journal/1"' in pathlib.Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.files:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", JournalWarning)
                Journal.from_json(path) if _is_journal(path) else Scenario.from_json(path)
            print(f"{path}: valid" + (f", {len(caught)} warning(s)" if caught else ""))
            for w in caught:
                print(f"  warning: {w.message}")
        except _core.ScenarioError as e:
            print(f"{path}: {e}", file=sys.stderr)
            bad += 1
    return 2 if bad else 0


def _calibrate(args: argparse.Namespace) -> int:
    base = Scenario.from_json(args.base)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JournalWarning)
        scn = calibrate(args.journals, base)
    report = scn.calibration
    print(report.inputs[["status", "method", "n"]].to_string())
    print(f"\nunmeasured (kept from {args.base}): {', '.join(report.unmeasured.index) or 'none'}")
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if args.output:
        out = pathlib.Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        scn.to_json(out)
        print(f"calibrated scenario written: {out}", file=sys.stderr)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="trnmodel", description="Wall time and cost of a training job, with every input uncertain.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("estimate", help="simulate a scenario and print its budget study (Markdown)")
    p.add_argument("scenario", help="scenario JSON file")
    p.add_argument("-n", "--samples", type=int, default=100_000, help="Monte Carlo samples (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("-o", "--output", help="also write the report to this Markdown file")
    p.set_defaults(run=_estimate)
    p = sub.add_parser("validate", help="check scenario and journal files; print the first error of each")
    p.add_argument("files", nargs="+", help="scenario or trial-run journal JSON files")
    p.set_defaults(run=_validate)
    p = sub.add_parser("calibrate", help="replace a scenario's inputs by what trial-run journals measured")
    p.add_argument("journals", nargs="+", help="journal JSON files (trnmodel.journal/1) of one configuration")
    p.add_argument("--base", required=True, help="the scenario to calibrate (JSON file)")
    p.add_argument("-o", "--output", help="write the calibrated scenario to this JSON file")
    p.set_defaults(run=_calibrate)
    args = parser.parse_args(argv)
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
