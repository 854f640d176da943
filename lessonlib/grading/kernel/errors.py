"""The exceptions both sides of a graded run raise: the kernel's client and the judge's checkers.

A module of its own, imported by :mod:`.client` (in the graded kernel) and by the checkers and the
judge (:mod:`lessonlib.grading.checks`), so that neither side imports the other. It ships to the
graded kernel with the rest of :mod:`lessonlib.grading.kernel`.
"""


class CheckFailed(AssertionError):
    """A check did not pass; the message says what was expected and what the function gave."""


class NotAvailableWhileGrading(ImportError):
    """Raised by the graded kernel's stand-ins for the library functions an exercise asks for."""

    @classmethod
    def of(cls, name, exercise):
        """The error for ``name`` (``"lessonlib.se3.Ad"``) in ``exercise``: the words a graded run and a
        preview both use."""
        return cls(f"{name} is not available while grading (exercise {exercise} asks you to write it yourself)")


class StudentError(Exception):
    """A student function raised, printed too much, or returned something that is not plain data."""

    def __init__(self, kind, message, where="", printed="", errno=None):
        super().__init__(f"{kind}: {message}")
        self.kind, self.message, self.where, self.printed = kind, message, where, printed
        self.errno = errno if isinstance(errno, int) and not isinstance(errno, bool) else None
