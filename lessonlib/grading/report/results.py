"""The typed results of grading: one :class:`CheckResult` per check, one :class:`SubmissionResult` per notebook.

The grader's pipeline makes them (:mod:`lessonlib.grading.verdict`); everything a batch writes is
made from them (this package); the resumable record stores them whole (:meth:`SubmissionResult.as_record`).
"""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field

_STUDENT_ID = re.compile(r"[^A-Za-z0-9._@+-]")
#: ``student_id`` values that are the exercise's placeholder, not a student's id.
PLACEHOLDER_IDS = {"", "your-id-here", "anonymous"}


def clean_student_id(text):
    """A student id made safe for file names and spreadsheets: letters, digits and ``._@+-`` only, 64 at most."""
    return _STUDENT_ID.sub("_", text.strip())[:64]


#: The first characters that make a spreadsheet read a cell as a formula (OWASP's list: = + - @ tab CR).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(value):
    """A text cell a spreadsheet will not run as a formula (one starting with :data:`FORMULA_STARTS` gets a ``'``)."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def shown(text):
    """A submission's name or id for a terminal line: control characters and newlines escaped (``\\n``)."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in str(text))


def file_student_id(path):
    """The student id a submission gets from its file name (``alice_05.ipynb`` → ``alice_05``), sanitised."""
    return clean_student_id(os.path.splitext(os.path.basename(path))[0])


#: Every status a check can get, and what it means (the feedback files explain them with this; the
#: words are the student's: no process names, no internal paths).
STATUSES = {
    "passed": "the check cell printed the expected verdict and the grader's own run of the check passed",
    "not-attempted": "the answer is still the exercise's stub (unchanged, or it raises NotImplementedError)",
    "failed": "the grader ran the check and the answer disagreed (see the message)",
    "needs-review": "the check would pass, but its points wait for an instructor's review (see the reason)",
    "access-denied": "the answer tried to reach files or processes outside the grader's sandbox (denied)",
    "used-library": "the answer called a library function the exercise asks you to write",
    "output-mismatch": "the grader's run of the check passed, but the check cell printed something else",
    "unverified": "the check cell printed the verdict, but the grader never ran this check",
    "error": "the check cell raised before the grader could run the check (e.g. a missing function)",
    "timeout": "your code ran out of time (the limit per cell or per notebook) before this check finished",
    "kernel-died": "the kernel died (crash, os._exit or a signal) before this check finished",
    "not-run": "the check cell did not run",
    "unreadable": "the submission could not be read as a notebook",
    "checker-error": "the checker itself failed (your instructor has been told)",
    "grader-error": "the grader could not run this notebook (your instructor has the details)",
    "memory-limit": "your code used more memory than a graded run may (the message gives the limit)",
    "process-limit": "your code started more processes or threads than a graded run may",
    "disk-limit": "your code wrote more to disk than a graded run may",
    "cpu-limit": "your code used more CPU time than a graded run may",
    "output-limit": "your code printed more than a graded run keeps, and the check's own output was lost",
}
#: :data:`STATUSES` in Chinese, for the feedback on a submission of the Chinese edition (the status names stay).
STATUSES_ZH = {
    "passed": "检查单元输出了预期的结论，评分程序自己运行该检查也通过了",
    "not-attempted": "答案仍是练习给出的空函数（未修改，或仍抛出 NotImplementedError）",
    "failed": "评分程序运行了该检查，答案与之不符（见下方信息）",
    "needs-review": "该检查本可通过，但其分数须等教师复核（见原因）",
    "access-denied": "答案试图访问评分沙箱之外的文件或进程（已被拒绝）",
    "used-library": "答案调用了本练习要求你自己编写的库函数",
    "output-mismatch": "评分程序运行该检查通过了，但检查单元输出的内容不同",
    "unverified": "检查单元输出了结论，但评分程序从未运行这项检查",
    "error": "在评分程序运行检查之前，检查单元已抛出异常（例如缺少某个函数）",
    "timeout": "你的代码在该检查完成前超出了时间限制（每个单元或整个笔记本的限制）",
    "kernel-died": "在该检查完成前内核已终止（崩溃、os._exit 或信号）",
    "not-run": "检查单元没有运行",
    "unreadable": "提交的文件无法作为笔记本读取",
    "checker-error": "检查程序本身出错（已通知你的教师）",
    "grader-error": "评分程序无法运行这个笔记本（你的教师掌握详细情况）",
    "memory-limit": "你的代码使用的内存超过了评分运行的上限（信息中给出了上限）",
    "process-limit": "你的代码启动的进程或线程超过了评分运行的上限",
    "disk-limit": "你的代码写入磁盘的数据超过了评分运行的上限",
    "cpu-limit": "你的代码使用的 CPU 时间超过了评分运行的上限",
    "output-limit": "你的代码输出的内容超过了评分运行保留的上限，该检查自己的输出因此丢失",
}
#: The statuses a resource limit gives a check it stopped.
LIMIT_STATUSES = ("memory-limit", "process-limit", "disk-limit", "cpu-limit", "output-limit")


@dataclass
class CheckResult:
    check: str
    points: int
    max_points: int
    status: str
    message: str = ""
    nbval: str = "not-run"          # passed / failed / timeout / kernel-died / not-run
    judge: str = "none"             # pass / fail / none
    withheld: int = 0               # points waiting for review (needs-review)


@dataclass
class SubmissionResult:
    submission: str
    path: str
    student_id: str = ""
    checks: dict = field(default_factory=dict)
    flags: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    protection: str = ""
    interrupted: bool = False       # the batch was stopped during this run: not a result to keep
    id_source: str = ""             # "notebook" (its student_id literal) or "file" (not filled in: the file name)
    language: str = "en"            # "zh": a submission of the Chinese edition gets the feedback's fixed parts in Chinese

    @property
    def total(self):
        return sum(c.points for c in self.checks.values())

    @property
    def max(self):
        return sum(c.max_points for c in self.checks.values())

    @property
    def needs_review(self):
        """The reasons of the checks whose points wait for review (empty: nothing to review)."""
        return [f"{c.check}: {c.message}" for c in self.checks.values() if c.status == "needs-review"]

    def as_json(self):
        return {"total": self.total, "max": self.max, "student_id": self.student_id,
                "checks": {k: {"points": c.points, "max_points": c.max_points, "status": c.status,
                               "message": c.message, "nbval": c.nbval, "judge": c.judge, "withheld": c.withheld}
                           for k, c in self.checks.items()},
                "withheld": sum(c.withheld for c in self.checks.values()), "protection": self.protection,
                "flags": self.flags, "notes": self.notes, "error": self.error, "seconds": round(self.seconds, 2),
                "language": self.language}

    def as_record(self):
        """Everything, for the resumable record (:func:`from_record` reads it back)."""
        return {**asdict(self), "checks": {k: asdict(c) for k, c in self.checks.items()}}

    @classmethod
    def from_record(cls, record):
        fields = {k: v for k, v in record.items() if k in cls.__dataclass_fields__}
        fields["checks"] = {k: CheckResult(**c) for k, c in record.get("checks", {}).items()}
        return cls(**fields)


def all_checks(reference, status, message):
    """Every check of ``reference`` with no points and the same status (e.g. ``unreadable``)."""
    return {c.id: CheckResult(c.id, 0, c.points, status, message) for c in reference.checks}
