/* A harmonic balance branch as a printed table and as datasets of the results file (cases/<k>, and summary/hb for one case). */
#include "hbimpl.h"

/* How a multiplier of argument arg (radians, in [0, pi]) crosses the unit circle, in words. */
static const char *VIHBCrossing(PetscReal arg)
{
  if (arg < 0) return "";
  if (arg < 1e-3) return "at +1 (a fold of the exact motion's orbits)";
  if (arg > PETSC_PI - 1e-3) return "at -1 (period doubling)";
  return "as a complex pair (Neimark-Sacker: a torus)";
}

PetscErrorCode VIHBPrintBranch(VIHB hb, PetscInt output)
{
  const VIHBBranch *br   = &hb->branch;
  const char       *name = "";

  PetscFunctionBeginUser;
  if (output >= 0 && output < br->nout) PetscCall(VIROMGetOutput(hb->rom, output, &name, NULL));
  PetscCall(PetscPrintf(hb->comm, "Harmonic balance branch: %" PetscInt_FMT " points, H = %" PetscInt_FMT ", N = %" PetscInt_FMT "%s%s%s\n", br->np,
                        hb->H, hb->N, name[0] ? ", output " : "", name, hb->condense ? " (condensed on the contact harmonics)" : ""));
  PetscCall(PetscPrintf(hb->comm, "  %5s %14s %13s %13s %13s %13s %7s %7s %12s %4s %9s %s\n", "point", "frequency[Hz]", "amplitude", "min", "max",
                        "mean", "closed", "slip", "force_max", "its", "stability", "note"));
  for (PetscInt k = 0; k < br->np; k++) {
    PetscReal   closed = 0, slip = 0, fmax = 0, a = 0, lo = 0, hi = 0, mean = 0;
    const char *st       = br->stable[k] == 1 ? "stable" : br->stable[k] == 0 ? "unstable" : "-";
    char        note[64] = "";
    for (PetscInt j = 0; j < br->nc; j++) {
      closed = PetscMax(closed, br->closed_fraction[k * br->nc + j]);
      slip   = PetscMax(slip, br->slip_fraction[k * br->nc + j]);
      fmax   = PetscMax(fmax, br->force_max[k * br->nc + j]);
    }
    if (output >= 0 && output < br->nout) {
      a    = br->amplitude[k * br->nout + output];
      lo   = br->min[k * br->nout + output];
      hi   = br->max[k * br->nout + output];
      mean = br->mean[k * br->nout + output];
    }
    if (br->kind[k] & VI_HB_POINT_TURNING) PetscCall(PetscStrlcat(note, "turning point ", sizeof(note)));
    if (br->kind[k] & VI_HB_POINT_STABILITY) PetscCall(PetscStrlcat(note, "stability change", sizeof(note)));
    PetscCall(PetscPrintf(hb->comm, "  %5" PetscInt_FMT " %14.8g %13.6e %13.6e %13.6e %13.6e %7.3f %7.3f %12.5e %4" PetscInt_FMT " %9s %s\n", k,
                          (double)br->frequency_hz[k], (double)a, (double)lo, (double)hi, (double)mean, (double)closed, (double)slip, (double)fmax,
                          br->iterations[k], st, note));
  }
  if (hb->stability) {
    PetscInt count[3] = {0, 0, 0}, none = 0, undecided = 0;
    for (PetscInt k = 0; k < br->np; k++) {
      const PetscInt m = br->stability_method[k];
      if (br->stable[k] >= 0 && m >= 0 && m < 3) count[m]++;
      if (br->stable[k] < 0 && m == VI_HB_STABILITY_TRANSIENT)
        undecided++;
      else if (br->stable[k] < 0)
        none++;
    }
    if (count[VI_HB_STABILITY_TRANSIENT] || undecided) {
      char steps[128] = "";
      if (hb->tr_runs && hb->tr_spp_max > hb->tr_spp_min)
        PetscCall(PetscSNPrintf(steps, sizeof(steps), "%s, %" PetscInt_FMT " to %" PetscInt_FMT " steps per period, ",
                                hb->massless ? "leapfrog" : "moreau with restitution 0", hb->tr_spp_min, hb->tr_spp_max));
      else if (hb->tr_runs)
        PetscCall(PetscSNPrintf(steps, sizeof(steps), "%s, %" PetscInt_FMT " steps per period, ",
                                hb->massless ? "leapfrog" : "moreau with restitution 0", hb->tr_spp_min));
      PetscCall(PetscPrintf(hb->comm,
                            "  stability by the time stepping's transient from the solution at %" PetscInt_FMT " points (%sat most %" PetscInt_FMT
                            " periods%s; docs/hb.md), by the Floquet multipliers of the exact motion at %" PetscInt_FMT "%s\n",
                            count[VI_HB_STABILITY_TRANSIENT], steps, hb->stability_periods,
                            hb->stability_type == VI_HB_STABILITY_TYPE_TRANSIENT ? ", -hb_stability_method transient" : "",
                            count[VI_HB_STABILITY_FLOQUET] + count[VI_HB_STABILITY_MOTION],
                            hb->stability_type == VI_HB_STABILITY_TYPE_AUTO ? " (where it models the point)" : ""));
    }
    if (undecided)
      PetscCall(PetscPrintf(hb->comm,
                            "  stability not decided (\"-\") at %" PetscInt_FMT " points by the transient: the motion neither settled nor left the "
                            "solution within %" PetscInt_FMT " periods (a multiplier near 1, near turning points: raise -hb_stability_periods), or "
                            "the time stepping failed (-info says which)\n",
                            undecided, hb->stability_periods));
    if (none)
      PetscCall(PetscPrintf(hb->comm, "  stability not computed (\"-\") at %" PetscInt_FMT " points: %s (docs/hb.md)\n", none,
                            hb->stability_type == VI_HB_STABILITY_TYPE_FLOQUET
                                ? "no periodic orbit of the exact piecewise-linear motion near the harmonic balance solution and its motion from the "
                                  "solution neither left nor stayed near it, or "
                                  "a point the exact analysis does not model (a mass-carrying boundary, a frictional contact that is 3D or opens; "
                                  "-hb_stability_method auto decides those by the time stepping)"
                                : "no periodic orbit of the exact piecewise-linear motion near the harmonic balance solution, and the motion "
                                  "from the solution neither left it nor stayed near it within 400 periods"));
  }
  for (PetscInt k = 0; k < br->np; k++)
    if ((br->kind[k] & VI_HB_POINT_TURNING) && br->fold_hz[k] > 0)
      PetscCall(PetscPrintf(hb->comm,
                            "  turning point located at %.10g Hz (amplitude %.6e), between the points around point %" PetscInt_FMT
                            " (%.8g Hz, %.3g %% off)\n",
                            (double)br->fold_hz[k], output >= 0 && output < br->nout ? (double)br->fold_amplitude[k * br->nout + output] : 0.0, k,
                            (double)br->frequency_hz[k], (double)(100 * PetscAbsReal(br->frequency_hz[k] - br->fold_hz[k]) / br->fold_hz[k])));
  for (PetscInt k = 1; k < br->np; k++)
    if (br->kind[k] & VI_HB_POINT_STABILITY) {
      /* the multiplier of the unstable side says how the stability is lost */
      const PetscReal arg = br->stable[k] == 0 ? br->multiplier_arg[k] : br->multiplier_arg[k - 1];
      char            where[96], how[192] = " (its multiplier's argument unknown: not decided by the Floquet multipliers)";
      if (br->change_hz[k] > 0)
        PetscCall(PetscSNPrintf(where, sizeof(where), "located at %.10g Hz", (double)br->change_hz[k]));
      else
        PetscCall(PetscSNPrintf(where, sizeof(where), "at point %" PetscInt_FMT ", %.8g Hz (not located)", k, (double)br->frequency_hz[k]));
      if (arg >= 0)
        PetscCall(PetscSNPrintf(how, sizeof(how), ": the dominant multiplier crosses the unit circle %s, argument %.4g rad", VIHBCrossing(arg),
                                (double)arg));
      PetscCall(
          PetscPrintf(hb->comm, "  stability %s %s, before point %" PetscInt_FMT "%s\n", br->stable[k] == 0 ? "lost" : "regained", where, k, how));
    }
  if (br->failed) PetscCall(PetscPrintf(hb->comm, "  branch incomplete: %s\n", br->message));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBWriteBranch(VIHB hb, hid_t file, const char group[])
{
  const VIHBBranch *br = &hb->branch;
  char              path[PETSC_MAX_PATH_LEN], names[4096] = "";
  const PetscInt    np = br->np;

  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, group, &has));
  if (!has) PetscCall(VIH5CreateGroup(file, group));
#define VI_PATH(s) (PetscSNPrintf(path, sizeof(path), "%s/%s", group, s), path)
  PetscCall(VIH5WriteReal(file, VI_PATH("frequency_hz"), np, 0, br->frequency_hz));
  PetscCall(VIH5WriteReal(file, VI_PATH("amplitude"), np, br->nout, br->amplitude));
  PetscCall(VIH5WriteReal(file, VI_PATH("min"), np, br->nout, br->min));
  PetscCall(VIH5WriteReal(file, VI_PATH("max"), np, br->nout, br->max));
  PetscCall(VIH5WriteReal(file, VI_PATH("mean"), np, br->nout, br->mean));
  PetscCall(VIH5WriteReal(file, VI_PATH("harmonics"), np, br->nout * br->nh, br->harmonics));
  if (br->q_harmonics) {
    PetscCall(VIH5WriteReal(file, VI_PATH("q_harmonics"), np, br->nh * hb->n, br->q_harmonics));
    PetscCall(VIH5WriteAttrString(file, VI_PATH("q_harmonics"), "dims", "point,harmonic_coordinate"));
    PetscCall(VIH5WriteAttrString(file, VI_PATH("q_harmonics"), "layout",
                                  "entry c n + i: harmonic c of ROM coordinate i; c = 0 the mean, 2h - 1 and 2h the cos and sin of h theta, theta = "
                                  "2 pi frequency_hz t"));
  }
  PetscCall(VIH5WriteReal(file, VI_PATH("closed_fraction"), np, br->nc, br->closed_fraction));
  PetscCall(VIH5WriteReal(file, VI_PATH("slip_fraction"), np, br->nc, br->slip_fraction));
  PetscCall(VIH5WriteReal(file, VI_PATH("force_max"), np, br->nc, br->force_max));
  PetscCall(VIH5WriteReal(file, VI_PATH("multiplier"), np, 0, br->multiplier));
  PetscCall(VIH5WriteInt(file, VI_PATH("iterations"), np, 0, br->iterations));
  PetscCall(VIH5WriteInt(file, VI_PATH("stable"), np, 0, br->stable));
  PetscCall(VIH5WriteInt(file, VI_PATH("stability_method"), np, 0, br->stability_method));
  PetscCall(VIH5WriteInt(file, VI_PATH("kind"), np, 0, br->kind));
  {
    /* the located turning points: folds_point (the marked branch point), folds_frequency_hz, folds_amplitude (nf x nout) */
    PetscInt   nf = 0, *fp;
    PetscReal *ff, *fa;
    for (PetscInt k = 0; k < np; k++)
      if ((br->kind[k] & VI_HB_POINT_TURNING) && br->fold_hz[k] > 0) nf++;
    PetscCall(PetscMalloc3(nf + 1, &fp, nf + 1, &ff, nf * br->nout + 1, &fa));
    nf = 0;
    for (PetscInt k = 0; k < np; k++)
      if ((br->kind[k] & VI_HB_POINT_TURNING) && br->fold_hz[k] > 0) {
        fp[nf] = k;
        ff[nf] = br->fold_hz[k];
        for (PetscInt o = 0; o < br->nout; o++) fa[nf * br->nout + o] = br->fold_amplitude[k * br->nout + o];
        nf++;
      }
    PetscCall(VIH5WriteInt(file, VI_PATH("folds_point"), nf, 0, fp));
    PetscCall(VIH5WriteReal(file, VI_PATH("folds_frequency_hz"), nf, 0, ff));
    PetscCall(VIH5WriteReal(file, VI_PATH("folds_amplitude"), nf, br->nout, fa));
    PetscCall(PetscFree3(fp, ff, fa));
  }
  PetscCall(VIH5WriteReal(file, VI_PATH("multiplier_arg"), np, 0, br->multiplier_arg));
  {
    /* the stability changes: changes_point (the first point on the new side), changes_frequency_hz (located; 0 where not
       located), changes_multiplier_arg (argument of the unstable side's dominant multiplier, -1 unknown) */
    PetscInt   nch = 0, *cp;
    PetscReal *cf, *ca;
    for (PetscInt k = 1; k < np; k++)
      if (br->kind[k] & VI_HB_POINT_STABILITY) nch++;
    PetscCall(PetscMalloc3(nch + 1, &cp, nch + 1, &cf, nch + 1, &ca));
    nch = 0;
    for (PetscInt k = 1; k < np; k++)
      if (br->kind[k] & VI_HB_POINT_STABILITY) {
        cp[nch] = k;
        cf[nch] = br->change_hz[k];
        ca[nch] = br->stable[k] == 0 ? br->multiplier_arg[k] : br->multiplier_arg[k - 1];
        nch++;
      }
    PetscCall(VIH5WriteInt(file, VI_PATH("changes_point"), nch, 0, cp));
    PetscCall(VIH5WriteReal(file, VI_PATH("changes_frequency_hz"), nch, 0, cf));
    PetscCall(VIH5WriteReal(file, VI_PATH("changes_multiplier_arg"), nch, 0, ca));
    PetscCall(PetscFree3(cp, cf, ca));
  }
#undef VI_PATH
  for (PetscInt o = 0; o < br->nout; o++) {
    const char *name;
    PetscCall(VIROMGetOutput(hb->rom, o, &name, NULL));
    if (o) PetscCall(PetscStrlcat(names, ",", sizeof(names)));
    PetscCall(PetscStrlcat(names, name, sizeof(names)));
  }
  PetscCall(VIH5WriteAttrString(file, group, "outputs", names));
  PetscCall(VIH5WriteAttrInt(file, group, "harmonics_H", hb->H));
  PetscCall(VIH5WriteAttrInt(file, group, "samples_N", hb->N));
  PetscCall(VIH5WriteAttrInt(file, group, "condensed", hb->condense));
  PetscCall(VIH5WriteAttrReal(file, group, "eps_dl", hb->nc ? hb->eps[0] : 0));
  PetscCall(VIH5WriteAttrString(file, group, "direction", VIHBDirections[hb->direction]));
  PetscCall(VIH5WriteAttrReal(file, group, "freq_min_hz", hb->freq_range[0]));
  PetscCall(VIH5WriteAttrReal(file, group, "freq_max_hz", hb->freq_range[1]));
  PetscCall(VIH5WriteAttrInt(file, group, "failed", br->failed));
  PetscCall(VIH5WriteAttrString(file, group, "message", br->message));
  PetscCall(VIH5WriteAttrString(file, group, "harmonics_layout",
                                "per point, per output: a0, a1, b1, ..., aH, bH of y(t) = a0 + sum_h a_h cos(h Omega t) + b_h sin(h Omega t)"));
  PetscCall(VIH5WriteAttrString(file, group, "kind_bits", "1: turning point (dOmega/ds changed sign), 2: stability change"));
  PetscCall(VIH5WriteAttrString(file, group, "folds",
                                "folds_*: the turning points located between the branch points around each point marked (kind bit 1): "
                                "folds_point its index, folds_frequency_hz the extreme frequency along the branch (Brent's minimization over "
                                "the arclength, each trial corrected, to 1e-7 of the bracket's arclength), folds_amplitude the outputs' "
                                "amplitudes there; multiplier_arg: per point the argument in [0, pi] of the dominant Floquet "
                                "multiplier (0 real positive, pi real negative; -1 not from the Floquet multipliers); changes_*: the "
                                "stability changes, changes_point the first point on the new side, changes_frequency_hz where the "
                                "dominant multiplier's modulus crosses 1 + 1e-6 (Illinois method on the arclength, each trial corrected "
                                "and its multipliers computed; 0 where not located: a side not decided by the Floquet multipliers), "
                                "changes_multiplier_arg the argument of the unstable side's dominant multiplier (0: at +1, pi: at -1, "
                                "period doubling, between: a complex pair)"));
  PetscCall(
      VIH5WriteAttrString(file, group, "stability_methods",
                          "-1: not computed, 0: Floquet multipliers of the exact periodic orbit, 1: the exact motion from the solution leaves it "
                          "or stays near it (multiplier: its growth or contraction per period), 2: the time stepping's transient (multiplier: "
                          "the dominant one of its period map, estimated; stable -1 where it did not decide)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBBranchDescribe(hid_t file, const char group[])
{
  char       path[PETSC_MAX_PATH_LEN], *outputs = NULL, *message = NULL, *first, *save = NULL;
  PetscReal *f, *amp;
  PetscInt  *stable, *kind, *method = NULL, np, nout, cols, H, N, failed, nunstable = 0, nturn = 0, kmax = 0, nunknown = 0, count[3] = {0, 0, 0};
  char       unknown[64] = "", how[256] = "";
  PetscBool  has_method;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/frequency_hz", group));
  PetscCall(VIH5ReadReal(file, path, &np, &cols, &f));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/amplitude", group));
  PetscCall(VIH5ReadReal(file, path, &np, &nout, &amp));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/stable", group));
  PetscCall(VIH5ReadInt(file, path, &np, &cols, &stable));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/kind", group));
  PetscCall(VIH5ReadInt(file, path, &np, &cols, &kind));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/stability_method", group));
  PetscCall(VIH5Exists(file, path, &has_method));
  if (has_method) PetscCall(VIH5ReadInt(file, path, &np, &cols, &method));
  PetscCall(VIH5ReadAttrStringAlloc(file, group, "outputs", &outputs));
  PetscCall(VIH5ReadAttrStringAlloc(file, group, "message", &message));
  PetscCall(VIH5ReadAttrInt(file, group, "harmonics_H", &H));
  PetscCall(VIH5ReadAttrInt(file, group, "samples_N", &N));
  PetscCall(VIH5ReadAttrInt(file, group, "failed", &failed));
  first = strtok_r(outputs, ",", &save);
  for (PetscInt k = 0; k < np; k++) {
    if (stable[k] == 0) nunstable++;
    if (stable[k] < 0) nunknown++;
    if (method && stable[k] >= 0 && method[k] >= 0 && method[k] < 3) count[method[k]]++;
    if (kind[k] & VI_HB_POINT_TURNING) nturn++;
    if (nout && amp[k * nout] > amp[kmax * nout]) kmax = k;
  }
  if (nunknown) PetscCall(PetscSNPrintf(unknown, sizeof(unknown), ", stability not computed at %" PetscInt_FMT " points", nunknown));
  if (method)
    PetscCall(PetscSNPrintf(how, sizeof(how),
                            "    stability decided by the Floquet multipliers of the exact orbit at %" PetscInt_FMT
                            " points, by the exact motion from the solution at %" PetscInt_FMT ", by the time stepping's transient at %" PetscInt_FMT
                            "\n",
                            count[0], count[1], count[2]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "  harmonic balance branch (%s): %" PetscInt_FMT " points from %g to %g Hz, H = %" PetscInt_FMT ", N = %" PetscInt_FMT
                        ", %" PetscInt_FMT " turning point%s, %" PetscInt_FMT " unstable point%s%s%s%s\n",
                        group, np, np ? (double)f[0] : 0.0, np ? (double)f[np - 1] : 0.0, H, N, nturn, nturn == 1 ? "" : "s", nunstable,
                        nunstable == 1 ? "" : "s", unknown, failed ? "; incomplete: " : "", failed ? message : ""));
  for (PetscInt k = 0; k < np; k++)
    if (kind[k]) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "    point %" PetscInt_FMT " at %.8g Hz: %s%s%s, amplitude of %s %.6g\n", k, (double)f[k],
                            kind[k] & VI_HB_POINT_TURNING ? "turning point" : "",
                            (kind[k] & VI_HB_POINT_TURNING) && (kind[k] & VI_HB_POINT_STABILITY) ? ", " : "",
                            kind[k] & VI_HB_POINT_STABILITY ? (stable[k] ? "becomes stable" : "becomes unstable") : "", first ? first : "output 0",
                            nout ? (double)amp[k * nout] : 0.0));
    }
  {
    PetscBool has_folds;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/folds_frequency_hz", group));
    PetscCall(VIH5Exists(file, path, &has_folds));
    if (has_folds) {
      PetscReal *ff, *fa;
      PetscInt  *fp, nf, c2;
      PetscCall(VIH5ReadReal(file, path, &nf, &c2, &ff));
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/folds_amplitude", group));
      PetscCall(VIH5ReadReal(file, path, &nf, &c2, &fa));
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/folds_point", group));
      PetscCall(VIH5ReadInt(file, path, &nf, &c2, &fp));
      for (PetscInt i = 0; i < nf; i++)
        PetscCall(PetscPrintf(
            PETSC_COMM_SELF, "    turning point located at %.10g Hz, amplitude of %s %.6g (marked at point %" PetscInt_FMT ", %.8g Hz)\n",
            (double)ff[i], first ? first : "output 0", nout ? (double)fa[i * nout] : 0.0, fp[i], fp[i] >= 0 && fp[i] < np ? (double)f[fp[i]] : 0.0));
      PetscCall(PetscFree(ff));
      PetscCall(PetscFree(fa));
      PetscCall(PetscFree(fp));
    }
  }
  {
    PetscBool has_changes;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/changes_frequency_hz", group));
    PetscCall(VIH5Exists(file, path, &has_changes));
    if (has_changes) {
      PetscReal *cf, *ca;
      PetscInt  *cp, nch, c2;
      PetscCall(VIH5ReadReal(file, path, &nch, &c2, &cf));
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/changes_multiplier_arg", group));
      PetscCall(VIH5ReadReal(file, path, &nch, &c2, &ca));
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/changes_point", group));
      PetscCall(VIH5ReadInt(file, path, &nch, &c2, &cp));
      for (PetscInt i = 0; i < nch; i++)
        if (cf[i] > 0 || ca[i] >= 0)
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "    stability change before point %" PetscInt_FMT "%s%.10g Hz%s%s\n", cp[i],
                                cf[i] > 0 ? " located at " : " at ", cf[i] > 0 ? (double)cf[i] : (cp[i] < np ? (double)f[cp[i]] : 0.0),
                                ca[i] >= 0 ? ": multiplier crossing the unit circle " : "", VIHBCrossing(ca[i])));
      PetscCall(PetscFree(cf));
      PetscCall(PetscFree(ca));
      PetscCall(PetscFree(cp));
    }
  }
  if (how[0]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", how));
  if (np && nout)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "    largest amplitude of %s: %.6g at %.8g Hz (%s)\n", first ? first : "output 0",
                          (double)amp[kmax * nout], (double)f[kmax],
                          stable[kmax] == 1   ? "stable"
                          : stable[kmax] == 0 ? "unstable"
                                              : "stability not computed"));
  PetscCall(PetscFree(outputs));
  PetscCall(PetscFree(message));
  PetscCall(PetscFree(f));
  PetscCall(PetscFree(amp));
  PetscCall(PetscFree(stable));
  PetscCall(PetscFree(kind));
  PetscCall(PetscFree(method));
  PetscFunctionReturn(PETSC_SUCCESS);
}
