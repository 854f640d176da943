"""What runs inside the graded kernel, and nothing else: copied into each batch's sandbox as a whole.

* :mod:`.client` — a check cell's side of a graded run: serves the judge with plain data;
* :mod:`.protocol` — the length-prefixed JSON frames and typed arrays both sides speak (never pickle);
* :mod:`.errors`, :mod:`.limits` — what both sides raise, the sizes and resources a run may use;
* :mod:`.boot` — the bootstrap a kernel starts with (fresh, or forked by the batch's kernel zygote):
  walls first, then ipykernel;
* :mod:`.confine` — Landlock through ``ctypes``, and the process hardening every grading process uses;
* :mod:`.forkserver`, :mod:`.processes` — the zygote's fork loop and the process bookkeeping it needs.

Standard library only, plus numpy (which the kernel imports anyway); nothing of ``lessonlib``
outside this package (a layer test holds this), so what the sandbox receives is exactly this folder.
The bootstrap imports it as a top-level package (``kernel``) before ``sys.path`` holds anything else.
"""
