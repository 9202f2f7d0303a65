/* Unit test of the element library: type table, shape functions, quadrature (full and CalculiX rules), element stiffness and mass, patch tests, bad
 * input. */
#include "fem/femimpl.h"
#include <petscksp.h>

static const char help[] = "Unit test of the vicms element library (src/fem/element.c).\n";

#define MAXN   20
#define MAXQ   27
#define MAXDOF 60

/* ---------------------------------------------------------------- what the elements should be, written independently */

typedef enum { DOM_LINE, DOM_TRI, DOM_QUAD, DOM_TET, DOM_HEX, DOM_WEDGE } Domain;

/* Mid-edge nodes as pairs of corners, in the Abaqus order given in the element brief. */
static const PetscInt EdgesQuad8[4][2]   = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const PetscInt EdgesTet10[6][2]   = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
static const PetscInt EdgesHex20[12][2]  = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
static const PetscInt EdgesWedge15[9][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}};

typedef struct {
  const char *name;
  PetscInt    nn, rdim, ncorner, face;
  Domain      dom;
  PetscInt    order;         /* polynomial order of the interpolation */
  PetscInt    plane;         /* 0 not plane, 1 plane stress, 2 plane strain */
  PetscInt    nq;            /* quadrature points */
  PetscInt    deg, deg_line; /* claimed exactness: total degree on simplices, per direction on boxes; wedge: triangle x line */
  const PetscInt (*edges)[2];
} Expect;

/* clang-format off */
static const Expect Expected[VI_ELEM_NUM_TYPES] = {
  {"T3D2",  2,  1, 2, 1, DOM_LINE,  1, 0, 2,  3, 0, NULL},
  {"CPS3",  3,  2, 3, 2, DOM_TRI,   1, 1, 3,  2, 0, NULL},
  {"CPS4",  4,  2, 4, 2, DOM_QUAD,  1, 1, 4,  3, 0, NULL},
  {"CPS8",  8,  2, 4, 2, DOM_QUAD,  2, 1, 9,  5, 0, EdgesQuad8},
  {"CPE3",  3,  2, 3, 2, DOM_TRI,   1, 2, 3,  2, 0, NULL},
  {"CPE4",  4,  2, 4, 2, DOM_QUAD,  1, 2, 4,  3, 0, NULL},
  {"CPE8",  8,  2, 4, 2, DOM_QUAD,  2, 2, 9,  5, 0, EdgesQuad8},
  {"C3D4",  4,  3, 4, 3, DOM_TET,   1, 0, 4,  2, 0, NULL},
  {"C3D10", 10, 3, 4, 3, DOM_TET,   2, 0, 14, 5, 0, EdgesTet10},
  {"C3D8",  8,  3, 8, 3, DOM_HEX,   1, 0, 8,  3, 0, NULL},
  {"C3D20", 20, 3, 8, 3, DOM_HEX,   2, 0, 27, 5, 0, EdgesHex20},
  {"C3D6",  6,  3, 6, 3, DOM_WEDGE, 1, 0, 6,  2, 3, NULL},
  {"C3D15", 15, 3, 6, 3, DOM_WEDGE, 2, 0, 21, 5, 5, EdgesWedge15},
};

/*
  The CalculiX rules (ccx 2.20 e_c3d.f, gauss.f), written here from those sources and not from element.c: points, and the
  degree each integrates exactly (total on simplices, per direction on boxes, triangle x line on wedges). ccx expands the
  3-node plane elements into C3D6 wedges (one point in the plane); the other plane elements and the rod keep the full
  rules.
*/
typedef struct {
  PetscInt nq, deg, deg_line;
} RuleExpect;
static const RuleExpect ExpectedCcx[VI_ELEM_NUM_TYPES] = {
  {2, 3, 0}, {1, 1, 0}, {4, 3, 0}, {9, 5, 0}, {1, 1, 0}, {4, 3, 0}, {9, 5, 0}, /* T3D2, CPS3/4/8, CPE3/4/8 (3-node: centroid) */
  {1, 1, 0},                                                                    /* C3D4: centroid */
  {4, 2, 0},                                                                    /* C3D10: 4 points */
  {8, 3, 0},                                                                    /* C3D8: 2x2x2 */
  {27, 5, 0},                                                                   /* C3D20: 3x3x3 */
  {2, 1, 3},                                                                    /* C3D6: triangle centroid x 2-point Gauss */
  {9, 2, 5},                                                                    /* C3D15: 3-point triangle x 3-point Gauss */
};

static const PetscReal CornersLine[]  = {-1, 1};
static const PetscReal CornersTri[]   = {0, 0, 1, 0, 0, 1};
static const PetscReal CornersQuad[]  = {-1, -1, 1, -1, 1, 1, -1, 1};
static const PetscReal CornersTet[]   = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const PetscReal CornersHex[]   = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                                         -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
static const PetscReal CornersWedge[] = {0, 0, -1, 1, 0, -1, 0, 1, -1,
                                         0, 0, 1,  1, 0, 1,  0, 1, 1};
/* clang-format on */

static const PetscReal *DomainCorners(Domain dom)
{
  switch (dom) {
  case DOM_LINE:
    return CornersLine;
  case DOM_TRI:
    return CornersTri;
  case DOM_QUAD:
    return CornersQuad;
  case DOM_TET:
    return CornersTet;
  case DOM_HEX:
    return CornersHex;
  default:
    return CornersWedge;
  }
}

static PetscReal DomainMeasure(Domain dom)
{
  switch (dom) {
  case DOM_LINE:
    return 2;
  case DOM_TRI:
    return 0.5;
  case DOM_QUAD:
    return 4;
  case DOM_TET:
    return 1.0 / 6.0;
  case DOM_HEX:
    return 8;
  default:
    return 1;
  }
}

/* Reference nodes as the brief defines them: corners, then the midpoints of the listed edges. */
static void ExpectedNodes(VIElementType t, PetscReal X[])
{
  const Expect    *ex = &Expected[t];
  const PetscReal *c  = DomainCorners(ex->dom);
  const PetscInt   d  = ex->rdim;

  for (PetscInt a = 0; a < ex->ncorner * d; a++) X[a] = c[a];
  for (PetscInt e = 0; e < ex->nn - ex->ncorner; e++)
    for (PetscInt k = 0; k < d; k++) X[(ex->ncorner + e) * d + k] = 0.5 * (c[ex->edges[e][0] * d + k] + c[ex->edges[e][1] * d + k]);
}

/* ---------------------------------------------------------------- bookkeeping */

typedef enum {
  CHK_TABLE,
  CHK_UNITY,
  CHK_DELTA,
  CHK_FD,
  CHK_POLY,
  CHK_QUAD,
  CHK_MASS,
  CHK_LUMPED,
  CHK_VOLUME,
  CHK_AFFINE_M,
  CHK_AFFINE_K,
  CHK_RIGID,
  CHK_ENERGY,
  CHK_PATCH,
  CHK_ROD,
  CHK_NUM
} Check;

static const char     *CheckName[CHK_NUM] = {"reference-node table (exact)",
                                             "partition of unity and sum of dN",
                                             "N_i(xi_j) = delta_ij",
                                             "dN vs central differences (h=1e-6)",
                                             "polynomial reproduction",
                                             "quadrature monomials",
                                             "consistent mass sum = rho V",
                                             "lumped mass sum = rho V, HRZ shape",
                                             "volume of affine element",
                                             "Me vs reference (affine; ccx: +distorted)",
                                             "Ke vs B^T D B (affine; ccx: +distorted)",
                                             "Ke r = 0 for rigid modes",
                                             "u^T K u = V eps:D:eps",
                                             "patch test interior displacement",
                                             "T3D2 closed form"};
static const PetscReal CheckTol[CHK_NUM]  = {0, 1e-14, 1e-14, 1e-8, 1e-13, 1e-13, 1e-12, 1e-12, 1e-12, 1e-12, 1e-12, 1e-10, 1e-10, 1e-10, 1e-14};
static PetscReal       Worst[CHK_NUM];

static const VIMaterial Steel;

/* The integration under test: every check runs once with each. */
static VIIntegration Rule = VI_INTEGRATION_FULL;

static RuleExpect RuleExpected(VIElementType t)
{
  const RuleExpect full = {Expected[t].nq, Expected[t].deg, Expected[t].deg_line};

  return Rule == VI_INTEGRATION_FULL ? full : ExpectedCcx[t];
}

/* The rule under test integrates the mass N^T N of an undistorted element exactly. */
static PetscBool MassExact(VIElementType t)
{
  const RuleExpect r = RuleExpected(t);

  return (r.deg >= 2 * Expected[t].order && (Expected[t].dom != DOM_WEDGE || r.deg_line >= 2 * Expected[t].order)) ? PETSC_TRUE : PETSC_FALSE;
}

/* The element matrices under the integration under test. */
static PetscErrorCode ElementMatrices(VIElementType t, PetscInt sdim, const PetscReal X[], PetscReal thickness, PetscBool lumped, PetscReal Ke[],
                                      PetscReal Me[], PetscReal *V)
{
  PetscFunctionBeginUser;
  PetscCall(VIElementMatricesIntegrated(t, Rule, sdim, X, &Steel, thickness, lumped, Ke, Me, V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fail with a message when an error exceeds its tolerance (NaN fails too), and keep the worst error for the summary. */
static PetscErrorCode Record(Check c, const char *elem, PetscReal err)
{
  PetscFunctionBeginUser;
  PetscCheck(err <= CheckTol[c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s: error %g exceeds tolerance %g", elem, CheckName[c], (double)err,
             (double)CheckTol[c]);
  Worst[c] = PetscMax(Worst[c], err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- small numerical helpers */

/*
  Eigenvalues (ascending) of a symmetric dense matrix by PETSc's LAPACK: KSPComputeEigenvaluesExplicitly runs geev on
  the explicit operator. Calling LAPACKsyev_ here directly would need -llapack on the link line, which neither the
  vicms targets nor pkg-config PETSc provide, while libpetsc reaches LAPACK itself.
*/
static PetscErrorCode SymmetricEigenvalues(PetscInt n, const PetscReal A[], PetscReal lambda[])
{
  Mat        M;
  KSP        ksp;
  PC         pc;
  PetscReal *data, *imag, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n * n, &data, n, &imag));
  /* row-major symmetric equals column-major */
  PetscCall(PetscArraycpy(data, A, n * n));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, data, &M));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, M, M));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPComputeEigenvaluesExplicitly(ksp, n, lambda, imag));
  PetscCall(PetscSortReal(n, lambda));
  for (PetscInt i = 0; i < n; i++) scale = PetscMax(scale, PetscAbsReal(lambda[i]));
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(PetscAbsReal(imag[i]) <= 1e-12 * scale, PETSC_COMM_SELF, PETSC_ERR_PLIB, "complex eigenvalue %g of a symmetric matrix",
               (double)imag[i]);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&M));
  PetscCall(PetscFree2(data, imag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve the dense system A x = b (A column-major, overwritten by its LU factors; b overwritten by x) with PETSc's LAPACK. */
static PetscErrorCode DenseSolve(PetscInt n, PetscReal A[], PetscReal b[])
{
  Mat           M;
  Vec           vb, vx;
  MatFactorInfo info;

  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, A, &M));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatLUFactor(M, NULL, NULL, &info));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, b, &vb));
  PetscCall(VecDuplicate(vb, &vx));
  PetscCall(MatSolve(M, vb, vx));
  PetscCall(VecCopy(vx, vb));
  PetscCall(VecDestroy(&vx));
  PetscCall(VecDestroy(&vb));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal Factorial(PetscInt n)
{
  PetscReal f = 1;

  for (PetscInt i = 2; i <= n; i++) f *= i;
  return f;
}

static PetscReal LineMoment(PetscInt e)
{
  return e % 2 ? 0 : 2.0 / (e + 1);
}

/* Exact integral of xi^e0 eta^e1 zeta^e2 over the reference domain. */
static PetscReal ExactMoment(Domain dom, const PetscInt e[])
{
  switch (dom) {
  case DOM_LINE:
    return LineMoment(e[0]);
  case DOM_QUAD:
    return LineMoment(e[0]) * LineMoment(e[1]);
  case DOM_HEX:
    return LineMoment(e[0]) * LineMoment(e[1]) * LineMoment(e[2]);
  case DOM_TRI:
    return Factorial(e[0]) * Factorial(e[1]) / Factorial(e[0] + e[1] + 2);
  case DOM_TET:
    return Factorial(e[0]) * Factorial(e[1]) * Factorial(e[2]) / Factorial(e[0] + e[1] + e[2] + 3);
  default:
    return Factorial(e[0]) * Factorial(e[1]) / Factorial(e[0] + e[1] + 2) * LineMoment(e[2]);
  }
}

static PetscReal Monomial(PetscInt d, const PetscInt e[], const PetscReal x[])
{
  PetscReal v = 1;

  for (PetscInt k = 0; k < d; k++) v *= PetscPowRealInt(x[k], e[k]);
  return v;
}

/* Gauss-Legendre points on [-1,1] by Newton on P_n: an independent, higher-order rule for reference integrals. */
static void GaussLegendre(PetscInt n, PetscReal x[], PetscReal w[])
{
  for (PetscInt i = 0; i < n; i++) {
    PetscReal z = PetscCosReal(PETSC_PI * (i + 0.75) / (n + 0.5)), dp = 1;

    for (PetscInt it = 0; it < 100; it++) {
      PetscReal p0 = 1, p1 = z, dz;

      for (PetscInt k = 1; k < n; k++) {
        const PetscReal p2 = ((2 * k + 1) * z * p1 - k * p0) / (k + 1);

        p0 = p1;
        p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1);
      dz = p1 / dp;
      z -= dz;
      if (PetscAbsReal(dz) < 1e-16) break;
    }
    x[i] = z;
    w[i] = 2 / ((1 - z * z) * dp * dp);
  }
}

/* 6-point Gauss products, collapsed (Duffy) on simplices: degree >= 10 on every domain, at most 216 points. */
static void ReferenceRule(Domain dom, PetscInt *nq, PetscReal x[], PetscReal w[])
{
  PetscReal g[6], gw[6], u[6], uw[6];

  GaussLegendre(6, g, gw);
  for (PetscInt i = 0; i < 6; i++) {
    u[i]  = 0.5 * (1 + g[i]);
    uw[i] = 0.5 * gw[i];
  }
  *nq = 0;
  switch (dom) {
  case DOM_LINE:
    for (PetscInt i = 0; i < 6; i++) {
      x[*nq]     = g[i];
      w[(*nq)++] = gw[i];
    }
    break;
  case DOM_QUAD:
    for (PetscInt i = 0; i < 6; i++)
      for (PetscInt j = 0; j < 6; j++) {
        x[2 * (*nq) + 0] = g[i];
        x[2 * (*nq) + 1] = g[j];
        w[(*nq)++]       = gw[i] * gw[j];
      }
    break;
  case DOM_HEX:
    for (PetscInt i = 0; i < 6; i++)
      for (PetscInt j = 0; j < 6; j++)
        for (PetscInt k = 0; k < 6; k++) {
          x[3 * (*nq) + 0] = g[i];
          x[3 * (*nq) + 1] = g[j];
          x[3 * (*nq) + 2] = g[k];
          w[(*nq)++]       = gw[i] * gw[j] * gw[k];
        }
    break;
  case DOM_TRI:
    for (PetscInt i = 0; i < 6; i++)
      for (PetscInt j = 0; j < 6; j++) {
        x[2 * (*nq) + 0] = u[i];
        x[2 * (*nq) + 1] = u[j] * (1 - u[i]);
        w[(*nq)++]       = uw[i] * uw[j] * (1 - u[i]);
      }
    break;
  case DOM_TET:
    for (PetscInt i = 0; i < 6; i++)
      for (PetscInt j = 0; j < 6; j++)
        for (PetscInt k = 0; k < 6; k++) {
          x[3 * (*nq) + 0] = u[i];
          x[3 * (*nq) + 1] = u[j] * (1 - u[i]);
          x[3 * (*nq) + 2] = u[k] * (1 - u[i]) * (1 - u[j]);
          w[(*nq)++]       = uw[i] * uw[j] * uw[k] * (1 - u[i]) * (1 - u[i]) * (1 - u[j]);
        }
    break;
  case DOM_WEDGE:
    for (PetscInt i = 0; i < 6; i++)
      for (PetscInt j = 0; j < 6; j++)
        for (PetscInt k = 0; k < 6; k++) {
          x[3 * (*nq) + 0] = u[i];
          x[3 * (*nq) + 1] = u[j] * (1 - u[i]);
          x[3 * (*nq) + 2] = g[k];
          w[(*nq)++]       = uw[i] * uw[j] * (1 - u[i]) * gw[k];
        }
    break;
  }
}

static PetscErrorCode RandomPoint(Domain dom, PetscRandom rnd, PetscReal xi[])
{
  PetscReal r[3];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) PetscCall(PetscRandomGetValueReal(rnd, &r[k]));
  switch (dom) {
  case DOM_LINE:
  case DOM_QUAD:
  case DOM_HEX:
    for (PetscInt k = 0; k < 3; k++) xi[k] = 2 * r[k] - 1;
    break;
  case DOM_TRI:
  case DOM_WEDGE:
    if (r[0] + r[1] > 1) {
      r[0] = 1 - r[0];
      r[1] = 1 - r[1];
    }
    xi[0] = r[0];
    xi[1] = r[1];
    xi[2] = 2 * r[2] - 1;
    break;
  case DOM_TET:
    while (r[0] + r[1] + r[2] > 1)
      for (PetscInt k = 0; k < 3; k++) PetscCall(PetscRandomGetValueReal(rnd, &r[k]));
    for (PetscInt k = 0; k < 3; k++) xi[k] = r[k];
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- material, geometry */

static const VIMaterial Steel     = {"steel", 200.0, 0.3, 7.8};
static const PetscReal  Thickness = 0.7; /* plane thickness; also the rod area */

/* Voigt D (row stride 6) with engineering shear strains: (xx, yy, xy) in a plane, (xx, yy, zz, yz, xz, xy) in 3D. */
static void VoigtD(VIElementType t, const VIMaterial *mat, PetscReal D[36], PetscInt *nv)
{
  const PetscReal E = mat->young, nu = mat->poisson;

  for (PetscInt i = 0; i < 36; i++) D[i] = 0;
  if (Expected[t].plane == 1) {
    const PetscReal c = E / (1 - nu * nu);

    *nv  = 3;
    D[0] = D[7] = c;
    D[1] = D[6] = c * nu;
    D[14]       = c * (1 - nu) / 2;
  } else if (Expected[t].plane == 2) {
    const PetscReal c = E / ((1 + nu) * (1 - 2 * nu));

    *nv  = 3;
    D[0] = D[7] = c * (1 - nu);
    D[1] = D[6] = c * nu;
    D[14]       = c * (1 - 2 * nu) / 2;
  } else {
    const PetscReal c = E / ((1 + nu) * (1 - 2 * nu));

    *nv = 6;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) D[i * 6 + j] = c * (i == j ? 1 - nu : nu);
    for (PetscInt i = 3; i < 6; i++) D[i * 6 + i] = E / (2 * (1 + nu));
  }
}

/* Voigt strain of the displacement gradient G (row-major, G_ij = du_i/dx_j). */
static void VoigtStrain(PetscInt d, const PetscReal G[], PetscReal eps[])
{
  if (d == 2) {
    eps[0] = G[0];
    eps[1] = G[3];
    eps[2] = G[1] + G[2];
  } else {
    eps[0] = G[0];
    eps[1] = G[4];
    eps[2] = G[8];
    eps[3] = G[5] + G[7];
    eps[4] = G[2] + G[6];
    eps[5] = G[1] + G[3];
  }
}

/* A rotation (about the axis (1,2,2)/3 in 3D) times a stretch-shear, det = det(S) > 0. */
static void AffineMatrix(PetscInt d, PetscReal A[], PetscReal *det)
{
  const PetscReal th = 0.7, c = PetscCosReal(th), s = PetscSinReal(th);

  if (d == 1) {
    A[0] = 1.3;
    *det = 1.3;
  } else if (d == 2) {
    const PetscReal S[4] = {1.3, 0.4, 0, 0.8}, R[4] = {c, -s, s, c};

    for (PetscInt i = 0; i < 2; i++)
      for (PetscInt j = 0; j < 2; j++) A[i * 2 + j] = R[i * 2 + 0] * S[0 * 2 + j] + R[i * 2 + 1] * S[1 * 2 + j];
    *det = 1.3 * 0.8;
  } else {
    const PetscReal n[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, S[9] = {1.3, 0.4, -0.2, 0, 0.8, 0.3, 0, 0, 1.1};
    PetscReal       R[9];

    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) R[i * 3 + j] = c * (i == j) + (1 - c) * n[i] * n[j];
    R[1] -= s * n[2];
    R[2] += s * n[1];
    R[3] += s * n[2];
    R[5] -= s * n[0];
    R[6] -= s * n[1];
    R[7] += s * n[0];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) {
        A[i * 3 + j] = 0;
        for (PetscInt k = 0; k < 3; k++) A[i * 3 + j] += R[i * 3 + k] * S[k * 3 + j];
      }
    *det = 1.3 * 0.8 * 1.1;
  }
}

static const PetscReal Shift[3] = {0.25, -1.5, 2.0};

/* Element nodes x = A (xi + smooth(xi)) + b in sdim = ref_dim; smooth = 0 gives the affine element. */
static void ElementCoordinates(VIElementType t, PetscBool distort, PetscReal X[])
{
  const PetscInt d = Expected[t].rdim;
  PetscReal      ref[3 * MAXN], A[9], det;

  ExpectedNodes(t, ref);
  AffineMatrix(d, A, &det);
  for (PetscInt a = 0; a < Expected[t].nn; a++) {
    const PetscReal *r = &ref[a * d];
    PetscReal        y[3];

    for (PetscInt k = 0; k < d; k++) y[k] = r[k];
    if (distort) {
      /* small enough to keep every Jacobian positive, large enough to curve edges and faces */
      if (d >= 1) y[0] += 0.07 * PetscSinReal(1.3 * (d > 1 ? r[1] : r[0]) + 0.4) + 0.05 * r[0] * r[0];
      if (d >= 2) y[1] += 0.06 * r[0] * r[0] - 0.05 * PetscCosReal(r[0] * r[1]);
      if (d >= 3) {
        y[1] += 0.04 * r[2] * r[0];
        y[2] += 0.06 * r[0] * r[1] + 0.05 * r[2] * r[2];
      }
    }
    for (PetscInt i = 0; i < d; i++) {
      X[a * d + i] = Shift[i];
      for (PetscInt k = 0; k < d; k++) X[a * d + i] += A[i * d + k] * y[k];
    }
  }
}

/* Rod nodes in sdim: along a skew direction (1,2,2) in 3D, (3,-4) in 2D. */
static void RodCoordinates(PetscInt sdim, PetscReal X[], PetscReal *length)
{
  const PetscReal dir[3][3] = {{1.3, 0, 0}, {3.0 / 5, -4.0 / 5, 0}, {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0}};
  const PetscReal L         = 2.6;

  for (PetscInt i = 0; i < sdim; i++) {
    X[i]        = Shift[i];
    X[sdim + i] = Shift[i] + (sdim == 1 ? L : L * dir[sdim - 1][i]);
  }
  *length = L;
}

/* ---------------------------------------------------------------- checks */

static PetscErrorCode CheckTableAndNames(void)
{
  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) {
    const VIElementInfo *info = &VIElementInfoTable[t];
    const Expect        *ex   = &Expected[t];
    char                 lower[16];
    VIElementType        found_type;
    PetscBool            found, same;

    PetscCall(PetscStrcmp(info->name, ex->name, &same));
    PetscCheck(same && info->num_nodes == ex->nn && info->ref_dim == ex->rdim && info->num_corners == ex->ncorner && info->face_nodes == ex->face,
               PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "VIElementInfoTable[%" PetscInt_FMT "] = {%s, %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "} is wrong", t,
               info->name, info->num_nodes, info->ref_dim, info->num_corners, info->face_nodes);
    PetscCall(PetscStrncpy(lower, ex->name, sizeof(lower)));
    PetscCall(PetscStrtolower(lower));
    PetscCall(VIElementTypeFromName(lower, &found_type, &found));
    PetscCheck(found && found_type == (VIElementType)t, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VIElementTypeFromName(\"%s\") failed", lower);
    PetscCall(VIElementTypeFromName(ex->name, &found_type, &found));
    PetscCheck(found && found_type == (VIElementType)t, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VIElementTypeFromName(\"%s\") failed", ex->name);
  }
  {
    const char   *unknown[] = {"C3D8R", "C3D", "", "S4", "C3D10M", "T3D3"};
    VIElementType type;
    PetscBool     found;

    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
      PetscCall(VIElementTypeFromName(unknown[i], &type, &found));
      PetscCheck(!found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VIElementTypeFromName(\"%s\") claims a match", unknown[i]);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "table    : info table and name lookup (13 types, lower/upper case, 6 unknown names) ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckShape(VIElementType t, PetscRandom rnd)
{
  const Expect    *ex = &Expected[t];
  const PetscInt   nn = ex->nn, d = ex->rdim;
  const PetscReal *lib;
  PetscReal        X[3 * MAXN], N[MAXN], dN[3 * MAXN], Np[MAXN], Nm[MAXN];
  PetscReal        e_unity = 0, e_delta = 0, e_fd = 0, e_poly = 0;
  const PetscReal  h     = 1e-6;
  PetscInt         nmono = 0;

  PetscFunctionBeginUser;
  ExpectedNodes(t, X);
  PetscCall(VIElementReferenceNodes(t, &lib));
  for (PetscInt i = 0; i < nn * d; i++)
    PetscCheck(lib[i] == X[i], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "%s: reference node %" PetscInt_FMT " coordinate %" PetscInt_FMT " is %g, Abaqus order needs %g", ex->name, i / d + 1, i % d,
               (double)lib[i], (double)X[i]);
  for (PetscInt a = 0; a < nn; a++) {
    PetscCall(VIElementShape(t, &X[a * d], N, NULL));
    for (PetscInt b = 0; b < nn; b++) e_delta = PetscMax(e_delta, PetscAbsReal(N[b] - (a == b)));
  }
  for (PetscInt p = 0; p < 20; p++) {
    PetscReal xi[3], s = -1, ds[3] = {0, 0, 0};

    PetscCall(RandomPoint(ex->dom, rnd, xi));
    PetscCall(VIElementShape(t, xi, N, dN));
    for (PetscInt a = 0; a < nn; a++) {
      s += N[a];
      for (PetscInt k = 0; k < d; k++) ds[k] += dN[a * d + k];
    }
    e_unity = PetscMax(e_unity, PetscAbsReal(s));
    for (PetscInt k = 0; k < d; k++) e_unity = PetscMax(e_unity, PetscAbsReal(ds[k]));
    for (PetscInt k = 0; k < d; k++) {
      PetscReal xp[3], xm[3];

      for (PetscInt j = 0; j < d; j++) xp[j] = xm[j] = xi[j];
      xp[k] += h;
      xm[k] -= h;
      PetscCall(VIElementShape(t, xp, Np, NULL));
      PetscCall(VIElementShape(t, xm, Nm, NULL));
      for (PetscInt a = 0; a < nn; a++) e_fd = PetscMax(e_fd, PetscAbsReal((Np[a] - Nm[a]) / (2 * h) - dN[a * d + k]));
    }
    /* every monomial of total degree <= order is interpolated exactly from its values at the Abaqus node positions */
    nmono = 0;
    for (PetscInt e0 = 0; e0 <= ex->order; e0++)
      for (PetscInt e1 = 0; e1 <= (d > 1 ? ex->order : 0); e1++)
        for (PetscInt e2 = 0; e2 <= (d > 2 ? ex->order : 0); e2++) {
          const PetscInt e[3] = {e0, e1, e2};
          PetscReal      v    = -Monomial(d, e, xi);

          if (e0 + e1 + e2 > ex->order) continue;
          for (PetscInt a = 0; a < nn; a++) v += N[a] * Monomial(d, e, &X[a * d]);
          e_poly = PetscMax(e_poly, PetscAbsReal(v));
          nmono++;
        }
  }
  PetscCall(Record(CHK_UNITY, ex->name, e_unity));
  PetscCall(Record(CHK_DELTA, ex->name, e_delta));
  PetscCall(Record(CHK_FD, ex->name, e_fd));
  PetscCall(Record(CHK_POLY, ex->name, e_poly));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-6s shape  : nodes match Abaqus order; unity %.1e, delta_ij %.1e, dN-FD %.1e, %" PetscInt_FMT
                        " monomials reproduced %.1e\n",
                        ex->name, (double)e_unity, (double)e_delta, (double)e_fd, nmono, (double)e_poly));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool Claimed(const Expect *ex, const RuleExpect *r, const PetscInt e[])
{
  switch (ex->dom) {
  case DOM_TRI:
  case DOM_TET:
    return e[0] + e[1] + e[2] <= r->deg ? PETSC_TRUE : PETSC_FALSE;
  case DOM_WEDGE:
    return (e[0] + e[1] <= r->deg && e[2] <= r->deg_line) ? PETSC_TRUE : PETSC_FALSE;
  default:
    return (e[0] <= r->deg && e[1] <= r->deg && e[2] <= r->deg) ? PETSC_TRUE : PETSC_FALSE;
  }
}

static PetscErrorCode CheckQuadrature(VIElementType t)
{
  const Expect    *ex = &Expected[t];
  const RuleExpect r  = RuleExpected(t);
  const PetscInt   d  = ex->rdim;
  PetscReal        xq[3 * MAXQ], wq[MAXQ], err = 0;
  PetscInt         nq, nmono = 0;

  PetscFunctionBeginUser;
  /* the full rules' claim must cover N^T N (degree 2 order) for the mass; the stiffness needs less */
  if (Rule == VI_INTEGRATION_FULL) PetscCheck(MassExact(t), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: claimed degree too low", ex->name);
  PetscCall(VIElementQuadrature(t, Rule, &nq, xq, wq));
  PetscCheck(nq == r.nq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " quadrature points, expected %" PetscInt_FMT, ex->name, nq, r.nq);
  for (PetscInt q = 0; q < nq; q++) {
    PetscCheck(wq[q] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: quadrature weight %" PetscInt_FMT " is %g, not positive", ex->name, q, (double)wq[q]);
    for (PetscInt k = 0; k < d; k++) {
      const PetscReal lo = (ex->dom == DOM_TRI || ex->dom == DOM_TET || (ex->dom == DOM_WEDGE && k < 2)) ? 0 : -1;

      PetscCheck(xq[q * d + k] > lo && xq[q * d + k] < 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: quadrature point %" PetscInt_FMT " outside the element", ex->name, q);
    }
  }
  for (PetscInt e0 = 0; e0 <= 5; e0++)
    for (PetscInt e1 = 0; e1 <= (d > 1 ? 5 : 0); e1++)
      for (PetscInt e2 = 0; e2 <= (d > 2 ? 5 : 0); e2++) {
        const PetscInt e[3] = {e0, e1, e2};
        PetscReal      s    = 0;

        if (!Claimed(ex, &r, e)) continue;
        for (PetscInt q = 0; q < nq; q++) s += wq[q] * Monomial(d, e, &xq[q * d]);
        err = PetscMax(err, PetscAbsReal(s - ExactMoment(ex->dom, e)));
        nmono++;
      }
  PetscCall(Record(CHK_QUAD, ex->name, err));
  if (ex->dom == DOM_WEDGE)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%-6s quad   : %2" PetscInt_FMT " points, positive weights, degree %" PetscInt_FMT " (triangle) x %" PetscInt_FMT
                          " (line): %" PetscInt_FMT " monomials, error %.1e\n",
                          ex->name, nq, r.deg, r.deg_line, nmono, (double)err));
  else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%-6s quad   : %2" PetscInt_FMT " points, positive weights, degree %" PetscInt_FMT " %s: %" PetscInt_FMT
                          " monomials, error %.1e\n",
                          ex->name, nq, r.deg, (ex->dom == DOM_TRI || ex->dom == DOM_TET) ? "(total)" : "(per direction)", nmono, (double)err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The CalculiX points of the element types whose CalculiX rule differs from the full one, from ccx's gauss.f (gauss3d4,
  gauss3d5, gauss3d7, gauss3d8) in exact form: the tetrahedron centroid (weight 1/6); the 4 points (b,a,a), (a,b,a),
  (a,a,b), (a,a,a), a = (5 - sqrt 5)/20, b = (5 + 3 sqrt 5)/20 (weight 1/24); the triangle centroid at zeta = -+1/sqrt 3
  (weight 1/2); the points (1/6,1/6), (2/3,1/6), (1/6,2/3) at zeta = -sqrt(3/5), 0, sqrt(3/5) (weights 1/6 x 5/9, 8/9, 5/9).
*/
static void CcxRule(VIElementType t, PetscInt *nq, PetscReal x[], PetscReal w[])
{
  const PetscReal a = (5 - PetscSqrtReal(5.0)) / 20, b = (5 + 3 * PetscSqrtReal(5.0)) / 20, g2 = 1 / PetscSqrtReal(3.0), g3 = PetscSqrtReal(0.6);
  const PetscReal tri[3][2] = {{1.0 / 6, 1.0 / 6}, {2.0 / 3, 1.0 / 6}, {1.0 / 6, 2.0 / 3}}, z3[3] = {-g3, 0, g3}, w3[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};

  *nq = 0;
  switch (t) {
  case VI_ELEM_CPS3:
  case VI_ELEM_CPE3:
    x[0] = x[1] = 1.0 / 3;
    w[(*nq)++]  = 0.5;
    break;
  case VI_ELEM_C3D4:
    x[0] = x[1] = x[2] = 0.25;
    w[(*nq)++]         = 1.0 / 6;
    break;
  case VI_ELEM_C3D10:
    for (PetscInt q = 0; q < 4; q++) {
      for (PetscInt k = 0; k < 3; k++) x[3 * q + k] = (k == q) ? b : a;
      w[(*nq)++] = 1.0 / 24;
    }
    break;
  case VI_ELEM_C3D6:
    for (PetscInt q = 0; q < 2; q++) {
      x[3 * q] = x[3 * q + 1] = 1.0 / 3;
      x[3 * q + 2]            = q ? g2 : -g2;
      w[(*nq)++]              = 0.5;
    }
    break;
  case VI_ELEM_C3D15:
    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt i = 0; i < 3; i++) {
        x[3 * (*nq) + 0] = tri[i][0];
        x[3 * (*nq) + 1] = tri[i][1];
        x[3 * (*nq) + 2] = z3[j];
        w[(*nq)++]       = w3[j] / 6;
      }
    break;
  default:
    break;
  }
}

/*
  Independent Ke = sum w det B^T D B (Voigt) and Me = rho sum w det N^T N with the 6-point reference rule, or with
  ccx's own points when the CalculiX rule under test under-integrates the element.
*/
static PetscErrorCode ReferenceMatrices(VIElementType t, const PetscReal X[], PetscReal Ke[], PetscReal Me[])
{
  const Expect  *ex = &Expected[t];
  const PetscInt nn = ex->nn, d = ex->rdim, ndof = nn * d;
  PetscReal     *xq, *wq, D[36], N[MAXN], dN[3 * MAXN], B[6 * MAXDOF], DB[6 * MAXDOF];
  PetscReal      scale = ex->plane ? Thickness : 1;
  PetscInt       nq, nv;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(3 * 216, &xq, 216, &wq));
  if (Rule == VI_INTEGRATION_CALCULIX && !MassExact(t))
    CcxRule(t, &nq, xq, wq);
  else
    ReferenceRule(ex->dom, &nq, xq, wq);
  VoigtD(t, &Steel, D, &nv);
  PetscCall(PetscArrayzero(Ke, ndof * ndof));
  PetscCall(PetscArrayzero(Me, ndof * ndof));
  for (PetscInt q = 0; q < nq; q++) {
    PetscReal J[9] = {0}, Ji[9], det, g[3 * MAXN];

    PetscCall(VIElementShape(t, &xq[q * d], N, dN));
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt i = 0; i < d; i++)
        for (PetscInt k = 0; k < d; k++) J[i * d + k] += X[a * d + i] * dN[a * d + k];
    if (d == 2) {
      det   = J[0] * J[3] - J[1] * J[2];
      Ji[0] = J[3] / det;
      Ji[1] = -J[1] / det;
      Ji[2] = -J[2] / det;
      Ji[3] = J[0] / det;
    } else {
      det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) {
          /* inverse = adjugate / det, adj_ij = cofactor_ji */
          const PetscInt r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;

          Ji[i * 3 + j] = (J[r0 * 3 + c0] * J[r1 * 3 + c1] - J[r0 * 3 + c1] * J[r1 * 3 + c0]) / det;
        }
    }
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt i = 0; i < d; i++) {
        g[a * d + i] = 0;
        for (PetscInt k = 0; k < d; k++) g[a * d + i] += dN[a * d + k] * Ji[k * d + i];
      }
    PetscCall(PetscArrayzero(B, nv * ndof));
    for (PetscInt a = 0; a < nn; a++) {
      const PetscReal *ga = &g[a * d];

      if (d == 2) {
        B[0 * ndof + 2 * a]     = ga[0];
        B[1 * ndof + 2 * a + 1] = ga[1];
        B[2 * ndof + 2 * a]     = ga[1];
        B[2 * ndof + 2 * a + 1] = ga[0];
      } else {
        B[0 * ndof + 3 * a]     = ga[0];
        B[1 * ndof + 3 * a + 1] = ga[1];
        B[2 * ndof + 3 * a + 2] = ga[2];
        B[3 * ndof + 3 * a + 1] = ga[2];
        B[3 * ndof + 3 * a + 2] = ga[1];
        B[4 * ndof + 3 * a]     = ga[2];
        B[4 * ndof + 3 * a + 2] = ga[0];
        B[5 * ndof + 3 * a]     = ga[1];
        B[5 * ndof + 3 * a + 1] = ga[0];
      }
    }
    for (PetscInt r = 0; r < nv; r++)
      for (PetscInt c = 0; c < ndof; c++) {
        DB[r * ndof + c] = 0;
        for (PetscInt s = 0; s < nv; s++) DB[r * ndof + c] += D[r * 6 + s] * B[s * ndof + c];
      }
    for (PetscInt i = 0; i < ndof; i++)
      for (PetscInt j = 0; j < ndof; j++) {
        PetscReal v = 0;

        for (PetscInt r = 0; r < nv; r++) v += B[r * ndof + i] * DB[r * ndof + j];
        Ke[i * ndof + j] += wq[q] * det * scale * v;
      }
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt b = 0; b < nn; b++)
        for (PetscInt i = 0; i < d; i++) Me[(a * d + i) * ndof + b * d + i] += wq[q] * det * scale * Steel.density * N[a] * N[b];
  }
  PetscCall(PetscFree2(xq, wq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal MaxAbs(PetscInt n, const PetscReal a[])
{
  PetscReal m = 0;

  for (PetscInt i = 0; i < n; i++) m = PetscMax(m, PetscAbsReal(a[i]));
  return m;
}

static PetscReal MaxAbsDiff(PetscInt n, const PetscReal a[], const PetscReal b[])
{
  PetscReal m = 0;

  for (PetscInt i = 0; i < n; i++) m = PetscMax(m, PetscAbsReal(a[i] - b[i]));
  return m;
}

/* Mass sums, HRZ shape and the volume of an affine element; affine Ke and Me against the independent reference rule. */
static PetscErrorCode CheckMass(VIElementType t, PetscInt sdim)
{
  const Expect  *ex = &Expected[t];
  const PetscInt nn = ex->nn, d = sdim, ndof = nn * d;
  PetscReal     *Me, *Ml, *Ke, *Kr, *Mr, X[3 * MAXN], V, Vl, Vexact = -1, lambda[MAXN], Ms[MAXN * MAXN];
  PetscReal      e_mass = 0, e_lumped = 0, e_vol, e_aff_m = -1, e_aff_k = -1;
  char           label[32];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(label, sizeof(label), t == VI_ELEM_T3D2 ? "%s/%" PetscInt_FMT "D" : "%s", ex->name, sdim));
  PetscCall(PetscMalloc5(ndof * ndof, &Me, ndof * ndof, &Ml, ndof * ndof, &Ke, ndof * ndof, &Kr, ndof * ndof, &Mr));
  /* distorted element: the mass sums hold for any geometry because sum_a N_a = 1 */
  if (t == VI_ELEM_T3D2) {
    PetscReal L;

    RodCoordinates(sdim, X, &L);
    Vexact = Thickness * L;
  } else
    ElementCoordinates(t, PETSC_TRUE, X);
  PetscCall(ElementMatrices(t, sdim, X, Thickness, PETSC_FALSE, NULL, Me, &V));
  PetscCall(ElementMatrices(t, sdim, X, Thickness, PETSC_TRUE, NULL, Ml, &Vl));
  PetscCheck(V == Vl && V > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: volume %g (consistent) vs %g (lumped)", label, (double)V, (double)Vl);
  for (PetscInt i = 0; i < d; i++) {
    PetscReal sc = 0, sl = 0, ratio = -1;

    for (PetscInt a = 0; a < nn; a++) {
      PetscReal r;

      for (PetscInt b = 0; b < nn; b++) {
        sc += Me[(a * d + i) * ndof + b * d + i];
        sl += Ml[(a * d + i) * ndof + b * d + i];
        for (PetscInt j = 0; j < d; j++) {
          /* no coupling between components; the lumped matrix is diagonal */
          PetscCheck(j == i || Me[(a * d + i) * ndof + b * d + j] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: consistent mass couples components",
                     label);
          PetscCheck((a == b && i == j) || Ml[(a * d + i) * ndof + b * d + j] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "%s: lumped mass is not diagonal", label);
          PetscCheck(Me[(a * d + i) * ndof + b * d + j] == Me[(b * d + j) * ndof + a * d + i], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "%s: consistent mass is not symmetric", label);
        }
        if (i == 0) Ms[a * nn + b] = Me[(a * d) * ndof + b * d];
      }
      /* HRZ: lumped diagonal proportional to the consistent diagonal, all positive */
      PetscCheck(Ml[(a * d + i) * ndof + a * d + i] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: lumped mass of node %" PetscInt_FMT " is not positive",
                 label, a + 1);
      r = Ml[(a * d + i) * ndof + a * d + i] / Me[(a * d + i) * ndof + a * d + i];
      if (ratio < 0) ratio = r;
      e_lumped = PetscMax(e_lumped, PetscAbsReal(r - ratio) / ratio);
    }
    e_mass   = PetscMax(e_mass, PetscAbsReal(sc - Steel.density * V) / (Steel.density * V));
    e_lumped = PetscMax(e_lumped, PetscAbsReal(sl - Steel.density * V) / (Steel.density * V));
  }
  PetscCall(SymmetricEigenvalues(nn, Ms, lambda));
  if (MassExact(t) || t == VI_ELEM_T3D2) {
    PetscCheck(lambda[0] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: consistent mass not positive definite (smallest eigenvalue %g)", label,
               (double)lambda[0]);
  } else {
    /* an under-integrating rule of nq < nn points gives a mass of rank nq: one rank-one term N N^T per point */
    PetscInt rank = 0;

    for (PetscInt a = 0; a < nn; a++) rank += lambda[a] > 1e-12 * lambda[nn - 1];
    PetscCheck(rank == PetscMin(nn, RuleExpected(t).nq) && lambda[0] > -1e-12 * lambda[nn - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "%s: the %" PetscInt_FMT "-point mass has rank %" PetscInt_FMT " (smallest eigenvalue %g), expected %" PetscInt_FMT
               " and no negative one",
               label, RuleExpected(t).nq, rank, (double)lambda[0], PetscMin(nn, RuleExpected(t).nq));
  }
  PetscCall(Record(CHK_MASS, label, e_mass));
  PetscCall(Record(CHK_LUMPED, label, e_lumped));

  /* affine element: exact volume |det A| V_ref, exact Ke and Me */
  if (t != VI_ELEM_T3D2) {
    PetscReal A[9], detA;

    AffineMatrix(ex->rdim, A, &detA);
    Vexact = detA * DomainMeasure(ex->dom) * (ex->plane ? Thickness : 1);
    ElementCoordinates(t, PETSC_FALSE, X);
  }
  PetscCall(ElementMatrices(t, sdim, X, Thickness, PETSC_FALSE, Ke, Me, &V));
  e_vol = PetscAbsReal(V - Vexact) / Vexact;
  PetscCall(Record(CHK_VOLUME, label, e_vol));
  if (Rule == VI_INTEGRATION_CALCULIX) {
    PetscReal *K2, *M2, V2;

    /* VIElementMatrices is the CalculiX rule, to the bit */
    PetscCall(PetscMalloc2(ndof * ndof, &K2, ndof * ndof, &M2));
    PetscCall(VIElementMatrices(t, sdim, X, &Steel, Thickness, PETSC_FALSE, K2, M2, &V2));
    PetscCheck(V2 == V && MaxAbsDiff(ndof * ndof, K2, Ke) == 0 && MaxAbsDiff(ndof * ndof, M2, Me) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "%s: VIElementMatrices differs from VIElementMatricesIntegrated(VI_INTEGRATION_CALCULIX)", label);
    PetscCall(PetscFree2(K2, M2));
  }
  if (t != VI_ELEM_T3D2) {
    PetscCall(ReferenceMatrices(t, X, Kr, Mr));
    e_aff_m = MaxAbsDiff(ndof * ndof, Me, Mr) / MaxAbs(ndof * ndof, Mr);
    e_aff_k = MaxAbsDiff(ndof * ndof, Ke, Kr) / MaxAbs(ndof * ndof, Kr);
    if (Rule == VI_INTEGRATION_CALCULIX && !MassExact(t)) {
      /* the same points on a distorted element: the rule, not only its exactness, is ccx's */
      ElementCoordinates(t, PETSC_TRUE, X);
      PetscCall(ElementMatrices(t, sdim, X, Thickness, PETSC_FALSE, Ke, Me, &V));
      PetscCall(ReferenceMatrices(t, X, Kr, Mr));
      e_aff_m = PetscMax(e_aff_m, MaxAbsDiff(ndof * ndof, Me, Mr) / MaxAbs(ndof * ndof, Mr));
      e_aff_k = PetscMax(e_aff_k, MaxAbsDiff(ndof * ndof, Ke, Kr) / MaxAbs(ndof * ndof, Kr));
    }
    PetscCall(Record(CHK_AFFINE_M, label, e_aff_m));
    PetscCall(Record(CHK_AFFINE_K, label, e_aff_k));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%-6s mass   : distorted sum(M)/rho V-1 %.1e, lumped (HRZ) %.1e; affine volume %.1e, Me %.1e, Ke %.1e vs reference\n",
                          label, (double)e_mass, (double)e_lumped, (double)e_vol, (double)e_aff_m, (double)e_aff_k));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-6s mass   : sum(M)/rho V-1 %.1e, lumped (HRZ) %.1e; volume A L %.1e\n", label, (double)e_mass,
                          (double)e_lumped, (double)e_vol));
  }
  PetscCall(PetscFree5(Me, Ml, Ke, Kr, Mr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Zero eigenvalues of an unconstrained Ke, Ke r = 0 for rigid modes, and the energy of a linear field. */
static PetscErrorCode CheckStiffness(VIElementType t, PetscInt sdim)
{
  const Expect  *ex = &Expected[t];
  const PetscInt nn = ex->nn, d = sdim, ndof = nn * d;
  PetscInt       nzero_expected, nzero = 0, nmodes = 0;
  PetscReal     *K, lambda[MAXDOF], X[3 * MAXN], V, lmax, e_rigid = 0, e_energy, zero_max = 0, pos_min = PETSC_MAX_REAL;
  char           label[32];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(label, sizeof(label), t == VI_ELEM_T3D2 ? "%s/%" PetscInt_FMT "D" : "%s", ex->name, sdim));
  if (t == VI_ELEM_T3D2) {
    PetscReal L;

    RodCoordinates(sdim, X, &L);
    /* a bar resists only stretching: 2 sdim DOFs, rank 1 */
    nzero_expected = 2 * sdim - 1;
  } else {
    ElementCoordinates(t, PETSC_TRUE, X);
    nzero_expected = d == 2 ? 3 : 6;
    /* ccx's 2-point wedge has one zero-energy mode of its own besides the rigid-body modes; neighbours restrain it in a
       mesh (the free boxes of test_modes have exactly 6 zero modes) */
    if (Rule == VI_INTEGRATION_CALCULIX && t == VI_ELEM_C3D6) nzero_expected = 7;
  }
  PetscCall(PetscMalloc1(ndof * ndof, &K));
  PetscCall(ElementMatrices(t, sdim, X, Thickness, PETSC_FALSE, K, NULL, &V));
  for (PetscInt i = 0; i < ndof; i++)
    for (PetscInt j = 0; j < i; j++)
      PetscCheck(K[i * ndof + j] == K[j * ndof + i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: Ke is not symmetric", label);
  PetscCall(SymmetricEigenvalues(ndof, K, lambda));
  lmax = lambda[ndof - 1];
  for (PetscInt i = 0; i < ndof; i++) {
    PetscCheck(lambda[i] > -1e-10 * lmax, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: Ke has a negative eigenvalue %g", label, (double)lambda[i]);
    if (PetscAbsReal(lambda[i]) < 1e-10 * lmax) {
      nzero++;
      zero_max = PetscMax(zero_max, PetscAbsReal(lambda[i]) / lmax);
    } else
      pos_min = PetscMin(pos_min, lambda[i] / lmax);
  }
  PetscCheck(nzero == nzero_expected, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: Ke has %" PetscInt_FMT " zero eigenvalues, expected %" PetscInt_FMT,
             label, nzero, nzero_expected);

  /* rigid translations e_i and rotations about each axis (about z only in a plane) */
  for (PetscInt m = 0; m < d + (d == 3 ? 3 : (d == 2 ? 1 : 0)); m++) {
    PetscReal r[MAXDOF], f[MAXDOF], nr = 0, nf = 0;

    for (PetscInt a = 0; a < nn; a++) {
      const PetscReal *x = &X[a * d];

      for (PetscInt i = 0; i < d; i++) r[a * d + i] = (m < d && i == m) ? 1 : 0;
      if (m >= d && d == 2) {
        r[a * d + 0] = -x[1];
        r[a * d + 1] = x[0];
      } else if (m >= d) {
        const PetscInt k = m - d, k1 = (k + 1) % 3, k2 = (k + 2) % 3;

        /* e_k x x */
        r[a * d + k]  = 0;
        r[a * d + k1] = -x[k2];
        r[a * d + k2] = x[k1];
      }
    }
    for (PetscInt i = 0; i < ndof; i++) {
      f[i] = 0;
      for (PetscInt j = 0; j < ndof; j++) f[i] += K[i * ndof + j] * r[j];
      nf += f[i] * f[i];
      nr += r[i] * r[i];
    }
    e_rigid = PetscMax(e_rigid, PetscSqrtReal(nf) / (lmax * PetscSqrtReal(nr)));
    nmodes++;
  }
  PetscCall(Record(CHK_RIGID, label, e_rigid));

  /* energy of u = G x: u^T K u = V eps^T D eps, D built independently; catches a wrong D or plane kind */
  {
    const PetscReal G[9] = {0.011, -0.007, 0.003, 0.019, -0.005, 0.008, -0.013, 0.006, 0.009};
    PetscReal       Gd[9], u[MAXDOF], energy = 0, exact;

    for (PetscInt i = 0; i < d; i++)
      for (PetscInt j = 0; j < d; j++) Gd[i * d + j] = G[i * 3 + j];
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt i = 0; i < d; i++) {
        u[a * d + i] = 0.1 * (i + 1);
        for (PetscInt j = 0; j < d; j++) u[a * d + i] += Gd[i * d + j] * X[a * d + j];
      }
    for (PetscInt i = 0; i < ndof; i++)
      for (PetscInt j = 0; j < ndof; j++) energy += u[i] * K[i * ndof + j] * u[j];
    if (t == VI_ELEM_T3D2) {
      PetscReal n[3], L = 0, strain = 0;

      for (PetscInt i = 0; i < d; i++) {
        n[i] = X[d + i] - X[i];
        L += n[i] * n[i];
      }
      L = PetscSqrtReal(L);
      for (PetscInt i = 0; i < d; i++)
        for (PetscInt j = 0; j < d; j++) strain += n[i] * Gd[i * d + j] * n[j] / (L * L);
      exact = V * Steel.young * strain * strain;
    } else {
      PetscReal D[36], eps[6];
      PetscInt  nv;

      VoigtD(t, &Steel, D, &nv);
      VoigtStrain(d, Gd, eps);
      exact = 0;
      for (PetscInt r = 0; r < nv; r++)
        for (PetscInt s = 0; s < nv; s++) exact += eps[r] * D[r * 6 + s] * eps[s];
      exact *= V;
    }
    e_energy = PetscAbsReal(energy - exact) / exact;
    PetscCall(Record(CHK_ENERGY, label, e_energy));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-6s stiff  : %" PetscInt_FMT " zero eigenvalues of %" PetscInt_FMT
                        " (|l|/lmax <= %.0e, others >= %.1e), |K r|/(lmax|r|) %.1e over %" PetscInt_FMT " rigid modes, energy %.1e\n",
                        label, nzero, ndof, (double)zero_max, (double)pos_min, (double)e_rigid, nmodes, (double)e_energy));
  PetscCall(PetscFree(K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- patch test */

typedef struct {
  PetscInt   dim, n, nnodes, nelem, nper;
  PetscReal *x, *x0; /* node coordinates, perturbed and on the regular grid */
  PetscInt  *conn;
  PetscInt  *edge; /* (vertex, vertex, node) for each mid-edge node made so far */
  PetscInt   nedge;
} Patch;

static PetscErrorCode PatchEdgeNode(Patch *p, PetscInt va, PetscInt vb, PetscRandom rnd, PetscReal amp, PetscInt *node)
{
  const PetscInt lo = PetscMin(va, vb), hi = PetscMax(va, vb), d = p->dim;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < p->nedge; e++)
    if (p->edge[3 * e] == lo && p->edge[3 * e + 1] == hi) {
      *node = p->edge[3 * e + 2];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  *node = p->nnodes++;
  for (PetscInt k = 0; k < d; k++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    p->x0[*node * d + k] = 0.5 * (p->x0[lo * d + k] + p->x0[hi * d + k]);
    p->x[*node * d + k]  = 0.5 * (p->x[lo * d + k] + p->x[hi * d + k]) + amp * (2 * r - 1);
  }
  p->edge[3 * p->nedge]     = lo;
  p->edge[3 * p->nedge + 1] = hi;
  p->edge[3 * p->nedge + 2] = *node;
  p->nedge++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal SignedVolumeTet(PetscInt d, const PetscReal x[], const PetscInt c[])
{
  PetscReal e[3][3];

  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt k = 0; k < 3; k++) e[i][k] = x[c[i + 1] * d + k] - x[c[0] * d + k];
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

/*
  A patch of n^dim grid cells with every vertex moved at random, each cell split into elements of type t in Abaqus
  order (tets: 6 per cube along the main diagonal; wedges: 2 prisms per cube; triangles: 2 per square). Mid-edge nodes
  are moved off the edge midpoints too, so quadratic elements have curved edges. The patch test stays exact for them:
  the interior equations need sum_q w_q cof(J)^T grad_xi N_a exact, a polynomial of degree <= 5 per direction for the
  8- and 20-node bricks, <= 4 (triangle) x 5 (line) for the 15-node wedge and <= 3 for the 10-node tetrahedron, all
  within the element rules.
*/
static PetscErrorCode PatchCreate(VIElementType t, PetscRandom rnd, Patch *p)
{
  const Expect   *ex = &Expected[t];
  const PetscInt  d = ex->rdim, n = d == 1 ? 4 : 3, n1 = n + 1;
  const PetscReal amp = d == 1 ? 0.2 : (d == 2 ? 0.15 : 0.1);
  /* the CalculiX rules of C3D10 and C3D15 are not exact for curved edges: their patch has straight ones */
  const PetscReal amp_edge = (Rule == VI_INTEGRATION_CALCULIX && !MassExact(t)) ? 0 : 0.05;
  PetscInt        nv = 1, ncell = 1, maxelem, maxnodes;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d; k++) {
    nv *= n1;
    ncell *= n;
  }
  maxelem  = 6 * ncell;
  maxnodes = nv + 12 * maxelem;
  p->dim   = d;
  p->n     = n;
  p->nper  = ex->nn;
  p->nelem = 0;
  p->nedge = 0;
  PetscCall(PetscMalloc4(maxnodes * d, &p->x, maxnodes * d, &p->x0, maxelem * ex->nn, &p->conn, 3 * maxnodes, &p->edge));
  for (PetscInt v = 0; v < nv; v++) {
    PetscInt ijk[3] = {v % n1, (v / n1) % n1, v / (n1 * n1)};

    for (PetscInt k = 0; k < d; k++) {
      PetscReal r;

      PetscCall(PetscRandomGetValueReal(rnd, &r));
      p->x0[v * d + k] = ijk[k];
      p->x[v * d + k]  = ijk[k] + amp * (2 * r - 1);
    }
  }
  p->nnodes = nv;
  for (PetscInt c = 0; c < ncell; c++) {
    const PetscInt ci = c % n, cj = (c / n) % n, ck = c / (n * n);
    PetscInt       V[8], corners[6][8], ne          = 0;

    /* V[di + 2 dj + 4 dk] = vertex at cell offset (di, dj, dk) */
    for (PetscInt o = 0; o < (1 << d); o++)
      V[o] = (ci + (o & 1)) + (d > 1 ? n1 * ((cj + ((o >> 1) & 1)) + (d > 2 ? n1 * (ck + ((o >> 2) & 1)) : 0)) : 0);
    switch (ex->dom) {
    case DOM_LINE:
      corners[ne][0]   = V[0];
      corners[ne++][1] = V[1];
      break;
    case DOM_QUAD: {
      const PetscInt q[4] = {V[0], V[1], V[3], V[2]};

      for (PetscInt i = 0; i < 4; i++) corners[ne][i] = q[i];
      ne++;
    } break;
    case DOM_TRI: {
      const PetscInt tri[2][3] = {{V[0], V[1], V[3]}, {V[0], V[3], V[2]}};

      for (PetscInt e = 0; e < 2; e++, ne++)
        for (PetscInt i = 0; i < 3; i++) corners[ne][i] = tri[e][i];
    } break;
    case DOM_HEX: {
      const PetscInt h[8] = {V[0], V[1], V[3], V[2], V[4], V[5], V[7], V[6]};

      for (PetscInt i = 0; i < 8; i++) corners[ne][i] = h[i];
      ne++;
    } break;
    case DOM_WEDGE: {
      const PetscInt w[2][6] = {{V[0], V[1], V[3], V[4], V[5], V[7]}, {V[0], V[3], V[2], V[4], V[7], V[6]}};

      for (PetscInt e = 0; e < 2; e++, ne++)
        for (PetscInt i = 0; i < 6; i++) corners[ne][i] = w[e][i];
    } break;
    case DOM_TET: {
      const PetscInt perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

      /* Kuhn split: walk from offset 000 to 111 one axis at a time; the same split in every cube is conforming */
      for (PetscInt e = 0; e < 6; e++, ne++) {
        PetscInt o = 0;

        corners[ne][0] = V[0];
        for (PetscInt s = 0; s < 3; s++) {
          o |= 1 << perm[e][s];
          corners[ne][s + 1] = V[o];
        }
        if (SignedVolumeTet(d, p->x, corners[ne]) < 0) {
          const PetscInt tmp = corners[ne][1];

          corners[ne][1] = corners[ne][2];
          corners[ne][2] = tmp;
        }
      }
    } break;
    }
    for (PetscInt e = 0; e < ne; e++) {
      PetscInt *conn = &p->conn[p->nelem * ex->nn];

      for (PetscInt i = 0; i < ex->ncorner; i++) conn[i] = corners[e][i];
      for (PetscInt m = 0; m < ex->nn - ex->ncorner; m++)
        PetscCall(PatchEdgeNode(p, conn[ex->edges[m][0]], conn[ex->edges[m][1]], rnd, amp_edge, &conn[ex->ncorner + m]));
      p->nelem++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PatchDestroy(Patch *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(p->x, p->x0, p->conn, p->edge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Assemble K of the patch, impose u = a + G x on the boundary nodes, solve for the interior, compare with u = a + G x. */
static PetscErrorCode CheckPatch(VIElementType t, PetscRandom rnd)
{
  const Expect   *ex   = &Expected[t];
  const PetscReal G[9] = {0.012, -0.004, 0.007, 0.009, -0.006, 0.003, -0.011, 0.005, 0.008}, a0[3] = {0.1, -0.2, 0.3};
  Patch           p;
  PetscInt        d, ndof, ni = 0, *inner;
  PetscReal      *K, *A, *rhs, *uex, Ke[MAXDOF * MAXDOF], X[3 * MAXN], err = 0, umax;
  PetscBool      *boundary;

  PetscFunctionBeginUser;
  PetscCall(PatchCreate(t, rnd, &p));
  d    = p.dim;
  ndof = p.nnodes * d;
  PetscCall(PetscCalloc1(ndof * ndof, &K));
  PetscCall(PetscMalloc3(ndof, &uex, ndof, &inner, p.nnodes, &boundary));
  for (PetscInt e = 0; e < p.nelem; e++) {
    const PetscInt *conn = &p.conn[e * p.nper];
    const PetscInt  nd   = p.nper * d;

    for (PetscInt a = 0; a < p.nper; a++)
      for (PetscInt k = 0; k < d; k++) X[a * d + k] = p.x[conn[a] * d + k];
    PetscCall(ElementMatrices(t, d, X, Thickness, PETSC_FALSE, Ke, NULL, NULL));
    for (PetscInt a = 0; a < p.nper; a++)
      for (PetscInt i = 0; i < d; i++)
        for (PetscInt b = 0; b < p.nper; b++)
          for (PetscInt j = 0; j < d; j++) K[(conn[a] * d + i) * ndof + conn[b] * d + j] += Ke[(a * d + i) * nd + b * d + j];
  }
  for (PetscInt v = 0; v < p.nnodes; v++) {
    boundary[v] = PETSC_FALSE;
    for (PetscInt k = 0; k < d; k++)
      if (p.x0[v * d + k] < 1e-12 || p.x0[v * d + k] > p.n - 1e-12) boundary[v] = PETSC_TRUE;
    for (PetscInt i = 0; i < d; i++) {
      uex[v * d + i] = a0[i];
      for (PetscInt j = 0; j < d; j++) uex[v * d + i] += G[i * 3 + j] * p.x[v * d + j];
      if (!boundary[v]) inner[ni++] = v * d + i;
    }
  }
  PetscCheck(ni > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: patch without interior nodes", ex->name);
  PetscCall(PetscMalloc2(ni * ni, &A, ni, &rhs));
  for (PetscInt r = 0; r < ni; r++) {
    rhs[r] = 0;
    for (PetscInt c = 0; c < ni; c++) A[c * ni + r] = K[inner[r] * ndof + inner[c]];
    for (PetscInt j = 0; j < ndof; j++)
      if (boundary[j / d]) rhs[r] -= K[inner[r] * ndof + j] * uex[j];
  }
  PetscCall(DenseSolve(ni, A, rhs));
  umax = MaxAbs(ndof, uex);
  for (PetscInt r = 0; r < ni; r++) err = PetscMax(err, PetscAbsReal(rhs[r] - uex[inner[r]]) / umax);
  PetscCall(Record(CHK_PATCH, ex->name, err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-6s patch  : %" PetscInt_FMT " elements, %" PetscInt_FMT " nodes, %" PetscInt_FMT
                        " interior DOFs, max |u - u_linear|/max|u| %.1e\n",
                        ex->name, p.nelem, p.nnodes, ni, (double)err));
  PetscCall(PetscFree2(A, rhs));
  PetscCall(PetscFree3(uex, inner, boundary));
  PetscCall(PetscFree(K));
  PetscCall(PatchDestroy(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- bad input */

static PetscErrorCode ExpectError(PetscErrorCode expected, const char *what, VIElementType t, PetscInt sdim, const PetscReal X[])
{
  PetscReal      Ke[MAXDOF * MAXDOF], Me[MAXDOF * MAXDOF], V;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VIElementMatricesIntegrated(t, Rule, sdim, X, &Steel, Thickness, PETSC_FALSE, Ke, Me, &V);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == expected, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: returned error code %d, expected %d", Expected[t].name, what, (int)ierr,
             (int)expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBadInput(VIElementType t)
{
  const Expect  *ex = &Expected[t];
  const PetscInt nn = ex->nn, d = ex->rdim;
  PetscReal      X[3 * MAXN];

  PetscFunctionBeginUser;
  if (t == VI_ELEM_T3D2) {
    PetscReal L;

    RodCoordinates(3, X, &L);
    for (PetscInt k = 0; k < 3; k++) X[3 + k] = X[k];
    PetscCall(ExpectError(PETSC_ERR_USER_INPUT, "with coincident nodes", t, 3, X));
    PetscCall(ExpectError(PETSC_ERR_ARG_WRONG, "in 4 dimensions", t, 4, X));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-6s errors : zero length -> PETSC_ERR_USER_INPUT, sdim 4 -> PETSC_ERR_ARG_WRONG\n", ex->name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* collapsed: every node moved onto the plane (or line) x_last = const, so the element has no volume */
  ElementCoordinates(t, PETSC_TRUE, X);
  for (PetscInt a = 0; a < nn; a++) X[a * d + d - 1] = 0.5;
  PetscCall(ExpectError(PETSC_ERR_USER_INPUT, "collapsed to zero volume", t, d, X));
  /* inverted: a mirror image has a negative Jacobian everywhere */
  ElementCoordinates(t, PETSC_TRUE, X);
  for (PetscInt a = 0; a < nn; a++) X[a * d] = -X[a * d];
  PetscCall(ExpectError(PETSC_ERR_USER_INPUT, "mirrored (inverted)", t, d, X));
  /* coordinates of the wrong dimension */
  ElementCoordinates(t, PETSC_FALSE, X);
  PetscCall(ExpectError(PETSC_ERR_ARG_WRONG, "with the wrong spatial dimension", t, d == 2 ? 3 : 2, X));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-6s errors : collapsed and inverted -> PETSC_ERR_USER_INPUT, sdim %d -> PETSC_ERR_ARG_WRONG\n", ex->name,
                        d == 2 ? 3 : 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- T3D2 in closed form */

static PetscErrorCode CheckRodExact(void)
{
  const PetscReal E = Steel.young, A = Thickness, rho = Steel.density;
  PetscReal       K[36], M[36], Ml[36], V, err = 0;

  PetscFunctionBeginUser;
  {
    const PetscReal X[2] = {0.3, 2.3}, L = 2.0, k = E * A / L, m = rho * A * L / 6;
    const PetscReal Kx[4] = {k, -k, -k, k}, Mx[4] = {2 * m, m, m, 2 * m}, Mlx[4] = {3 * m, 0, 0, 3 * m};

    PetscCall(VIElementMatrices(VI_ELEM_T3D2, 1, X, &Steel, A, PETSC_FALSE, K, M, &V));
    PetscCall(VIElementMatrices(VI_ELEM_T3D2, 1, X, &Steel, A, PETSC_TRUE, NULL, Ml, NULL));
    err = PetscMax(err, MaxAbsDiff(4, K, Kx) / k);
    err = PetscMax(err, MaxAbsDiff(4, M, Mx) / m);
    err = PetscMax(err, MaxAbsDiff(4, Ml, Mlx) / m);
    err = PetscMax(err, PetscAbsReal(V - A * L) / (A * L));
  }
  {
    /* along (1,2,2)/3, length 3 */
    const PetscReal X[6] = {0.1, 0.2, 0.3, 1.1, 2.2, 2.3}, n[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, L = 3.0, k = E * A / L, m = rho * A * L / 6;
    PetscReal       Kx[36], Mx[36], Mlx[36];

    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt b = 0; b < 2; b++)
        for (PetscInt i = 0; i < 3; i++)
          for (PetscInt j = 0; j < 3; j++) {
            Kx[(3 * a + i) * 6 + 3 * b + j]  = (a == b ? k : -k) * n[i] * n[j];
            Mx[(3 * a + i) * 6 + 3 * b + j]  = i == j ? (a == b ? 2 * m : m) : 0;
            Mlx[(3 * a + i) * 6 + 3 * b + j] = (i == j && a == b) ? 3 * m : 0;
          }
    PetscCall(VIElementMatrices(VI_ELEM_T3D2, 3, X, &Steel, A, PETSC_FALSE, K, M, &V));
    PetscCall(VIElementMatrices(VI_ELEM_T3D2, 3, X, &Steel, A, PETSC_TRUE, NULL, Ml, NULL));
    err = PetscMax(err, MaxAbsDiff(36, K, Kx) / k);
    err = PetscMax(err, MaxAbsDiff(36, M, Mx) / m);
    err = PetscMax(err, MaxAbsDiff(36, Ml, Mlx) / m);
    err = PetscMax(err, PetscAbsReal(V - A * L) / (A * L));
  }
  PetscCall(Record(CHK_ROD, "T3D2", err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "T3D2   exact  : EA/L [1 -1; -1 1] and rho A L/6 [2 1; 1 2] (1D, and 3D along (1,2,2)/3), lumped rho A L/2: error %.1e\n",
                        (double)err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checks of one element type that depend on the integration under test. */
static PetscErrorCode CheckElement(VIElementType type, PetscRandom rnd)
{
  PetscFunctionBeginUser;
  PetscCall(CheckQuadrature(type));
  if (type == VI_ELEM_T3D2) {
    for (PetscInt sdim = 1; sdim <= 3; sdim++) {
      PetscCall(CheckMass(type, sdim));
      PetscCall(CheckStiffness(type, sdim));
    }
  } else {
    PetscCall(CheckMass(type, Expected[type].rdim));
    PetscCall(CheckStiffness(type, Expected[type].rdim));
  }
  PetscCall(CheckPatch(type, rnd));
  PetscCall(CheckBadInput(type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRAND48));
  PetscCall(PetscRandomSetSeed(rnd, 20240611));
  PetscCall(PetscRandomSeed(rnd));

  PetscCall(CheckTableAndNames());
  PetscCall(CheckRodExact());
  for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) PetscCall(CheckShape((VIElementType)t, rnd));
  for (PetscInt r = 0; r < 2; r++) {
    Rule = r ? VI_INTEGRATION_CALCULIX : VI_INTEGRATION_FULL;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "integration %s (-model_integration %s)\n", VIIntegrations[Rule], VIIntegrations[Rule]));
    for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) PetscCall(CheckElement((VIElementType)t, rnd));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "summary: worst error over all element types (tolerance)\n"));
  for (PetscInt c = CHK_UNITY; c < CHK_NUM; c++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-42s %.2e (%.0e)\n", CheckName[c], (double)Worst[c], (double)CheckTol[c]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_element: all checks passed\n"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
