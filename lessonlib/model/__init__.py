"""One robot Model for every algorithm, built from DH tables, product-of-exponentials data or URDF;
body inertias from CAD mass-properties reports (:mod:`.cad`)."""
from .cad import cad_values, inertia_from_cad
from .core import PRISMATIC, REVOLUTE, Frame, Joint, Model
from .dh import dh_transform, from_dh
from .poe import from_poe, joint_from_screw, to_poe
from .urdf import from_urdf

__all__ = ["Model", "Joint", "Frame", "REVOLUTE", "PRISMATIC", "from_dh", "dh_transform", "from_poe", "to_poe",
           "joint_from_screw", "from_urdf", "inertia_from_cad", "cad_values"]
