"""What a batch writes: the typed results of a graded submission and every file made from them.

* :mod:`.results` — :class:`~.results.CheckResult`, :class:`~.results.SubmissionResult` and the statuses;
* :mod:`.reports` — the per-check CSV, the results JSON, the feedback files, the terminal summary;
* :mod:`.gradebook` — the per-student gradebook for a spreadsheet or an LMS;
* :mod:`.classreport` — the class report (HTML) and the end-of-run summary;
* :mod:`.records` — the resumable record of a batch (one atomic file per graded submission).

It reads results; it never imports the grading pipeline that makes them.
"""
