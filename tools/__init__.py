"""Course-building tools (not part of the installed library): stored outputs, slides, gallery, slide fit.

Run them through the Makefile (``make outputs``, ``make slides``, ``make gallery``) or as
``.venv/bin/python -m tools.<name> --help``; ``course/README.md`` documents them for lesson authors.
"""
