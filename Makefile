# boostbench: `make run` sets up .venv from the lock file and runs the default experiment;
# `make test` runs the test suite. Pass Hydra overrides to run with ARGS="dataset=car seed=3".
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=

.PHONY: setup run test datasets table1 table3 lock clean

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -c 'import sys; assert (3, 11) <= sys.version_info[:2] < (3, 13), "boostbench needs Python 3.11 or 3.12"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

run: setup
	$(BIN)/boostbench run $(ARGS)

test: setup
	$(BIN)/python -m pytest -q

datasets: setup
	$(BIN)/boostbench datasets

# Paper tables. BACKEND=compiled (numba pool, minutes) or river (the reference pool, hours).
BACKEND ?= compiled
TABLES_DIR ?= results/tables-$(BACKEND)
RUN := $(BIN)/boostbench run n_learners=100 progress=false learner.backend=$(BACKEND) results_dir=$(TABLES_DIR)

# Jung et al. 2017 Table 1 on the vendored data sets: N = 100, 3 seeds, Best MBBM over five gammas.
table1: setup
	@for s in 0 1 2; do for d in balance car mice mushroom nursery; do \
	  for a in best_vfdt online_boosting adaboost_olm; do echo "dataset=$$d algorithm=$$a seed=$$s"; done; \
	  for g in 0.1 0.05 0.01 0.005 0.001; do echo "dataset=$$d algorithm=online_mbbm gamma=$$g seed=$$s"; done; \
	done; done | xargs -P 2 -I{} sh -c '$(RUN) {} > /dev/null && echo "done {}"'
	$(BIN)/boostbench report jung2017_table1 --results-dir $(TABLES_DIR)

# Jung & Tewari 2018 Table 3 on the vendored MULAN sets: N = 100, 5 seeds, best BMR over four gammas.
table3: setup
	@for s in 0 1 2 3 4; do for d in emotions scene yeast mediamill_reduced; do \
	  echo "dataset=$$d algorithm=ada_olmr seed=$$s"; \
	  if [ $$d = mediamill_reduced ]; then G="0.05 0.01 0.005 0.001"; else G="0.2 0.1 0.01 0.001"; fi; \
	  for g in $$G; do echo "dataset=$$d algorithm=online_bmr gamma=$$g seed=$$s"; done; \
	done; done | xargs -P 2 -I{} sh -c '$(RUN) {} > /dev/null && echo "done {}"'
	$(BIN)/boostbench report jung_tewari2018_table3 --results-dir $(TABLES_DIR)

lock:
	uv pip compile pyproject.toml --extra dev -o requirements.lock --python-version 3.11

clean:
	rm -rf $(VENV) results .pytest_cache
