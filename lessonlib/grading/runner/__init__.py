"""What runs inside a graded run's nbval process (``pytest --nbval``), between the grader and the kernel.

* :mod:`.main` — the process's entry point (pytest with one costly import skipped) and the batch's
  nbval zygote;
* :mod:`.guard` — the pytest plugin that records each cell's outcome for the grader, caps outputs,
  notices a dead kernel and cleans up after it;
* :mod:`.provisioner` — jupyter_client's provisioner that has the grader fork the kernel from the
  batch's kernel zygote.

It never runs student code and never imports the judge's side or the grader's pipeline.
"""
