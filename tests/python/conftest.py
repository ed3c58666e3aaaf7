import _thread
import pathlib
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture
def interrupt_main_soon():
    """Call it to have Ctrl-C (KeyboardInterrupt) reach the main thread 0.3 s later."""
    def start(delay_s: float = 0.3) -> None:
        def interrupt() -> None:
            time.sleep(delay_s)
            _thread.interrupt_main()

        threading.Thread(target=interrupt, daemon=True).start()

    return start
