/* Dual assembly of sliding substructures (seed 003 Eqs. 22–44): against the primal-assembled coupled ROM, the contact search
   across master nodes and off the master's end, the discrete energy identity, Coulomb friction on a rigid plane, a
   time-dependent slave force. */
#include "vitest.h"
#include <petscblaslapack.h>
#include <slepcsys.h>
#include <unistd.h>

static const char help[] =
    "VIDual: dual assembly of sliding substructures (-case primal|search|energy|friction|force|state|system|stepper|failure|resume)\n";

/* A hand-made body (method user, no modes): nodes ids/xy, clamped ones without coordinates, K M D on the 2 per free node. */
static PetscErrorCode AddBody(VIBodies bodies, const char name[], PetscInt nn, const PetscInt ids[], const PetscReal xy[], const PetscBool clamped[],
                              const PetscReal K[], const PetscReal M[], const PetscReal D[])
{
  VIROM      rom;
  PetscInt   nb = 0, *dofs;
  PetscReal *coords, *Kr, *Mr, *Dr;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(3 * nn, &dofs, 3 * nn, &coords));
  for (PetscInt i = 0; i < nn; i++) {
    coords[3 * i]     = xy[2 * i];
    coords[3 * i + 1] = xy[2 * i + 1];
    dofs[3 * i + 2]   = -1;
    for (PetscInt c = 0; c < 2; c++) dofs[3 * i + c] = clamped && clamped[i] ? -1 : nb++;
  }
  PetscCall(VIROMCreate(PETSC_COMM_WORLD, &rom));
  PetscCall(VIROMSetSizes(rom, VI_CMS_USER, nb, 0));
  PetscCall(VIROMGetMatrices(rom, &Kr, &Mr, &Dr));
  PetscCall(PetscArraycpy(Kr, K, nb * nb));
  PetscCall(PetscArraycpy(Mr, M, nb * nb));
  if (D) PetscCall(PetscArraycpy(Dr, D, nb * nb));
  PetscCall(VIBodiesAdd(bodies, name, rom, 2, nn, ids, coords, dofs));
  PetscCall(PetscFree2(dofs, coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same value on every rank, bit for bit (the dual assembly is replicated). */
static PetscErrorCode CheckRanks(MPI_Comm comm, PetscReal v, const char what[])
{
  PetscReal lo, hi;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&v, &lo, 1, MPIU_REAL, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(&v, &hi, 1, MPIU_REAL, MPI_MAX, comm));
  PetscCheck(lo == hi, comm, PETSC_ERR_PLIB, "%s differs between ranks: %.17g vs %.17g", what, (double)lo, (double)hi);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case primal */

/* The beams of test_bodies (2 x 20 CPS4 each, 10 modes, Rayleigh damping): beam1's C = node 1 at (50, 10) on beam2's top
   edge (nodes 43 + i at x = 15 i), A = nodes 21, 42, 63. */
#define BEAMS                                                                                                                                        \
  "-bodies beam1,beam2 "                                                                                                                             \
  "-body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10 "       \
  "-body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9 "                    \
  "-body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7 "                                    \
  "-body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400 "           \
  "-body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax "                   \
  "-body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7 "

static PetscInt BoundaryDof(const VIBodyBoundary *bd, PetscInt id, PetscInt comp)
{
  for (PetscInt i = 0; i < bd->num_nodes; i++)
    if (bd->node_ids[i] == id) return bd->dofs[3 * i + comp];
  return -1;
}

/* Frictionless contact held at a fixed point (-dual_geometry fixed): the dual transient against the same central difference
   (backward-difference damping velocity, seed 003 Eq. 24) on the primal-assembled ROM, u = L q with L the null space of the
   tie u_Cy = (1 - xi) u_T1y + xi u_T2y and of the held x of A (Eqs. 8-14), M~ = L^T M L etc. written here. */
static PetscErrorCode CasePrimal(MPI_Comm comm)
{
  VIBodies              bodies;
  VIDual                dual;
  VIROM                 rom[2];
  const VIBodyBoundary *bd[2];
  const PetscInt        nodes_A[3] = {21, 42, 63}, node_C = 1;
  const PetscReal       P = 2.0, xi = 1.0 / 3.0; /* preload on A [N]; C at x = 50 on the segment 45-60 */
  const PetscInt        nsteps = 20000;          /* 1.9 ms: the periods of the coupled modes above 530 Hz */
  PetscInt              n1 = 0, n2 = 0, n, m = 0, *col, held[3], cy, t1y, t2y;
  PetscReal   *K[2], *M[2], *D[2], *L, *Mt, *Kt, *Dt, *ft, *f, *q, *qp, *qn, *r, *u, *q0, dt, err = 0, umax = 0, lmin = PETSC_MAX_REAL, lmax = 0;
  PetscBLASInt bm, info, one = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsInsertString(NULL, BEAMS));
  PetscCall(VIBodiesCreate(comm, &bodies));
  PetscCall(VICMSReduceBody(comm, "beam1", bodies, PETSC_FALSE));
  PetscCall(VICMSReduceBody(comm, "beam2", bodies, PETSC_FALSE));
  for (PetscInt b = 0; b < 2; b++) {
    PetscInt nb, nm;
    PetscCall(VIBodiesGet(bodies, b, NULL, &rom[b], &bd[b]));
    PetscCall(VIROMGetSizes(rom[b], &nb, &nm));
    PetscCall(VIROMGetMatrices(rom[b], &K[b], &M[b], &D[b]));
    if (b == 0)
      n1 = nb + nm;
    else
      n2 = nb + nm;
  }
  n = n1 + n2;

  PetscCall(VIDualCreate(comm, &dual));
  PetscCall(VIDualSetBodies(dual, bodies));
  PetscCall(VIDualSetSlave(dual, "beam1", 1, &node_C));
  PetscCall(VIDualSetMaster(dual, "beam2", 0, NULL));
  PetscCall(VIDualSetGeometry(dual, VI_DUAL_GEOMETRY_FIXED));
  PetscCall(VIDualAddDrive(dual, "beam1", 3, nodes_A, 0, 0.0));
  {
    const PetscReal force[3] = {0, -P, 0};
    PetscCall(VIDualAddLoad(dual, "beam1", 3, nodes_A, force));
  }
  PetscCall(VIDualSetFromOptions(dual));

  /* the primal model */
  for (PetscInt a = 0; a < 3; a++) held[a] = BoundaryDof(bd[0], nodes_A[a], 0);
  cy  = BoundaryDof(bd[0], node_C, 1);
  t1y = n1 + BoundaryDof(bd[1], 46, 1);
  t2y = n1 + BoundaryDof(bd[1], 47, 1);
  PetscCall(PetscMalloc1(n, &col));
  for (PetscInt i = 0; i < n; i++) {
    PetscBool removed = i == cy || i == held[0] || i == held[1] || i == held[2] ? PETSC_TRUE : PETSC_FALSE;
    col[i]            = removed ? -1 : m++;
  }
  PetscCall(PetscCalloc1(n * m, &L));
  for (PetscInt i = 0; i < n; i++)
    if (col[i] >= 0) L[i * m + col[i]] = 1;
  L[cy * m + col[t1y]] = 1 - xi;
  L[cy * m + col[t2y]] = xi;
  PetscCall(PetscCalloc4(m * m, &Mt, m * m, &Kt, m * m, &Dt, m, &ft));
  PetscCall(PetscCalloc5(n, &f, m, &q, m, &qp, m, &qn, m, &r));
  PetscCall(PetscCalloc2(n, &u, m, &q0));
  for (PetscInt a = 0; a < 3; a++) f[BoundaryDof(bd[0], nodes_A[a], 1)] = -P / 3;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscInt  bi = i < n1 ? 0 : 1, bj = j < n1 ? 0 : 1, nk = bi ? n2 : n1, o = bi ? n1 : 0;
      PetscReal kij, mij, dij;
      if (bi != bj) continue;
      kij = K[bi][(i - o) * nk + j - o];
      mij = M[bi][(i - o) * nk + j - o];
      dij = D[bi][(i - o) * nk + j - o];
      for (PetscInt a = 0; a < m; a++) {
        PetscReal la = L[i * m + a];
        if (la == 0) continue;
        for (PetscInt b = 0; b < m; b++) {
          PetscReal lb = L[j * m + b];
          if (lb == 0) continue;
          Kt[a * m + b] += la * kij * lb;
          Mt[a * m + b] += la * mij * lb;
          Dt[a * m + b] += la * dij * lb;
        }
      }
    }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt a = 0; a < m; a++) ft[a] += L[i * m + a] * f[i];
  PetscCall(PetscBLASIntCast(m, &bm));
  /* start at rest at half the static deflection under the preload, q_0 = q_s / 2 with K~ q_s = f~: the contact force then
     swings about P and stays positive (a sudden preload from the undeformed state lifts C off) */
  {
    PetscReal *Kc;
    PetscCall(PetscMalloc1(m * m, &Kc));
    PetscCall(PetscArraycpy(Kc, Kt, m * m));
    PetscCall(PetscArraycpy(q, ft, m));
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bm, Kc, &bm, &info));
    PetscCheck(info == 0, comm, PETSC_ERR_LIB, "the primal stiffness is singular: potrf info %d", (int)info);
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bm, &one, Kc, &bm, q, &bm, &info));
    PetscCall(PetscFree(Kc));
    for (PetscInt a = 0; a < m; a++) q0[a] = q[a] = qp[a] = 0.5 * q[a];
    for (PetscInt i = 0; i < n; i++) {
      u[i] = 0;
      for (PetscInt a = 0; a < m; a++) u[i] += L[i * m + a] * q[a];
    }
    PetscCall(VIDualSetInitialDisplacement(dual, 0, u));
    PetscCall(VIDualSetInitialDisplacement(dual, 1, u + n1));
  }
  PetscCall(VIDualSetUp(dual));
  PetscCall(VIDualGetTimeStep(dual, &dt));
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bm, Mt, &bm, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_LIB, "potrf info %d", (int)info);

  for (PetscInt s = 0; s < nsteps; s++) {
    const VIDualContact *rec;
    const PetscReal     *q1, *q2;
    PetscInt             nc;
    /* primal: M~ (q_{n+1} - 2 q_n + q_{n-1}) = h^2 (f~ - D~ (q_n - q_{n-1}) / h - K~ q_n) */
    for (PetscInt a = 0; a < m; a++) {
      PetscReal s2 = ft[a];
      for (PetscInt b = 0; b < m; b++) s2 -= Dt[a * m + b] * (q[b] - qp[b]) / dt + Kt[a * m + b] * q[b];
      r[a] = dt * dt * s2;
    }
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bm, &one, Mt, &bm, r, &bm, &info));
    for (PetscInt a = 0; a < m; a++) {
      qn[a] = 2 * q[a] - qp[a] + r[a];
      qp[a] = q[a];
      q[a]  = qn[a];
    }
    PetscCall(VIDualStep(dual));
    PetscCall(VIDualGetContacts(dual, &nc, &rec));
    PetscCheck(rec[0].status == VI_DUAL_SLIP && rec[0].segment == 3 && PetscAbsReal(rec[0].xi - xi) < 1e-14, comm, PETSC_ERR_PLIB,
               "step %" PetscInt_FMT ": contact %s on segment %" PetscInt_FMT " at xi %g, expected closed on segment 3 at 1/3", s,
               VIDualStatuses[rec[0].status], rec[0].segment, (double)rec[0].xi);
    lmin = PetscMin(lmin, rec[0].normal);
    lmax = PetscMax(lmax, rec[0].normal);
    PetscCall(VIDualGetDisplacement(dual, 0, &q1));
    PetscCall(VIDualGetDisplacement(dual, 1, &q2));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal up = 0, ud = i < n1 ? q1[i] : q2[i - n1];
      for (PetscInt a = 0; a < m; a++) up += L[i * m + a] * q[a];
      err  = PetscMax(err, PetscAbsReal(ud - up));
      umax = PetscMax(umax, PetscAbsReal(up));
    }
  }
  PetscCall(PetscPrintf(comm,
                        "primal: %" PetscInt_FMT " + %" PetscInt_FMT " ROM coordinates, %" PetscInt_FMT " primal; dt = %.4g s, %" PetscInt_FMT
                        " steps; normal force in [%.4g, %.4g] N (preload %g); max |u_dual - L q_primal| = %.3e of max |u| = %.4e (relative %.2e)\n",
                        n1, n2, m, (double)dt, nsteps, (double)lmin, (double)lmax, (double)P, (double)err, (double)umax, (double)(err / umax)));
  PetscCheck(lmin > 0, comm, PETSC_ERR_PLIB, "the contact opened (normal force %g): the tie of the primal model does not apply", (double)lmin);
  PetscCheck(err <= 5e-10 * umax, comm, PETSC_ERR_PLIB, "dual and primal transients differ by %g, above 5e-10 of %g", (double)err, (double)umax);
  PetscCall(CheckRanks(comm, err, "the dual-primal difference"));
  PetscCall(PetscPrintf(comm, "OK: the dual assembly equals the primal one to %.1e relative (tolerance 5e-10)\n", (double)(err / umax)));
  PetscCall(VIDualDestroy(&dual));

  /* the static start (VI_DUAL_START_STATIC) against the primal static solution L q_s, K~ q_s = f~ (q_0 = q_s / 2 above), and
     then at rest: 2000 steps without moving */
  PetscCall(VIDualCreate(comm, &dual));
  PetscCall(VIDualSetBodies(dual, bodies));
  PetscCall(VIDualSetSlave(dual, "beam1", 1, &node_C));
  PetscCall(VIDualSetMaster(dual, "beam2", 0, NULL));
  PetscCall(VIDualSetGeometry(dual, VI_DUAL_GEOMETRY_FIXED));
  PetscCall(VIDualAddDrive(dual, "beam1", 3, nodes_A, 0, 0.0));
  {
    const PetscReal force[3] = {0, -P, 0};
    PetscCall(VIDualAddLoad(dual, "beam1", 3, nodes_A, force));
  }
  PetscCall(VIDualSetStart(dual, VI_DUAL_START_STATIC));
  PetscCall(VIDualSetUp(dual));
  err = umax = 0;
  for (PetscInt s = 0; s <= 2000; s++) {
    const PetscReal *q1, *q2;
    if (s) PetscCall(VIDualStep(dual));
    PetscCall(VIDualGetDisplacement(dual, 0, &q1));
    PetscCall(VIDualGetDisplacement(dual, 1, &q2));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal up = 0, ud = i < n1 ? q1[i] : q2[i - n1];
      for (PetscInt a = 0; a < m; a++) up += 2 * L[i * m + a] * q0[a];
      err  = PetscMax(err, PetscAbsReal(ud - up));
      umax = PetscMax(umax, PetscAbsReal(up));
    }
  }
  PetscCall(PetscPrintf(comm, "static start: max |u_dual - L q_s| over the start and 2000 steps at rest = %.3e of max |u| = %.4e (relative %.2e)\n",
                        (double)err, (double)umax, (double)(err / umax)));
  PetscCheck(err <= 1e-10 * umax, comm, PETSC_ERR_PLIB, "the static start differs from the primal static solution by %g, above 1e-10 of %g",
             (double)err, (double)umax);
  PetscCall(CheckRanks(comm, err, "the static start's difference"));
  PetscCall(PetscFree(col));
  PetscCall(PetscFree(L));
  PetscCall(PetscFree4(Mt, Kt, Dt, ft));
  PetscCall(PetscFree5(f, q, qp, qn, r));
  PetscCall(PetscFree2(u, q0));
  PetscCall(VIDualDestroy(&dual));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ a slider on an elastic track (cases search, energy) */

#define TRACK_N 6    /* track nodes at x = 0, 10, ..., 50 */
#define TRACK_L 10.0 /* segment length */

/* slider: C (id 1) at (x0, 0) and A (id 2) at (x0, 10), spring ks between them in x and y, masses mC, mA, Rayleigh damping;
   track: TRACK_N nodes on ground springs kg (x, y) and coupled to their neighbours by kc (x, y). Units N, mm, t, s. */
static PetscErrorCode SliderBodies(MPI_Comm comm, PetscReal x0, PetscBool damped, VIBodies *bodies)
{
  const PetscReal ks = 1e3, mC = 1e-3, mA = 1e-3, kg = 1e3, kc = 2e3, mT = 1e-3, ra = damped ? 20.0 : 0, rb = damped ? 2e-5 : 0;
  const PetscInt  sid[2] = {1, 2}, nt = 2 * TRACK_N;
  PetscInt        tid[TRACK_N];
  PetscReal       sxy[4] = {x0, 0, x0, 10}, txy[2 * TRACK_N], Ks[16] = {0}, Ms[16] = {0}, Ds[16], *Kt, *Mt, *Dt;

  PetscFunctionBeginUser;
  PetscCall(VIBodiesCreate(comm, bodies));
  for (PetscInt c = 0; c < 2; c++) {
    Ks[c * 4 + c] = Ks[(2 + c) * 4 + 2 + c] = ks;
    Ks[c * 4 + 2 + c] = Ks[(2 + c) * 4 + c] = -ks;
    Ms[c * 4 + c]                           = mC;
    Ms[(2 + c) * 4 + 2 + c]                 = mA;
  }
  for (PetscInt i = 0; i < 16; i++) Ds[i] = ra * Ms[i] + rb * Ks[i];
  PetscCall(AddBody(*bodies, "slider", 2, sid, sxy, NULL, Ks, Ms, Ds));
  PetscCall(PetscCalloc3(nt * nt, &Kt, nt * nt, &Mt, nt * nt, &Dt));
  for (PetscInt i = 0; i < TRACK_N; i++) {
    tid[i]         = 10 + i;
    txy[2 * i]     = TRACK_L * i;
    txy[2 * i + 1] = 0;
    for (PetscInt c = 0; c < 2; c++) {
      PetscInt a = 2 * i + c;
      Kt[a * nt + a] += kg;
      Mt[a * nt + a] = mT;
      if (i + 1 < TRACK_N) {
        PetscInt b = a + 2;
        Kt[a * nt + a] += kc;
        Kt[b * nt + b] += kc;
        Kt[a * nt + b] -= kc;
        Kt[b * nt + a] -= kc;
      }
    }
  }
  for (PetscInt i = 0; i < nt * nt; i++) Dt[i] = ra * Mt[i] + rb * Kt[i];
  PetscCall(AddBody(*bodies, "track", TRACK_N, tid, txy, NULL, Kt, Mt, Dt));
  {
    VIROM     rom;
    PetscReal o[2 * TRACK_N] = {0};
    o[2 * 2 + 1]             = 1; /* y of track node 12 */
    PetscCall(VIBodiesGet(*bodies, 1, NULL, &rom, NULL));
    PetscCall(VIROMAddOutput(rom, "n12_y", o));
  }
  PetscCall(PetscFree3(Kt, Mt, Dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slider on the track: C slave, the track's nodes the master chain, A driven along x at v and pushed down by P; a slave
   force s(t) along the track's normal at C unless s is NULL. */
static PetscErrorCode SliderConfigure(VIDual dual, PetscReal mu, PetscReal v, PetscReal P, PetscReal dt, VIExcitation s)
{
  const PetscInt  c = 1, a = 2;
  const PetscReal force[3] = {0, -P, 0};

  PetscFunctionBeginUser;
  PetscCall(VIDualSetSlave(dual, "slider", 1, &c));
  PetscCall(VIDualSetMaster(dual, "track", 0, NULL));
  PetscCall(VIDualSetFriction(dual, mu));
  PetscCall(VIDualAddDrive(dual, "slider", 1, &a, 0, v));
  PetscCall(VIDualAddLoad(dual, "slider", 1, &a, force));
  PetscCall(VIDualSetTimeStep(dual, dt));
  if (s) PetscCall(VIDualSetSlaveForce(dual, 0, s, NULL));
  PetscCall(VIDualSetFromOptions(dual));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SliderDual(MPI_Comm comm, VIBodies bodies, PetscReal mu, PetscReal v, PetscReal P, PetscReal dt, VIExcitation s, VIDual *dual)
{
  PetscFunctionBeginUser;
  PetscCall(VIDualCreate(comm, dual));
  PetscCall(VIDualSetBodies(*dual, bodies));
  PetscCall(SliderConfigure(*dual, mu, v, P, dt, s));
  PetscCall(VIDualSetUp(*dual));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slave crosses the track's nodes (segment k, xi -> 1 to segment k + 1, xi -> 0) and leaves its end (off, no force). */
static PetscErrorCode CaseSearch(MPI_Comm comm)
{
  VIBodies  bodies;
  VIDual    dual;
  PetscReal dt, v = 100, P = 100, mu = 0.2, x0 = 3, t_settle = 0.2; /* the start's transient decays by t_settle */
  PetscInt  nsteps, crossings = 0, off_step = -1, prev_seg = -1, num_slip = 0;
  PetscReal prev_s = 0, prev_gap = 0, prev_l = 0, prev_xi = 0, ds_max = 0, ds_cross = 0, dg_max = 0, dg_cross = 0, dl_max = 0, dl_cross = 0,
            gap_max = 0, cone_err = 0, out = 0;

  PetscFunctionBeginUser;
  PetscBool series = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-series", &series, NULL));
  PetscCall(SliderBodies(comm, x0, PETSC_TRUE, &bodies));
  PetscCall(SliderDual(comm, bodies, mu, v, P, 0, NULL, &dual));
  PetscCall(VIDualGetTimeStep(dual, &dt));
  nsteps = (PetscInt)((TRACK_L * (TRACK_N - 1) - x0 + 5) / v / dt); /* 5 mm beyond the end */
  for (PetscInt s = 0; s < nsteps; s++) {
    const VIDualContact *rc;
    const PetscReal     *o;
    PetscInt             nc, no;
    PetscReal            t;
    PetscCall(VIDualStep(dual));
    PetscCall(VIDualGetContacts(dual, &nc, &rc));
    PetscCall(VIDualGetTime(dual, &t, NULL));
    PetscCall(VIDualGetOutputs(dual, &no, &o));
    PetscCheck(no == 1, comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " outputs, expected 1", no);
    out = o[0];
    if (series)
      PetscCall(PetscPrintf(comm, "%g %s %" PetscInt_FMT " %.6f %.3e %.6g %.6g %.6g %.6g\n", (double)t, VIDualStatuses[rc->status], rc->segment,
                            (double)rc->xi, (double)rc->gap, (double)rc->normal, (double)rc->tangential, (double)rc->slip_velocity, (double)out));
    if (rc->status == VI_DUAL_OFF) {
      PetscCheck(rc->segment == -1 && rc->normal == 0 && rc->tangential == 0 && PetscIsNanReal(rc->gap), comm, PETSC_ERR_PLIB,
                 "step %" PetscInt_FMT ": off, but segment %" PetscInt_FMT ", forces %g %g, gap %g", s, rc->segment, (double)rc->normal,
                 (double)rc->tangential, (double)rc->gap);
      if (off_step < 0) {
        off_step = s;
        PetscCheck(prev_seg == TRACK_N - 2 && prev_xi > 1 - 2 * v * dt / TRACK_L, comm, PETSC_ERR_PLIB,
                   "released at step %" PetscInt_FMT " from segment %" PetscInt_FMT " at xi %g, expected the last segment's end", s, prev_seg,
                   (double)prev_xi);
      }
      continue;
    }
    PetscCheck(off_step < 0, comm, PETSC_ERR_PLIB, "step %" PetscInt_FMT ": back on the track after its release", s);
    {
      PetscReal sp = rc->segment + rc->xi; /* position along the chain, in segments */
      if (prev_seg >= 0 && rc->segment != prev_seg) {
        PetscCheck(rc->segment == prev_seg + 1, comm, PETSC_ERR_PLIB, "step %" PetscInt_FMT ": from segment %" PetscInt_FMT " to %" PetscInt_FMT, s,
                   prev_seg, rc->segment);
        crossings++;
      }
      if (t > t_settle && prev_seg >= 0) {
        PetscReal ds = PetscAbsReal(sp - prev_s), dg = PetscAbsReal(rc->gap - prev_gap), dl = PetscAbsReal(rc->normal - prev_l);
        if (rc->segment != prev_seg) {
          ds_cross = PetscMax(ds_cross, ds);
          dg_cross = PetscMax(dg_cross, dg);
          dl_cross = PetscMax(dl_cross, dl);
        } else {
          ds_max = PetscMax(ds_max, ds);
          dg_max = PetscMax(dg_max, dg);
          dl_max = PetscMax(dl_max, dl);
        }
      }
      prev_s = sp;
    }
    if (rc->status == VI_DUAL_SLIP) {
      num_slip++;
      gap_max  = PetscMax(gap_max, PetscAbsReal(rc->gap));
      cone_err = PetscMax(cone_err, PetscAbsReal(rc->tangential + mu * rc->normal * (rc->slip_velocity > 0 ? 1 : -1)) / rc->normal);
    }
    prev_seg = rc->segment;
    prev_xi  = rc->xi;
    prev_gap = rc->gap;
    prev_l   = rc->normal;
  }
  PetscCall(
      PetscPrintf(comm,
                  "search: dt = %.4g s, %" PetscInt_FMT " steps, %" PetscInt_FMT " node crossings, released at step %" PetscInt_FMT
                  "; step-to-step change elsewhere / at the crossings: position %.4g / %.4g segments, gap %.3e / %.3e mm, normal force %.4g / %.4g N;"
                  " max |gap| while sliding %.2e mm; friction off the cone %.1e; %" PetscInt_FMT " sliding steps\n",
                  (double)dt, nsteps, crossings, off_step, (double)ds_max, (double)ds_cross, (double)dg_max, (double)dg_cross, (double)dl_max,
                  (double)dl_cross, (double)gap_max, (double)cone_err, num_slip));
  PetscCheck(crossings == TRACK_N - 2, comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " node crossings, expected %d", crossings, TRACK_N - 2);
  PetscCheck(off_step > 0 && nsteps - off_step > 10, comm, PETSC_ERR_PLIB, "release at step %" PetscInt_FMT " of %" PetscInt_FMT, off_step, nsteps);
  PetscCheck(ds_cross <= 1.5 * ds_max, comm, PETSC_ERR_PLIB, "the position jumps at a node: %g segments, %g elsewhere", (double)ds_cross,
             (double)ds_max);
  PetscCheck(dg_cross <= 1.5 * dg_max, comm, PETSC_ERR_PLIB, "the gap jumps at a node: %g, %g elsewhere", (double)dg_cross, (double)dg_max);
  PetscCheck(dl_cross <= 1.5 * dl_max, comm, PETSC_ERR_PLIB, "the normal force jumps at a node: %g, %g elsewhere", (double)dl_cross, (double)dl_max);
  PetscCheck(gap_max <= 1e-9, comm, PETSC_ERR_PLIB, "a closed contact has |gap| %g > 1e-9 mm", (double)gap_max);
  PetscCheck(num_slip > nsteps / 2 && cone_err <= 1e-8, comm, PETSC_ERR_PLIB, "sliding friction off the cone by %g (tolerance 1e-8)",
             (double)cone_err);
  PetscCall(CheckRanks(comm, out, "the output n12_y"));
  PetscCall(PetscPrintf(comm, "OK: continuous across the nodes (within 1.5 x the step-to-step change elsewhere), released at the end\n"));
  PetscCall(VIDualDestroy(&dual));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frictionless sliding with time step dt over the same time: the residual of E_{n+1/2} - E_{-1/2} + damping = load + drive +
   contact work (exact for the scheme) and the contact work, both relative to the energy scale. */
static PetscErrorCode EnergyRun(MPI_Comm comm, PetscReal dt, PetscReal T, PetscReal *dt_used, PetscReal *closure, PetscReal *contact, VIDualEnergy *e)
{
  VIBodies  bodies;
  VIDual    dual;
  PetscReal v = 100, P = 100, x0 = 3, scale = 0;
  PetscInt  nsteps;

  PetscFunctionBeginUser;
  PetscCall(SliderBodies(comm, x0, PETSC_TRUE, &bodies));
  PetscCall(SliderDual(comm, bodies, 0.0, v, P, dt, NULL, &dual));
  PetscCall(VIDualGetTimeStep(dual, dt_used));
  nsteps   = (PetscInt)(T / *dt_used + 0.5);
  *closure = *contact = 0;
  for (PetscInt s = 0; s < nsteps; s++) {
    const VIDualContact *rc;
    PetscInt             nc;
    PetscCall(VIDualStep(dual));
    PetscCall(VIDualGetContacts(dual, &nc, &rc));
    PetscCheck(rc->status != VI_DUAL_OFF, comm, PETSC_ERR_PLIB, "step %" PetscInt_FMT ": the slider left the track", s);
    PetscCall(VIDualGetEnergy(dual, e));
    scale    = PetscMax(scale, PetscAbsReal(e->kinetic) + PetscAbsReal(e->potential) + PetscAbsReal(e->damping) + PetscAbsReal(e->load_work) +
                                   PetscAbsReal(e->drive_work));
    *closure = PetscMax(*closure, PetscAbsReal(e->kinetic + e->potential - e->initial + e->damping - e->load_work - e->drive_work - e->contact_work));
    *contact = PetscMax(*contact, PetscAbsReal(e->contact_work));
  }
  *closure /= scale;
  *contact /= scale;
  PetscCall(PetscPrintf(comm,
                        "energy: %" PetscInt_FMT
                        " steps of %.4g s; at the end kinetic %.6g, potential %.6g, damping %.6g, load work %.6g, drive work %.6g, "
                        "contact work %.4g (N mm); energy scale %.6g; max |identity residual| %.1e, max |contact work| %.3e of the scale\n",
                        nsteps, (double)*dt_used, (double)e->kinetic, (double)e->potential, (double)e->damping, (double)e->load_work,
                        (double)e->drive_work, (double)e->contact_work, (double)scale, (double)*closure, (double)*contact));
  PetscCall(VIDualDestroy(&dual));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The identity closes to rounding. The frictionless contact does work: the forward increment pairs lambda_n with the rows of
   t_{n+1}, and on a master whose segments turn under the moving load lambda_n B_{n+1} (u_{n+1} - u_{n-1}) / 2 is not zero;
   measured, it is second order in dt (the test asserts a ratio 4 +- 0.6 per halving of dt). */
static PetscErrorCode CaseEnergy(MPI_Comm comm)
{
  const PetscReal T = 0.4; /* s: 40 mm of the 50 mm track from x0 = 3 */
  PetscReal       dt[3], closure[3], contact[3];
  VIDualEnergy    e;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(EnergyRun(comm, k ? dt[k - 1] / 2 : 0, T, &dt[k], &closure[k], &contact[k], &e));
    PetscCheck(closure[k] <= 1e-11, comm, PETSC_ERR_PLIB, "dt = %g: the energy identity is off by %g of the scale, above 1e-11", (double)dt[k],
               (double)closure[k]);
  }
  for (PetscInt k = 1; k < 3; k++) {
    PetscReal ratio = contact[k - 1] / contact[k];
    PetscCheck(ratio >= 3.4 && ratio <= 4.6, comm, PETSC_ERR_PLIB,
               "frictionless contact work %g -> %g of the scale when dt halves: ratio %g, expected 4 +- 0.6 (second order)", (double)contact[k - 1],
               (double)contact[k], (double)ratio);
  }
  PetscCall(CheckRanks(comm, e.drive_work, "the drive work"));
  PetscCall(PetscPrintf(comm,
                        "OK: identity closes to %.1e (tolerance 1e-11); frictionless contact work %.2e -> %.2e -> %.2e of the scale as dt halves "
                        "(ratios %.3f, %.3f; expected 4 +- 0.6)\n",
                        (double)PetscMax(closure[0], PetscMax(closure[1], closure[2])), (double)contact[0], (double)contact[1], (double)contact[2],
                        (double)(contact[0] / contact[1]), (double)(contact[1] / contact[2])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case friction */

/* The block of cases friction and force: a one-node body of mass m (free in x and y) on a rigid plane (the master segment
   between nodes at x = -100 and 100, both clamped), loaded by the constant force `force`; the caller adds what differs and
   sets it up. */
static PetscErrorCode BlockOnPlane(MPI_Comm comm, PetscReal m, PetscReal dt, const PetscReal force[3], VIBodies *bodies, VIDual *dual)
{
  const PetscInt  bid = 1, pid[3] = {1, 2, 3};
  const PetscReal bxy[2] = {0, 0}, pxy[6] = {-100, 0, 100, 0, 0, -50};
  const PetscBool pclamp[3] = {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};
  PetscReal       Kb[4] = {0}, Mb[4] = {m, 0, 0, m}, Kp[4] = {1, 0, 0, 1}, Mp[4] = {1, 0, 0, 1};

  PetscFunctionBeginUser;
  PetscCall(VIBodiesCreate(comm, bodies));
  PetscCall(AddBody(*bodies, "block", 1, &bid, bxy, NULL, Kb, Mb, NULL));
  PetscCall(AddBody(*bodies, "plane", 3, pid, pxy, pclamp, Kp, Mp, NULL));
  PetscCall(VIDualCreate(comm, dual));
  PetscCall(VIDualSetBodies(*dual, *bodies));
  PetscCall(VIDualSetSlave(*dual, "block", 1, &bid));
  PetscCall(VIDualSetMaster(*dual, "plane", 2, pid));
  PetscCall(VIDualSetTimeStep(*dual, dt));
  PetscCall(VIDualAddLoad(*dual, "block", 1, &bid, force));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A block (mass m, one node) pressed by P on a rigid plane (a master segment with both nodes clamped) and pulled by F: below
   mu P it sticks (x = 0, tangential force -F); above it slides with a = (F - mu P) / m, which the central difference from rest
   reproduces exactly: x_n = a dt^2 n (n + 1) / 2 (x_{-1} = x_0 = 0, the load on from t_0). */
static PetscErrorCode CaseFriction(MPI_Comm comm)
{
  const PetscReal m = 2.0, P = 10.0, mu = 0.3, dt = 1e-3, Fs[2] = {2.0, 5.0};
  const PetscInt  nsteps = 500;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    VIBodies        bodies;
    VIDual          dual;
    const PetscReal F = Fs[k], force[3] = {F, -P, 0}, a = (F - mu * P) / m;
    PetscReal       err_x = 0, err_y = 0, err_n = 0, err_t = 0, x_end = 0;
    PetscCall(BlockOnPlane(comm, m, dt, force, &bodies, &dual));
    PetscCall(VIDualSetFriction(dual, mu));
    PetscCall(VIDualSetUp(dual));
    for (PetscInt s = 0; s < nsteps; s++) {
      const VIDualContact *rc;
      const PetscReal     *q;
      PetscInt             nc, n1 = s + 1;
      PetscReal            x_exact = k ? a * dt * dt * n1 * (n1 + 1) / 2 : 0, t_exact = k ? -mu * P : -F;
      PetscCall(VIDualStep(dual));
      PetscCall(VIDualGetContacts(dual, &nc, &rc));
      PetscCall(VIDualGetDisplacement(dual, 0, &q));
      PetscCheck(rc->status == (k ? VI_DUAL_SLIP : VI_DUAL_STICK), comm, PETSC_ERR_PLIB, "F = %g, step %" PetscInt_FMT ": %s", (double)F, s,
                 VIDualStatuses[rc->status]);
      err_x = PetscMax(err_x, PetscAbsReal(q[0] - x_exact) / (k ? x_exact : 1));
      err_y = PetscMax(err_y, PetscAbsReal(q[1]));
      err_n = PetscMax(err_n, PetscAbsReal(rc->normal - P) / P);
      err_t = PetscMax(err_t, PetscAbsReal(rc->tangential - t_exact) / P);
      x_end = q[0];
    }
    PetscCall(PetscPrintf(comm,
                          "friction: F = %g %s mu P = %g: x(t = %g) = %.10g mm (exact %.10g), max error of x %.2e (%s), |y| %.1e, normal force %.1e, "
                          "tangential force %.1e (relative to P)\n",
                          (double)F, k ? ">" : "<", (double)(mu * P), (double)(nsteps * dt), (double)x_end,
                          (double)(k ? a * dt * dt * nsteps * (nsteps + 1) / 2 : 0), (double)err_x, k ? "relative" : "absolute, mm", (double)err_y,
                          (double)err_n, (double)err_t));
    PetscCheck(err_x <= 1e-12 && err_y <= 1e-12 && err_n <= 1e-10 && err_t <= 1e-10, comm, PETSC_ERR_PLIB,
               "F = %g: errors x %g, y %g, normal %g, tangential %g above 1e-12, 1e-12, 1e-10, 1e-10", (double)F, (double)err_x, (double)err_y,
               (double)err_n, (double)err_t);
    PetscCall(CheckRanks(comm, x_end, "the block's position"));
    PetscCall(VIDualDestroy(&dual));
    PetscCall(VIBodiesDestroy(&bodies));
  }
  PetscCall(PetscPrintf(comm, "OK: stick below mu P, exact sliding acceleration above (x to 1e-12, forces to 1e-10)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case force */

/* The block of case friction, frictionless, pressed by P, with a time-dependent slave force s(t) = A cos(2 pi f t)
   (VIDualSetSlaveForce): along the master's normal (dir NULL), it stays on the plane with the normal force P - s(t_n)
   exactly (the load of step n is s(t_n)); along x, x_n follows m (x_{n+1} - 2 x_n + x_{n-1}) / h^2 = s(t_n) from rest,
   the recurrence run here, and the load work is the sum of s(t_n) (x_{n+1} - x_{n-1}) / 2 (to 1e-10), with the energy
   identity closed (to 1e-10 of the load work: its 500 increments oscillate in sign about a net 4e-6 N mm). */
static PetscErrorCode CaseForce(MPI_Comm comm)
{
  const PetscReal m = 2.0, P = 10.0, A = 4.0, f = 7.0, dt = 1e-3, xdir[2] = {1, 0};
  const PetscInt  nsteps   = 500;
  const PetscReal force[3] = {0, -P, 0};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    VIBodies     bodies;
    VIDual       dual;
    VIExcitation s;
    PetscReal    err_n = 0, err_x = 0, err_f = 0, x_prev = 0, x_cur = 0, lw = 0, closure;
    VIDualEnergy e;
    PetscCall(BlockOnPlane(comm, m, dt, force, &bodies, &dual));
    PetscCall(VIExcitationCreate(comm, &s));
    PetscCall(VIExcitationSetType(s, VI_EXCITE_HARMONIC));
    PetscCall(VIExcitationSetAmplitude(s, 0, A));
    PetscCall(VIExcitationSetHarmonic(s, f, 0));
    PetscCall(VIDualSetSlaveForce(dual, 0, s, k ? xdir : NULL));
    PetscCall(VIDualSetUp(dual));
    for (PetscInt n = 0; n < nsteps; n++) {
      const VIDualContact *rc;
      const PetscReal     *q;
      PetscInt             nc;
      PetscReal            sn = A * PetscCosReal(2 * PETSC_PI * f * n * dt), val, vec[2];
      PetscCall(VIDualStep(dual));
      PetscCall(VIDualGetContacts(dual, &nc, &rc));
      PetscCall(VIDualGetDisplacement(dual, 0, &q));
      PetscCall(VIDualGetSlaveForce(dual, 0, &val, vec));
      err_f = PetscMax(err_f, PetscAbsReal(val - sn) + PetscAbsReal(vec[0] - (k ? sn : 0)) + PetscAbsReal(vec[1] - (k ? 0 : sn)));
      if (!k) {
        err_n = PetscMax(err_n, PetscAbsReal(rc->normal - (P - sn)) / P);
        err_x = PetscMax(err_x, PetscAbsReal(q[0]) + PetscAbsReal(q[1]));
      } else {
        PetscReal x_next = 2 * x_cur - x_prev + dt * dt * sn / m; /* the recurrence; x_prev = x_{n-1}, x_cur = x_n */
        lw += sn * (x_next - x_prev) / 2;
        err_x  = PetscMax(err_x, PetscAbsReal(q[0] - x_next) / (A * dt * dt / m));
        err_n  = PetscMax(err_n, PetscAbsReal(rc->normal - P) / P);
        x_prev = x_cur;
        x_cur  = x_next;
      }
    }
    PetscCall(VIDualGetEnergy(dual, &e));
    closure = (e.kinetic + e.potential - e.initial + e.damping - e.load_work - e.drive_work - e.contact_work) / PetscMax(e.load_work, 1e-300);
    if (!k) lw = e.load_work; /* along the normal the block does not move: no work */
    PetscCall(PetscPrintf(comm,
                          "force: s(t) = %g cos(2 pi %g t) along %s: force recorded to %.1e, %s %.2e, normal force %.2e of P; load work %.10g "
                          "(recomputed: %.1e relative), identity closes to %.1e\n",
                          (double)A, (double)f, k ? "x" : "the master's normal", (double)err_f, k ? "x against the recurrence" : "|x| + |y|",
                          (double)err_x, (double)err_n, (double)e.load_work,
                          (double)(PetscAbsReal(lw - e.load_work) / PetscMax(PetscAbsReal(lw), 1e-300)), (double)PetscAbsReal(closure)));
    PetscCheck(err_f <= 1e-12 && err_x <= 1e-10 && err_n <= 1e-12 && PetscAbsReal(lw - e.load_work) <= 1e-10 * PetscMax(PetscAbsReal(lw), 1e-300) &&
                   PetscAbsReal(closure) <= 1e-10,
               comm, PETSC_ERR_PLIB, "slave force along %s: errors force %g, x %g, normal %g, load work %g vs %g, closure %g", k ? "x" : "the normal",
               (double)err_f, (double)err_x, (double)err_n, (double)e.load_work, (double)lw, (double)closure);
    PetscCall(CheckRanks(comm, x_cur, "the block's position"));
    PetscCall(VIDualDestroy(&dual));
    PetscCall(VIExcitationDestroy(&s));
    PetscCall(VIBodiesDestroy(&bodies));
  }
  PetscCall(PetscPrintf(comm, "OK: the slave force of step n is s(t_n), along the normal or a fixed direction, its work in the load work\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case state */

static PetscBool SameReal(PetscReal a, PetscReal b)
{
  return a == b || (PetscIsNanReal(a) && PetscIsNanReal(b)) ? PETSC_TRUE : PETSC_FALSE;
}

/* How many of the quantities the getters of a and b return differ (bit for bit, NaNs equal): time and step, every body's
   displacement, the contact records, the slave force, the outputs and the energy terms. */
static PetscErrorCode DualDifferences(VIDual a, VIDual b, PetscInt nbodies, PetscInt nbody[], PetscInt *ndiff)
{
  const VIDualContact *ra, *rb;
  const PetscReal     *oa, *ob;
  PetscInt             na, nb, sa, sb;
  PetscReal            ta, tb, fa[3], fb[3];
  VIDualEnergy         ea, eb;

  PetscFunctionBeginUser;
  *ndiff = 0;
  PetscCall(VIDualGetTime(a, &ta, &sa));
  PetscCall(VIDualGetTime(b, &tb, &sb));
  *ndiff += !SameReal(ta, tb) + (sa != sb);
  for (PetscInt k = 0; k < nbodies; k++) {
    const PetscReal *qa, *qb;
    PetscCall(VIDualGetDisplacement(a, k, &qa));
    PetscCall(VIDualGetDisplacement(b, k, &qb));
    for (PetscInt i = 0; i < nbody[k]; i++) *ndiff += !SameReal(qa[i], qb[i]);
  }
  PetscCall(VIDualGetContacts(a, &na, &ra));
  PetscCall(VIDualGetContacts(b, &nb, &rb));
  for (PetscInt j = 0; j < na; j++) {
    *ndiff += (ra[j].status != rb[j].status) + (ra[j].segment != rb[j].segment) + !SameReal(ra[j].xi, rb[j].xi) + !SameReal(ra[j].gap, rb[j].gap) +
              !SameReal(ra[j].normal, rb[j].normal) + !SameReal(ra[j].tangential, rb[j].tangential) +
              !SameReal(ra[j].slip_velocity, rb[j].slip_velocity);
    PetscCall(VIDualGetSlaveForce(a, j, &fa[0], fa + 1));
    PetscCall(VIDualGetSlaveForce(b, j, &fb[0], fb + 1));
    for (PetscInt c = 0; c < 3; c++) *ndiff += !SameReal(fa[c], fb[c]);
  }
  PetscCall(VIDualGetOutputs(a, &na, &oa));
  PetscCall(VIDualGetOutputs(b, &nb, &ob));
  for (PetscInt o = 0; o < na; o++) *ndiff += !SameReal(oa[o], ob[o]);
  PetscCall(VIDualGetEnergy(a, &ea));
  PetscCall(VIDualGetEnergy(b, &eb));
  *ndiff += !SameReal(ea.kinetic, eb.kinetic) + !SameReal(ea.potential, eb.potential) + !SameReal(ea.damping, eb.damping) +
            !SameReal(ea.load_work, eb.load_work) + !SameReal(ea.drive_work, eb.drive_work) + !SameReal(ea.contact_work, eb.contact_work) +
            !SameReal(ea.initial, eb.initial);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VIDualGetState / VIDualSetState (the checkpoint of vicms slide): the damped slider with friction and a harmonic slave force,
   n1 steps, its state taken into a second VIDual set up alike, then n2 more steps on both: after the restore and after every
   step, every quantity the getters return equal bit for bit. A VIDual with another time step refuses the state. */
static PetscErrorCode CaseState(MPI_Comm comm)
{
  const PetscReal v = 100, P = 100, mu = 0.2, x0 = 3;
  VIBodies        bodies;
  VIDual          a, b, c;
  VIExcitation    s;
  PetscReal       dt, *state;
  PetscInt        len, n1, n2, nb[2], ndiff = 0, diff_steps = 0, counts[4] = {0, 0, 0, 0}, nseg = 0, prev_seg = -1;
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  PetscCall(SliderBodies(comm, x0, PETSC_TRUE, &bodies));
  PetscCall(VIExcitationCreate(comm, &s));
  PetscCall(VIExcitationSetType(s, VI_EXCITE_HARMONIC));
  PetscCall(VIExcitationSetAmplitude(s, 0, 20.0));
  PetscCall(VIExcitationSetHarmonic(s, 300.0, 0));
  PetscCall(SliderDual(comm, bodies, mu, v, P, 0, s, &a));
  PetscCall(VIDualGetTimeStep(a, &dt));
  n1 = (PetscInt)((TRACK_L * (TRACK_N - 1) - x0 - 5) / v / dt / 2); /* over the track's nodes, not off its end */
  n2 = n1;
  for (PetscInt k = 0; k < 2; k++) {
    PetscInt o0, o1;
    PetscCall(VIBodiesGetOffset(bodies, k, &o0));
    PetscCall(VIBodiesGetOffset(bodies, k + 1, &o1));
    nb[k] = o1 - o0;
  }
  for (PetscInt i = 0; i < n1; i++) PetscCall(VIDualStep(a));
  PetscCall(VIDualGetStateSize(a, &len));
  PetscCall(PetscMalloc1(len, &state));
  PetscCall(VIDualGetState(a, state));
  PetscCall(SliderDual(comm, bodies, mu, v, P, 0, s, &b));
  PetscCall(VIDualSetState(b, len, state));
  PetscCall(DualDifferences(a, b, 2, nb, &ndiff));
  PetscCheck(ndiff == 0, comm, PETSC_ERR_PLIB, "after VIDualSetState, %" PetscInt_FMT " quantities differ from the VIDual the state came from",
             ndiff);
  for (PetscInt i = 0; i < n2; i++) {
    const VIDualContact *rc;
    PetscInt             nc, d;
    PetscCall(VIDualStep(a));
    PetscCall(VIDualStep(b));
    PetscCall(DualDifferences(a, b, 2, nb, &d));
    ndiff += d;
    diff_steps += d > 0;
    PetscCall(VIDualGetContacts(b, &nc, &rc));
    counts[rc[0].status]++;
    nseg += rc[0].segment != prev_seg;
    prev_seg = rc[0].segment;
  }
  PetscCall(CheckRanks(comm, (PetscReal)ndiff, "the count of differences"));
  PetscCall(PetscPrintf(comm,
                        "state: %" PetscInt_FMT " values; restored after %" PetscInt_FMT " steps, then %" PetscInt_FMT " steps (%" PetscInt_FMT
                        " slip, %" PetscInt_FMT " stick, %" PetscInt_FMT " open; %" PetscInt_FMT " segments): %" PetscInt_FMT
                        " quantities differ in %" PetscInt_FMT " steps\n",
                        len, n1, n2, counts[VI_DUAL_SLIP], counts[VI_DUAL_STICK], counts[VI_DUAL_OPEN], nseg, ndiff, diff_steps));
  PetscCheck(ndiff == 0 && counts[VI_DUAL_SLIP] > 0 && nseg >= 2, comm, PETSC_ERR_PLIB,
             "the restored VIDual differs (%" PetscInt_FMT " quantities), or the run does not slide across a node", ndiff);
  /* another time step: refused */
  PetscCall(SliderDual(comm, bodies, mu, v, P, dt / 2, s, &c));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VIDualSetState(c, len, state);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_USER_INPUT, comm, PETSC_ERR_PLIB, "a state of another time step was not refused (error %d)", (int)ierr);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VIDualSetState(c, len - 1, state);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_USER_INPUT, comm, PETSC_ERR_PLIB, "a state of the wrong length was not refused (error %d)", (int)ierr);
  PetscCall(PetscPrintf(comm, "OK: the state restores the dual bit for bit; another time step and another length refused\n"));
  PetscCall(PetscFree(state));
  PetscCall(VIDualDestroy(&a));
  PetscCall(VIDualDestroy(&b));
  PetscCall(VIDualDestroy(&c));
  PetscCall(VIExcitationDestroy(&s));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The system type bodies (src/system/bodies.c) on the slider and track, against computations of the test's own: the operators
   are the bodies' ROM matrices on the block diagonal (exactly); at a displaced configuration q the slave's gap is the signed
   distance to its closest point on the deformed track, found by minimising |C - P(xi)|^2 over each segment (1e-12), G its
   gradient by central differences (1e-7), the tangential row the segment's unit tangent with the weights 1, -(1 - xi), -xi
   (1e-14); the rows linearised at q give at q2 the gap g(q) + G (q2 - q) (1e-12); a slave beyond the track's end has no
   gap (+inf, a zero row); the output is the track node's y, the potential energy q^T K q / 2 (1e-14 relative); mu > 0 makes the
   contact unilateral with a tangential row. */
static PetscErrorCode CaseSystem(MPI_Comm comm)
{
  const PetscInt       c = 1;
  VIBodies             bodies;
  VISystem             sys;
  PetscInt             n, nc, nb, ns, nm;
  const PetscInt      *off, *dims;
  const VIContactKind *kinds;
  const PetscReal     *K, *M, *D;
  const VIBodyNode    *slaves, *master;
  PetscReal           *q, *q2, *G, *Gt, g, gfd, V = 0, y, err = 0;

  PetscFunctionBeginUser;
  PetscCall(SliderBodies(comm, 23.0, PETSC_TRUE, &bodies));
  PetscCall(VISystemCreate(comm, &sys));
  PetscCall(VISystemSetType(sys, VISYSTEMBODIES));
  PetscCall(VISystemBodiesSetBodies(sys, bodies));
  PetscCall(VISystemBodiesSetSlave(sys, "slider", 1, &c));
  PetscCall(VISystemBodiesSetMaster(sys, "track", 0, NULL));
  PetscCall(VISystemBodiesSetFriction(sys, 0.3));
  PetscCall(VISystemSetUp(sys));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(VISystemBodiesGetBodies(sys, NULL, &nb, &off));
  PetscCall(VISystemGetLinearOperators(sys, &K, &M, &D));
  for (PetscInt k = 0; k < nb; k++) { /* the ROMs on the block diagonal, zero elsewhere */
    VIROM      rom;
    PetscReal *Kr, *Mr, *Dr;
    PetscInt   o = off[k], nk = off[k + 1] - o;
    PetscCall(VIBodiesGet(bodies, k, NULL, &rom, NULL));
    PetscCall(VIROMGetMatrices(rom, &Kr, &Mr, &Dr));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = o; j < o + nk; j++) {
        PetscBool in = i >= o && i < o + nk;
        PetscCheck(K[i * n + j] == (in ? Kr[(i - o) * nk + j - o] : 0) && M[i * n + j] == (in ? Mr[(i - o) * nk + j - o] : 0) &&
                       D[i * n + j] == (in ? Dr[(i - o) * nk + j - o] : 0),
                   comm, PETSC_ERR_PLIB, "bodies: K, M, D differ from the ROMs' at (%" PetscInt_FMT ", %" PetscInt_FMT ")", i, j);
      }
  }
  PetscCall(VISystemGetContacts(sys, &nc, &kinds, &dims, NULL));
  PetscCheck(nc == 1 && kinds[0] == VI_CONTACT_UNILATERAL && dims[0] == 2, comm, PETSC_ERR_PLIB,
             "bodies: expected one unilateral frictional contact");
  PetscCall(VISystemBodiesGetSlaves(sys, &ns, &slaves, NULL));
  PetscCall(VISystemBodiesGetMaster(sys, &nm, &master, NULL));
  PetscCall(PetscCalloc4(n, &q, n, &q2, n, &G, n, &Gt));
  for (PetscInt i = 0; i < n; i++) q[i] = 0.3 * PetscSinReal(1.7 * i + 0.4); /* track nodes move by up to 0.3 mm; C at x = 23 */
  /* the test's own gap: the closest point of each deformed segment */
  {
    PetscReal C[2], best = PETSC_MAX_REAL, gbest = 0, tbest[2] = {0, 0}, xbest = 0;
    PetscInt  kbest = -1;
    for (PetscInt d = 0; d < 2; d++) C[d] = slaves[0].X[d] + q[slaves[0].dof[d]];
    for (PetscInt k = 0; k + 1 < nm; k++) {
      PetscReal P1[2], P2[2], e[2], xi, P[2], dist;
      for (PetscInt d = 0; d < 2; d++) {
        P1[d] = master[k].X[d] + (master[k].dof[d] >= 0 ? q[master[k].dof[d]] : 0);
        P2[d] = master[k + 1].X[d] + (master[k + 1].dof[d] >= 0 ? q[master[k + 1].dof[d]] : 0);
        e[d]  = P2[d] - P1[d];
      }
      xi = ((C[0] - P1[0]) * e[0] + (C[1] - P1[1]) * e[1]) / (e[0] * e[0] + e[1] * e[1]);
      if (xi < 0 || xi > 1) continue;
      for (PetscInt d = 0; d < 2; d++) P[d] = P1[d] + xi * e[d];
      dist = PetscSqrtReal(PetscSqr(C[0] - P[0]) + PetscSqr(C[1] - P[1]));
      if (dist < best) {
        best     = dist;
        gbest    = (-e[1] * (C[0] - P[0]) + e[0] * (C[1] - P[1]) >= 0 ? 1 : -1) * dist; /* + on the side of n = t turned by +90 degrees */
        kbest    = k;
        xbest    = xi;
        tbest[0] = e[0] / PetscSqrtReal(e[0] * e[0] + e[1] * e[1]);
        tbest[1] = e[1] / PetscSqrtReal(e[0] * e[0] + e[1] * e[1]);
      }
    }
    PetscCheck(kbest == 2, comm, PETSC_ERR_PLIB, "bodies test: the slave at x = 23 should be over segment 2, found %" PetscInt_FMT, kbest);
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, &g, G, NULL));
    PetscCheck(PetscAbsReal(g - gbest) <= 1e-12 * (1 + PetscAbsReal(gbest)), comm, PETSC_ERR_PLIB, "bodies: gap %.17g, the closest point gives %.17g",
               (double)g, (double)gbest);
    for (PetscInt i = 0; i < n; i++) { /* G by central differences */
      const PetscReal h = 1e-6, qi = q[i];
      PetscReal       gp, gm;
      q[i] = qi + h;
      PetscCall(VISystemEvaluateConstraints(sys, 0, q, &gp, NULL, NULL));
      q[i] = qi - h;
      PetscCall(VISystemEvaluateConstraints(sys, 0, q, &gm, NULL, NULL));
      q[i] = qi;
      gfd  = (gp - gm) / (2 * h);
      err  = PetscMax(err, PetscAbsReal(gfd - G[i]));
    }
    PetscCheck(err <= 1e-7, comm, PETSC_ERR_PLIB, "bodies: G differs from the central differences of g by %g", (double)err);
    PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
    {
      const VIBodyNode *nodes[3] = {&slaves[0], &master[kbest], &master[kbest + 1]};
      const PetscReal   w[3]     = {1, -(1 - xbest), -xbest};
      PetscReal         terr     = 0;
      for (PetscInt a = 0; a < 3; a++)
        for (PetscInt d = 0; d < 2; d++)
          if (nodes[a]->dof[d] >= 0) terr = PetscMax(terr, PetscAbsReal(Gt[nodes[a]->dof[d]] - w[a] * tbest[d]));
      PetscCheck(terr <= 1e-14, comm, PETSC_ERR_PLIB, "bodies: the tangential row differs from the segment's tangent by %g", (double)terr);
    }
  }
  /* linearised at q, evaluated at q2 = q + small: g(q) + G (q2 - q) */
  {
    PetscBool on;
    PetscReal gl, lin = g;
    PetscCall(VISystemLinearizeContact(sys, 0, q, &on));
    PetscCheck(on, comm, PETSC_ERR_PLIB, "bodies: the slave is not active at q");
    for (PetscInt i = 0; i < n; i++) {
      q2[i] = q[i] + 0.01 * PetscCosReal(0.9 * i);
      lin += G[i] * (q2[i] - q[i]);
    }
    PetscCall(VISystemEvaluateContactGap(sys, 0, q2, &gl));
    PetscCheck(PetscAbsReal(gl - lin) <= 1e-12 * (1 + PetscAbsReal(lin)), comm, PETSC_ERR_PLIB, "bodies: linearised gap %.17g, expected %.17g",
               (double)gl, (double)lin);
  }
  /* off the track's end: no gap, a zero row */
  q2[slaves[0].dof[0]] = 80 - slaves[0].X[0];
  PetscCall(VISystemEvaluateConstraints(sys, 0, q2, &g, G, NULL));
  PetscCheck(PetscIsInfReal(g) && g > 0, comm, PETSC_ERR_PLIB, "bodies: a slave off the master has gap %g, expected +inf", (double)g);
  for (PetscInt i = 0; i < n; i++) PetscCheck(G[i] == 0, comm, PETSC_ERR_PLIB, "bodies: a slave off the master has a row");
  /* outputs and energy */
  PetscCall(VISystemComputeOutputs(sys, 0, q, NULL, NULL, &y));
  PetscCheck(y == q[off[1] + 2 * 2 + 1], comm, PETSC_ERR_PLIB, "bodies: output %g, expected the y of track node 12, %g", (double)y,
             (double)q[off[1] + 5]);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) V += 0.5 * q[i] * K[i * n + j] * q[j];
  PetscCall(VISystemComputeEnergy(sys, q, NULL, NULL, &g));
  PetscCheck(PetscAbsReal(g - V) <= 1e-14 * V, comm, PETSC_ERR_PLIB, "bodies: potential energy %.17g, q^T K q / 2 = %.17g", (double)g, (double)V);
  PetscCall(PetscPrintf(comm,
                        "OK: bodies system: K, M, D on the block diagonal; gap against the closest point, G against central differences (%.2g), "
                        "the tangential row, the linearised gap, off the end, output, energy\n",
                        (double)err));
  PetscCall(PetscFree4(q, q2, G, Gt));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slider of SliderConfigure as a stepper of type dual, set up (its system in *sys). */
static PetscErrorCode SliderStepper(MPI_Comm comm, VIBodies bodies, PetscReal mu, PetscReal v, PetscReal P, VISystem *sys, VIStepper *st)
{
  VIDual dual;

  PetscFunctionBeginUser;
  PetscCall(VISystemCreate(comm, sys));
  PetscCall(VISystemSetType(*sys, VISYSTEMBODIES));
  PetscCall(VISystemBodiesSetBodies(*sys, bodies));
  PetscCall(VIStepperCreate(comm, st));
  PetscCall(VIStepperSetSystem(*st, *sys));
  PetscCall(VIStepperSetType(*st, VISTEPPERDUAL));
  PetscCall(VIStepperDualGetDual(*st, &dual));
  PetscCall(SliderConfigure(dual, mu, v, P, 0, NULL));
  PetscCall(VIStepperSetUp(*st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A slider stepper of type dual set up for nsteps levels, recorded every 7th. */
static PetscErrorCode ResumeStepper(MPI_Comm comm, VIBodies bodies, PetscInt nsteps, VISystem *sys, VIStepper *st)
{
  PetscReal dt;

  PetscFunctionBeginUser;
  PetscCall(SliderStepper(comm, bodies, 0.2, 100, 100, sys, st));
  PetscCall(VIStepperGetTimeStep(*st, &dt, NULL));
  PetscCall(VIStepperSetTimeStep(*st, dt, nsteps * dt));
  PetscCall(VIStepperSetOutputEvery(*st, 7));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case stepper */

/* The dual scheme as the stepper type dual (src/step/dualstep.c), run by the common loop (VIStepperRun), against the VIDual
   stepped by hand on the same slider: every level's gap and normal force, the last level's displacements and velocity
   estimate (u_k - u_{k-1}) / dt bit for bit, and the levels recorded. */
static PetscErrorCode CaseStepper(MPI_Comm comm)
{
  const PetscReal  mu = 0.2, v = 100, P = 100;
  const PetscInt   nsteps = 4000; /* 4000 dt: the slider slips along the track, then leaves its end */
  VIBodies         bodies;
  VIDual           ref;
  VISystem         sys;
  VIStepper        st;
  PetscReal        dt, *qprev;
  PetscInt         n, nt, ndiff = 0, nslip = 0, noff = 0;
  const PetscReal *q, *u, *tr, *gr, *fr;

  PetscFunctionBeginUser;
  PetscCall(SliderBodies(comm, 3, PETSC_TRUE, &bodies));
  PetscCall(SliderDual(comm, bodies, mu, v, P, 0, NULL, &ref));
  PetscCall(SliderStepper(comm, bodies, mu, v, P, &sys, &st));
  PetscCall(VIStepperGetTimeStep(st, &dt, NULL));
  {
    PetscReal dref;
    PetscCall(VIDualGetTimeStep(ref, &dref));
    PetscCheck(dt == dref, comm, PETSC_ERR_PLIB, "the stepper's step %g, the dual's %g", (double)dt, (double)dref);
  }
  PetscCall(VIStepperSetTimeStep(st, dt, nsteps * dt));
  PetscCall(VIStepperRun(st));
  PetscCall(VIStepperGetState(st, &q, &u));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(PetscMalloc1(n, &qprev));
  PetscCall(VIStepperGetSeries(st, &nt, &tr, NULL, &gr, &fr, NULL));
  PetscCheck(nt == nsteps + 1 && tr[nt - 1] == nsteps * dt, comm, PETSC_ERR_PLIB,
             "%" PetscInt_FMT " levels to t = %g, expected %" PetscInt_FMT " to %g", nt, (double)tr[nt - 1], nsteps + 1, (double)(nsteps * dt));
  {
    /* the hand-stepped VIDual: at every level its gap (+inf for a slave off the master) and normal force, at the last its
       displacements body by body (slider: 4 coordinates, then the track) and their backward difference */
    const PetscReal     *qb;
    const VIDualContact *rc;
    PetscInt             nc;
    for (PetscInt s = 0; s < nsteps; s++) {
      PetscCall(VIDualGetDisplacement(ref, 0, &qb));
      PetscCall(PetscArraycpy(qprev, qb, 4));
      PetscCall(VIDualGetDisplacement(ref, 1, &qb));
      PetscCall(PetscArraycpy(qprev + 4, qb, n - 4));
      PetscCall(VIDualStep(ref));
      PetscCall(VIDualGetContacts(ref, &nc, &rc));
      ndiff += gr[s + 1] != (rc->segment < 0 ? (PetscReal)INFINITY : rc->gap);
      ndiff += fr[s + 1] != rc->normal;
      nslip += rc->status == VI_DUAL_SLIP;
      noff += rc->status == VI_DUAL_OFF;
    }
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(VIDualGetDisplacement(ref, k, &qb));
      for (PetscInt i = 0; i < (k ? n - 4 : 4); i++) {
        const PetscInt g = k ? 4 + i : i;
        ndiff += q[g] != qb[i];
        ndiff += u[g] != (qb[i] - qprev[g]) / dt;
      }
    }
  }
  PetscCheck(nslip > 0 && noff > 0, comm, PETSC_ERR_PLIB,
             "%" PetscInt_FMT " slip and %" PetscInt_FMT " off steps: expected the slider to slip, then leave the track", nslip, noff);
  PetscCheck(ndiff == 0, comm, PETSC_ERR_PLIB, "the stepper type dual differs from VIDualStep in %" PetscInt_FMT " numbers", ndiff);
  PetscCall(PetscPrintf(comm,
                        "stepper: %" PetscInt_FMT " levels of %g s (%" PetscInt_FMT " slip, %" PetscInt_FMT
                        " off), the gaps and normal forces of every level, q and u of the last equal to VIDualStep's bit for bit\n",
                        nt, (double)dt, nslip, noff));
  PetscCall(PetscFree(qprev));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIDualDestroy(&ref));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case failure */

/* A step that fails on one rank only (the last: its contact solver limited to one iteration by an option set on that rank
   alone, a genuine rank-local failure of VIDualStep) ends the run of the stepper type dual on every rank (VIStepperRun's
   failure agreement): every rank returns PETSC_ERR_NOT_CONVERGED with the failing rank's message, the same failed level,
   and the records of the levels before it; no rank is left waiting. */
static PetscErrorCode CaseFailure(MPI_Comm comm)
{
  const PetscReal mu = 0.2, v = 100, P = 100;
  const PetscInt  nsteps = 4000;
  VIBodies        bodies;
  VISystem        sys;
  VIStepper       st;
  VIStepStats     stats;
  PetscReal       dt;
  PetscMPIInt     rank, size;
  PetscErrorCode  ierr;
  char            captured[256] = "", first[256];
  PetscInt        nt, lv[2], lvmax[2];
  int             same, all;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(SliderBodies(comm, 3, PETSC_TRUE, &bodies));
  if (rank == size - 1) PetscCall(PetscOptionsSetValue(NULL, "-contact_max_it", "1"));
  if (rank == size - 1) PetscCall(PetscOptionsSetValue(NULL, "-contact_tol", "1e-300"));
  PetscCall(SliderStepper(comm, bodies, mu, v, P, &sys, &st));
  if (rank == size - 1) PetscCall(PetscOptionsClearValue(NULL, "-contact_max_it"));
  if (rank == size - 1) PetscCall(PetscOptionsClearValue(NULL, "-contact_tol"));
  PetscCall(VIStepperGetTimeStep(st, &dt, NULL));
  PetscCall(VIStepperSetTimeStep(st, dt, nsteps * dt));
  PetscCall(PetscPushErrorHandler(VIErrorCapture, captured));
  ierr = VIStepperRun(st);
  PetscCall(PetscPopErrorHandler());
  PetscCall(VIStepperGetStats(st, &stats));
  PetscCall(VIStepperGetSeries(st, &nt, NULL, NULL, NULL, NULL, NULL));
  /* the same error, level and message on every rank (rank 0's broadcast and compared) */
  PetscCall(PetscStrncpy(first, captured, sizeof(first)));
  PetscCallMPI(MPI_Bcast(first, (PetscMPIInt)sizeof(first), MPI_CHAR, 0, comm));
  lv[0] = stats.failed_level;
  lv[1] = -stats.failed_level;
  same  = ierr == PETSC_ERR_NOT_CONVERGED && stats.failed && stats.error == ierr && !strcmp(first, captured) && !strcmp(stats.message, captured) &&
         strstr(captured, "did not converge") && nt == stats.failed_level && stats.failed_level > 0 && stats.failed_level <= nsteps;
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(lv, lvmax, 2, MPIU_INT, MPI_MAX, comm));
  PetscCheck(all && lvmax[0] == -lvmax[1], comm, PETSC_ERR_PLIB,
             "rank %d: VIStepperRun returned %d, failed %d (error %d) at level %" PetscInt_FMT " (levels %" PetscInt_FMT " to %" PetscInt_FMT
             " over the ranks), %" PetscInt_FMT
             " records, message '%s' (rank 0: '%s'): expected error %d with the failing rank's message on every rank",
             (int)rank, (int)ierr, (int)stats.failed, (int)stats.error, stats.failed_level, -lvmax[1], lvmax[0], nt, captured, first,
             (int)PETSC_ERR_NOT_CONVERGED);
  PetscCall(PetscPrintf(comm,
                        "failure: the step of level %" PetscInt_FMT " failed on rank %d of %d; every rank ended with error %d and its message: %s\n",
                        stats.failed_level, size - 1, size, (int)ierr, first));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ case resume */

/* The dual scheme through the common checkpoint: a run stopped at level 1024, written by VIStepperCheckpointWrite (the
   VIDual's packed state is its state field "dual"), read into a new stepper and run to the end equals the uninterrupted
   run bit for bit (every record: t, gaps, forces, energy; the last q and u); the energy records are the dual's
   (VIDualGetEnergy): at the last level kinetic and potential equal the VIDual's, and the balance column its closure. */
static PetscErrorCode CaseResume(MPI_Comm comm)
{
  const PetscInt   nsteps = 4000;
  VIBodies         bodies;
  VISystem         sys[3];
  VIStepper        full, part, rest;
  VITestStop       stop = {0, 17}; /* the 17th monitor call: level 1024 */
  VIStepStats      stats;
  PetscBool        restored;
  char             why[256], path[64];
  PetscMPIInt      rank;
  PetscInt         na, nb, n, ndiff = 0, level;
  const PetscReal *ta, *tb, *ga, *gb, *fa, *fb, *ea, *eb, *qa, *qb, *ua, *ub;
  VIDual           dual;
  VIDualEnergy     e;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  {
    int pid = (int)getpid();
    PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
    PetscCall(PetscSNPrintf(path, sizeof(path), "dual_ckpt_%d.h5", pid));
  }
  PetscCall(SliderBodies(comm, 3, PETSC_TRUE, &bodies));
  PetscCall(ResumeStepper(comm, bodies, nsteps, &sys[0], &full));
  PetscCall(VIStepperRun(full));
  PetscCall(ResumeStepper(comm, bodies, nsteps, &sys[1], &part));
  PetscCall(VIStepperSetMonitor(part, VITestStopMonitor, &stop));
  PetscCall(VIStepperRun(part));
  PetscCall(VIStepperGetStats(part, &stats));
  PetscCall(VIStepperGetLevel(part, &level, NULL));
  PetscCheck(stats.stopped && level == 1024, comm, PETSC_ERR_PLIB, "the run stopped at level %" PetscInt_FMT " (stopped %d), expected 1024", level,
             (int)stats.stopped);
  if (rank == 0) PetscCall(VIStepperCheckpointWrite(part, path, "slider"));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(ResumeStepper(comm, bodies, nsteps, &sys[2], &rest));
  PetscCall(VIStepperCheckpointRead(rest, path, "slider", &restored, why, sizeof(why)));
  PetscCheck(restored, comm, PETSC_ERR_PLIB, "the checkpoint of the dual scheme was not restored: %s", why);
  PetscCall(VIStepperRun(rest));
  PetscCall(VIStepperGetSeries(full, &na, &ta, NULL, &ga, &fa, &ea));
  PetscCall(VIStepperGetSeries(rest, &nb, &tb, NULL, &gb, &fb, &eb));
  PetscCheck(na == nb && na == nsteps / 7 + 2, comm, PETSC_ERR_PLIB,
             "%" PetscInt_FMT " records resumed, %" PetscInt_FMT " uninterrupted, expected %" PetscInt_FMT, nb, na, nsteps / 7 + 2);
  for (PetscInt r = 0; r < na; r++) {
    ndiff += ta[r] != tb[r];
    ndiff += ga[r] != gb[r] && !(PetscIsInfReal(ga[r]) && PetscIsInfReal(gb[r]));
    ndiff += fa[r] != fb[r];
    for (PetscInt c = 0; c < VI_ENERGY_COLUMNS; c++) ndiff += ea[VI_ENERGY_COLUMNS * r + c] != eb[VI_ENERGY_COLUMNS * r + c];
  }
  PetscCall(VISystemGetSizes(sys[0], &n, NULL, NULL));
  PetscCall(VIStepperGetState(full, &qa, &ua));
  PetscCall(VIStepperGetState(rest, &qb, &ub));
  for (PetscInt i = 0; i < n; i++) ndiff += (qa[i] != qb[i]) + (ua[i] != ub[i]);
  PetscCheck(ndiff == 0, comm, PETSC_ERR_PLIB, "the resumed run of the dual scheme differs from the uninterrupted one in %" PetscInt_FMT " numbers",
             ndiff);
  /* the energy columns: the VIDual's terms at the last level */
  PetscCall(VIStepperDualGetDual(full, &dual));
  PetscCall(VIDualGetEnergy(dual, &e));
  {
    const PetscReal *l      = ea + VI_ENERGY_COLUMNS * (na - 1),
                    closure = e.kinetic + e.potential - e.initial + e.damping - e.load_work - e.drive_work - e.contact_work;
    PetscCheck(l[0] == e.kinetic && l[1] == e.potential && l[2] == e.damping && l[4] == e.load_work + e.drive_work && l[5] == e.contact_work &&
                   PetscAbsReal(l[6] - closure) <= 1e-12 * PetscMax(PetscAbsReal(e.drive_work), 1),
               comm, PETSC_ERR_PLIB, "the energy record (%g %g %g %g %g balance %g) is not the dual's (%g %g %g %g %g closure %g)", (double)l[0],
               (double)l[1], (double)l[2], (double)l[4], (double)l[5], (double)l[6], (double)e.kinetic, (double)e.potential, (double)e.damping,
               (double)(e.load_work + e.drive_work), (double)e.contact_work, (double)closure);
  }
  PetscCall(PetscPrintf(
      comm,
      "resume: stopped at level 1024 of %" PetscInt_FMT ", the common checkpoint restored: %" PetscInt_FMT
      " records and the last state equal to the uninterrupted run's bit for bit; energy records the dual's (balance %.3g of the drive work %.3g)\n",
      nsteps, nb, (double)ea[VI_ENERGY_COLUMNS * (na - 1) + 6], (double)e.drive_work));
  if (rank == 0) (void)unlink(path);
  PetscCall(VIStepperDestroy(&full));
  PetscCall(VIStepperDestroy(&part));
  PetscCall(VIStepperDestroy(&rest));
  for (PetscInt i = 0; i < 3; i++) PetscCall(VISystemDestroy(&sys[i]));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      name[32] = "";
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), &set));
  PetscCheck(set, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give -case primal|search|energy|friction|force|state|system|stepper|failure|resume");
  if (!strcmp(name, "primal"))
    PetscCall(CasePrimal(PETSC_COMM_WORLD));
  else if (!strcmp(name, "search"))
    PetscCall(CaseSearch(PETSC_COMM_WORLD));
  else if (!strcmp(name, "energy"))
    PetscCall(CaseEnergy(PETSC_COMM_WORLD));
  else if (!strcmp(name, "friction"))
    PetscCall(CaseFriction(PETSC_COMM_WORLD));
  else if (!strcmp(name, "force"))
    PetscCall(CaseForce(PETSC_COMM_WORLD));
  else if (!strcmp(name, "state"))
    PetscCall(CaseState(PETSC_COMM_WORLD));
  else if (!strcmp(name, "system"))
    PetscCall(CaseSystem(PETSC_COMM_WORLD));
  else if (!strcmp(name, "stepper"))
    PetscCall(CaseStepper(PETSC_COMM_WORLD));
  else if (!strcmp(name, "failure"))
    PetscCall(CaseFailure(PETSC_COMM_WORLD));
  else if (!strcmp(name, "resume"))
    PetscCall(CaseResume(PETSC_COMM_WORLD));
  else
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
            "-case %s: expected primal, search, energy, friction, force, state, system, stepper, failure or resume", name);
  PetscCall(SlepcFinalize());
  return 0;
}
