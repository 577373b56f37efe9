# The everyday commands; each runs in the venv made by the quick start.
PY ?= .venv/bin/python

.PHONY: test docs screenshots reference serve-docs

test:  ## every test, lint and type check, and the manual built with --strict
	$(PY) -m pytest -n auto

reference:  ## rewrite docs/reference/ from the code
	$(PY) docs/gen_reference.py

screenshots:  ## retake docs/images/*.svg with the app itself
	$(PY) docs/screenshots.py

docs: reference  ## build the manual into site/
	$(PY) -m mkdocs build --strict

serve-docs:  ## the manual at http://127.0.0.1:8000, rebuilt on every change
	$(PY) -m mkdocs serve
