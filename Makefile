# The two commands of the README: `make demo` and `make test`. Both create the environment.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint venv system clean schema

venv: $(STAMP)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

system:
	bash scripts/setup-system.sh

demo: venv
	$(BIN)/rankdoctor replay replay_logs/xid79_fallen_off_bus_16r

# the suite's files shared among TEST_JOBS workers (each file's tests stay together in one worker:
# module fixtures, the real corpus replayed once); TEST_JOBS=0 runs it in this process
TEST_JOBS ?= 2

test: venv system
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_JOBS) --dist loadfile tests

lint: venv
	$(BIN)/ruff check detector tests bench scripts
	$(BIN)/mypy detector

bench: venv
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[fuzz]' \
		|| echo "atheris does not install here: the fuzz benchmark runs hypothesis alone"
	$(BIN)/python bench/run_all.py

schema: venv
	$(BIN)/rankdoctor rules schema > rules/schema.json

clean:
	rm -rf $(VENV) bench/out bench/data
