"""The judge's side of grading: what decides whether an answer is right, never seen by a graded kernel.

* :mod:`.checker` — the framework exercise authors use (:class:`~.checker.Exercise`, checks,
  :class:`~.checker.Context`, known mistakes) and the registry of exercise modules;
* :mod:`.exercises` — one checker module per exercise notebook;
* :mod:`.judge` — the clean process of a graded run that runs the checks against the kernel;
* :mod:`.preview` — the same checks run in the student's own notebook, as a preview;
* :mod:`.authoring` — check cells, blank exercises and the sync rule for exercise authors.

It may use the whole library (the reference implementations); the graded kernel's package
(:mod:`lessonlib.grading.kernel`) never imports it.
"""
