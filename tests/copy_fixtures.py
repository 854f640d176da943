"""Calibration of the copy detector: honest answers in several styles, and the library pasted as a student would.

``HONEST[name]`` are correct implementations written from the lessons' equations, the way different
students write them (``@`` or ``.dot``, unpacked locals, lists or arrays, helpers, other
decompositions). They run in a namespace with ``np``, ``se3``, ``joint_transforms``, ``BASE`` and
``LIN`` (what the exercise notebooks import) and must agree with the library.

``pasted(function)`` is the library's own function as a student would paste it: verbatim, with every
local renamed, reformatted with the comments replaced, and with the blocked input helpers inlined.
"""
import ast
import inspect
import re
import textwrap

HONEST = {}

HONEST["crba"] = {
    # the case: .dot and unpacked locals, Featherstone's loops (scored 0.949, lost 5/10)
    "dot-unpacked": '''
def crba(model, q):
    n = model.n
    S, parent, I = model.S, model.parent, model.inertia
    X = joint_transforms(model, q)
    Ic = [I[i].copy() for i in range(n)]
    for i in range(n - 1, -1, -1):
        p = parent[i]
        if p != -1:
            Ic[p] = Ic[p] + X[i].T.dot(Ic[i]).dot(X[i])
    M = np.zeros((n, n))
    for i in range(n):
        F = Ic[i].dot(S[i])
        M[i, i] = S[i].dot(F)
        j = i
        while parent[j] != -1:
            F = X[j].T.dot(F)
            j = parent[j]
            M[i, j] = S[j].dot(F)
            M[j, i] = M[i, j]
    return M
''',
    # the solution notebook's style: @, model attributes in place
    "matmul-attributes": '''
def crba(model, q):
    n = model.n
    X = joint_transforms(model, q)
    composite = np.array(model.inertia, dtype=float)
    for i in reversed(range(n)):
        if model.parent[i] != -1:
            composite[model.parent[i]] += X[i].T @ composite[i] @ X[i]
    M = np.zeros((n, n))
    for i in range(n):
        force = composite[i] @ model.S[i]
        k = i
        M[i, i] = model.S[i] @ force
        while model.parent[k] != -1:
            force = X[k].T @ force
            k = model.parent[k]
            M[k, i] = model.S[k] @ force
            M[i, k] = M[k, i]
    return M
''',
    # ancestors listed first, one column at a time
    "ancestor-lists": '''
def crba(model, q):
    n = model.n
    X = joint_transforms(model, q)
    ancestors = []
    for i in range(n):
        chain, j = [], model.parent[i]
        while j != -1:
            chain.append(j)
            j = model.parent[j]
        ancestors.append(chain)
    Ic = np.array(model.inertia, dtype=float)
    for i in range(n - 1, 0, -1):
        if model.parent[i] >= 0:
            Ic[model.parent[i]] = Ic[model.parent[i]] + X[i].T @ Ic[i] @ X[i]
    M = np.zeros((n, n))
    for i in range(n):
        f = Ic[i] @ model.S[i]
        M[i, i] = f @ model.S[i]
        child = i
        for j in ancestors[i]:
            f = X[child].T @ f
            M[i, j] = M[j, i] = f @ model.S[j]
            child = j
    return M
''',
    # children accumulated with an explicit child list, forces kept per body
    "children-recursive": '''
def crba(model, q):
    n = model.n
    X = joint_transforms(model, q)
    children = {i: [] for i in range(n)}
    for i in range(n):
        if model.parent[i] != -1:
            children[model.parent[i]].append(i)

    def composite(i):
        total = model.inertia[i].copy()
        for c in children[i]:
            total += X[c].T @ composite(c) @ X[c]
        return total

    Ic = [composite(i) for i in range(n)]
    M = np.zeros((n, n))
    for i in range(n):
        force = Ic[i] @ model.S[i]
        body = i
        while True:
            M[body, i] = model.S[body] @ force
            M[i, body] = M[body, i]
            if model.parent[body] == -1:
                break
            force = X[body].T @ force
            body = model.parent[body]
    return M
''',
    # a different decomposition: M = sum of J_iᵀ I_i J_i with body Jacobians built outward
    "jacobian-sum": '''
def crba(model, q):
    n = model.n
    X = joint_transforms(model, q)
    J = np.zeros((n, 6, n))
    for i in range(n):
        p = model.parent[i]
        if p != -1:
            J[i] = X[i] @ J[p]
        J[i][:, i] = model.S[i]
    M = np.zeros((n, n))
    for i in range(n):
        M += J[i].T @ model.inertia[i] @ J[i]
    return 0.5 * (M + M.T)
''',
}

HONEST["rnea"] = {
    # the book's two loops with @ and separate arrays
    "book-matmul": '''
def rnea(model, q, qd, qdd, gravity=None):
    n = model.n
    g = model.gravity if gravity is None else np.asarray(gravity, dtype=float)
    a0 = np.zeros(6)
    a0[LIN] = -g
    X = joint_transforms(model, q)
    v, a, f = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    for i in range(n):
        p = model.parent[i]
        vp = np.zeros(6) if p == -1 else v[p]
        ap = a0 if p == -1 else a[p]
        v[i] = X[i] @ vp + model.S[i] * qd[i]
        a[i] = X[i] @ ap + model.S[i] * qdd[i] + se3.ad(v[i]) @ model.S[i] * qd[i]
        f[i] = model.inertia[i] @ a[i] + se3.ad_dual(v[i]) @ model.inertia[i] @ v[i]
    tau = np.zeros(n)
    for i in reversed(range(n)):
        tau[i] = model.S[i] @ f[i]
        if model.parent[i] != -1:
            f[model.parent[i]] += X[i].T @ f[i]
    return tau
''',
    # .dot, unpacked locals, vectorised joint rates (the library's own idioms)
    "dot-vectorised": '''
def rnea(model, q, qd, qdd, gravity=None):
    S, I, parent, n = model.S, model.inertia, model.parent, model.n
    q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))
    X = joint_transforms(model, q)
    grav = model.gravity if gravity is None else np.asarray(gravity, dtype=float)
    a0 = np.concatenate([np.zeros(3), -grav])
    vJ = S * qd[:, None]
    aJ = S * qdd[:, None]
    v = np.zeros((n, 6))
    a = np.zeros((n, 6))
    for i in range(n):
        p = parent[i]
        if p == -1:
            v[i] = vJ[i]
            a[i] = X[i].dot(a0) + aJ[i]
        else:
            v[i] = X[i].dot(v[p]) + vJ[i]
            a[i] = X[i].dot(a[p]) + aJ[i]
        a[i] = a[i] + se3.ad(v[i]).dot(vJ[i])
    f = np.array([I[i].dot(a[i]) - se3.ad(v[i]).T.dot(I[i].dot(v[i])) for i in range(n)])
    tau = np.zeros(n)
    for i in range(n - 1, -1, -1):
        tau[i] = S[i].dot(f[i])
        if parent[i] >= 0:
            f[parent[i]] = f[parent[i]] + X[i].T.dot(f[i])
    return tau
''',
    # written with lists and per-body helper functions
    "helpers": '''
def rnea(model, q, qd, qdd, gravity=None):
    X = joint_transforms(model, q)
    g = np.asarray(model.gravity if gravity is None else gravity, dtype=float)

    def motion(i, v_parent, a_parent):
        vJ = model.S[i] * qd[i]
        v = X[i] @ v_parent + vJ
        a = X[i] @ a_parent + model.S[i] * qdd[i] + se3.ad(v) @ vJ
        return v, a

    def wrench(i, v, a):
        I = model.inertia[i]
        return I @ a + se3.ad_dual(v) @ (I @ v)

    base = (np.zeros(6), np.concatenate([np.zeros(3), -g]))
    twists, accels, forces = [], [], []
    for i in range(model.n):
        parent = model.parent[i]
        v, a = motion(i, *(base if parent < 0 else (twists[parent], accels[parent])))
        twists.append(v)
        accels.append(a)
        forces.append(wrench(i, v, a))
    torques = np.zeros(model.n)
    for i in range(model.n - 1, -1, -1):
        torques[i] = model.S[i] @ forces[i]
        if model.parent[i] >= 0:
            forces[model.parent[i]] = forces[model.parent[i]] + X[i].T @ forces[i]
    return torques
''',
    # Newton-Euler with the spatial cross product written out (no se3 helpers)
    "cross-products": '''
def rnea(model, q, qd, qdd, gravity=None):
    def crm(v):
        w, u = v[:3], v[3:]
        W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        U = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
        out = np.zeros((6, 6))
        out[:3, :3] = W
        out[3:, 3:] = W
        out[3:, :3] = U
        return out

    n = model.n
    X = joint_transforms(model, q)
    gvec = model.gravity if gravity is None else np.asarray(gravity, dtype=float)
    vel = np.zeros((n + 1, 6))
    acc = np.zeros((n + 1, 6))
    acc[0, 3:] = -gvec
    frc = np.zeros((n, 6))
    for k in range(n):
        par = model.parent[k] + 1
        vel[k + 1] = X[k] @ vel[par] + model.S[k] * qd[k]
        acc[k + 1] = X[k] @ acc[par] + model.S[k] * qdd[k] + crm(vel[k + 1]) @ (model.S[k] * qd[k])
        Iv = model.inertia[k] @ vel[k + 1]
        frc[k] = model.inertia[k] @ acc[k + 1] - crm(vel[k + 1]).T @ Iv
    out = np.zeros(n)
    for k in range(n - 1, -1, -1):
        out[k] = model.S[k] @ frc[k]
        if model.parent[k] != -1:
            frc[model.parent[k]] += X[k].T @ frc[k]
    return out
''',
}

HONEST["aba"] = {
    # the three passes with @, arrays per quantity
    "book-matmul": '''
def aba(model, q, qd, tau, gravity=None):
    n = model.n
    X = joint_transforms(model, q)
    g = model.gravity if gravity is None else np.asarray(gravity, dtype=float)
    v, c = np.zeros((n, 6)), np.zeros((n, 6))
    IA = np.array(model.inertia, dtype=float)
    pA = np.zeros((n, 6))
    for i in range(n):
        p = model.parent[i]
        vJ = model.S[i] * qd[i]
        v[i] = (X[i] @ v[p] if p != -1 else 0) + vJ
        c[i] = se3.ad(v[i]) @ vJ
        pA[i] = se3.ad_dual(v[i]) @ model.inertia[i] @ v[i]
    U, D, u = np.zeros((n, 6)), np.zeros(n), np.zeros(n)
    for i in reversed(range(n)):
        U[i] = IA[i] @ model.S[i]
        D[i] = model.S[i] @ U[i]
        u[i] = tau[i] - model.S[i] @ pA[i]
        p = model.parent[i]
        if p != -1:
            Ia = IA[i] - np.outer(U[i], U[i]) / D[i]
            pa = pA[i] + Ia @ c[i] + U[i] * u[i] / D[i]
            IA[p] += X[i].T @ Ia @ X[i]
            pA[p] += X[i].T @ pa
    a = np.zeros((n, 6))
    qdd = np.zeros(n)
    a0 = np.concatenate([np.zeros(3), -g])
    for i in range(n):
        p = model.parent[i]
        ap = X[i] @ (a[p] if p != -1 else a0) + c[i]
        qdd[i] = (u[i] - U[i] @ ap) / D[i]
        a[i] = ap + model.S[i] * qdd[i]
    return qdd
''',
    # .dot and unpacked locals, lists of matrices
    "dot-unpacked": '''
def aba(model, q, qd, tau, gravity=None):
    S, I, parent, n = model.S, model.inertia, model.parent, model.n
    X = joint_transforms(model, q)
    grav = np.asarray(model.gravity if gravity is None else gravity, dtype=float)
    vel, bias_acc, art_I, art_p = [], [], [], []
    for i in range(n):
        vj = S[i] * qd[i]
        vi = vj if parent[i] < 0 else X[i].dot(vel[parent[i]]) + vj
        vel.append(vi)
        bias_acc.append(se3.ad(vi).dot(vj))
        art_I.append(I[i].copy())
        art_p.append(-se3.ad(vi).T.dot(I[i].dot(vi)))
    Ucol, Dval, uval = [None] * n, [0.0] * n, [0.0] * n
    for i in range(n - 1, -1, -1):
        Ucol[i] = art_I[i].dot(S[i])
        Dval[i] = S[i].dot(Ucol[i])
        uval[i] = tau[i] - S[i].dot(art_p[i])
        if parent[i] >= 0:
            Ia = art_I[i] - np.outer(Ucol[i], Ucol[i]) / Dval[i]
            pa = art_p[i] + Ia.dot(bias_acc[i]) + Ucol[i] * (uval[i] / Dval[i])
            art_I[parent[i]] = art_I[parent[i]] + X[i].T.dot(Ia).dot(X[i])
            art_p[parent[i]] = art_p[parent[i]] + X[i].T.dot(pa)
    base = np.concatenate([np.zeros(3), -grav])
    acc, qdd = [None] * n, np.zeros(n)
    for i in range(n):
        prev = base if parent[i] < 0 else acc[parent[i]]
        ai = X[i].dot(prev) + bias_acc[i]
        qdd[i] = (uval[i] - Ucol[i].dot(ai)) / Dval[i]
        acc[i] = ai + S[i] * qdd[i]
    return qdd
''',
    # forward dynamics by the mass matrix and bias (a different route, also correct)
    "mass-matrix-route": '''
def aba(model, q, qd, tau, gravity=None):
    n = model.n
    X = joint_transforms(model, q)
    g = model.gravity if gravity is None else np.asarray(gravity, dtype=float)

    def inverse_dynamics(qdd_, with_velocity, grav):
        v = np.zeros((n, 6)); a = np.zeros((n, 6)); f = np.zeros((n, 6))
        a0 = np.concatenate([np.zeros(3), -grav])
        for i in range(n):
            p = model.parent[i]
            vJ = model.S[i] * (qd[i] if with_velocity else 0.0)
            v[i] = (X[i] @ v[p] if p >= 0 else np.zeros(6)) + vJ
            a[i] = X[i] @ (a[p] if p >= 0 else a0) + model.S[i] * qdd_[i] + se3.ad(v[i]) @ vJ
            f[i] = model.inertia[i] @ a[i] + se3.ad_dual(v[i]) @ model.inertia[i] @ v[i]
        out = np.zeros(n)
        for i in reversed(range(n)):
            out[i] = model.S[i] @ f[i]
            if model.parent[i] >= 0:
                f[model.parent[i]] += X[i].T @ f[i]
        return out

    bias = inverse_dynamics(np.zeros(n), True, g)
    M = np.column_stack([inverse_dynamics(np.eye(n)[j], False, np.zeros(3)) for j in range(n)])
    return np.linalg.solve(M, np.asarray(tau, dtype=float) - bias)
''',
}


# --- the library, pasted ---------------------------------------------------------------------------

#: How a student replaces the library's private input helpers it cannot import while grading.
INLINED = {
    r"\(q,\) = state\(model, q\)": "q = np.asarray(q, dtype=float)",
    r"q, qd = state\(model, q, qd\)": "q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)",
    r"q, qd, qdd = state\(model, q, qd, qdd\)": "q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))",
}


def _source(function):
    source = textwrap.dedent(inspect.getsource(function))
    tree = ast.parse(source)
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        lines = source.splitlines(keepends=True)
        source = "".join(lines[:body[0].lineno - 1] + lines[body[0].end_lineno:])       # docstring gone
    return source


class _Rename(ast.NodeTransformer):
    """Rename every local and argument of a function consistently (attributes stay: they are the API)."""

    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.names.get(node.arg, node.arg)
        return node


def renamed(source):
    """Every local and argument renamed as a student would (``v`` -> ``vel_v``), comments lost."""
    tree = ast.parse(source)
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stored |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    return ast.unparse(_Rename({name: f"my_{name.lower()}_{k}" for k, name in enumerate(sorted(stored))}).visit(tree))


def reformatted(source):
    """A comment of one's own on every line."""
    lines = []
    for line in source.splitlines():
        code = line.split("#")[0].rstrip()
        if code.strip():
            lines.append(code + "   # my step")
    return "\n".join(lines) + "\n"


def inlined(source):
    for pattern, replacement in INLINED.items():
        source = re.sub(pattern, replacement, source)
    return source


def pasted(function):
    """``{variant: source}``: the library ``function`` pasted as a student would."""
    base = inlined(_source(function))
    return {"verbatim": base, "renamed": renamed(base), "renamed-reformatted": reformatted(renamed(base))}
