"""Load probes shared by the benchmarks: how busy the machine is, so that a figure taken
while other work ran can be recognised (and re-measured) instead of recorded."""

from __future__ import annotations

import datetime
import os
import pathlib
import subprocess
import time


def _proc_stat():
    """(total, idle) jiffies of the whole machine from /proc/stat, or None."""
    try:
        with open("/proc/stat") as fh:
            fields = [float(v) for v in fh.readline().split()[1:]]
        return sum(fields), fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    except (OSError, ValueError, IndexError):
        return None


class OtherLoad:
    """Average cores used by *other* processes between construction and cores(): machine-wide
    busy time (/proc/stat) less this process's own CPU time."""

    def __init__(self) -> None:
        self.start = _proc_stat()
        self.cpu0 = time.process_time()
        self.wall0 = time.perf_counter()

    def cores(self):
        end = _proc_stat()
        if self.start is None or end is None:
            return None
        wall = time.perf_counter() - self.wall0
        ncpu = os.cpu_count() or 1
        busy = ncpu * (1 - (end[1] - self.start[1]) / max(end[0] - self.start[0], 1e-9))
        return max(0.0, busy - (time.process_time() - self.cpu0) / wall)


def busy_cores(seconds: float = 1.0):
    """Cores kept busy by the whole machine (all processes) over ``seconds``, from /proc/stat;
    None where unavailable. Read before timing: other work on the machine skews every figure."""
    start = _proc_stat()
    time.sleep(seconds)
    end = _proc_stat()
    if start is None or end is None:
        return None
    ncpu = os.cpu_count() or 1
    return ncpu * (1 - (end[1] - start[1]) / max(end[0] - start[0], 1e-9))


def wait_for_quiet(max_wait_s: float, threshold: float = 0.2):
    """Wait (up to ``max_wait_s``) until other processes use fewer than ``threshold`` cores;
    returns the last reading. Other work on a 2-core machine halves every 2-thread figure."""
    deadline = time.monotonic() + max_wait_s
    busy = busy_cores()
    while busy is not None and busy >= threshold and time.monotonic() < deadline:
        busy = busy_cores(2.0)
    return busy


def build_id() -> str:
    """The repository commit (and whether the tree has changes) and the compiled module's
    modification time, so a figure can be tied to the build that produced it (the package is
    often rebuilt while work goes on)."""
    import trnmodel as tm

    root = pathlib.Path(__file__).resolve().parents[1]
    parts = []
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        if head:
            parts.append(f"commit {head}{' + uncommitted changes' if dirty else ''}")
    except (OSError, subprocess.SubprocessError):
        pass
    core = getattr(getattr(tm, "_core", None), "__file__", None)
    if core:
        stamp = datetime.datetime.fromtimestamp(os.path.getmtime(core), datetime.timezone.utc)
        parts.append(f"{os.path.basename(core)} built {stamp.isoformat(timespec='seconds')}")
    return ", ".join(parts) or "unknown"


def machine_lines() -> list:
    """Cores available, CPU model, the build measured and the load average at start."""
    lines = []
    if hasattr(os, "sched_getaffinity"):
        lines.append(f"cores available to this process: {len(os.sched_getaffinity(0))}")
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    lines.append(f"cpu model: {line.split(':', 1)[1].strip()}")
                    break
    except OSError:
        pass
    lines.append(f"trnmodel build: {build_id()}")
    if hasattr(os, "getloadavg"):
        lines.append("load average (1, 5, 15 min) at start: " + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    return lines
