/* The units of a ROM, FORCE-LENGTH-MASS-TIME (e.g. N-mm-t-s), taken apart for the units attributes of the files. */
#include <vicms/io.h>

/* The length unit of a units string FORCE-LENGTH-MASS-TIME (e.g. N-mm-t-s gives mm); "" when not of that form. */
PetscErrorCode VIUnitsLength(const char units[], char length[], size_t len)
{
  const char *a = units ? strchr(units, '-') : NULL, *b = a ? strchr(a + 1, '-') : NULL;

  PetscFunctionBeginUser;
  length[0] = 0;
  if (a && b && (size_t)(b - a) < len) {
    memcpy(length, a + 1, (size_t)(b - a - 1));
    length[b - a - 1] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
