"""One checker module per exercise notebook (``rnea05`` for ``exercises/05_rnea.ipynb``, ...).

Each module defines ``EXERCISE = Exercise(...)`` and registers its checks with
``@EXERCISE.check(...)``; see :mod:`lessonlib.grading` for how to add one. Two optional parts of a
check make its failures say why (see :mod:`lessonlib.grading.checks.checker`):

* ``variants=(Variant("your inward pass seems to use X_i instead of X_i^T", inward_pass=buggy), ...)``:
  the classic mistakes, each a judge-side function with the student's signature. A module writes its
  algorithm once with the pieces a student gets wrong as parameters (``inward_with(..., force=...)``)
  and builds each variant with ``functools.partial``; the variants of a check must fail it, and no
  two may fail it at the same step with the same numbers (``tests/test_exercises_mistakes.py``).
  A known mistake is only ever a ``Variant``: a check never tests the student's numbers for a
  mistake by hand and appends a sentence of its own.
* ``helpers=("outward_pass", "inward_pass")``: the student's earlier functions the answer may call,
  passed by the check cell after the answers; inside ``with ctx.suspects(ctx.suspect(helper, *args,
  expected=..., call="..."), ...)`` a failure names every helper that is wrong on the failing case.

How a failure message names the call: ``ctx.call(fn, ...)`` remembers the call and every later
``expect_*``/``fail`` without ``call=`` names it, with the student's actual inputs written by
:mod:`~lessonlib.grading.checks.display` (the one place that formats numbers and calls). A check gives
``call=`` only when it says more than the arguments: a source's worked example ("Modern Robotics'
example"), a property composed of several calls ("Ad of a product of two random transforms"), what
an input is ("R = a reflection (det = -1)", "a tree with parents [-1, 0, 0]"), or a call that is not
the last one. Numbers in any other text of a check go through ``display`` too (``display.array``,
``display.params``).

Names in an exercise module, one scheme for all of them:

* ``check_<what>``: the functions registered with ``@EXERCISE.check`` and only those; ``<what>`` is
  the check id without its exercise's prefix (``"rnea-static-tip"`` → ``check_static_tip``). Their
  parameters are the student's functions by the notebook's names, with the suffix ``_student`` where
  that name would hide a library reference the module uses (``rnea_student``).
* ``<thing>_with(..., *, <piece>=...)``: the reference written with the pieces a student gets wrong
  as keyword parameters, the builders of the known mistakes; the ``Variant`` s built from them are
  UPPER_CASE constants (``IN_NOT_TRANSPOSED``), grouped in tuples (``RNEA_MISTAKES``) when several
  checks share them.
* plain public names: the judge-side references (``static_reference``, ``gravity_closed``,
  ``schur_complements``) and the inputs and models they are built from (``random_<thing>(ctx)``,
  ``two_rods``); tests and other modules import these.
* ``_<name>``: everything else, private to the module: the case loops (``_outward_cases``), unpacking
  and comparing a student's result (``_expect_energy``, ``_step_pair``), the probes for suspects
  (``_helper_suspects``), text for messages, and the small pieces the ``_with`` builders swap
  (``_dropped``, ``_force``).

Shared inputs and checks live in :mod:`._common` (``random_model``, ``random_chain``, ...,
``expect_bool``). A large exercise may be a package (``applications11/``): its ``__init__`` defines
``EXERCISE`` and imports one submodule per topic, which registers that topic's checks.

Every instruction a notebook gives (“never an inverse”, “in world axes”, “tol = …”) is either
enforced by a check or the notebook says plainly what is accepted (``tests/test_exercises_instructions.py``).
"""
