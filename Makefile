# trnmodel: two commands on a fresh machine.
#   make run    set up, build, and run the main job: the budget sign-off of a bundled example (out/)
#   make test   set up, build, and run every test: C++, Python, notebooks, the embedding consumer,
#               the C++ tests under sanitizers and half a minute of each fuzzer (docs/reliability.md)
VENV    ?= .venv
PY      := $(VENV)/bin/python
BUILD   ?= build
# ctest runs each Catch2 test case as its own process: two at a time on the two cores.
CTEST_JOBS ?= -j 2
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: run test setup setup-test install lint docs-cpp docs-cpp-check build-cpp test-cpp test-serial test-python test-consumer test-asan test-tsan fuzz bench clean

# The main job: the budget sign-off of the bundled Llama-3-8B LoRA job, Trn2 against H100, opening
# with the decision page (the migration plan costs the dual track beside the two single tracks):
# a self-contained HTML report with plots and its Markdown twin, in out/.
run: install
	$(VENV)/bin/trnmodel report examples/llama3-8b-lora-trn2.json examples/llama3-8b-lora-p5.json \
	  --plan examples/plans/llama3-8b-lora-migration.json \
	  -o out/signoff-llama3-8b-lora-trn2-vs-p5.html

test:
	@bash scripts/run_stages.sh lint test-cpp test-serial test-python test-consumer test-asan test-tsan fuzz

setup:
	@bash scripts/setup.sh

# What only the tests need besides: clang (fuzzers) and chromium (the report rendered headless).
setup-test:
	@bash scripts/setup.sh --test

# The Python package, built by scikit-build-core (incremental: CMake keeps build/<wheel tag>).
install: setup
	$(PY) -m pip install -q --no-build-isolation .

# Python style and types (pyproject.toml: [tool.ruff], [tool.mypy]); any finding fails.
LINT_PATHS := python tests/python bench scripts
lint: setup
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)
	$(PY) -m mypy python/trnmodel

# The C++ reference from the headers' comments (docs/cpp.md), when Doxygen is installed
# (Debian: apt-get install doxygen); nothing else depends on it.
docs-cpp:
	@command -v doxygen >/dev/null || { echo "docs-cpp needs doxygen (apt-get install doxygen)"; exit 1; }
	doxygen docs/doxygen/Doxyfile
	@echo "the C++ reference: build/docs-cpp/html/index.html"

# Every public declaration documented: Doxygen's "is not documented" warnings, none allowed.
docs-cpp-check:
	@command -v doxygen >/dev/null || { echo "docs-cpp-check needs doxygen (apt-get install doxygen)"; exit 1; }
	@mkdir -p build/docs-cpp
	{ cat docs/doxygen/Doxyfile; echo "EXTRACT_ALL = NO"; echo "WARN_IF_UNDOCUMENTED = YES"; \
	  echo "GENERATE_HTML = NO"; echo "WARN_LOGFILE = build/docs-cpp/undocumented.txt"; } | doxygen -
	@if [ -s build/docs-cpp/undocumented.txt ]; then cat build/docs-cpp/undocumented.txt; exit 1; fi
	@echo "every public declaration is documented"

build-cpp: setup-test
	cmake -S . -B $(BUILD)/cpp -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRNMODEL_BUILD_TESTS=ON
	cmake --build $(BUILD)/cpp

test-cpp: build-cpp
	ctest --test-dir $(BUILD)/cpp --output-on-failure $(CTEST_JOBS)

# The tests that run blocks in parallel, built without oneTBB (-DTRNMODEL_USE_TBB=OFF): the
# serial fallback of montecarlo/parallel.hpp must compile and give the same results (the other
# tests never reach the switch, so building them again would test nothing new).
test-serial: setup-test
	cmake -S . -B $(BUILD)/serial -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRNMODEL_BUILD_TESTS=ON -DTRNMODEL_USE_TBB=OFF \
	  -DTRNMODEL_PARALLEL_TESTS_ONLY=ON -DTRNMODEL_BUILD_LIB=OFF
	cmake --build $(BUILD)/serial
	ctest --test-dir $(BUILD)/serial --output-on-failure $(CTEST_JOBS)

test-python: install setup-test
	cd tests && ../$(PY) -m pytest -q python

# A separate CMake project that finds the installed package: proof that embedding works.
test-consumer: build-cpp install
	cmake --install $(BUILD)/cpp --prefix $(abspath $(BUILD))/install
	cmake -S tests/consumer -B $(BUILD)/consumer -G Ninja -DCMAKE_PREFIX_PATH=$(abspath $(BUILD))/install
	cmake --build $(BUILD)/consumer
	$(BUILD)/consumer/consumer > $(BUILD)/consumer/consumer.txt || { cat $(BUILD)/consumer/consumer.txt; exit 1; }
	cat $(BUILD)/consumer/consumer.txt
	$(BUILD)/consumer/pricer > $(BUILD)/consumer/pricer.txt || { cat $(BUILD)/consumer/pricer.txt; exit 1; }
	cat $(BUILD)/consumer/pricer.txt
	$(PY) tests/consumer/check_pricer.py $(BUILD)/consumer/pricer.txt $(BUILD)/consumer/consumer.txt

# Sanitizers (docs/reliability.md), each in a build directory of its own: every C++ test under
# AddressSanitizer + UndefinedBehaviorSanitizer, and the tests that run threads (engine,
# lifecycle, concurrency) under ThreadSanitizer. Any finding fails the run. Line tables (-g1)
# are all a sanitizer's report needs (file:line in every frame), at a fraction of -g's cost.
# The ASan tree is compiled at -O0: it compiles every test and is compile-bound (3.8 min at -O0
# against 8 at -O1 on this machine; the tests then run in 2.5 min instead of 1: docs/benchmarks.md,
# "The test suite's time"), and unoptimised code keeps checks the optimiser may fold away (a
# cast of -inf that -O1 hid was found at -O0). The TSan tree, a few tests that run threads,
# stays at -O1, where ThreadSanitizer's own cost is lower.
# The tests are compiled as unity translation units (eight files each) in every tree
# (tests/cpp/CMakeLists.txt); the ordinary tree checks that each public header compiles alone.
SANITIZE := -g1 -fno-omit-frame-pointer -Wno-maybe-uninitialized
test-asan: setup-test
	cmake -S . -B $(BUILD)/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRNMODEL_BUILD_TESTS=ON -DTRNMODEL_BUILD_LIB=OFF \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O0 $(SANITIZE) -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined,float-cast-overflow"
	cmake --build $(BUILD)/asan
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:strict_init_order=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD)/asan --output-on-failure $(CTEST_JOBS)

test-tsan: setup-test
	cmake -S . -B $(BUILD)/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRNMODEL_BUILD_TESTS=ON -DTRNMODEL_PARALLEL_TESTS_ONLY=ON -DTRNMODEL_BUILD_LIB=OFF \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 $(SANITIZE) -fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread"
	cmake --build $(BUILD)/tsan
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath tests/cpp/tsan.supp)" ctest --test-dir $(BUILD)/tsan --output-on-failure $(CTEST_JOBS)

# libFuzzer targets (fuzz/): the scenario loader, the distribution parser and the journal
# loader, each fuzzed for FUZZ_SECONDS from its seed corpus; any crash, leak, timeout or
# out-of-memory fails the run.
FUZZ_SECONDS ?= 30
fuzz: setup-test
	cmake -S . -B $(BUILD)/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DTRNMODEL_BUILD_TESTS=OFF -DTRNMODEL_BUILD_FUZZERS=ON -DTRNMODEL_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build $(BUILD)/fuzz --target run_fuzzers -j 2

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
