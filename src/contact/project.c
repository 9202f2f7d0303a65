/* Projections onto the admissible sets of the contact forces: the half-line R+ and the disk D(r) (seed 000 App. C). */
#include <vicms/contact.h>

/*
  VIProjectHalfLine - projection onto R+ of a normal force, seed 000 Eq. (C.3). Not collective.

  A NaN stays NaN so that a diverged iteration shows up in the residual instead of being hidden as 0.
*/
PetscReal VIProjectHalfLine(PetscReal xi)
{
  return xi < 0 ? 0.0 : xi;
}

/*
  VIProjectDisk - projection of a tangential force xi (dim 1 or 2) onto the disk of radius r >= 0, in place,
  seed 000 Eq. (C.4); for dim = 1 the disk is the interval [-r, r]. Not collective.

  Points inside (or on) the disk are left bit for bit unchanged; points outside are scaled along their own direction.
*/
void VIProjectDisk(PetscInt dim, PetscReal r, PetscReal xi[])
{
  PetscReal norm2 = 0, norm;

  for (PetscInt k = 0; k < dim; k++) norm2 += xi[k] * xi[k];
  norm = PetscSqrtReal(norm2);
  if (norm > r) {
    const PetscReal scale = r / norm;
    for (PetscInt k = 0; k < dim; k++) xi[k] *= scale;
  }
}
