"""The trnmodel command line.

    trnmodel estimate SCENARIO [-n SAMPLES] [--seed S] [-o REPORT.md]
    trnmodel validate SCENARIO...

Exit codes: 0 success, 2 bad input (one line naming the field), 1 internal error.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
from typing import List, Optional

from . import _core
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


def _validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.scenarios:
        try:
            Scenario.from_json(path)
            print(f"{path}: valid")
        except _core.ScenarioError as e:
            print(f"{path}: {e}", file=sys.stderr)
            bad += 1
    return 2 if bad else 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="trnmodel", description="Wall time and cost of a training job, with every input uncertain.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("estimate", help="simulate a scenario and print its budget study (Markdown)")
    p.add_argument("scenario", help="scenario JSON file")
    p.add_argument("-n", "--samples", type=int, default=100_000, help="Monte Carlo samples (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("-o", "--output", help="also write the report to this Markdown file")
    p.set_defaults(run=_estimate)
    p = sub.add_parser("validate", help="check scenario files; print the first error of each")
    p.add_argument("scenarios", nargs="+")
    p.set_defaults(run=_validate)
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
