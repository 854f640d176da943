"""One checker module per exercise notebook (``rnea05`` for ``exercises/05_rnea.ipynb``, ...).

Each module defines ``EXERCISE = Exercise(...)`` and registers its checks with
``@EXERCISE.check(...)``; see :mod:`lessonlib.grading` for how to add one.
"""
