/* Arithmetic expressions of a multibody model file's parameters (docs/multibody.md, "Parameters"): a number field may
   be written as an expression such as `0.025 + c` or `-omega / 2` of the names of the model's `parameters:` section,
   so that one option (-mb_param_NAME, a case parameter) changes every number that depends on it. The grammar, by
   recursive descent:
     expr   = term { ('+' | '-') term }
     term   = factor { ('*' | '/') factor }
     factor = ('+' | '-') factor | NUMBER | NAME | '(' expr ')'
   NUMBER as strtod reads it, NAME letters, digits and '_' starting with a letter or '_'. */
#include "mbimpl.h"
#include <ctype.h>

typedef struct {
  const char *s, *p;
  PetscInt    np;
  const char (*names)[VI_MB_NAME];
  const PetscReal *values;
  char            *err;
  size_t           len;
} VIMBExpr;

static PetscBool VIMBExprExpr(VIMBExpr *e, PetscReal *x);

static void VIMBExprSkip(VIMBExpr *e)
{
  while (*e->p == ' ' || *e->p == '\t') e->p++;
}

static PetscBool VIMBExprFail(VIMBExpr *e, const char what[])
{
  if (!e->err[0]) (void)PetscSNPrintf(e->err, e->len, "%s at character %d", what, (int)(e->p - e->s) + 1);
  return PETSC_FALSE;
}

static PetscBool VIMBExprFactor(VIMBExpr *e, PetscReal *x)
{
  VIMBExprSkip(e);
  if (*e->p == '+' || *e->p == '-') {
    const PetscReal sign = *e->p == '-' ? -1 : 1;
    e->p++;
    if (!VIMBExprFactor(e, x)) return PETSC_FALSE;
    *x *= sign;
    return PETSC_TRUE;
  }
  if (*e->p == '(') {
    e->p++;
    if (!VIMBExprExpr(e, x)) return PETSC_FALSE;
    VIMBExprSkip(e);
    if (*e->p != ')') return VIMBExprFail(e, "expected ')'");
    e->p++;
    return PETSC_TRUE;
  }
  if (isdigit((unsigned char)*e->p) || *e->p == '.') {
    char *end;
    *x = strtod(e->p, &end);
    if (end == e->p) return VIMBExprFail(e, "expected a number");
    e->p = end;
    return PETSC_TRUE;
  }
  if (isalpha((unsigned char)*e->p) || *e->p == '_') {
    const char *q = e->p;
    size_t      k;
    while (isalnum((unsigned char)*q) || *q == '_') q++;
    k = (size_t)(q - e->p);
    for (PetscInt i = 0; i < e->np; i++)
      if (strlen(e->names[i]) == k && !strncmp(e->names[i], e->p, k)) {
        *x   = e->values[i];
        e->p = q;
        return PETSC_TRUE;
      }
    if (!e->err[0]) (void)PetscSNPrintf(e->err, e->len, "'%.*s' is not a parameter of the model (its 'parameters:' section)", (int)k, e->p);
    return PETSC_FALSE;
  }
  return VIMBExprFail(e, *e->p ? "expected a number, a parameter's name or '('" : "the expression ends early");
}

static PetscBool VIMBExprTerm(VIMBExpr *e, PetscReal *x)
{
  if (!VIMBExprFactor(e, x)) return PETSC_FALSE;
  for (;;) {
    PetscReal y;
    char      op;
    VIMBExprSkip(e);
    op = *e->p;
    if (op != '*' && op != '/') return PETSC_TRUE;
    e->p++;
    if (!VIMBExprFactor(e, &y)) return PETSC_FALSE;
    if (op == '*')
      *x *= y;
    else if (y == 0)
      return VIMBExprFail(e, "division by zero");
    else
      *x /= y;
  }
}

static PetscBool VIMBExprExpr(VIMBExpr *e, PetscReal *x)
{
  if (!VIMBExprTerm(e, x)) return PETSC_FALSE;
  for (;;) {
    PetscReal y;
    char      op;
    VIMBExprSkip(e);
    op = *e->p;
    if (op != '+' && op != '-') return PETSC_TRUE;
    e->p++;
    if (!VIMBExprTerm(e, &y)) return PETSC_FALSE;
    *x = op == '+' ? *x + y : *x - y;
  }
}

PetscBool VIMBExpressionEvaluate(const char text[], PetscInt np, const char names[][VI_MB_NAME], const PetscReal values[], PetscReal *x, char err[],
                                 size_t len)
{
  VIMBExpr e = {text, text, np, names, values, err, len};

  err[0] = 0;
  if (!VIMBExprExpr(&e, x)) return PETSC_FALSE;
  VIMBExprSkip(&e);
  if (*e.p) return VIMBExprFail(&e, "unexpected text");
  if (PetscIsInfOrNanReal(*x)) return VIMBExprFail(&e, "not a finite number");
  return PETSC_TRUE;
}
