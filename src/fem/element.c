/* Isoparametric element library: element type table, shape functions, quadrature rules, element stiffness and mass. */
#include "femimpl.h"

/*
  Node orders follow Abaqus. Checked against the Abaqus Theory Manual, "Triangular, tetrahedral, and wedge elements"
  (interpolation functions of the 10-node tetrahedron and the 6/15-node wedges, nodes numbered in the order of their
  functions) and against CalculiX ccx src/shape20h.f (20-node brick: corners 1-4 at zeta=-1 counter-clockwise, 5-8 at
  zeta=+1, mid-edges 9-12 bottom, 13-16 top, 17-20 vertical). The 8-node quadrilateral is the face of the 20-node brick.
*/

#define VI_ELEM_MAX_NODES VI_MAX_ELEMENT_NODES
#define VI_ELEM_MAX_QUAD  VI_MAX_QUADRATURE
/*
  A Jacobian whose determinant is below this fraction of the product of its column lengths is treated as non-positive:
  an exactly collapsed element gives a determinant that is zero only up to round-off, and the ratio is the sine of the
  angle between the mapped reference axes, so the test is independent of element size and aspect ratio.
*/
#define VI_ELEM_JACOBIAN_TOL 1.0e-12

/* The quadrature of each element; no public header declares it, the unit test repeats this prototype. */

/* face_nodes: the smallest facet of each family: a point for rods, an edge for plane elements, a triangle for solids
   (solids of different shapes meet on triangles, so 3 is the common bound the partitioner may rely on). */
/* clang-format off */
const VIElementInfo VIElementInfoTable[VI_ELEM_NUM_TYPES] = {
  /* name     nodes ref_dim corners face_nodes */
  {"T3D2",    2,    1,      2,      1},
  {"CPS3",    3,    2,      3,      2},
  {"CPS4",    4,    2,      4,      2},
  {"CPS8",    8,    2,      4,      2},
  {"CPE3",    3,    2,      3,      2},
  {"CPE4",    4,    2,      4,      2},
  {"CPE8",    8,    2,      4,      2},
  {"C3D4",    4,    3,      4,      3},
  {"C3D10",   10,   3,      4,      3},
  {"C3D8",    8,    3,      8,      3},
  {"C3D20",   20,   3,      8,      3},
  {"C3D6",    6,    3,      6,      3},
  {"C3D15",   15,   3,      6,      3},
};
/* clang-format on */

/*
  VIElementTypeFromName - the element type of an Abaqus element name, compared without regard to case.

  Not collective. An unknown name is not an error: found is PETSC_FALSE and type is VI_ELEM_NUM_TYPES, so that the
  caller can report the name together with the file and line it came from.
*/
PetscErrorCode VIElementTypeFromName(const char name[], VIElementType *type, PetscBool *found)
{
  PetscFunctionBeginUser;
  *type  = VI_ELEM_NUM_TYPES;
  *found = PETSC_FALSE;
  if (!name) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) {
    PetscBool match;

    PetscCall(PetscStrcasecmp(name, VIElementInfoTable[t].name, &match));
    if (match) {
      *type  = (VIElementType)t;
      *found = PETSC_TRUE;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- reference nodes */

/* clang-format off */
static const PetscReal RefLine2[2][1] = {{-1}, {1}};
static const PetscReal RefTri3[3][2]  = {{0, 0}, {1, 0}, {0, 1}};
static const PetscReal RefQuad4[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
static const PetscReal RefQuad8[8][2] = {
  {-1, -1}, {1, -1}, {1, 1}, {-1, 1}, /* corners, counter-clockwise */
  {0, -1},  {1, 0},  {0, 1}, {-1, 0}, /* mid-sides 1-2, 2-3, 3-4, 4-1 */
};
static const PetscReal RefTet4[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const PetscReal RefTet10[10][3] = {
  {0, 0, 0},     {1, 0, 0},     {0, 1, 0},   {0, 0, 1},
  {0.5, 0, 0},   {0.5, 0.5, 0}, {0, 0.5, 0},              /* 5:(1-2) 6:(2-3) 7:(3-1) */
  {0, 0, 0.5},   {0.5, 0, 0.5}, {0, 0.5, 0.5},            /* 8:(1-4) 9:(2-4) 10:(3-4) */
};
static const PetscReal RefHex8[8][3] = {
  {-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1},
};
static const PetscReal RefHex20[20][3] = {
  {-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, /* 1-4 bottom */
  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1},  /* 5-8 top */
  {0, -1, -1},  {1, 0, -1},  {0, 1, -1}, {-1, 0, -1}, /* 9:(1-2) 10:(2-3) 11:(3-4) 12:(4-1) */
  {0, -1, 1},   {1, 0, 1},   {0, 1, 1},  {-1, 0, 1},  /* 13:(5-6) 14:(6-7) 15:(7-8) 16:(8-5) */
  {-1, -1, 0},  {1, -1, 0},  {1, 1, 0},  {-1, 1, 0},  /* 17:(1-5) 18:(2-6) 19:(3-7) 20:(4-8) */
};
static const PetscReal RefWedge6[6][3] = {
  {0, 0, -1}, {1, 0, -1}, {0, 1, -1},
  {0, 0, 1},  {1, 0, 1},  {0, 1, 1},
};
static const PetscReal RefWedge15[15][3] = {
  {0, 0, -1},   {1, 0, -1},     {0, 1, -1},   /* 1-3 bottom */
  {0, 0, 1},    {1, 0, 1},      {0, 1, 1},    /* 4-6 top */
  {0.5, 0, -1}, {0.5, 0.5, -1}, {0, 0.5, -1}, /* 7:(1-2) 8:(2-3) 9:(3-1) */
  {0.5, 0, 1},  {0.5, 0.5, 1},  {0, 0.5, 1},  /* 10:(4-5) 11:(5-6) 12:(6-4) */
  {0, 0, 0},    {1, 0, 0},      {0, 1, 0},    /* 13:(1-4) 14:(2-5) 15:(3-6) */
};
/* clang-format on */

/*
  VIElementReferenceNodes - reference coordinates of the nodes of an element type (num_nodes x ref_dim), Abaqus order.

  Not collective. The table is static: the caller must not free it.
*/
PetscErrorCode VIElementReferenceNodes(VIElementType type, const PetscReal **xi)
{
  PetscFunctionBeginUser;
  switch (type) {
  case VI_ELEM_T3D2:
    *xi = &RefLine2[0][0];
    break;
  case VI_ELEM_CPS3:
  case VI_ELEM_CPE3:
    *xi = &RefTri3[0][0];
    break;
  case VI_ELEM_CPS4:
  case VI_ELEM_CPE4:
    *xi = &RefQuad4[0][0];
    break;
  case VI_ELEM_CPS8:
  case VI_ELEM_CPE8:
    *xi = &RefQuad8[0][0];
    break;
  case VI_ELEM_C3D4:
    *xi = &RefTet4[0][0];
    break;
  case VI_ELEM_C3D10:
    *xi = &RefTet10[0][0];
    break;
  case VI_ELEM_C3D8:
    *xi = &RefHex8[0][0];
    break;
  case VI_ELEM_C3D20:
    *xi = &RefHex20[0][0];
    break;
  case VI_ELEM_C3D6:
    *xi = &RefWedge6[0][0];
    break;
  case VI_ELEM_C3D15:
    *xi = &RefWedge15[0][0];
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown element type %d", (int)type);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- shape functions */

/* Tensor-product linear functions on [-1,1]^dim (T3D2, CPS4, C3D8): prod_k (1 + xi_k xi_ak)/2. */
static void ShapeMultilinear(PetscInt dim, PetscInt nn, const PetscReal ref[], const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  for (PetscInt a = 0; a < nn; a++) {
    PetscReal f[3];

    for (PetscInt k = 0; k < dim; k++) f[k] = 0.5 * (1 + xi[k] * ref[a * dim + k]);
    N[a] = 1;
    for (PetscInt k = 0; k < dim; k++) N[a] *= f[k];
    for (PetscInt k = 0; k < dim; k++) {
      dN[a * dim + k] = 0.5 * ref[a * dim + k];
      for (PetscInt j = 0; j < dim; j++)
        if (j != k) dN[a * dim + k] *= f[j];
    }
  }
}

/*
  Serendipity functions on [-1,1]^dim (CPS8, C3D20), built from the reference nodes: a corner a has
  prod_k (1 + s_k) (sum_k s_k - (dim - 1)) / 2^dim with s_k = xi_k xi_ak; a mid-edge node whose coordinate m is zero has
  (1 - xi_m^2) prod_{k != m} (1 + s_k) / 2^(dim-1).
*/
static void ShapeSerendipity(PetscInt dim, PetscInt nn, const PetscReal ref[], const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  const PetscReal scale = dim == 2 ? 0.25 : 0.125;

  for (PetscInt a = 0; a < nn; a++) {
    const PetscReal *r = &ref[a * dim];
    PetscReal        s[3], p[3];
    PetscInt         m = -1;

    for (PetscInt k = 0; k < dim; k++) {
      s[k] = xi[k] * r[k];
      p[k] = 1 + s[k];
      if (r[k] == 0) m = k;
    }
    if (m < 0) {
      PetscReal sum = -(dim - 1), prod = scale;

      for (PetscInt k = 0; k < dim; k++) {
        sum += s[k];
        prod *= p[k];
      }
      N[a] = prod * sum;
      for (PetscInt k = 0; k < dim; k++) {
        PetscReal others = scale;

        for (PetscInt j = 0; j < dim; j++)
          if (j != k) others *= p[j];
        /* d/dxi_k of p_k (sum): r_k (sum) + p_k r_k */
        dN[a * dim + k] = others * r[k] * (sum + p[k]);
      }
    } else {
      const PetscReal bubble = 1 - xi[m] * xi[m];
      PetscReal       prod   = 2 * scale;

      for (PetscInt k = 0; k < dim; k++)
        if (k != m) prod *= p[k];
      N[a] = bubble * prod;
      for (PetscInt k = 0; k < dim; k++) {
        if (k == m) {
          dN[a * dim + k] = -2 * xi[m] * prod;
        } else {
          PetscReal others = 2 * scale * bubble * r[k];

          for (PetscInt j = 0; j < dim; j++)
            if (j != k && j != m) others *= p[j];
          dN[a * dim + k] = others;
        }
      }
    }
  }
}

/* Barycentric coordinates of a simplex point and their (constant) reference derivatives. */
static void Barycentric(PetscInt dim, const PetscReal xi[], PetscReal L[], PetscReal dL[])
{
  L[0] = 1;
  for (PetscInt k = 0; k < dim; k++) {
    L[0] -= xi[k];
    L[k + 1]        = xi[k];
    dL[0 * dim + k] = -1;
    for (PetscInt i = 1; i <= dim; i++) dL[i * dim + k] = (i == k + 1) ? 1 : 0;
  }
}

/* Linear simplex (CPS3, C3D4): the barycentric coordinates themselves. */
static void ShapeSimplexLinear(PetscInt dim, const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  Barycentric(dim, xi, N, dN);
}

/* 10-node tetrahedron: L(2L-1) at corners, 4 Li Lj at mid-edges 5:(1-2) 6:(2-3) 7:(3-1) 8:(1-4) 9:(2-4) 10:(3-4). */
static void ShapeTet10(const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  static const PetscInt edge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  PetscReal             L[4], dL[12];

  Barycentric(3, xi, L, dL);
  for (PetscInt a = 0; a < 4; a++) {
    N[a] = L[a] * (2 * L[a] - 1);
    for (PetscInt k = 0; k < 3; k++) dN[a * 3 + k] = (4 * L[a] - 1) * dL[a * 3 + k];
  }
  for (PetscInt e = 0; e < 6; e++) {
    const PetscInt i = edge[e][0], j = edge[e][1], a = 4 + e;

    N[a] = 4 * L[i] * L[j];
    for (PetscInt k = 0; k < 3; k++) dN[a * 3 + k] = 4 * (dL[i * 3 + k] * L[j] + L[i] * dL[j * 3 + k]);
  }
}

/* 6-node wedge: triangle barycentric L times (1 -/+ zeta)/2; nodes 1-3 at zeta = -1, 4-6 at zeta = +1. */
static void ShapeWedge6(const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  PetscReal L[3], dL[6];

  Barycentric(2, xi, L, dL);
  for (PetscInt level = 0; level < 2; level++) {
    const PetscReal s = level ? 1 : -1, h = 0.5 * (1 + s * xi[2]);

    for (PetscInt t = 0; t < 3; t++) {
      const PetscInt a = 3 * level + t;

      N[a]          = L[t] * h;
      dN[a * 3 + 0] = dL[t * 2 + 0] * h;
      dN[a * 3 + 1] = dL[t * 2 + 1] * h;
      dN[a * 3 + 2] = 0.5 * s * L[t];
    }
  }
}

/*
  15-node wedge (Abaqus Theory Manual): corners 1/2 L (1 + s zeta)(2L + s zeta - 2) with s = -1 for nodes 1-3 and +1 for
  4-6; triangle mid-edges 2 Li Lj (1 + s zeta) for 7:(1-2) 8:(2-3) 9:(3-1) at s = -1 and 10-12 at s = +1; vertical
  mid-edges L (1 - zeta^2) for 13:(1-4) 14:(2-5) 15:(3-6).
*/
static void ShapeWedge15(const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  static const PetscInt edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  const PetscReal       z          = xi[2];
  PetscReal             L[3], dL[6];

  Barycentric(2, xi, L, dL);
  for (PetscInt level = 0; level < 2; level++) {
    const PetscReal s = level ? 1 : -1, h = 1 + s * z;

    for (PetscInt t = 0; t < 3; t++) {
      const PetscInt a = 3 * level + t;

      N[a]          = 0.5 * L[t] * h * (2 * L[t] + s * z - 2);
      dN[a * 3 + 0] = 0.5 * h * dL[t * 2 + 0] * (4 * L[t] + s * z - 2);
      dN[a * 3 + 1] = 0.5 * h * dL[t * 2 + 1] * (4 * L[t] + s * z - 2);
      dN[a * 3 + 2] = 0.5 * s * L[t] * (2 * L[t] + 2 * s * z - 1);
    }
    for (PetscInt e = 0; e < 3; e++) {
      const PetscInt i = edge[e][0], j = edge[e][1], a = 6 + 3 * level + e;

      N[a]          = 2 * L[i] * L[j] * h;
      dN[a * 3 + 0] = 2 * (dL[i * 2 + 0] * L[j] + L[i] * dL[j * 2 + 0]) * h;
      dN[a * 3 + 1] = 2 * (dL[i * 2 + 1] * L[j] + L[i] * dL[j * 2 + 1]) * h;
      dN[a * 3 + 2] = 2 * s * L[i] * L[j];
    }
  }
  for (PetscInt t = 0; t < 3; t++) {
    const PetscInt a = 12 + t;

    N[a]          = L[t] * (1 - z * z);
    dN[a * 3 + 0] = dL[t * 2 + 0] * (1 - z * z);
    dN[a * 3 + 1] = dL[t * 2 + 1] * (1 - z * z);
    dN[a * 3 + 2] = -2 * z * L[t];
  }
}

/*
  VIElementShape - shape functions N (num_nodes) and their derivatives dN (num_nodes x ref_dim, dN[a*ref_dim+k] =
  dN_a/dxi_k) at the reference point xi. Either output may be NULL.

  Not collective.
*/
PetscErrorCode VIElementShape(VIElementType type, const PetscReal xi[], PetscReal N[], PetscReal dN[])
{
  PetscReal n[VI_ELEM_MAX_NODES], d[3 * VI_ELEM_MAX_NODES];
  PetscInt  nn, dim;

  PetscFunctionBeginUser;
  PetscCheck(type >= 0 && type < VI_ELEM_NUM_TYPES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown element type %d", (int)type);
  nn  = VIElementInfoTable[type].num_nodes;
  dim = VIElementInfoTable[type].ref_dim;
  switch (type) {
  case VI_ELEM_T3D2:
    ShapeMultilinear(1, 2, &RefLine2[0][0], xi, n, d);
    break;
  case VI_ELEM_CPS3:
  case VI_ELEM_CPE3:
    ShapeSimplexLinear(2, xi, n, d);
    break;
  case VI_ELEM_CPS4:
  case VI_ELEM_CPE4:
    ShapeMultilinear(2, 4, &RefQuad4[0][0], xi, n, d);
    break;
  case VI_ELEM_CPS8:
  case VI_ELEM_CPE8:
    ShapeSerendipity(2, 8, &RefQuad8[0][0], xi, n, d);
    break;
  case VI_ELEM_C3D4:
    ShapeSimplexLinear(3, xi, n, d);
    break;
  case VI_ELEM_C3D10:
    ShapeTet10(xi, n, d);
    break;
  case VI_ELEM_C3D8:
    ShapeMultilinear(3, 8, &RefHex8[0][0], xi, n, d);
    break;
  case VI_ELEM_C3D20:
    ShapeSerendipity(3, 20, &RefHex20[0][0], xi, n, d);
    break;
  case VI_ELEM_C3D6:
    ShapeWedge6(xi, n, d);
    break;
  case VI_ELEM_C3D15:
    ShapeWedge15(xi, n, d);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown element type %d", (int)type);
  }
  if (N) PetscCall(PetscArraycpy(N, n, nn));
  if (dN) PetscCall(PetscArraycpy(dN, d, nn * dim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- quadrature */

/*
  Rule constants. Gauss-Legendre points are +-1/sqrt(3) and 0, +-sqrt(3/5). The 7-point triangle rule (Radon, degree 5)
  has points (a,a) a = (6 -+ sqrt 15)/21 with weights (155 -+ sqrt 15)/2400 and the centroid with 9/80 (reference area
  1/2). The 4-point tetrahedron rule (degree 2) has barycentric points (b,a,a,a), a = (5 - sqrt 5)/20, b = (5 + 3 sqrt 5)/20.
  The symmetric 14-point tetrahedron rule (degree 5, all weights positive) has two 4-point orbits
  (1-3a,a,a,a) and one 6-point orbit (c,c,1/2-c,1/2-c); its constants were solved here from the degree-5 moment equations
  to 60 digits (residual 1e-63) and the unit test checks every monomial of degree <= 5.
*/
static const PetscReal GaussTwo   = 0.57735026918962576451;
static const PetscReal GaussThree = 0.77459666924148337704;
static const PetscReal Tri7A      = 0.10128650732345633880;
static const PetscReal Tri7WA     = 0.062969590272413576298;
static const PetscReal Tri7B      = 0.47014206410511508977;
static const PetscReal Tri7WB     = 0.066197076394253090369;
static const PetscReal Tet4A      = 0.13819660112501051518;
static const PetscReal Tet14A1    = 0.092735250310891226402;
static const PetscReal Tet14W1    = 0.012248840519393658257;
static const PetscReal Tet14A2    = 0.31088591926330060980;
static const PetscReal Tet14W2    = 0.018781320953002641800;
static const PetscReal Tet14C     = 0.045503704125649649492;
static const PetscReal Tet14W3    = 0.0070910034628469110730;

/* Gauss-Legendre rule with n = 2 or 3 points on [-1,1]. */
static void RuleLine(PetscInt n, PetscReal x[], PetscReal w[])
{
  if (n == 2) {
    x[0] = -GaussTwo;
    x[1] = GaussTwo;
    w[0] = w[1] = 1;
  } else {
    x[0] = -GaussThree;
    x[1] = 0;
    x[2] = GaussThree;
    w[0] = w[2] = 5.0 / 9.0;
    w[1]        = 8.0 / 9.0;
  }
}

/* Triangle rules on the unit right triangle: n = 3 (degree 2) or 7 (degree 5). */
static void RuleTriangle(PetscInt n, PetscReal x[], PetscReal w[])
{
  if (n == 3) {
    const PetscReal p[3][2] = {{1.0 / 6.0, 1.0 / 6.0}, {2.0 / 3.0, 1.0 / 6.0}, {1.0 / 6.0, 2.0 / 3.0}};

    for (PetscInt q = 0; q < 3; q++) {
      x[2 * q + 0] = p[q][0];
      x[2 * q + 1] = p[q][1];
      w[q]         = 1.0 / 6.0;
    }
  } else {
    const PetscReal orbit[2] = {Tri7A, Tri7B}, weight[2] = {Tri7WA, Tri7WB};

    x[0] = x[1] = 1.0 / 3.0;
    w[0]        = 9.0 / 80.0;
    for (PetscInt o = 0; o < 2; o++) {
      const PetscReal a = orbit[o], b = 1 - 2 * orbit[o];
      const PetscReal p[3][2] = {{a, a}, {b, a}, {a, b}};

      for (PetscInt q = 0; q < 3; q++) {
        x[2 * (1 + 3 * o + q) + 0] = p[q][0];
        x[2 * (1 + 3 * o + q) + 1] = p[q][1];
        w[1 + 3 * o + q]           = weight[o];
      }
    }
  }
}

/* Append the 4 points of the orbit (1-3a, a, a, a) in barycentric coordinates, dropping the first coordinate. */
static void TetOrbit4(PetscReal a, PetscReal weight, PetscInt *nq, PetscReal x[], PetscReal w[])
{
  for (PetscInt c = 0; c < 4; c++) {
    for (PetscInt k = 0; k < 3; k++) x[3 * (*nq) + k] = (c == k + 1) ? 1 - 3 * a : a;
    w[(*nq)++] = weight;
  }
}

/* Tetrahedron rules on the unit right tetrahedron: n = 4 (degree 2) or 14 (degree 5). */
static void RuleTetrahedron(PetscInt n, PetscInt *nq, PetscReal x[], PetscReal w[])
{
  *nq = 0;
  if (n == 4) {
    TetOrbit4(Tet4A, 1.0 / 24.0, nq, x, w);
  } else {
    /* the six ways of putting c on two of the four barycentric coordinates and 1/2 - c on the other two */
    static const PetscInt pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

    TetOrbit4(Tet14A1, Tet14W1, nq, x, w);
    TetOrbit4(Tet14A2, Tet14W2, nq, x, w);
    for (PetscInt p = 0; p < 6; p++) {
      for (PetscInt k = 0; k < 3; k++) x[3 * (*nq) + k] = (pair[p][0] == k + 1 || pair[p][1] == k + 1) ? Tet14C : 0.5 - Tet14C;
      w[(*nq)++] = Tet14W3;
    }
  }
}

/* Tensor product of a rule in the first coordinates (dimension da, na points) with a line rule in the last ones. */
static void RuleProduct(PetscInt da, PetscInt na, const PetscReal xa[], const PetscReal wa[], PetscInt nb, const PetscReal xb[], const PetscReal wb[],
                        PetscInt *nq, PetscReal x[], PetscReal w[])
{
  *nq = 0;
  for (PetscInt j = 0; j < nb; j++) {
    for (PetscInt i = 0; i < na; i++) {
      for (PetscInt k = 0; k < da; k++) x[(da + 1) * (*nq) + k] = xa[da * i + k];
      x[(da + 1) * (*nq) + da] = xb[j];
      w[(*nq)++]               = wa[i] * wb[j];
    }
  }
}

const char *const VIIntegrations[] = {"calculix", "full", "VIIntegration", "VI_INTEGRATION_", NULL};

/*
  VIElementQuadrature - the quadrature rule of an element type under an integration choice: nq points xi (nq x ref_dim)
  and weights w on the reference element; the buffers must hold VI_ELEM_MAX_QUAD (27) points. Stiffness and mass use the
  same rule.

  VI_INTEGRATION_CALCULIX, the default, gives each Abaqus element name the rule CalculiX ccx 2.20 uses for it
  (e_c3d.f and gauss.f: the integration-point counts are those of the Abaqus element library), so that a deck gives the
  same K, M and frequencies in vicms and in ccx:
    C3D4 1 point (centroid, weight 1/6); C3D10 4 points (degree 2); C3D8 2x2x2 Gauss; C3D20 3x3x3 Gauss;
    C3D6 2 points (triangle centroid x 2-point Gauss); C3D15 9 points (3-point triangle x 3-point Gauss);
    CPS3/CPE3 1 point (ccx expands them into C3D6 wedges: the centroid in the plane).
  The mass of C3D4, C3D10, C3D6, C3D15, CPS3 and CPE3 is then under-integrated (each element mass matrix is singular,
  the assembled one is not), which is what those codes do. CPS4/CPE4, CPS8/CPE8 and the rod keep the rules below.

  VI_INTEGRATION_FULL integrates the consistent mass (N^T N, degree 2p in the reference coordinates) and the stiffness
  (degree 2p-2) exactly on undistorted elements, whose Jacobian is constant:
    T3D2 2-point Gauss (degree 3); CPS3/CPE3 3-point (degree 2); CPS4/CPE4 2x2 Gauss; CPS8/CPE8 3x3 Gauss;
    C3D4 4-point (degree 2); C3D10 14-point (degree 5); C3D8 2x2x2 Gauss; C3D20 3x3x3 Gauss;
    C3D6 3-point triangle x 2-point Gauss; C3D15 7-point triangle (degree 5) x 3-point Gauss.
  Both keep the stiffness free of zero-energy modes other than the rigid-body motions; the full wedges are stiffer in
  bending (C3D6 locks: 11 % on a cantilever of 2 x 2 x 10 cells) and the full tetrahedra's masses are exact.
*/
PetscErrorCode VIElementQuadrature(VIElementType type, VIIntegration integration, PetscInt *nq, PetscReal xi[], PetscReal w[])
{
  PetscReal       xa[VI_ELEM_MAX_QUAD * 2], wa[VI_ELEM_MAX_QUAD], xl[3], wl[3];
  PetscInt        na;
  const PetscBool ccx = integration == VI_INTEGRATION_CALCULIX ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(integration == VI_INTEGRATION_CALCULIX || integration == VI_INTEGRATION_FULL, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Unknown integration %d", (int)integration);
  switch (type) {
  case VI_ELEM_T3D2:
    RuleLine(2, xi, w);
    *nq = 2;
    break;
  case VI_ELEM_CPS3:
  case VI_ELEM_CPE3:
    if (ccx) {
      xi[0] = xi[1] = 1.0 / 3.0;
      w[0]          = 0.5;
      *nq           = 1;
    } else {
      RuleTriangle(3, xi, w);
      *nq = 3;
    }
    break;
  case VI_ELEM_CPS4:
  case VI_ELEM_CPE4:
  case VI_ELEM_CPS8:
  case VI_ELEM_CPE8:
    na = (type == VI_ELEM_CPS4 || type == VI_ELEM_CPE4) ? 2 : 3;
    RuleLine(na, xl, wl);
    RuleProduct(1, na, xl, wl, na, xl, wl, nq, xi, w);
    break;
  case VI_ELEM_C3D4:
    if (ccx) {
      xi[0] = xi[1] = xi[2] = 0.25;
      w[0]                  = 1.0 / 6.0;
      *nq                   = 1;
    } else
      RuleTetrahedron(4, nq, xi, w);
    break;
  case VI_ELEM_C3D10:
    RuleTetrahedron(ccx ? 4 : 14, nq, xi, w);
    break;
  case VI_ELEM_C3D8:
  case VI_ELEM_C3D20: {
    PetscInt n2;

    na = type == VI_ELEM_C3D8 ? 2 : 3;
    RuleLine(na, xl, wl);
    RuleProduct(1, na, xl, wl, na, xl, wl, &n2, xa, wa);
    RuleProduct(2, n2, xa, wa, na, xl, wl, nq, xi, w);
  } break;
  case VI_ELEM_C3D6:
    if (ccx) {
      xa[0] = xa[1] = 1.0 / 3.0;
      wa[0]         = 0.5;
      RuleLine(2, xl, wl);
      RuleProduct(2, 1, xa, wa, 2, xl, wl, nq, xi, w);
    } else {
      RuleTriangle(3, xa, wa);
      RuleLine(2, xl, wl);
      RuleProduct(2, 3, xa, wa, 2, xl, wl, nq, xi, w);
    }
    break;
  case VI_ELEM_C3D15:
    na = ccx ? 3 : 7;
    RuleTriangle(na, xa, wa);
    RuleLine(3, xl, wl);
    RuleProduct(2, na, xa, wa, 3, xl, wl, nq, xi, w);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown element type %d", (int)type);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- element matrices */

static PetscBool IsPlaneStrain(VIElementType type)
{
  return (type == VI_ELEM_CPE3 || type == VI_ELEM_CPE4 || type == VI_ELEM_CPE8) ? PETSC_TRUE : PETSC_FALSE;
}

/* Two-node rod: exact axial stiffness EA/L n n^T and consistent mass rho A L/6 [2 1; 1 2] per component. */
static PetscErrorCode RodMatrices(PetscInt sdim, const PetscReal coords[], const VIMaterial *mat, PetscReal area, PetscBool lumped, PetscReal Ke[],
                                  PetscReal Me[], PetscReal *volume)
{
  const PetscInt ndof = 2 * sdim;
  PetscReal      n[3], length = 0, scale = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < sdim; i++) {
    n[i] = coords[sdim + i] - coords[i];
    length += n[i] * n[i];
    scale = PetscMax(scale, PetscMax(PetscAbsReal(coords[i]), PetscAbsReal(coords[sdim + i])));
  }
  length = PetscSqrtReal(length);
  /* the Jacobian of x(xi) on [-1,1] is L/2 along the rod; coincident nodes make it vanish up to round-off */
  PetscCheck(length > VI_ELEM_JACOBIAN_TOL * scale, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "T3D2 element has a non-positive Jacobian determinant %g (length %g)", (double)(0.5 * length), (double)length);
  for (PetscInt i = 0; i < sdim; i++) n[i] /= length;
  if (Ke) {
    const PetscReal k = mat->young * area / length;

    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt b = 0; b < 2; b++)
        for (PetscInt i = 0; i < sdim; i++)
          for (PetscInt j = 0; j < sdim; j++) Ke[(a * sdim + i) * ndof + b * sdim + j] = (a == b ? k : -k) * n[i] * n[j];
  }
  if (Me) {
    const PetscReal m = mat->density * area * length;

    PetscCall(PetscArrayzero(Me, ndof * ndof));
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt b = 0; b < 2; b++)
        for (PetscInt i = 0; i < sdim; i++) {
          if (lumped) {
            if (a == b) Me[(a * sdim + i) * ndof + b * sdim + i] = m / 2;
          } else {
            Me[(a * sdim + i) * ndof + b * sdim + i] = (a == b ? 2 : 1) * m / 6;
          }
        }
  }
  if (volume) *volume = area * length;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Determinant and inverse of a dim x dim (2 or 3) row-major matrix, with the product of its column lengths. */
static void Invert(PetscInt dim, const PetscReal J[], PetscReal *det, PetscReal *colprod, PetscReal Jinv[])
{
  *colprod = 1;
  for (PetscInt k = 0; k < dim; k++) {
    PetscReal c = 0;

    for (PetscInt i = 0; i < dim; i++) c += J[i * dim + k] * J[i * dim + k];
    *colprod *= PetscSqrtReal(c);
  }
  if (dim == 2) {
    *det = J[0] * J[3] - J[1] * J[2];
    if (*det == 0) return;
    Jinv[0] = J[3] / *det;
    Jinv[1] = -J[1] / *det;
    Jinv[2] = -J[2] / *det;
    Jinv[3] = J[0] / *det;
  } else {
    const PetscReal c00 = J[4] * J[8] - J[5] * J[7], c01 = J[5] * J[6] - J[3] * J[8], c02 = J[3] * J[7] - J[4] * J[6];

    *det = J[0] * c00 + J[1] * c01 + J[2] * c02;
    if (*det == 0) return;
    Jinv[0] = c00 / *det;
    Jinv[1] = (J[2] * J[7] - J[1] * J[8]) / *det;
    Jinv[2] = (J[1] * J[5] - J[2] * J[4]) / *det;
    Jinv[3] = c01 / *det;
    Jinv[4] = (J[0] * J[8] - J[2] * J[6]) / *det;
    Jinv[5] = (J[2] * J[3] - J[0] * J[5]) / *det;
    Jinv[6] = c02 / *det;
    Jinv[7] = (J[1] * J[6] - J[0] * J[7]) / *det;
    Jinv[8] = (J[0] * J[4] - J[1] * J[3]) / *det;
  }
}

/*
  VIElementMatricesIntegrated - stiffness and mass matrices of one isoparametric element, linear isotropic elasticity,
  integrated by the rule VIElementQuadrature gives for the integration choice.

  Not collective. The contract (inputs, layout, errors) is in include/vicms/fem.h.

  Ke = int B^T D B dV is assembled in its Lame form, K_(ai)(bj) = lambda N_a,i N_b,j + mu (N_a,j N_b,i + delta_ij
  grad N_a . grad N_b), which equals B^T D B for the isotropic D; plane strain uses lambda = E nu/((1+nu)(1-2nu)),
  plane stress the reduced lambda* = E nu/(1-nu^2) of D = E/(1-nu^2)[1 nu 0; nu 1 0; 0 0 (1-nu)/2].
  Me = rho int N^T N dV per component. The lumped mass is HRZ (Hinton, Rock and Zienkiewicz 1976): the diagonal of the
  consistent matrix scaled so that each component's diagonal sums to the element mass. Row-sum lumping would give zero
  or negative corner masses on the quadratic tetrahedron, wedge and brick; HRZ keeps every mass positive and the total
  mass exact.
*/
PetscErrorCode VIElementMatricesIntegrated(VIElementType type, VIIntegration integration, PetscInt sdim, const PetscReal coords[],
                                           const VIMaterial *mat, PetscReal thickness, PetscBool lumped, PetscReal Ke[], PetscReal Me[],
                                           PetscReal *volume)
{
  PetscReal xq[3 * VI_ELEM_MAX_QUAD], wq[VI_ELEM_MAX_QUAD];
  PetscReal N[VI_ELEM_MAX_NODES], dN[3 * VI_ELEM_MAX_NODES], dNdx[3 * VI_ELEM_MAX_NODES];
  PetscReal mass[VI_ELEM_MAX_NODES * VI_ELEM_MAX_NODES];
  PetscReal lambda, mu, scale, vol = 0;
  PetscInt  nn, dim, ndof, nq;

  PetscFunctionBeginUser;
  PetscCheck(type >= 0 && type < VI_ELEM_NUM_TYPES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown element type %d", (int)type);
  PetscCheck(mat, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "%s element needs a material", VIElementInfoTable[type].name);
  nn  = VIElementInfoTable[type].num_nodes;
  dim = VIElementInfoTable[type].ref_dim;
  PetscCheck(mat->young > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "Material %s: Young's modulus %g must be positive", mat->name,
             (double)mat->young);
  PetscCheck(mat->density >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "Material %s: density %g must not be negative", mat->name,
             (double)mat->density);
  if (type == VI_ELEM_T3D2) {
    PetscCheck(sdim >= 1 && sdim <= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "T3D2 element needs spatial dimension 1, 2 or 3, not %" PetscInt_FMT,
               sdim);
    PetscCheck(thickness > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "T3D2 element: cross-section area %g must be positive", (double)thickness);
    PetscCall(RodMatrices(sdim, coords, mat, thickness, lumped, Ke, Me, volume));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(sdim == dim, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s element needs spatial dimension %" PetscInt_FMT ", not %" PetscInt_FMT,
             VIElementInfoTable[type].name, dim, sdim);
  PetscCheck(mat->poisson > -1 && mat->poisson < 0.5, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "Material %s: Poisson's ratio %g must lie in (-1, 0.5)",
             mat->name, (double)mat->poisson);
  if (dim == 2)
    PetscCheck(thickness > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s element: thickness %g must be positive", VIElementInfoTable[type].name,
               (double)thickness);
  scale  = dim == 2 ? thickness : 1;
  ndof   = nn * dim;
  mu     = mat->young / (2 * (1 + mat->poisson));
  lambda = mat->young * mat->poisson / ((1 + mat->poisson) * (1 - 2 * mat->poisson));
  if (dim == 2 && !IsPlaneStrain(type)) lambda = mat->young * mat->poisson / (1 - mat->poisson * mat->poisson);

  PetscCall(VIElementQuadrature(type, integration, &nq, xq, wq));
  if (Ke) PetscCall(PetscArrayzero(Ke, ndof * ndof));
  PetscCall(PetscArrayzero(mass, nn * nn));
  for (PetscInt q = 0; q < nq; q++) {
    PetscReal J[9] = {0}, Jinv[9], det, colprod, wdet;

    PetscCall(VIElementShape(type, &xq[q * dim], N, dN));
    /* J_ik = dx_i/dxi_k */
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt i = 0; i < dim; i++)
        for (PetscInt k = 0; k < dim; k++) J[i * dim + k] += coords[a * dim + i] * dN[a * dim + k];
    Invert(dim, J, &det, &colprod, Jinv);
    PetscCheck(det > VI_ELEM_JACOBIAN_TOL * colprod, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s element has a non-positive Jacobian determinant %g at quadrature point %" PetscInt_FMT " (degenerate or inverted element)",
               VIElementInfoTable[type].name, (double)det, q);
    /* dN_a/dx_i = sum_k dN_a/dxi_k dxi_k/dx_i */
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt i = 0; i < dim; i++) {
        dNdx[a * dim + i] = 0;
        for (PetscInt k = 0; k < dim; k++) dNdx[a * dim + i] += dN[a * dim + k] * Jinv[k * dim + i];
      }
    wdet = wq[q] * det * scale;
    vol += wdet;
    if (Me)
      for (PetscInt a = 0; a < nn; a++)
        for (PetscInt b = a; b < nn; b++) mass[a * nn + b] += wdet * N[a] * N[b];
    if (Ke) {
      for (PetscInt a = 0; a < nn; a++) {
        const PetscReal *ga = &dNdx[a * dim];

        for (PetscInt b = a; b < nn; b++) {
          const PetscReal *gb  = &dNdx[b * dim];
          PetscReal        dot = 0;

          for (PetscInt i = 0; i < dim; i++) dot += ga[i] * gb[i];
          for (PetscInt i = 0; i < dim; i++)
            for (PetscInt j = 0; j < dim; j++) {
              /* grouping the gradient products first keeps the diagonal blocks exactly symmetric */
              const PetscReal v = wdet * (lambda * (ga[i] * gb[j]) + mu * (ga[j] * gb[i]) + (i == j ? mu * dot : 0));

              Ke[(a * dim + i) * ndof + b * dim + j] += v;
              /* the mirrored block keeps Ke exactly symmetric */
              if (b != a) Ke[(b * dim + j) * ndof + a * dim + i] += v;
            }
        }
      }
    }
  }
  if (Me) {
    PetscReal total = 0, diag = 0;

    /* only the upper triangle was accumulated; mirroring it keeps Me exactly symmetric */
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt b = 0; b < a; b++) mass[a * nn + b] = mass[b * nn + a];
    for (PetscInt a = 0; a < nn; a++) {
      diag += mass[a * nn + a];
      for (PetscInt b = 0; b < nn; b++) total += mass[a * nn + b];
    }
    PetscCall(PetscArrayzero(Me, ndof * ndof));
    for (PetscInt a = 0; a < nn; a++)
      for (PetscInt i = 0; i < dim; i++) {
        if (lumped) {
          Me[(a * dim + i) * ndof + a * dim + i] = mat->density * mass[a * nn + a] * total / diag;
        } else {
          for (PetscInt b = 0; b < nn; b++) Me[(a * dim + i) * ndof + b * dim + i] = mat->density * mass[a * nn + b];
        }
      }
  }
  if (volume) *volume = vol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VIElementMatrices - VIElementMatricesIntegrated with the default integration, VI_INTEGRATION_CALCULIX. */
PetscErrorCode VIElementMatrices(VIElementType type, PetscInt sdim, const PetscReal coords[], const VIMaterial *mat, PetscReal thickness,
                                 PetscBool lumped, PetscReal Ke[], PetscReal Me[], PetscReal *volume)
{
  PetscFunctionBeginUser;
  PetscCall(VIElementMatricesIntegrated(type, VI_INTEGRATION_CALCULIX, sdim, coords, mat, thickness, lumped, Ke, Me, volume));
  PetscFunctionReturn(PETSC_SUCCESS);
}
