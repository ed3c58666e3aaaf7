import _thread
import pathlib
import signal
import threading
import time
from typing import Callable

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture
def interrupt_main_soon():
    """Call it to have Ctrl-C (KeyboardInterrupt) reach the main thread 0.3 s later.

    The test gets Python's own SIGINT handler for its duration, whatever started pytest: from a
    background shell (`nohup ... &`) SIGINT is ignored, Python then installs no handler, and
    `_thread.interrupt_main()` does nothing. The previous handler is restored afterwards, and an
    interrupt still pending then is absorbed, so that it cannot stop the rest of the session."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timers = []

    def start(delay_s: float = 0.3) -> None:
        timer = threading.Timer(delay_s, _thread.interrupt_main)
        timer.daemon = True
        timers.append(timer)
        timer.start()

    try:
        yield start
    finally:
        signal.signal(signal.SIGINT, lambda signum, frame: None)
        for timer in timers:
            timer.cancel()
            timer.join()
        for _ in range(100):  # bytecode for a signal tripped just now to be handled (by the no-op)
            pass
        time.sleep(0.01)
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def samples_lasting() -> Callable[..., int]:
    """samples_lasting(run, seconds): a sample count over which run(samples) takes about
    `seconds` on this machine, from a timed probe run (whose fixed costs make the estimate
    err short). A run an interrupt should stop is bounded with it: if the interrupt does not
    land, the test fails in seconds instead of running for minutes."""

    def measure(run: Callable[[int], object], seconds: float = 10.0, probe: int = 50_000) -> int:
        start = time.perf_counter()
        run(probe)
        elapsed = max(time.perf_counter() - start, 1e-6)
        return max(probe, int(probe * seconds / elapsed))

    return measure
