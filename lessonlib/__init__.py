"""lessonlib: the library behind the robot-dynamics course.

Layers (imports point downward only): conventions → so3 → se3 → spatial → model → kinematics →
dynamics → check → viz / grading.
"""
__version__ = "0.1.0"
