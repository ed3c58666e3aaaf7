# trnmodel: two commands on a fresh machine.
#   make run    set up, build, and run the main job: the budget sign-off of a bundled example (out/)
#   make test   set up, build, and run every test: C++, Python, notebooks, the embedding consumer
VENV    ?= .venv
PY      := $(VENV)/bin/python
BUILD   ?= build
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: run test setup install test-cpp test-python test-consumer bench clean

# The main job: the budget sign-off of the bundled Llama-3-8B LoRA job, Trn2 against H100:
# a self-contained HTML report with plots and its Markdown twin, in out/.
run: install
	$(VENV)/bin/trnmodel report examples/llama3-8b-lora-trn2.json examples/llama3-8b-lora-p5.json \
	  -o out/signoff-llama3-8b-lora-trn2-vs-p5.html

test: test-cpp test-python test-consumer

setup:
	@bash scripts/setup.sh

# The Python package, built by scikit-build-core (incremental: CMake keeps build/<wheel tag>).
install: setup
	$(PY) -m pip install -q --no-build-isolation .

test-cpp: setup
	cmake -S . -B $(BUILD)/cpp -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRNMODEL_BUILD_TESTS=ON
	cmake --build $(BUILD)/cpp
	ctest --test-dir $(BUILD)/cpp --output-on-failure

test-python: install
	cd tests && ../$(PY) -m pytest -q python

# A separate CMake project that finds the installed package: proof that embedding works.
test-consumer: test-cpp
	cmake --install $(BUILD)/cpp --prefix $(abspath $(BUILD))/install
	cmake -S tests/consumer -B $(BUILD)/consumer -G Ninja -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/install
	cmake --build $(BUILD)/consumer
	$(BUILD)/consumer/consumer

# Benchmarks against the peers a user would otherwise pick (figures: docs/benchmarks.md).
bench: install
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_simulate.py
	$(PY) bench/bench_derived_step.py
	$(PY) bench/vtrain_validation.py
	$(PY) bench/bench_sensitivity.py

clean:
	rm -rf $(BUILD) out
