"""lessonlib: the library behind the robot-dynamics course.

Layers (imports point downward only; ``tests/test_layers.py`` enforces it)::

    conventions → so3 → se3 → spatial → model (+ samples) → kinematics → dynamics
        → batch, complexity, constraints → check → viz, grading

``conventions`` is the only home of the ``[ω; v]`` order, ``BASE``, the default gravity and the
tolerances; every algorithm consumes the one :class:`lessonlib.model.Model`.
"""
__version__ = "0.1.0"
