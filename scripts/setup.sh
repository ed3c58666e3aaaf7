#!/usr/bin/env bash
# Installs what trnmodel needs on a fresh Debian 12/13 machine: the C++ libraries from
# Debian packages (only those missing) and a virtual environment with the Python packages.
# With --test, also what only the tests need: clang and its compiler-rt (fuzzers) and
# chromium (the sign-off report is rendered headless). Safe to run again: it does nothing
# that is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

install_missing g++ make libeigen3-dev libboost-dev libtbb-dev nlohmann-json3-dev catch2
if [ "${1:-}" = "--test" ]; then
  # clang builds the fuzzers (make fuzz); g++ builds everything else, sanitizer builds included.
  install_missing clang chromium
  # libFuzzer and clang's sanitizer runtimes are in compiler-rt's package, named after clang's
  # major version (libclang-rt-14-dev on Debian 12, libclang-rt-19-dev on Debian 13).
  clang_major=$(clang --version | sed -n 's/.*clang version \([0-9][0-9]*\)\..*/\1/p' | head -n 1)
  install_missing "libclang-rt-${clang_major}-dev"
fi

venv=${VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv"
  python3 -m venv "$venv"
fi
stamp="$venv/.requirements-installed"
if [ ! -f "$stamp" ] || ! cmp -s requirements-dev.txt "$stamp"; then
  echo "setup: installing Python packages"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r requirements-dev.txt
  cp requirements-dev.txt "$stamp"
fi
