"""``make mutation``'s driver (``tools/mutation.py``): its survivor table stays true, and a survivor fails the run.

The mutation run itself is not part of ``make test`` (half an hour); these tests keep what it relies on
honest: every row of the grading README's table "Mutants that survive" names a module under mutation
and a line that is still in it, and the report fails on a survivor the table does not explain.
"""
from __future__ import annotations

import json
import pathlib

import pytest

from tools import mutation

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _source_lines(module):
    path = ROOT / mutation.MODULES[module][0]
    return {line.strip() for line in path.read_text().splitlines()}


def test_every_explained_survivor_names_a_line_still_in_its_module():
    rows = mutation.explained()
    assert rows, "the README's table of surviving mutants is empty or missing"
    for key, why in rows.items():
        module, rest = key.split(": ", 1)
        assert module in mutation.MODULES, key
        old = rest.split("` → `")[0].lstrip("`")
        assert old in _source_lines(module), f"{key}: the line is no longer in {mutation.MODULES[module][0]}"
        assert len(why) > 20, f"{key}: say why it survives"


def test_each_module_under_mutation_has_tests_that_exist():
    for module, (path, tests) in mutation.MODULES.items():
        assert (ROOT / path).is_file(), module
        assert tests and all((ROOT / t).is_file() for t in tests), module


def test_the_report_fails_on_an_unexplained_survivor_and_passes_when_every_one_is_explained(tmp_path, capsys):
    explained = next((k for k in mutation.explained() if k.startswith("limits: ")), None)
    results = [{"module": "limits", "line": 3, "old": "x = 1", "new": "x = 2", "status": "killed"},
               {"module": "limits", "line": 4, "old": "y = 1", "new": "y = None", "status": "timeout"}]
    assert mutation.report(results, tmp_path) == 0
    assert "limits: 2 mutants, 1 killed, 1 by timeout, 0 survived" in capsys.readouterr().out
    unexplained = results + [{"module": "limits", "line": 5, "old": "z = 1", "new": "z = 0", "status": "survived"}]
    assert mutation.report(unexplained, tmp_path) == 1
    out = capsys.readouterr().out
    assert "SURVIVED  line 5: `z = 1` → `z = 0`" in out and "1 survivor(s) neither killed nor explained" in out
    assert (tmp_path / "survivors.txt").read_text().startswith("limits: 3 mutants")
    if explained:
        old, new = explained.split(": ", 1)[1].strip("`").split("` → `")
        assert mutation.report(results + [{"module": "limits", "line": 6, "old": old, "new": new,
                                           "status": "survived"}], tmp_path) == 0
    assert mutation.report([{"module": "limits", "error": "the tests fail on the unmutated module"}], tmp_path) == 1
    wild = next((k for k in mutation.explained() if k.endswith("→ `*`")), None)
    if wild:                                                # a "*" row explains every mutant of its line
        module, old = wild.split(": ", 1)[0], wild.split(": ", 1)[1].split("` → `")[0].lstrip("`")
        assert mutation.report([{"module": module, "line": 1, "old": old, "new": "anything", "status": "survived"}],
                               tmp_path) == 0


def test_a_survivor_is_named_by_its_line_not_its_line_number(tmp_path):
    assert mutation.key("verdict", "a < b", "a <= b") == "verdict: `a < b` → `a <= b`"
    readme = tmp_path / "README.md"
    readme.write_text("### Mutants that survive\n\n| module | line | mutant | why |\n|---|---|---|---|\n"
                      "| `verdict` | `a \\| b` | `a & b` | the two give the same on booleans here |\n\n## Next\n"
                      "| `verdict` | `c` | `d` | after the table: not read |\n")
    assert mutation.explained(readme) == {"verdict: `a | b` → `a & b`": "the two give the same on booleans here"}


def test_the_mutants_of_a_module_each_change_it_once():
    pytest.importorskip("mutmut", reason="make mutation installs mutmut (the [mutation] extra)")
    text = (ROOT / mutation.MODULES["limits"][0]).read_text()
    found = mutation.mutants(mutation.MODULES["limits"][0])
    assert len(found) > 50 and len({f[3] for f in found}) == len(found)       # each a different module
    for line, old, new, mutated in found:
        assert old != new and old in {s.strip() for s in text.splitlines()} and mutated != text
        assert text.splitlines()[line - 1].strip() == old or new == "" or "None" in new, (line, old, new)
    json.dumps([f[:3] for f in found])                      # what a worker writes is plain data
