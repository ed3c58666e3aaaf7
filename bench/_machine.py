"""Load probes shared by the benchmarks: how busy the machine is, so that a figure taken
while other work ran can be recognised (and re-measured) instead of recorded."""
from __future__ import annotations

import os
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
