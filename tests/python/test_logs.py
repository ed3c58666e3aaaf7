"""tm.read_log and `trnmodel import`: training logs written from a known truth (a compile in the
first step, a warm-up, a steady step, a restart from the step-40 checkpoint) in each format's
shape, read back and compared with the truth at the format's resolution; and bad logs, each
refused with its path and rule. The C++ readers' own cases are in tests/cpp/test_log_readers.cpp."""

import json
import pathlib

import numpy as np
import pytest

import trnmodel as tm
from trnmodel import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]


def truth():
    """(part, step, seconds) of every executed step: part 0 runs 1-60, part 1 resumes at 41-80."""
    rng = np.random.default_rng(7)
    rows = []
    for s in range(1, 61):
        rows.append((0, s, [300.0, 4.0, 3.5, 3.0, 2.5][s - 1] if s <= 5 else 2.0 + rng.normal(0, 0.02)))
    for s in range(41, 81):
        rows.append((1, s, 30.0 if s == 41 else 2.0 + rng.normal(0, 0.02)))
    return rows


def mean_over(part, last, n):
    return float(np.mean([t for p, s, t in truth() if p == part and last - n < s <= last]))


def check(series, tolerance_s):
    table = series.table
    assert len(table) > 0
    for step, part, value in zip(table["step"], table["part"], table["step_time_s"]):
        assert abs(value - mean_over(part, step, series.steps_per_value)) <= tolerance_s, (step, part)


def test_a_console_log_of_your_own_shape_is_read_with_a_pattern(tmp_path):
    lines = ["[rank0] starting", "[rank0] compiling graphs"]
    clock = 1.8e9
    for part, step, seconds in truth():
        if part == 1 and step == 41:
            lines.append("[rank0] restarted from checkpoint 40")
            clock += 600
        clock += seconds
        lines.append(f"[rank0] it={step} loss=2.31 t={clock:.6f}")
    log_file = tmp_path / "train.log"
    log_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = tm.read_log(log_file, pattern=r"it=(?P<step>\d+) .* t=(?P<timestamp>[\d.]+)")
    assert log.format == tm.fields.LogFormat.CONSOLE and len(log.points) == 100
    assert log.points["part"].max() == 1
    series = log.series()
    assert series.steps_per_value == 1 and len(series.table) == 98
    check(series, 1e-5)
    # An ISO 8601 clock with its zone reads as the same instant.
    iso = tmp_path / "iso.log"
    iso.write_text("it=1 at 2026-11-17T08:12:04Z\nit=2 at 2026-11-17T03:12:06.5-05:00\n", encoding="utf-8")
    two = tm.read_log(iso, "console", pattern=r"it=(?P<step>\d+) at (?P<timestamp>\S+)").series()
    assert list(two.table["step_time_s"]) == [2.5]


def _tensorboard_run(folder, rows, tag="train/loss", as_tensor=False, value=lambda part, step, seconds, clock: 2.31):
    """Writes rows (part, step, seconds) with TensorBoard's own EventFileWriter, one event file per
    part (a restarted process opens a new file), the clock advancing by each step's seconds."""
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    clock, writer, part_now = 1.8e9, None, None
    for part, step, seconds in rows:
        if part != part_now:
            if writer is not None:
                writer.close()
            clock += 600
            writer = EventFileWriter(str(folder), filename_suffix=f".part{part}")
            part_now = part
        clock += seconds
        x = value(part, step, seconds, clock)
        if as_tensor:  # a TF2 summary: the scalar as a tensor with the scalars plugin's metadata
            metadata = summary_pb2.SummaryMetadata(
                plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
            )
            v = summary_pb2.Summary.Value(
                tag=tag, tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[x]), metadata=metadata
            )
        else:
            v = summary_pb2.Summary.Value(tag=tag, simple_value=x)
        writer.add_event(event_pb2.Event(wall_time=clock, step=step, summary=summary_pb2.Summary(value=[v])))
    writer.close()


def test_tensorboard_event_files_written_by_its_own_writer(tmp_path):
    _tensorboard_run(tmp_path, truth())
    log = tm.read_log(tmp_path)
    assert log.format == tm.fields.LogFormat.TENSORBOARD
    assert len(log.points) == 100 and log.points["part"].max() == 1  # each event file a part
    series = log.series()
    assert series.steps_per_value == 1 and len(series.table) == 98
    check(series, 1e-6)  # TensorBoard keeps the clock as a double


def test_tensorboard_throughput_as_tf2_tensors(tmp_path):
    """NxD logs throughput (sequences/s over the last 10 steps) as a TF2 scalar tensor."""
    batch, window = 16, {}

    def throughput(part, step, seconds, clock):
        w = window.setdefault(part, [])
        w.append(seconds)
        del w[:-10]
        return len(w) * batch / sum(w)

    _tensorboard_run(tmp_path, truth(), tag="throughput", as_tensor=True, value=throughput)
    log = tm.read_log(tmp_path, "tensorboard", metric="throughput", metric_is="throughput", global_batch=batch)
    series = log.series()
    assert series.steps_per_value == 10
    assert list(series.table["step"]) == [10, 20, 30, 40, 50, 60, 50, 60, 70, 80]
    check(series, 1e-4)  # float32 throughput


def test_tensorboard_keeps_every_event_of_a_long_run_with_a_restart(tmp_path):
    """More than TensorBoard's default sample of 10,000 events per tag, and a restart that its
    purge would have cut: every event is kept."""
    rows = [(0, s, 1.0) for s in range(1, 8001)] + [(1, s, 1.0) for s in range(7501, 12001)]
    _tensorboard_run(tmp_path, rows)
    log = tm.read_log(tmp_path)
    assert len(log.points) == 12_500
    assert list(log.points["step"][7999:8001]) == [8000, 7501]
    assert log.series().table["step_time_s"].between(1 - 1e-6, 1 + 1e-6).all()


def test_a_truncated_or_corrupt_event_file_is_an_error(tmp_path):
    _tensorboard_run(tmp_path, [(0, s, 2.0) for s in range(1, 30)])
    (event_file,) = list(tmp_path.iterdir())
    data = event_file.read_bytes()
    event_file.write_bytes(data[:-7])
    with pytest.raises(tm.ScenarioError, match=r"record \d+ at byte \d+: truncated"):
        tm.read_log(tmp_path)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    event_file.write_bytes(bytes(flipped))
    with pytest.raises(tm.ScenarioError, match=r"corrupt: the (data|length)'s checksum does not match"):
        tm.read_log(tmp_path)
    event_file.write_bytes(data)
    with pytest.raises(tm.ScenarioError, match=r'no tag "loss" \(their tags: train/loss\)'):
        tm.read_log(tmp_path, metric="loss")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(tm.ScenarioError, match="no TensorBoard event files"):
        tm.read_log(empty, "tensorboard")


def test_steps_going_back_within_an_event_file_are_an_error(tmp_path):
    _tensorboard_run(tmp_path, [(0, 1, 2.0), (0, 2, 2.0), (0, 2, 2.0)])
    with pytest.raises(tm.ScenarioError, match=r"record 3: steps must increase within a file: step 2 after step 2"):
        tm.read_log(tmp_path)


def test_an_mlflow_run_in_its_file_store_layout(tmp_path):
    run = tmp_path / "mlruns" / "3" / "9f8e7d"
    (run / "metrics").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: 9f8e7d\nstart_time: 1799999000000\nstatus: 3\n", encoding="utf-8")
    clock, lines = 1.8e9, []
    for part, step, seconds in truth():
        clock += seconds + (600 if (part, step) == (1, 41) else 0)
        if step % 2 == 0:
            lines.append(f"{round(clock * 1000)} 2.31 {step}")
    (run / "metrics" / "loss").write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = tm.read_log(run)
    assert log.format == tm.fields.LogFormat.MLFLOW and "9f8e7d" in log.source
    series = log.series()
    assert series.steps_per_value == 2
    check(series, 1e-3 / 2 + 1e-9)  # milliseconds over two steps
    assert any("restart" in n for n in log.notes)
    with pytest.raises(tm.ScenarioError, match=r"the run has no metric \"step_time\" \(its metrics: loss\)"):
        tm.read_log(run, metric="step_time")


def _mlflow_sqlite(path, runs):
    """A store in the layout of MLflow's SQLite backend (the columns its tables `runs` and
    `metrics` hold), written with sqlite3: runs = {(run_uuid, name, start_ms): [(key, value, ms, step)]}."""
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE runs (run_uuid VARCHAR(32) PRIMARY KEY, name VARCHAR(250), experiment_id INTEGER, "
        "start_time BIGINT, end_time BIGINT, status VARCHAR(9))"
    )
    db.execute(
        "CREATE TABLE metrics (key VARCHAR(250), value FLOAT, timestamp BIGINT, run_uuid VARCHAR(32), step BIGINT, "
        "is_nan BOOLEAN, PRIMARY KEY (key, timestamp, step, run_uuid, value, is_nan))"
    )
    for (uuid, name, start), rows in runs.items():
        db.execute("INSERT INTO runs VALUES (?, ?, 1, ?, NULL, 'FINISHED')", (uuid, name, start))
        db.executemany(
            "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, 0)", [(k, v, ms, uuid, step) for k, v, ms, step in rows]
        )
    db.commit()
    db.close()


def test_an_mlflow_run_from_the_sqlite_store(tmp_path):
    clock, rows = 1.8e9, []
    for part, step, seconds in truth():
        clock += seconds + (600 if (part, step) == (1, 41) else 0)
        rows.append(("train/loss", 2.31, round(clock * 1000), step))
    store = tmp_path / "mlflow.db"
    _mlflow_sqlite(store, {("9f8e7d", "trial-2n", 1799999000000): rows, ("aaaa", "other", 1): [("loss", 1, 5, 1)]})
    with pytest.raises(tm.ScenarioError, match=r"run: required: the store holds 2 runs: aaaa \(other\), 9f8e7d"):
        tm.read_log(store)
    log = tm.read_log(store, run="trial-2n")
    assert log.format == tm.fields.LogFormat.MLFLOW and "9f8e7d" in log.source
    assert len(log.points) == 100 and log.points["part"].max() == 1  # the resumed run logs steps again
    series = log.series()
    assert series.steps_per_value == 1 and len(series.table) == 98
    check(series, 1e-3 + 1e-9)  # milliseconds
    with pytest.raises(tm.ScenarioError, match=r'run: no single run "nope"'):
        tm.read_log(store, run="nope")
    with pytest.raises(tm.ScenarioError, match=r'has no metric "loss" \(its metrics: train/loss\)'):
        tm.read_log(store, run="9f8e7d", metric="loss")


def test_the_trainer_state_gives_a_mean_and_says_what_it_cannot_see(tmp_path):
    part0 = [t for p, s, t in truth() if p == 0]
    state = {
        "global_step": 60,
        "log_history": [
            {"step": 30, "eval_loss": 2.2, "eval_runtime": 21.0},
            {"step": 60, "train_runtime": sum(part0) + 21.0, "train_loss": 2.3},
        ],
    }
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    log = tm.read_log(path)
    assert log.format == tm.fields.LogFormat.HF_TRAINER and len(log.points) == 0
    assert log.mean_over_steps == 60 and log.mean_step_time_s == pytest.approx(np.mean(part0), rel=1e-12)
    assert any("a resume cannot be seen" in n for n in log.notes)
    with pytest.raises(tm.ScenarioError, match="holds only a mean step time"):
        log.series()
    resumed = tm.read_log(path, resumed_from_step=30)
    assert resumed.mean_over_steps == 30


def test_the_cli_prints_what_it_read_and_writes_the_series(tmp_path, capsys):
    text = "".join(
        f" iteration {s}/ 80 | elapsed time per iteration (ms): {mean_over(p, s, 10) * 1000:.1f} |\n"
        for p, s, _ in truth()
        if s % 10 == 0
    )
    log_file = tmp_path / "megatron.log"
    log_file.write_text(text, encoding="utf-8")
    out_csv = tmp_path / "steps.csv"
    assert cli.main(["import", "console", str(log_file), "--steps-csv", str(out_csv)]) == 0
    printed = capsys.readouterr().out
    assert "10 step times of 10 step(s)" in printed and "1 restart(s)" in printed
    back = tm.read_log(out_csv)  # the written series reads back as a CSV of stated step times
    assert list(back.points["step"]) == [10, 20, 30, 40, 50, 60, 50, 60, 70, 80]
    check(back.series(), 0.05e-3 + 1e-12)


BAD = [
    ("steps.csv", "step,wall_time\n1,10\n2,x\n", {}, r"steps\.csv, line 3, column wall_time: must be seconds"),
    ("steps.csv", "step,step_time_s,part\n2,1,0\n1,1,0\n", {}, r"line 3: steps must increase within a file"),
    ("empty.csv", "", {}, r"empty\.csv: the CSV file is empty"),
    ("train.log", "epoch 1 done\n", {}, r"no line states a step and its time in a known shape"),
    ("nxd.log", "(0, 3) step_loss : 2.1 throughput : 8.1\n", {}, r"global_batch: required: the log states throughput"),
    ("x.log", "a 1 b 2\n", {"pattern": r"a (?P<step>\d+)"}, r"pattern: needs the named groups step and step_time_s"),
    ("y.log", "a 1 b 2\n", {"pattern": r"z (?P<step>\d+) (?P<step_time_s>\d+)"}, r"the pattern matches no line"),
    ("z.log", "a 1 b 2\n", {"pattern": r"a (?P<step>\d+"}, r"pattern: not a regular expression"),
    ("t.log", "a 1 at 2026-01-01T00:00:00\n", {"pattern": r"a (?P<step>\d+) at (?P<timestamp>\S+)"}, r"names no zone"),
    (
        "k.csv",
        "step,step_time_s\n1,1\n",
        {"kind": "tensorboardx"},
        r"kind: must be one of tensorboard, mlflow, hf_trainer, csv, console",
    ),
]


@pytest.mark.parametrize("name,text,kwargs,message", BAD)
def test_bad_logs_are_refused_with_their_path_and_rule(tmp_path, name, text, kwargs, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    kind = kwargs.pop("kind", None)
    with pytest.raises(tm.ScenarioError, match=message):
        tm.read_log(path, kind, **kwargs)


def test_an_empty_folder_and_a_missing_file(tmp_path):
    with pytest.raises(tm.ScenarioError, match="not an MLflow run folder: it has no metrics/ folder"):
        tm.read_log(tmp_path)
    with pytest.raises(tm.ScenarioError, match="no such file or folder"):
        tm.read_log(tmp_path / "nothing.log")
    assert cli.main(["import", "csv", str(tmp_path / "nothing.csv")]) == 2


def test_the_bundled_console_log_matches_its_journal():
    """examples/logs/ holds trial 002's steps as NxD prints them: read back, they are the journal's."""
    log = tm.read_log(ROOT / "examples" / "logs" / "llama3-8b-lora-trn2-trial-002.log")
    journal = tm.read_log(ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-002-steps.csv")
    a, b = log.series().table, journal.series().table
    assert list(a["step"]) == list(b["step"])
    np.testing.assert_allclose(a["step_time_s"], b["step_time_s"], rtol=0, atol=0.5e-4)


def test_the_bundled_tensorboard_run_matches_its_journal():
    """examples/logs/...-tensorboard is trial 002's run as TensorBoard holds it (two event files,
    a clock from the journal's phases): read back, every step but each part's first is the
    journal's, and the clock before step 1 is set-up to the end of step 1 as the journal says."""
    log = tm.read_log(ROOT / "examples" / "logs" / "llama3-8b-lora-trn2-trial-002-tensorboard")
    journal = tm.Journal.from_json(ROOT / "examples" / "journals" / "llama3-8b-lora-trn2-trial-002.json")
    t = np.asarray(journal.step_times_s)
    series = log.series()
    np.testing.assert_allclose(series.table["step_time_s"], np.delete(t, [0, 347]), rtol=0, atol=1e-6)
    phases = journal.to_dict()["phases"]
    before = log.points["wall_time_s"][0] - log.started_wall_time_s
    assert before == pytest.approx(phases["compile_s"] + phases["data_load_s"] + t[0], abs=1e-6)
