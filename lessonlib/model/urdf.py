"""Build a Model from a URDF robot description (standard-library ``xml.etree`` only).

URDF (the ROS Unified Robot Description Format) describes a robot as **links** (rigid bodies, each
with its own frame) joined by **joints**. A joint places its child link's frame in its parent
link's frame::

    T_parent_child(q) = T_origin · exp([S] q)        T_origin = Trans(xyz) · Rz(yaw) Ry(pitch) Rx(roll)

where ``S`` is a rotation about (``revolute``, ``continuous``) or a translation along
(``prismatic``) the joint ``axis``, given in the child frame, through the child frame's origin.
That is exactly the Model's ``T_tree[i] · exp([S_i] q_i)`` (see :mod:`lessonlib.model.core`), so

* body frame ``i`` = the child link frame of moving joint ``i`` (its origin lies on the joint axis);
  ``joints[i] = Joint(kind, axis, point=0, name=<URDF joint name>)``;
* ``T_tree[i]`` = pose of that child link frame in the frame of the parent **body** at ``q = 0``
  (the fixed transforms of any merged links in between are composed into it);
* ``fixed`` joints are merged into the parent body: their links' masses, centres of mass and
  inertias are added to it exactly (each link inertial becomes a spatial inertia about the body
  origin, :func:`lessonlib.spatial.inertia`, and the spatial inertias are summed); each merged link
  stays reachable as a :class:`~lessonlib.model.core.Frame` named after the link (so ``fk`` of a
  ``tool0`` / TCP / hand frame works). Links fixed to the root are part of the fixed base (frames on
  ``BASE``; their masses play no role);
* bodies are numbered depth first from the root; the children of a link are visited in the order of
  their joint names, which is Pinocchio's order (urdfdom keeps the joints in a name-sorted map), so
  ``model.joint_names`` lines up joint by joint with ``pin.buildModelFromUrdf``.

Each inertial's ``<origin>`` places the centre of mass (``xyz``) and the axes of the ``<inertia>``
tensor (``rpy``) in the link frame; ``ixy`` etc. are the tensor's off-diagonal entries.

Not supported (``ValueError``): ``floating`` and ``planar`` joints (the course's arms have a fixed
base), closed loops, several root links. Ignored: ``<limit>``, ``<dynamics>``, ``<visual>``,
``<collision>``, ``<transmission>``, ``<gazebo>``; ``<mimic>`` is ignored with a ``UserWarning`` and
the joint kept as an independent coordinate.

>>> pendulum = from_urdf('''
... <robot name="pendulum">
...   <link name="base"/>
...   <link name="rod">
...     <inertial>
...       <origin xyz="0 0 -0.5"/>
...       <mass value="1.0"/>
...       <inertia ixx="0.0833333" iyy="0.0833333" izz="0" ixy="0" ixz="0" iyz="0"/>
...     </inertial>
...   </link>
...   <link name="tip"/>
...   <joint name="hinge" type="revolute">
...     <parent link="base"/> <child link="rod"/> <axis xyz="0 1 0"/>
...   </joint>
...   <joint name="tip_joint" type="fixed">
...     <parent link="rod"/> <child link="tip"/> <origin xyz="0 0 -1"/>
...   </joint>
... </robot>''')
>>> pendulum.n, pendulum.joint_names, pendulum.body_names
(1, ('hinge',), ('rod',))
>>> [f.name for f in pendulum.frames]
['base', 'tip']
>>> pendulum.com[0].tolist()
[0.0, 0.0, -0.5]
"""
from __future__ import annotations

import math
import os
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import se3, so3, spatial
from ..conventions import BASE
from .core import PRISMATIC, REVOLUTE, Frame, Joint, Model

#: URDF joint type -> Model joint kind (``None``: a fixed joint, merged into its parent body).
_KINDS = {"revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC, "fixed": None}
_UNSUPPORTED = ("floating", "planar")
_INERTIA_ATTRS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def rpy_to_R(rpy):
    """URDF fixed-axis roll-pitch-yaw to a rotation matrix: ``R = Rz(yaw) · Ry(pitch) · Rx(roll)``.

    >>> import numpy as np
    >>> bool(np.allclose(rpy_to_R([0.0, 0.0, np.pi / 2]) @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]))
    True
    """
    roll, pitch, yaw = (float(a) for a in rpy)
    return so3.rot_z(yaw) @ so3.rot_y(pitch) @ so3.rot_x(roll)


# --- parsing: XML -> plain records -------------------------------------------------------------

@dataclass(frozen=True)
class _Inertial:
    """One link's inertial: mass ``m``, COM ``c`` and COM inertia ``I_c`` in link-frame axes."""

    m: float
    c: np.ndarray
    I_c: np.ndarray


@dataclass(frozen=True)
class _Link:
    name: str
    inertial: _Inertial | None


@dataclass(frozen=True)
class _UrdfJoint:
    name: str
    kind: str | None          # REVOLUTE, PRISMATIC, or None for fixed
    parent: str
    child: str
    T_origin: np.ndarray      # pose of the child link frame in the parent link frame at q = 0
    axis: np.ndarray          # unit axis in the child link frame


def _read_root(path_or_xml):
    """The ``<robot>`` element of a URDF given as a path or as XML text."""
    if isinstance(path_or_xml, bytes):
        text, where = path_or_xml, "XML string"
    elif isinstance(path_or_xml, str) and path_or_xml.lstrip().startswith("<"):
        text, where = path_or_xml, "XML string"
    elif isinstance(path_or_xml, (str, os.PathLike)):
        path = Path(path_or_xml)
        if not path.is_file():
            raise ValueError(f"path_or_xml: no URDF file at {str(path)!r} "
                             "(an XML string must start with '<')")
        text, where = path.read_bytes(), f"file {str(path)!r}"     # the parser reads the encoding
    else:
        raise ValueError(f"path_or_xml: expected a file path or a URDF XML string, "
                         f"got {type(path_or_xml).__name__}")
    try:
        root = ET.fromstring(text.lstrip())
    except ET.ParseError as err:
        raise ValueError(f"path_or_xml: the {where} is not well-formed XML: {err}") from None
    if root.tag != "robot":
        raise ValueError(f"path_or_xml: the root element of the {where} is <{root.tag}>, "
                         "expected <robot> (not a URDF)")
    return root


def _numbers(text, count, where):
    """``count`` finite floats from a whitespace-separated attribute value."""
    try:
        values = [float(s) for s in text.split()]
    except ValueError:
        raise ValueError(f"{where}: expected {count} numbers, got {text!r}") from None
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise ValueError(f"{where}: expected {count} finite numbers, got {text!r}")
    return np.array(values)


def _origin(parent_el, where):
    """Pose ``T`` from an optional ``<origin xyz=... rpy=...>`` child (missing -> identity)."""
    el = parent_el.find("origin")
    if el is None:
        return np.eye(4)
    xyz = _numbers(el.get("xyz", "0 0 0"), 3, f"{where} <origin xyz>")
    rpy = _numbers(el.get("rpy", "0 0 0"), 3, f"{where} <origin rpy>")
    return se3.from_Rp(rpy_to_R(rpy), xyz)


def _parse_inertial(link_el, link):
    el = link_el.find("inertial")
    if el is None:
        return None
    where = f"link {link!r}"
    mass_el = el.find("mass")
    if mass_el is None:
        raise ValueError(f"{where}: <inertial> has no <mass>")
    if mass_el.get("value") is None:
        raise ValueError(f"{where}: <mass> has no value attribute")
    m = float(_numbers(mass_el.get("value"), 1, f"{where} <mass value>")[0])
    if m < 0:
        raise ValueError(f"{where}: mass must be >= 0, got {m}")
    inertia_el = el.find("inertia")
    if inertia_el is None:
        raise ValueError(f"{where}: <inertial> has no <inertia> (write zeros for a point mass)")
    vals = {}
    for attr in _INERTIA_ATTRS:
        if inertia_el.get(attr) is None:
            raise ValueError(f"{where}: <inertia> has no {attr} attribute")
        vals[attr] = float(_numbers(inertia_el.get(attr), 1, f"{where} <inertia {attr}>")[0])
    I_frame = np.array([[vals["ixx"], vals["ixy"], vals["ixz"]],
                        [vals["ixy"], vals["iyy"], vals["iyz"]],
                        [vals["ixz"], vals["iyz"], vals["izz"]]])
    T_link_inertial = _origin(el, f"{where} <inertial>")
    R, c = T_link_inertial[:3, :3], T_link_inertial[:3, 3]
    I_c = R @ I_frame @ R.T                     # COM inertia in link-frame axes
    if m == 0:
        if np.any(I_frame != 0):
            raise ValueError(f"{where}: mass 0 with a non-zero <inertia> is not a physical body")
        return None
    try:
        spatial.check_inertia_params(m, c, I_c, name=where)
    except ValueError as err:
        raise ValueError(f"{err} (URDF <inertia> {vals})") from None
    return _Inertial(m, c, I_c)


def _parse_joint(el):
    name = el.get("name")
    if not name:
        raise ValueError("a <joint> element has no name attribute")
    where = f"joint {name!r}"
    jtype = el.get("type")
    if jtype in _UNSUPPORTED:
        raise ValueError(f"{where}: type {jtype!r} is not supported (the course's robots have a fixed "
                         "base and one-degree-of-freedom joints)")
    if jtype not in _KINDS:
        raise ValueError(f"{where}: unknown joint type {jtype!r}; expected one of {sorted(_KINDS)}")
    ends = {}
    for end in ("parent", "child"):
        end_el = el.find(end)
        if end_el is None or not end_el.get("link"):
            raise ValueError(f"{where}: missing <{end} link=...>")
        ends[end] = end_el.get("link")
    kind = _KINDS[jtype]
    axis = np.array([1.0, 0.0, 0.0])
    axis_el = el.find("axis")
    if kind is not None and axis_el is not None:
        axis = _numbers(axis_el.get("xyz", "1 0 0"), 3, f"{where} <axis xyz>")
        norm = np.linalg.norm(axis)
        if norm < 1e-12:
            raise ValueError(f"{where}: <axis xyz> must be non-zero, got {axis_el.get('xyz')!r}")
        axis = axis / norm
    if kind is not None and el.find("mimic") is not None:
        warnings.warn(f"{where}: <mimic> is ignored; the joint is kept as an independent coordinate",
                      UserWarning, stacklevel=4)
    return _UrdfJoint(name, kind, ends["parent"], ends["child"], _origin(el, where), axis)


def _parse(root):
    """Links (dict in document order) and joints (list) of a ``<robot>`` element."""
    links = {}
    for el in root.findall("link"):
        name = el.get("name")
        if not name:
            raise ValueError("a <link> element has no name attribute")
        if name in links:
            raise ValueError(f"link {name!r} is defined twice")
        links[name] = _Link(name, _parse_inertial(el, name))
    if not links:
        raise ValueError("path_or_xml: the <robot> element has no <link> elements")
    joints, names = [], set()
    for el in root.findall("joint"):
        j = _parse_joint(el)
        if j.name in names:
            raise ValueError(f"joint {j.name!r} is defined twice")
        names.add(j.name)
        joints.append(j)
    return links, joints


# --- the tree: root, children, cycles ----------------------------------------------------------

def _tree(links, joints):
    """The root link and, per link, its child joints in Pinocchio's (name-sorted) order."""
    parent_joint = {}
    for j in joints:
        for end in (j.parent, j.child):
            if end not in links:
                raise ValueError(f"joint {j.name!r}: link {end!r} is not defined")
        if j.child in parent_joint:
            raise ValueError(f"link {j.child!r} is the child of two joints "
                             f"({parent_joint[j.child].name!r} and {j.name!r})")
        parent_joint[j.child] = j
    roots = [name for name in links if name not in parent_joint]
    if len(roots) > 1:
        raise ValueError(f"several root links {roots}: a URDF must be one tree (connect them with "
                         "joints)")
    children = {name: [] for name in links}
    for j in sorted(joints, key=lambda j: j.name):
        children[j.parent].append(j)
    reached = set()
    stack = list(roots)
    while stack:
        link = stack.pop()
        reached.add(link)
        stack.extend(j.child for j in children[link])
    if len(reached) != len(links):         # an unreached link hangs below a cycle: walk up to it
        path, link = [], next(name for name in links if name not in reached)
        while link not in path:
            path.append(link)
            link = parent_joint[link].parent
        cycle = [parent_joint[k].name for k in path[path.index(link):]]
        raise ValueError(f"the joints {cycle} form a cycle (a URDF must be a tree)")
    return roots[0], children


# --- the Model ----------------------------------------------------------------------------------

def from_urdf(path_or_xml, *, gravity=None, name=None):
    """A Model from a URDF file (``str`` or ``pathlib.Path``) or a URDF XML string.

    Parameters
    ----------
    path_or_xml : a path to a ``.urdf`` file, or the XML text itself (recognised by a leading ``<``).
    gravity : default gravity of the Model (world = root-link frame); ``None`` -> ``(0, 0, -9.81)``.
    name : the Model's name; ``None`` -> the ``<robot name=...>`` attribute.

    Returns a Model whose ``joint_names`` are the URDF names of the moving joints (Pinocchio's
    order), ``body_names`` the child links of those joints, and ``frames`` one
    :class:`~lessonlib.model.core.Frame` per link merged into a body or fixed to the base.
    Raises ``ValueError`` naming the offending element for anything it cannot model.

    >>> from lessonlib.samples import robot_path        # a URDF shipped with lessonlib
    >>> arm = from_urdf(robot_path("ur5"))
    >>> arm.n, arm.joint_names[0], arm.frame("tool0").body
    (6, 'shoulder_pan_joint', 5)
    """
    root_el = _read_root(path_or_xml)
    links, joints = _parse(root_el)
    root, children = _tree(links, joints)

    parent, model_joints, T_tree, body_names, frames = [], [], [], [], []
    G = []                                   # summed spatial inertias per body (about its origin)
    members = []                             # links merged into each body (for messages)
    # Depth-first walk, children in joint-name order (Pinocchio's). A stack entry is
    # (link, the joint that reaches it, the body it hangs from, its pose in that body at q = 0).
    stack = [(root, None, BASE, np.eye(4))]
    while stack:
        link, joint, body, T_body_link = stack.pop()
        if joint is not None and joint.kind is not None:      # a moving joint starts a new body
            parent.append(body)
            model_joints.append(Joint(joint.kind, joint.axis, np.zeros(3), name=joint.name))
            T_tree.append(T_body_link)
            body_names.append(link)
            G.append(np.zeros((6, 6)))
            members.append([])
            body, T_body_link = len(parent) - 1, np.eye(4)
        else:                                                 # root, or merged by a fixed joint
            frames.append(Frame(link, body, T_body_link))
            if body != BASE:
                members[body].append(link)
        inertial = links[link].inertial
        if body != BASE and inertial is not None:             # base links' masses play no role
            R, p = T_body_link[:3, :3], T_body_link[:3, 3]
            G[body] = G[body] + spatial.inertia(inertial.m, R @ inertial.c + p, R @ inertial.I_c @ R.T)
        for j in reversed(children[link]):                    # reversed: popped in name order
            stack.append((j.child, j, body, T_body_link @ j.T_origin))
    if not parent:
        raise ValueError(f"path_or_xml: robot {root_el.get('name')!r} has no moving joints "
                         "(revolute, continuous or prismatic)")
    for i, G_i in enumerate(G):
        if not spatial.mass(G_i) > 0:
            merged = f" and the links fixed to it {members[i]}" if members[i] else ""
            raise ValueError(f"link {body_names[i]!r}: a moving body needs mass > 0, but the link"
                             f"{merged} carry no <inertial> mass (it is moved by joint "
                             f"{model_joints[i].name!r})")
    try:
        return Model(parent, model_joints, np.array(T_tree), np.array(G), body_names=body_names,
                     gravity=gravity, frames=frames,
                     name=name if name is not None else root_el.get("name", "robot"))
    except ValueError as err:          # name the link behind an index-based message
        text = str(err)
        for i, link in enumerate(body_names):
            text = text.replace(f"inertia[{i}]", f"link {link!r} (inertia[{i}])")
        raise ValueError(text) from None
