"""A model built with from_poe from Modern Robotics' parameters reproduces Modern Robotics' dynamics."""
import numpy as np
import pytest

from lessonlib import samples, se3
from lessonlib.dynamics import (aba, coriolis_matrix, crba, forward_dynamics, gravity_torques,
                                jacobian_transpose_force, rnea, velocity_torques)
from lessonlib.model import from_poe, to_poe

mr = pytest.importorskip("modern_robotics")

# Modern Robotics' documented 3-link example (InverseDynamics / MassMatrix / ForwardDynamics docstrings).
M01 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]]
M12 = [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]]
M23 = [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]]
M34 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]]
G1 = np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7])
G2 = np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393])
G3 = np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275])
S3 = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, -0.089, 0, 0], [0, 1, 0, -0.089, 0, 0.425]]).T



@pytest.fixture(scope="module", params=["three_link", "ur5"])
def case(request):
    if request.param == "three_link":
        model = from_poe(np.array([M01, M12, M23, M34], dtype=float), np.array([G1, G2, G3]), S3)
        return model, np.array([M01, M12, M23, M34], dtype=float), np.array([G1, G2, G3]), S3
    model = samples.ur5()
    return (model, *to_poe(model))


def test_documented_three_link_numbers():
    model = from_poe(np.array([M01, M12, M23, M34], dtype=float), np.array([G1, G2, G3]), S3)
    q, qd, qdd = np.array([0.1, 0.1, 0.1]), np.array([0.1, 0.2, 0.3]), np.array([2, 1.5, 1.0])
    f_ext = np.zeros((3, 6))
    f_ext[2] = se3.Ad(se3.inv(model.frame("ee").T)).T @ -np.ones(6)      # MR's Ftip acts ON the environment
    tau = rnea(model, q, qd, qdd, gravity=[0, 0, -9.8], f_ext=f_ext)
    assert np.allclose(tau, [74.69616155, -33.06766016, -3.23057314], atol=1e-7)
    assert np.allclose(crba(model, q), [[2.25433380e+01, -3.07146754e-01, -7.18426391e-03],
                                        [-3.07146754e-01, 1.96850717e+00, 4.32157368e-01],
                                        [-7.18426391e-03, 4.32157368e-01, 1.91630858e-01]], atol=1e-7)
    assert np.allclose(velocity_torques(model, q, qd), [0.26453118, -0.05505157, -0.00689132], atol=1e-7)
    assert np.allclose(gravity_torques(model, q, gravity=[0, 0, -9.8]), [28.40331262, -37.64094817, -5.4415892],
                       atol=1e-7)
    # EndEffectorForces: J_bᵀ F — the same product; MR reads it as the actuator torque that makes the
    # tip push with F, the course as τ_ext when the environment pushes with F (opposite sides of the law).
    assert np.allclose(jacobian_transpose_force(model, q, np.ones(6), frame="body", body="ee"),
                       [1.40954608, 1.85771497, 1.392409], atol=1e-7)
    tau_fd = np.array([0.5, 0.6, 0.7])
    assert np.allclose(aba(model, q, qd, tau_fd, gravity=[0, 0, -9.8], f_ext=f_ext),
                       [-0.97392907, 25.58466784, -32.91499212], atol=1e-7)


def test_random_states_match_modern_robotics(case):
    model, Mlist, Glist, Slist = case
    rng = np.random.default_rng(2)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-1, 1, (3, model.n))
        g = rng.normal(size=3) * 5
        Ftip = rng.normal(size=6)
        f_ext = np.zeros((model.n, 6))
        f_ext[-1] = se3.Ad(se3.inv(model.frame("ee").T)).T @ -Ftip
        tau = mr.InverseDynamics(q, qd, qdd, g, Ftip, Mlist, Glist, Slist)
        assert np.allclose(rnea(model, q, qd, qdd, gravity=g, f_ext=f_ext), tau, atol=1e-9)
        assert np.allclose(crba(model, q), mr.MassMatrix(q, Mlist, Glist, Slist), atol=1e-9)
        assert np.allclose(velocity_torques(model, q, qd), mr.VelQuadraticForces(q, qd, Mlist, Glist, Slist), atol=1e-9)
        assert np.allclose(gravity_torques(model, q, gravity=g), mr.GravityForces(q, g, Mlist, Glist, Slist), atol=1e-9)
        qdd_mr = mr.ForwardDynamics(q, qd, tau, g, Ftip, Mlist, Glist, Slist)
        for method in ("aba", "crba", "rnea_columns"):
            assert np.allclose(forward_dynamics(model, q, qd, tau, gravity=g, f_ext=f_ext, method=method), qdd_mr,
                               atol=1e-8)
        C = coriolis_matrix(model, q, qd)
        assert np.allclose(C @ qd, mr.VelQuadraticForces(q, qd, Mlist, Glist, Slist), atol=1e-9)
