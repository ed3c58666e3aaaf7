"""Scenarios (job cards): docs/scenario.md. Loading, validation and saving happen in C++; this
class owns the Python experience."""

from __future__ import annotations

import copy
import functools
import json
import os
import pathlib
import types
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Tuple, Union

from . import _core
from ._distributions import Distribution, as_distribution
from ._errors import CompletenessWarning, PlausibilityWarning, UnknownFieldError, in_file
from ._evidence import evidence_table
from ._files import is_journal_text, read_utf8
from .fields import CLUSTER_NODES, ThroughputMode

if TYPE_CHECKING:
    import pandas as pd

PathLike = Union[str, os.PathLike]
ProfilesArg = Optional[Mapping[str, Union[PathLike, Mapping[str, Any]]]]

_PROFILE_DIR = pathlib.Path(__file__).with_name("profiles")


def profiles() -> list:
    """Names of the hardware profiles shipped with the package (docs/profiles.md)."""
    return sorted(p.stem for p in _PROFILE_DIR.glob("*.json"))


def load_profile(name_or_path: Union[PathLike, str]) -> dict:
    """A hardware profile ("trnmodel.profile/1") as a dict: a shipped one by name, or a file."""
    path = pathlib.Path(name_or_path)
    if not path.is_file():
        path = _PROFILE_DIR / f"{name_or_path}.json"
    if not path.is_file():
        raise _core.ScenarioError(
            f"profile: no shipped profile or file named {str(name_or_path)!r} (shipped: {', '.join(profiles())})"
        )
    doc = json.loads(path.read_text(encoding="utf-8"))
    _core.check_profile(doc, f"profile {path.stem}")
    return doc


@functools.lru_cache(maxsize=None)
def _shipped() -> Mapping[str, dict]:
    """The shipped profiles, read once. Built whole before it is published, so a thread never
    sees a half-filled library (a cache filled in place would show one to a second thread)."""
    return types.MappingProxyType(
        {name: json.loads((_PROFILE_DIR / f"{name}.json").read_text(encoding="utf-8")) for name in profiles()}
    )


def _library(extra: ProfilesArg) -> dict:
    """Shipped profiles, overridden by the user's (name -> dict or file path)."""
    library = dict(_shipped())
    for name, value in (extra or {}).items():
        library[str(name)] = dict(value) if isinstance(value, Mapping) else load_profile(value)
    return library


def _plain(value: Any, depth: int = 0) -> Any:
    """A value as it goes into JSON: distributions become their dicts. Nesting is limited as
    in JSON text (the C++ side refuses lists nested too deep), so that no input reaches
    Python's recursion limit."""
    if isinstance(value, Distribution):
        return value.to_dict()
    if isinstance(value, Mapping):
        if depth >= _core.MAX_JSON_DEPTH:
            raise _core.ScenarioError(
                f"scenario: JSON nested more than {_core.MAX_JSON_DEPTH} levels deep "
                "(arrays and objects within each other); trnmodel documents need a few"
            )
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    return value


class ProvenanceRow(NamedTuple):
    """Where one given input comes from: its value (as written, provenance left out) and
    source, note, date and region as the scenario gives them."""

    path: str
    value: str
    source: str  # measured, vendor, quote, model, assumption, unknown, or "(none)"
    note: str
    date: str
    region: str


def _describe(spec: Any) -> str:
    if not isinstance(spec, dict):
        return f"{spec:g}"
    family = spec.get("dist", "")
    if family == "mixture":  # "mixture(0.8 lognormal(p50=3.65, p90=5.11), 0.2 fixed(value=1.3))"
        parts = []
        for c in spec["components"]:
            # A bare number would read as a second weight ("0.2 1.3"): name the family.
            value = c["value"] if isinstance(c["value"], dict) else {"dist": "fixed", "value": c["value"]}
            parts.append(f"{c['weight']:g} {_describe(value)}")
        return f"mixture({', '.join(parts)})"
    params = ", ".join(
        f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}=…" for k, v in spec.items() if k != "dist"
    )
    return f"{family}({params})"


class Scenario:
    """A training job card: every input with its uncertainty and provenance.

    Build with :meth:`from_json` (a file path or JSON text) or :meth:`from_dict`. Bad input
    raises :class:`tm.ScenarioError` naming the JSON path, the value and the rule.
    """

    __slots__ = ("_core", "_expectations", "_provenance", "_given")

    def __init__(self, core: "_core.Scenario") -> None:
        self._core = core
        # Computed once: a scenario is immutable (a sign-off asks for its provenance 20 times).
        self._expectations: Optional[List[str]] = None
        self._provenance: Optional[List[ProvenanceRow]] = None
        self._given: Optional[dict] = None

    # -- loading and saving ---------------------------------------------------------
    @classmethod
    def from_json(cls, source: Union[PathLike, str], profiles: ProfilesArg = None) -> "Scenario":
        """From a JSON file path or from JSON text (anything starting with '{').

        ``cluster.platform`` may name a shipped hardware profile (``tm.profiles()``) or one
        given in ``profiles`` (name -> dict or profile file), which overrides a shipped one."""
        text = os.fspath(source) if isinstance(source, os.PathLike) else source
        if isinstance(source, os.PathLike) or not str(text).lstrip().startswith("{"):
            path = pathlib.Path(text)
            text = read_utf8(path, "scenario")
            if is_journal_text(text):
                raise _core.ScenarioError(
                    f"{path}: this is a trial-run journal, not a scenario (load it with "
                    f"tm.Journal.from_json, or calibrate a scenario from it: trnmodel calibrate)"
                )
            with in_file(path):
                return cls(_core.Scenario.from_text(text, _library(profiles)))._warn_implausible()
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate, as undecodable bytes become
            raise _core.ScenarioError(
                f"scenario: not valid Unicode text (character {e.start}: {text[e.start : e.start + 1]!r})"
            ) from None
        return cls(_core.Scenario.from_text(text, _library(profiles)))._warn_implausible()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], profiles: ProfilesArg = None) -> "Scenario":
        """From a dict shaped like the JSON form (distributions may be tm objects)."""
        return cls(_core.Scenario.from_obj(_plain(data), _library(profiles)))._warn_implausible()

    @classmethod
    def new(cls, config: Union[PathLike, Mapping[str, Any]], platform: str, **options: Any) -> "Scenario":
        """A complete scenario from a Hugging Face ``config.json`` (a path or a dict), a
        platform profile (``tm.profiles()``) and the job. Options: ``nodes`` (default 1),
        ``kind`` (lora, full, continued; default lora), ``tokens`` ("786M", "40B" or a number)
        or ``steps``, ``sequence_length`` (default 4096, at most the config's
        max_position_embeddings), ``global_batch`` in sequences (default 64 for LoRA, 256
        otherwise), ``lora_rank`` (default 16), ``name``, and the prices in USD, taken as quotes:
        ``node_hour_usd``, ``storage_gb_month_usd``, ``transfer_gb_usd``, ``logs_gb_usd``.
        A longer sequence than the config's max_position_embeddings is allowed for ``kind``
        continued, a context extension, with a :class:`tm.PlausibilityWarning` naming the RoPE
        scaling the training script must configure.

        ``stages`` (instead of ``tokens``, ``steps`` and ``sequence_length``) builds a job in
        stages: a list of ``"NAME:TOKENS:SEQ_LEN"`` strings, ``(name, tokens, sequence_length)``
        tuples or mappings with ``name``, ``tokens`` or ``steps``, ``sequence_length`` and
        ``global_batch``. Each stage is built as a job of its own (its layout and step time
        chosen for its sequence length) and gives its work and the fields where it differs
        from the first stage; a later stage without its own global batch keeps the first
        stage's tokens per step.

        The model block and the parameter count come from the config; the step time is
        analytic, with the first layout (least model parallelism) that fits; every other phase
        is a stated assumption with its source in the note (docs/scenario.md, "Building a
        scenario: the assumptions"). Prices are unknown unless given."""
        from ._builder import new

        return cls.from_dict(new(config, platform, load_profile(platform), _library(None), **options))

    def __reduce__(self) -> Any:
        """Pickled as its JSON and its hardware profile's (a task of a split run, a worker of
        a cluster rebuilds it from them: docs/scaling.md)."""
        profile = self._core.profile_document()
        platform = self._core.profile_name
        return (_rebuild, (self.to_dict(), {platform: profile} if profile is not None and platform else {}))

    def to_dict(self) -> dict:
        """The scenario as given (defaults are not written out)."""
        return self._core.to_obj()

    def _as_given(self) -> dict:
        """:meth:`to_dict`, made once and shared: for reading only (a sign-off reads the card's
        plain fields about 70 times)."""
        if self._given is None:
            self._given = self._core.to_obj()
        return self._given

    def to_json(self, path: Optional[PathLike] = None, indent: int = 2) -> str:
        """JSON text; also written to ``path`` when given."""
        text = self._core.to_text(indent)
        if path is not None:
            pathlib.Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def updated(self, changes: Mapping[str, Any]) -> "Scenario":
        """A copy with changes at dotted paths, e.g. ``{"checkpoint.every_steps": 500}``.
        A value of None restores the field's default. The copy is validated again.

        A stage's field is ``"stages[1].throughput.step_time_s"`` or, by the stage's name,
        ``"long/throughput.step_time_s"`` (the name its input has in a sensitivity analysis);
        None there removes the stage's own value, so the stage takes the top level's again.

        A measured step time does not scale with the cluster: changing ``cluster.nodes`` or
        the layout (``parallelism.*``) of a scenario in measured mode warns
        (:class:`tm.CompletenessWarning`) and points to extrapolated mode."""
        copy = Scenario(self._core.updated({str(k): _plain(v) for k, v in changes.items()}))
        moved = []
        for key in map(str, changes):
            at = copy._core.stage_field(key)  # a stage's field runs in that stage's mode
            field, mode = (key, copy._core.mode) if at is None else (at.path, copy._core.stage(at.stage).mode)
            if mode == ThroughputMode.MEASURED and (field == CLUSTER_NODES or field.startswith("parallelism.")):
                if copy[key] != self[key]:
                    moved.append(key)
        if moved:
            warnings.warn(
                f"{', '.join(moved)} changed but throughput.step_time_s is measured: the measured step time does "
                "not scale with the cluster (the cost of the same step time grows with the nodes); use "
                "throughput.mode extrapolated with a reference configuration",
                CompletenessWarning,
                stacklevel=2,
            )
        return copy

    # -- reading ----------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._core.name

    def __getitem__(self, path: str) -> Any:
        """The value at a dotted path: a Distribution for quantities (their defaults when
        not given), else the plain value; None when absent without default. In a job in
        stages, ``"stages[1].<path>"`` or ``"<stage name>/<path>"`` is the value that stage
        runs with (its own, or the top level's). A path that names no field raises
        :class:`tm.UnknownFieldError` (a ScenarioError and a KeyError) with a did-you-mean."""
        at = self._core.stage_field(path) if "/" in path or path.startswith("stages[") else None
        if at is not None:
            k, field_path = at.stage, at.path
            if field_path == "name":
                return self._core.stage_name(k)
            return Scenario(self._core.stage(k))[field_path]
        field = _FIELDS.get(path)
        if field is None:
            hint = _core.closest_name(path, list(_FIELDS))
            raise UnknownFieldError(f"{path}: no such scenario field" + (f" (did you mean {hint}?)" if hint else ""))
        if field.kind == "quantity":
            q = self._core.quantity(path)
            return None if q is None else _wrap(q)
        value: Any = self._as_given()
        for key in path.split("."):  # sections nest: card.owners.quality
            value = value.get(key) if isinstance(value, dict) else None
        # The caller's own copy of a section or a list, so that changing it changes nothing here.
        return field.default if value is None else copy.deepcopy(value) if isinstance(value, (dict, list)) else value

    def inputs(self) -> Iterator[Tuple[str, Optional[Distribution], bool]]:
        """(path, Distribution or None, given) for every quantity field, in format order."""
        for path, field in _FIELDS.items():
            if field.kind == "quantity":
                yield path, self[path], self._core.has(path)

    def _stage_inputs(self) -> Iterator[Tuple[str, Distribution]]:
        """The quantities the stages give themselves, as ("stages[k].<path>", Distribution), in
        stage order then format order (a stage's null, which removes a field, is left out)."""
        for k, stage in enumerate(self._as_given().get("stages") or []):
            for path, field in _FIELDS.items():
                if field.kind != "quantity" or not self._core.stage_gives(k, path):
                    continue
                head, _, key = path.partition(".")
                spec = stage.get(head) if not key else (stage.get(head) or {}).get(key)
                if spec is not None:
                    yield f"stages[{k}].{path}", as_distribution(spec)

    def provenance(self) -> List[ProvenanceRow]:
        """Every given input with where it comes from, in format order: an unknown input as
        ``value`` "unknown" and its reason as the note. The inputs a stage gives itself follow
        the top level's, as ``"stages[k].<path>"``."""
        if self._provenance is None:
            self._provenance = self._provenance_rows()
        return list(self._provenance)

    def _provenance_rows(self) -> List[ProvenanceRow]:
        rows = []
        given_inputs = [(path, d) for path, d, given in self.inputs() if given and d is not None]
        for path, d in given_inputs + list(self._stage_inputs()):
            spec = d.to_dict()
            meta = spec if isinstance(spec, dict) else {}
            if d.is_unknown:
                rows.append(ProvenanceRow(path, "unknown", "unknown", meta.get("unknown", ""), "", ""))
                continue
            shown = {k: v for k, v in meta.items() if k not in ("source", "note", "date", "region")} or spec
            rows.append(
                ProvenanceRow(
                    path,
                    _describe(shown),
                    meta.get("source", "(none)"),
                    meta.get("note", ""),
                    meta.get("date", ""),
                    meta.get("region", ""),
                )
            )
        return rows

    def evidence(self) -> "pd.DataFrame":
        """What each number rests on (docs/journal.md, "Evidence"): one row per given input, and
        one for the step time when a model derives it, with its evidence class (measured,
        prior-dominated, quoted, vendor, model, assumed, unknown) and the detail behind it."""
        return evidence_table(self)

    def assumptions(self) -> List[str]:
        """Paths of the given inputs whose source is 'assumption' or that carry no source (a
        stage's own as ``"stages[k].<path>"``)."""
        out = []
        staged = [(path, d, True) for path, d in self._stage_inputs()]
        for path, d, given in list(self.inputs()) + staged:
            if given and d is not None and not d.is_unknown:
                spec = d.to_dict()
                source = spec.get("source") if isinstance(spec, dict) else None
                if source in (None, "assumption"):
                    out.append(path)
        return out

    def completeness(self) -> "pd.DataFrame":
        """Every lifecycle phase and whether the scenario describes it (a pandas DataFrame,
        one row per phase in lifecycle order): ``status`` is "described" (every input given,
        an explicit 0 included), "unknown" (an input is ``{"unknown": ...}``) or "not
        described" (an input is absent: its default applies, ``counted as`` says how); with
        the phase's ``inputs``, the ``missing`` and ``unknown`` ones, its ``metric`` and
        ``why`` it matters. A sign-off should leave no phase not described."""
        import pandas as pd

        rows = [
            {
                "phase": p.phase,
                "status": p.status,
                "inputs": ", ".join(p.inputs),
                "missing": ", ".join(p.missing),
                "unknown": ", ".join(p.unknown),
                "counted as": p.absent_means if p.status == "not described" else "",
                "metric": p.metric,
                "why": p.why,
            }
            for p in _core.completeness(self._core)
        ]
        return pd.DataFrame(rows).set_index("phase")

    def not_described(self) -> List[str]:
        """The phases this scenario leaves out, each as "phase (missing inputs)": not described,
        so counted as 0. (An absent node price is not counted as 0: every cost is unknown.)"""
        return [f"{p.phase} ({', '.join(p.missing)})" for p in _core.completeness(self._core) if p.counted_as_zero]

    def defaults_assumed(self) -> List[str]:
        """The defaults this scenario relies on that are not zeros, each as "phase (missing
        inputs): what is assumed" (restores assumed to always succeed, one checkpoint kept):
        said aloud beside :meth:`not_described`, which lists the phases counted as 0."""
        return [
            f"{p.phase} ({', '.join(p.missing)}): {p.absent_means}"
            for p in _core.completeness(self._core)
            if p.default_assumed
        ]

    def _warn_implausible(self) -> "Scenario":
        for sentence in self.implausible():
            warnings.warn(sentence, PlausibilityWarning, stacklevel=3)
        return self

    def extrapolation_log_spread(self) -> float:
        """In extrapolated mode, the log-spread (sigma) of the fitted error factor its step time
        carries (docs/validation.md, "Extrapolation error"); 0 in the other modes. In a job in
        stages, the first stage's: :meth:`extrapolation_log_spreads` gives each stage's."""
        return float(_core.lifecycle_info(self._core).extrapolation_log_spread)

    def extrapolation_log_spreads(self) -> Dict[str, float]:
        """Each stage's log-spread of its own ``"<stage>/extrapolation.error"`` input (0 for a
        stage not extrapolated), by stage name; ``{"": sigma}`` for a job without stages."""
        info = _core.lifecycle_info(self._core)
        names = list(info.stage_names) or [""]
        return {name: float(sigma) for name, sigma in zip(names, info.extrapolation_log_spreads)}

    def implausible(self) -> List[str]:
        """Values that are legal but almost surely a unit mistake, each naming the field, the value
        and what was probably meant (the same sentences loading warns with,
        :class:`tm.PlausibilityWarning`)."""
        return list(_core.implausible_values(self._core))

    def expectations(self) -> List[str]:
        """The platform expectations this scenario does not meet, and what its job card promises
        that the model does not support (:meth:`card`), one sentence each (the same sentences
        :func:`tm.simulate` warns with)."""
        if self._expectations is None:  # the job-card check runs a small Monte Carlo: once per scenario
            self._expectations = list(_core.unmet_expectations(self._core)) + list(_core.job_card_checks(self._core))
        return list(self._expectations)

    def card(self) -> "pd.DataFrame":
        """The job card (the ``card`` block: what a team states before asking for capacity), one
        row per field in format order: ``status`` "filled" or "missing", the ``value`` and what
        the field is for (``doc``). Every field is optional; the display and the sign-off report
        show the missing ones."""
        import pandas as pd

        rows = []
        for path, field in _FIELDS.items():
            if not path.startswith("card."):
                continue
            value = self[path]
            rows.append(
                {
                    "field": path[len("card.") :],
                    "status": "missing" if value is None else "filled",
                    "value": "" if value is None else value,
                    "doc": field.doc,
                }
            )
        return pd.DataFrame(rows).set_index("field")

    def restart_time(
        self, samples: int = 10_000, seed: int = 0, threads: int = 0, *, executor: Any = None
    ) -> "pd.Series":
        """The modelled time from a failure to resumed training, in hours, as a pandas Series of
        ``samples`` draws: restart, the recovery's compile (a cache hit loads the graphs, a miss
        recompiles), the checkpoint load and the warm-up, started again when a failure
        interrupts it (docs/lifecycle.md). ``card.max_error_to_restart_h`` is checked against
        its P90 (10,000 samples, seed 0). ``executor``: a ``concurrent.futures.Executor`` or a
        ``dask.distributed.Client`` to run on, with the local bits (docs/scaling.md)."""
        import pandas as pd

        from ._executor import running_on

        with running_on(executor):
            result = _core.restart_time(self._core, samples=samples, seed=seed, threads=threads)
        return pd.Series(result.values("restart_h"), name="restart_h")

    def unknowns(self) -> Dict[str, str]:
        """{path: reason} of inputs marked unknown (and of an absent node price)."""
        info = _core.lifecycle_info(self._core)
        return dict(zip(info.unknown_inputs, info.unknown_reasons))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.to_dict() == other.to_dict()

    def _repr_html_(self) -> str:
        from ._html import scenario_html

        return scenario_html(self)

    def __repr__(self) -> str:
        lines = [f"Scenario {self.name or '(unnamed)'}"]
        for path, d, given in self.inputs():
            if given:
                lines.append(f"  {path} = {d!r}")
        return "\n".join(lines)


def _wrap(q: "_core.Quantity") -> Distribution:
    return as_distribution(q.to_obj())


#: The scenario format's fields by path (kind, rule, default, required, doc, choices).
_FIELDS: Dict[str, "_core.ScenarioField"] = {f.path: f for f in _core.scenario_fields()}


def quantity_paths() -> List[str]:
    """The paths of the format's quantities (the fields that take a distribution)."""
    return [p for p, f in _FIELDS.items() if f.kind == "quantity"]


def check_quantity_path(path: str, what: str) -> None:
    """Refuses a path that is not a quantity of the format, with the closest one as a hint."""
    field = _FIELDS.get(path)
    if field is None or field.kind != "quantity":
        hint = _core.closest_name(path, quantity_paths())
        raise _core.ScenarioError(
            f"{what}: {path} is not a quantity of the scenario format" + (f" (did you mean {hint}?)" if hint else "")
        )


def json_schema() -> dict:
    """A JSON Schema (draft 2020-12) of scenario format v1, for editors and validators.

    Generated in C++ from the scenario's field table and the distribution families the loader
    knows (the same function embedders call), so it applies the loader's rules."""
    return _core.scenario_json_schema()


def _rebuild(data: dict, profiles: dict) -> Scenario:
    """The scenario of a pickle (Scenario.__reduce__)."""
    return Scenario(_core.Scenario.from_obj(data, profiles))


__all__ = ["Scenario", "json_schema", "profiles", "load_profile"]
