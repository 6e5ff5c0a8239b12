# boostbench: `make run` sets up .venv from the lock file and runs the default experiment;
# `make test` runs the fast tests and the smoke sweep, `make test-slow` the slow tests (CI runs both).
# Pass Hydra overrides to run with ARGS="dataset=car seed=3".
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=

.PHONY: setup run lint test test-slow fuzz smoke datasets reproduce-tables deviations bench bench-moa-setup scaling lock clean ray-setup launchers faults report-check stream-benchmark multilabel-benchmark plugin-example docs

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -c 'import sys; assert (3, 11) <= sys.version_info[:2] < (3, 13), "boostbench needs Python 3.11 or 3.12"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

run: setup
	$(BIN)/boostbench run $(ARGS)

# ruff's linter and formatter (pyproject.toml's [tool.ruff]); `ruff format boostbench hydra_plugins tests benchmarks` mends
lint: setup
	$(BIN)/ruff check boostbench hydra_plugins tests benchmarks examples
	$(BIN)/ruff format --check boostbench hydra_plugins tests benchmarks examples

test: setup
	$(BIN)/python -m pytest -q -n auto --dist worksteal -m "not slow"
	$(MAKE) --no-print-directory smoke

# The tests marked slow (end-to-end sweeps, whole data sets; pyproject.toml): CI runs them after make test.
test-slow: setup
	$(BIN)/python -m pytest -q -m slow

# The property-based tests (tests/test_fuzz_*.py: data loaders, store reader and folders, caches,
# overrides, sweeps of faulty jobs and plugins)
# at length, under Hypothesis's "fuzz" profile: pass after pass, each with a new seed (printed),
# until FUZZ_SECONDS (default 600) are spent. A pass stuck 10 minutes fails (a hang; faulthandler
# prints where after 5). Failing examples are kept in .hypothesis/ and tried first next time.
FUZZ_SECONDS ?= 600
fuzz: setup
	@end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); passes=0; \
	while [ $$(date +%s) -lt $$end ]; do \
	  seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); passes=$$((passes + 1)); \
	  echo "fuzz: pass $$passes, --hypothesis-seed=$$seed"; \
	  timeout 600 $(BIN)/python -m pytest -q tests/test_fuzz_*.py --hypothesis-profile=fuzz \
	    --hypothesis-seed=$$seed -o faulthandler_timeout=300 || exit 1; \
	done; \
	echo "fuzz: $$passes passes in $(FUZZ_SECONDS) s, no failure"

datasets: setup
	$(BIN)/boostbench datasets

# Paper tables through Hydra sweeps (resumable: interrupt and rerun). BACKEND=compiled (numba
# pool) or BACKEND=river (the reference pool, many hours; the batch studies have no backend).
# Tables 1 and 3 run 10 seeds under both presets (the papers' text, the authors' code), Heart 5,
# Sun 3, the rest 1; SEEDS=n runs seeds 0..n-1 of every study (a sample). Each study's sweep is
# timed (wall, all processes' CPU) into $(REPRO_DIR)/timings.json; REPRO_DOCS=docs/reproduction
# also writes the tables, figures, provenance and per-study times there
# (boostbench/reporting/reproduction_docs.py). Table 1 is swept in two: only OnlineMBBM over the
# gammas (the grid's other 1,200 points are the gamma-free algorithms' duplicates, each composed
# and hashed before it is skipped).
BACKEND ?= compiled
REPRO_DIR ?= results/reproduce-$(BACKEND)
REPRO_DOCS ?=
SEEDS ?=
SEED_RANGE := $(if $(SEEDS),seed='range(0,$(SEEDS))')
# A page of SEEDS=n shows seeds 0..n-1 alone, whatever else the store holds
SEED_PAGES := $(if $(SEEDS),--seeds $(SEEDS))
SWEEP := $(BIN)/boostbench sweep learner.backend=$(BACKEND) results_dir=$(REPRO_DIR) $(SEED_RANGE)
# The batch family and the Bayesian-network learners have no Hoeffding-tree backend to choose.
BATCH_SWEEP := $(BIN)/boostbench sweep results_dir=$(REPRO_DIR) $(SEED_RANGE)
REPRO := $(BIN)/python -m boostbench.reporting.reproduction_docs
TIMED := $(REPRO) time --results-dir $(REPRO_DIR)

reproduce-tables: setup
	@start=$$(date +%s); \
	$(TIMED) jung2017_table1 -- sh -c "$(SWEEP) +experiment=jung2017_table1 algorithm=online_mbbm && \
	    $(SWEEP) +experiment=jung2017_table1 algorithm=best_vfdt,online_boosting,adaboost_olm gamma=0.1" && \
	$(TIMED) jung_tewari2018_table3 -- $(SWEEP) +experiment=jung_tewari2018_table3 && \
	$(TIMED) jung_tewari2018_table3_large_k -- $(SWEEP) +experiment=jung_tewari2018_table3_large_k && \
	$(TIMED) combessie_heart -- $(BATCH_SWEEP) +experiment=combessie_heart && \
	$(TIMED) mukherjee_schapire -- $(BATCH_SWEEP) +experiment=mukherjee_schapire && \
	$(TIMED) sun_tables -- $(BATCH_SWEEP) +experiment=sun_tables && \
	$(TIMED) sun_tables_fixed_split -- $(BATCH_SWEEP) +experiment=sun_tables_fixed_split && \
	$(BIN)/boostbench report all --results-dir $(REPRO_DIR) && \
	$(if $(REPRO_DOCS),$(REPRO) write --results-dir $(REPRO_DIR) --docs $(REPRO_DOCS) $(SEED_PAGES) \
	    --command "make reproduce-tables BACKEND=$(BACKEND)$(if $(SEEDS), SEEDS=$(SEEDS))" &&) \
	echo "reproduce-tables: $$(( $$(date +%s) - start )) s; tables and figures under $(REPRO_DIR)$(if $(REPRO_DOCS), and $(REPRO_DOCS))"

# The field's bench: every online booster, ours and the peers, on the stream papers'
# streams, river's bundled sets and the vendored UCI sets (configs/experiment/stream_benchmark.yaml),
# then the leaderboard. Resumable. SEEDS=n runs seeds 0..n-1 (default 10); STREAM_ARGS= adds
# overrides (e.g. dataset=sea_drift,car). A job that fails (a peer whose library is absent) leaves
# its reason, which the leaderboard shows as "not run: <reason>". STREAM_DOCS=docs/stream-benchmark
# publishes the leaderboard as a page with its provenance, as REPRO_DOCS does the reproduction,
# and beside it runs.csv.gz and records.jsonl.gz; STREAM_FROM=docs/stream-benchmark first rebuilds
# the store from a published records.jsonl.gz, so the sweep continues it (docs/benchmark.md).
STREAM_DIR ?= results/stream-benchmark
STREAM_ARGS ?=
STREAM_DOCS ?=
STREAM_FROM ?=
stream-benchmark: setup
	@start=$$(date +%s); mkdir -p $(STREAM_DIR); \
	$(if $(STREAM_FROM),$(BIN)/python -m boostbench.reporting.run_table import --from $(STREAM_FROM) \
	    --results-dir $(STREAM_DIR) || exit 2;) \
	$(REPRO) time --results-dir $(STREAM_DIR) stream_benchmark -- \
	    $(BIN)/boostbench sweep +experiment=stream_benchmark results_dir=$(STREAM_DIR) \
	    $(if $(SEEDS),seed='range(0,$(SEEDS))') $(STREAM_ARGS) \
	  || echo "stream-benchmark: some jobs failed; their reasons are in $(STREAM_DIR)/failed and the leaderboard"; \
	$(BIN)/boostbench report leaderboard --results-dir $(STREAM_DIR) && \
	$(if $(STREAM_DOCS),$(REPRO) write --collection stream_benchmark --results-dir $(STREAM_DIR) \
	    --docs $(STREAM_DOCS) $(SEED_PAGES) --command "make stream-benchmark$(if $(SEEDS), SEEDS=$(SEEDS))" &&) \
	echo "stream-benchmark: $$(( $$(date +%s) - start )) s; tables and figures under $(STREAM_DIR)"

# The multi-label bench: Ada.OLMR and OnlineBMR against river's and MOA's online multi-label
# learners on the MULAN sets (configs/experiment/multilabel_benchmark.yaml), then the leaderboard
# (rank loss first). Resumable. SEEDS=n runs seeds 0..n-1 (default 10); MULTILABEL_ARGS= adds
# overrides (e.g. dataset=emotions). A MOA peer without capymoa fails with its reason, shown by
# the leaderboard as "not run: <reason>" (make bench-moa-setup). MULTILABEL_DOCS= and MULTILABEL_FROM=
# publish and continue it as STREAM_DOCS= and STREAM_FROM= do the stream benchmark.
MULTILABEL_DIR ?= results/multilabel-benchmark
MULTILABEL_ARGS ?=
MULTILABEL_DOCS ?=
MULTILABEL_FROM ?=
multilabel-benchmark: setup
	@start=$$(date +%s); mkdir -p $(MULTILABEL_DIR); \
	$(if $(MULTILABEL_FROM),$(BIN)/python -m boostbench.reporting.run_table import --from $(MULTILABEL_FROM) \
	    --results-dir $(MULTILABEL_DIR) || exit 2;) \
	$(REPRO) time --results-dir $(MULTILABEL_DIR) multilabel_benchmark -- \
	    $(BIN)/boostbench sweep +experiment=multilabel_benchmark results_dir=$(MULTILABEL_DIR) \
	    $(if $(SEEDS),seed='range(0,$(SEEDS))') $(MULTILABEL_ARGS) \
	  || echo "multilabel-benchmark: some jobs failed; their reasons are in $(MULTILABEL_DIR)/failed and the leaderboard"; \
	$(BIN)/boostbench report leaderboard --results-dir $(MULTILABEL_DIR) && \
	$(if $(MULTILABEL_DOCS),$(REPRO) write --collection multilabel_benchmark --results-dir $(MULTILABEL_DIR) \
	    --docs $(MULTILABEL_DOCS) $(SEED_PAGES) --command "make multilabel-benchmark$(if $(SEEDS), SEEDS=$(SEEDS))" &&) \
	echo "multilabel-benchmark: $$(( $$(date +%s) - start )) s; tables and figures under $(MULTILABEL_DIR)"

# The effect of each deviation from the paper, lever by lever (docs/deviations.md), 10 seeds, in
# the reproduction's store (its runs under the defaults are reused).
deviations: setup
	$(BIN)/python benchmarks/deviations.py --results-dir $(REPRO_DIR) --write $(REPRO_DIR)/tables/deviations.md

# The same pipeline on tiny settings (part of `make test`), then one seed of the smoke grid again
# under Hydra's submitit launcher (the SLURM launcher's local twin): the records must be identical.
smoke: setup
	@rm -rf results/smoke results/smoke-submitit
	$(BIN)/boostbench sweep +experiment=smoke results_dir=results/smoke
	$(BIN)/boostbench sweep +experiment=smoke_batch results_dir=results/smoke
	$(BIN)/boostbench report all --results-dir results/smoke --n-learners 3
	$(BIN)/boostbench sweep +experiment=smoke seed=0 gamma=0.1 hydra/launcher=submitit_local results_dir=results/smoke-submitit
	$(BIN)/python benchmarks/compare_stores.py results/smoke results/smoke-submitit
	@test -z "$$(find results/smoke/claims results/smoke-submitit/claims -type f)" || (echo "claims left behind"; exit 1)
	@# the wheel carries the checkout's sources, and its root's configs/ and datasets/ inside the package
	@rm -rf results/wheel && $(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps -w results/wheel . \
	  && cd results/wheel && $(abspath $(BIN))/python -m zipfile -e boostbench-*.whl unpacked \
	  && diff -rq -x __pycache__ -x configs -x datasets unpacked/boostbench ../../boostbench \
	  && diff -rq unpacked/boostbench/configs ../../configs && diff -rq unpacked/boostbench/datasets ../../datasets \
	  && echo "wheel: the checkout's package, configs and data"
	@# installed from the wheel (beside the lock's packages) and run outside the checkout; a batch
	@# booster, as numba's cache is per source path (an online one would compile afresh, ~50 s CPU)
	$(BIN)/python -m venv results/wheel/venv
	$(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))' \
	  > "$$(results/wheel/venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/lock.pth"
	results/wheel/venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-index results/wheel/boostbench-*.whl
	cd /tmp && $(abspath results/wheel/venv/bin/boostbench) datasets | grep -q "vendored: $(abspath results/wheel/venv)/" \
	  && $(abspath results/wheel/venv/bin/boostbench) run dataset=car algorithm=samme learner=tree protocol=kfold n_rounds=5 \
	     results_dir=$(abspath results/wheel/store) >/dev/null \
	  && $(abspath results/wheel/venv/bin/boostbench) sweep dataset=car algorithm=samme learner=tree protocol=kfold n_rounds=5 \
	     seed=0,1 results_dir=$(abspath results/wheel/store) -j 1 | tail -1 | grep -q "1 done, 1 skipped" \
	  && echo "wheel: installed, runs and sweeps (its Hydra sweeper) outside the checkout"

# Bring your own booster (docs/bring-your-own-booster.md): the example plugin (examples/oza_adwin) and
# the package `boostbench new-algorithm` writes, each pip-installed (editable; setuptools from pip's
# index, build isolation) into a fresh venv over .venv, each passing its own tests; then the example
# swept beside two built-ins on two small sets, and the leaderboard. Nothing is installed into .venv.
PLUGIN_DIR ?= results/plugin-example
PLUGIN_PY := $(PLUGIN_DIR)/venv/bin/python
plugin-example: setup
	@rm -rf $(PLUGIN_DIR) && $(BIN)/python -m venv $(PLUGIN_DIR)/venv
	@echo "import site; site.addsitedir('$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')')" \
	  > "$$($(PLUGIN_PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/boostbench-venv.pth"
	$(PLUGIN_PY) -m pip install --quiet --disable-pip-version-check --no-deps -e examples/oza_adwin
	cd examples/oza_adwin && $(abspath $(PLUGIN_PY)) -m pytest -q -p no:cacheprovider
	$(PLUGIN_PY) -m boostbench new-algorithm my_boost --dir $(PLUGIN_DIR)
	$(PLUGIN_PY) -m pip install --quiet --disable-pip-version-check --no-deps -e $(PLUGIN_DIR)/my_boost
	cd $(PLUGIN_DIR)/my_boost && $(abspath $(PLUGIN_PY)) -m pytest -q -p no:cacheprovider
	$(PLUGIN_PY) -m boostbench sweep algorithm=oza_adwin,online_boosting,adaboost_olm dataset=car,balance seed=0 \
	  n_learners=10 results_dir=$(PLUGIN_DIR)/store
	$(PLUGIN_PY) -m boostbench report leaderboard --results-dir $(PLUGIN_DIR)/store

# The report page of the smoke grid (3 seeds, so intervals show) opened in headless Chromium
# (Debian's package, installed if missing): fails on a broken image or link or an empty table,
# and saves a screenshot beside the page. Resumable: finished runs are kept.
REPORT_CHECK_DIR ?= results/report-check
report-check: setup
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	$(BIN)/boostbench sweep +experiment=smoke seed='range(0,3)' results_dir=$(REPORT_CHECK_DIR)
	$(BIN)/boostbench sweep +experiment=smoke_batch results_dir=$(REPORT_CHECK_DIR)
	$(BIN)/boostbench report all --results-dir $(REPORT_CHECK_DIR) --n-learners 3
	$(BIN)/python -m boostbench.reporting.page_check $(REPORT_CHECK_DIR)/summary.html --screenshot $(REPORT_CHECK_DIR)/summary.png

# Ray: the launcher and Ray from their own lock (a superset of requirements.lock;
# hydra-ray-launcher's stale cloudpickle<3 pin is overridden, see requirements-ray.overrides).
ray-setup: setup
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-ray.lock

# The smoke grid under joblib, submitit_local and a local Ray cluster: identical records.
launchers: ray-setup
	@rm -rf results/launchers
	$(BIN)/boostbench sweep +experiment=smoke results_dir=results/launchers/joblib -j 2
	$(BIN)/boostbench sweep +experiment=smoke results_dir=results/launchers/submitit hydra/launcher=submitit_local
	$(BIN)/boostbench sweep +experiment=smoke results_dir=results/launchers/ray hydra/launcher=ray -j 2
	$(BIN)/python benchmarks/compare_stores.py results/launchers/joblib results/launchers/submitit
	$(BIN)/python benchmarks/compare_stores.py results/launchers/joblib results/launchers/ray

# Speed: boostbench vs river's AdaBoostClassifier and, when .venv-moa exists, MOA (over an hour
# on 2 cores with MOA; docs/performance.md). The equal-work rows (the peers' trees, NBA and MC
# leaves, MOA warm and cold) on a nominal stream (car) and a numeric one (image_segments), medians
# of 5 rounds.
bench: setup
	$(BIN)/python benchmarks/bench.py --dataset car --n-learners 100 --repeats 5
	$(BIN)/python benchmarks/bench.py --dataset image_segments --n-learners 100 --repeats 5
	$(BIN)/python benchmarks/bench.py --dataset balance --n-learners 100 --repeats 3
	$(BIN)/python benchmarks/bench.py --dataset mice --n-learners 100 --repeats 1 --skip-river-pool
	$(BIN)/python benchmarks/bench.py --dataset mediamill_reduced --n-learners 100 --repeats 1 --skip-river-pool
	$(BIN)/python benchmarks/bench.py --dataset isolet_like --max-examples 300 --n-learners 100 --repeats 1 \
	    --skip-river-pool --algorithms adaboost_olm online_boosting online_mbbm
	$(BIN)/python benchmarks/bench.py --dataset movement_like --max-examples 5000 --n-learners 100 --repeats 1 \
	    --skip-river-pool --algorithms adaboost_olm online_boosting

# MOA through capymoa needs Java and pins older pandas/scikit-learn: its own venv.
bench-moa-setup:
	$(PYTHON) -m venv .venv-moa
	.venv-moa/bin/python -m pip install --quiet --disable-pip-version-check capymoa

# Reliability: kills, two sweeps, a failing job, read-only and full disks, a corrupt
# record, a changed data file; each must end with the numbers of an undisturbed sweep. Linux, root
# (it mounts two small tmpfs), a few minutes.
faults: setup
	$(BIN)/python benchmarks/faults.py --work /tmp/boostbench-faults

# Scaling: the paper-shaped workloads (configs/dataset/*_like.yaml), whole streams, every online
# booster that applies, one thread and every core, peak RSS, MOA beside (hours; see the script's
# --workloads, --algorithms, --max-examples to run a part).
scaling: setup
	$(BIN)/python benchmarks/scaling.py

# The documentation site (mkdocs.yml: Material, the API reference by mkdocstrings) into site/,
# strictly: a broken link or a docstring griffe cannot read fails the build, and so does a local
# link of the built site that opens a folder or nothing (docs/hooks/site_links.py: the site opens
# from disk). Installs the docs extra from requirements-docs.lock into .venv first.
docs: setup
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-docs.lock
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

lock:
	uv pip compile pyproject.toml --extra dev --extra slurm --extra vw -o requirements.lock --python-version 3.11
	uv pip compile pyproject.toml --extra dev --extra slurm --extra vw --extra ray -c requirements.lock \
	    --override requirements-ray.overrides -o requirements-ray.lock --python-version 3.11
	uv pip compile pyproject.toml --extra docs -c requirements.lock -o requirements-docs.lock --python-version 3.11

clean:
	rm -rf $(VENV) .venv-moa results .pytest_cache site
