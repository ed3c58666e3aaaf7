"""The loop closed: step times drawn from a known truth (a 30-minute compile inside the first step,
a warm-up, a steady step, a failure after step 6,500 and a restart from the step-6,000
checkpoint, 11,100 executed steps in all) are written by the real writers — TensorBoard's
EventFileWriter, MLflow's file-store layout, an NxD training script's stdout — then imported
(tm.read_log → tm.Journal.from_log), calibrated, and the truth is recovered: the steady step
time inside the calibrated interval, each warm-up within ±10 steps, the restart at its step,
the compile split out of the first step, and every event kept."""

import pathlib
import warnings
from unittest import mock

import numpy as np
import pytest

import trnmodel as tm

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "configs" / "llama3-8b.json"

STEADY_S, NOISE_S = 2.0, 0.04  # the truth's steady step and its step-to-step noise (iid normal)
COMPILE_S = 1800.0  # the graphs' compile, inside the first step
WARMUP_EXCESS_S, WARMUP_STEPS = 1.2, 4.0  # step k's excess: 1.2 s × exp(−(k − 1) / 4)
FAILED_AFTER, RESTORED_FROM, LAST = 6500, 6000, 10_600
RELAUNCH_S, RELOAD_S = 420.0, 90.0  # from the failure to the new process; its first step's load
GLOBAL_BATCH = 32
# The truth's warm-up: the steps whose expected excess is at least half the noise's sd.
TRUE_WARMUP = int(np.ceil(1 + WARMUP_STEPS * np.log(WARMUP_EXCESS_S / (NOISE_S / 2))))  # 18


def truth():
    """(part, step, seconds) of every executed step, in execution order."""
    rng = np.random.default_rng(2026)
    rows = []
    for part, steps in ((0, range(1, FAILED_AFTER + 1)), (1, range(RESTORED_FROM + 1, LAST + 1))):
        for k, step in enumerate(steps):
            seconds = STEADY_S + WARMUP_EXCESS_S * np.exp(-k / WARMUP_STEPS) + rng.normal(0, NOISE_S)
            if k == 0:
                seconds += COMPILE_S if part == 0 else RELOAD_S
            rows.append((part, step, float(seconds)))
    return rows


START = 1.80e9  # the job's clock at the training script's start
SETUP_S = 240.0  # from the script's start to the first step: loading weights and data


def _clock():
    """Each step's end on the job's clock (part 1 begins RELAUNCH_S after part 0's last step)."""
    clock, out = START + SETUP_S, []
    for part, step, seconds in truth():
        if part == 1 and step == RESTORED_FROM + 1:
            clock += RELAUNCH_S
        clock += seconds
        out.append(clock)
    return out


def write_tensorboard(folder):
    """One event file a process, by TensorBoard's own EventFileWriter; its clock (the file's
    name and its first event) is the job's, so time.time is the job's clock while it writes."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    now = [START]
    writer, part_now = None, None
    with mock.patch("time.time", lambda: now[0]):
        for (part, step, _), clock in zip(truth(), _clock()):
            if part != part_now:
                if writer is not None:
                    writer.close()
                now[0] = START if part == 0 else clock - truth_seconds(part, step) - SETUP_S / 4
                writer = EventFileWriter(str(folder), filename_suffix=f".{part}")
                part_now = part
            value = summary_pb2.Summary.Value(tag="train/loss", simple_value=2.0)
            writer.add_event(event_pb2.Event(wall_time=clock, step=step, summary=summary_pb2.Summary(value=[value])))
        writer.close()


def truth_seconds(part, step):
    return next(s for p, k, s in truth() if (p, k) == (part, step))


def write_mlflow(folder):
    """A run of MLflow's file store: meta.yaml's start_time and metrics/<key> lines `ts_ms value
    step`, the relaunched process logging on into the same run."""
    run = folder / "mlruns" / "1" / "a1b2c3"
    (run / "metrics").mkdir(parents=True)
    (run / "meta.yaml").write_text(f"run_id: a1b2c3\nstart_time: {round(START * 1000)}\nstatus: 3\n", encoding="utf-8")
    lines = [f"{round(clock * 1000)} 2.0 {step}" for (_, step, _), clock in zip(truth(), _clock())]
    (run / "metrics" / "train_loss").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run


def write_stdout(folder):
    """The NxD training script's lines, `step N step_time Xs throughput Y seq/s`, with the
    relaunch's banner between the two processes."""
    lines = ["Neuron compiler cache: /var/tmp/neuron-compile-cache"]
    for part, step, seconds in truth():
        if part == 1 and step == RESTORED_FROM + 1:
            lines.append(f"resuming from checkpoint at step {RESTORED_FROM}")
        lines.append(f"step {step} step_time {seconds:.5f}s throughput {GLOBAL_BATCH / seconds:.3f} seq/s")
    path = folder / "train.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _base():
    return tm.Scenario.new(CONFIG, "trn2.48xlarge", kind="lora", tokens="786M", nodes=2, node_hour_usd=35.76)


def _import(log, base):
    stated = dict(
        platform="trn2.48xlarge",
        nodes=2,
        kind="lora",
        lora_rank=16,
        model="meta-llama/Meta-Llama-3-8B",
        global_batch=base["parallelism.global_batch"],
        micro_batch=base["parallelism.micro_batch"],
        sequence_length=base["model.sequence_length"],
        tp=base["parallelism.tp"],
        pp=base["parallelism.pp"],
        dp=base["parallelism.dp"],
        precision="bf16",
    )
    with pytest.warns(tm.JournalWarning):  # a log holds no utilisation or quality record: said
        return tm.Journal.from_log(log, **stated)


WRITERS = {"tensorboard": write_tensorboard, "mlflow": write_mlflow, "console": write_stdout}


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_the_truth_comes_back_through_the_log(tmp_path, kind):
    where = WRITERS[kind](tmp_path) or tmp_path
    log = tm.read_log(where)
    assert str(log.format) == kind
    # Every event kept: more than TensorBoard's 10,000-event sample, and the restart not purged.
    assert len(log.points) == len(truth()) == 11_100

    base = _base()
    journal = _import(log, base)
    doc = journal.to_dict()
    # The restart, at its step, restored from the checkpoint before it.
    (stop,) = doc["interruptions"]
    assert (stop["step"], stop["restored_from_step"], stop["redone_steps"]) == (FAILED_AFTER, RESTORED_FROM, 500)
    assert "interruptions[].cause" in journal.unknown
    # The compile: split out of a stated first step; inside the time before the first step on a clock.
    if kind == "console":
        assert doc["phases"]["compile_s"] == pytest.approx(COMPILE_S, abs=6 * NOISE_S + WARMUP_EXCESS_S)
        assert "phases.compile_s" in journal.derived
    else:
        assert doc["phases"]["before_first_step_s"] == pytest.approx(SETUP_S + COMPILE_S, abs=2.0)
        assert "phases.before_first_step_s" in journal.derived

    # Each warm-up within ±10 steps of the truth's.
    analysis = journal.steady_state()
    assert [s["values"] for s in analysis["segments"]] == [FAILED_AFTER, LAST - RESTORED_FROM]
    for segment in analysis["segments"]:
        assert abs(segment["warmup_values"] - TRUE_WARMUP) <= 10, segment

    # Calibrated: the truth's steady step inside the step time's 95 % interval.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tm.JournalWarning)
        scn = tm.calibrate(journal, base)
    step = scn["throughput.step_time_s"]
    assert step.to_dict()["source"] == "measured"
    assert step.ppf(0.025) < STEADY_S < step.ppf(0.975), (step.ppf(0.025), step.ppf(0.975))
    assert step.ppf(0.975) - step.ppf(0.025) < 0.01  # the mean of 11,000 steps: a narrow interval
    assert journal.experiment_id in scn.calibration.inputs.loc["throughput.step_time_s", "experiments"]
    # What a log cannot hold stayed assumed, and says why.
    assert any(line.startswith("compile.") or line.startswith("checkpoint.") for line in scn.calibration.stayed_assumed)
