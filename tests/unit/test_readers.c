/* Unit test of the mesh readers: the Rotor 37 deck, small .inp and .msh files written here, and every bad input. */
#include "mesh/meshimpl.h"
#include <vicms/fem.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
  Usage: test_readers [-write_data DIR]
  With -write_data the test only writes its bad decks (DIR/bad/NAME.inp) and good_box.inp (DIR) and stops: that is how
  tests/data is refreshed. Otherwise it also reads those files from $VICMS_SOURCE/tests/data when VICMS_SOURCE is set.
*/

/* ------------------------------------------------------------------ decks */

#define HEAD "*HEADING\nvicms reader test deck\n" /* lines 1-2 */
#define HEX_NODES                                                                                                                                    \
  "*NODE, NSET=ALL\n1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, 1\n7, 1, 1, 1\n8, 0, 1, 1\n" /* lines 3-11                  \
                                                                                                                       */
#define HEX_ELEMENT          "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"                           /* lines 12-13 */
#define ROOT_SET             "*NSET, NSET=ROOT\n1, 4, 5, 8\n"                                                         /* lines 14-15 */
#define MATERIAL(E, nu, rho) "*MATERIAL, NAME=STEEL\n*ELASTIC\n" E ", " nu "\n*DENSITY\n" rho "\n" /* lines 16-20 (one fewer without ROOT_SET) */
#define STEEL                MATERIAL("210000.", "0.3", "7.85e-9")
#define SECTION              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n" /* line 21 */
#define CLAMP                "*BOUNDARY\nROOT, 1, 3\n"                      /* lines 22-23 */

/* A cantilever of 4 hexahedra along x, 40 x 10 x 10 mm, clamped at x = 0 (also run by the application tests). */
static const char GoodBox[] = "** vicms test deck: 4 C3D8 along x, clamped at x = 0 (N, mm, tonne)\n"
                              "*HEADING\n"
                              "good box\n"
                              "*NODE, NSET=NALL\n"
                              "1, 0., 0., 0.\n2, 10., 0., 0.\n3, 20., 0., 0.\n4, 30., 0., 0.\n5, 40., 0., 0.\n"
                              "6, 0., 10., 0.\n7, 10., 10., 0.\n8, 20., 10., 0.\n9, 30., 10., 0.\n10, 40., 10., 0.\n"
                              "11, 0., 0., 10.\n12, 10., 0., 10.\n13, 20., 0., 10.\n14, 30., 0., 10.\n15, 40., 0., 10.\n"
                              "16, 0., 10., 10.\n17, 10., 10., 10.\n18, 20., 10., 10.\n19, 30., 10., 10.\n20, 40., 10., 10.\n"
                              "*ELEMENT, TYPE=C3D8, ELSET=EALL\n"
                              "1, 1, 2, 7, 6, 11, 12, 17, 16\n"
                              "2, 2, 3, 8, 7, 12, 13, 18, 17\n"
                              "3, 3, 4, 9, 8, 13, 14, 19, 18\n"
                              "4, 4, 5, 10, 9, 14, 15, 20, 19\n"
                              "*NSET, NSET=ROOT\n"
                              "1, 6, 11, 16\n"
                              "*MATERIAL, NAME=STEEL\n"
                              "*ELASTIC\n"
                              "210000., 0.3\n"
                              "*DENSITY\n"
                              "7.85e-9\n"
                              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
                              "*BOUNDARY\n"
                              "ROOT, 1, 3\n";

typedef struct {
  const char    *name, *text; /* text NULL: the file does not exist */
  PetscErrorCode code;        /* expected error code, 0 for any */
  const char    *where;       /* expected in the message: "name:line" */
  const char    *what;        /* expected in the message too (the value, the reason), or NULL */
  PetscBool      data;        /* also kept in tests/data/bad */
} BadDeck;

/* Lines 1-23 of a good deck (one C3D8, clamped), to which a bad deck appends from line 24 on. */
#define GOOD HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL SECTION CLAMP
/* The application test (tests/app/bad_input.sh) greps the message for this regular expression. */
#define EXPECT(re) "** expect: " re "\n"
/* A C string cannot hold a NUL byte: WriteFile writes one for each NUL_BYTE in a text. */
#define NUL_BYTE "<NUL>"

static const BadDeck BadDecks[] = {
    {"truncated.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4,\n", PETSC_ERR_FILE_UNEXPECTED, "truncated.inp:13",
     "unexpected end of file", PETSC_TRUE},
    {"unknown_element.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D27, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n" ROOT_SET STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "unknown_element.inp:12", "unknown element type 'C3D27'", PETSC_TRUE},
    {"missing_node.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 9\n" ROOT_SET STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "missing_node.inp:13", "node 9", PETSC_TRUE},
    {"missing_include.inp", HEAD "*INCLUDE, INPUT=does_not_exist.inp\n", PETSC_ERR_FILE_OPEN, "missing_include.inp:3", "does_not_exist.inp",
     PETSC_TRUE},
    {"young_nonpositive.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET MATERIAL("0.0", "0.3", "7.85e-9") SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "young_nonpositive.inp:18", "E = 0", PETSC_TRUE},
    {"density_nonpositive.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET MATERIAL("210000.", "0.3", "-7.85e-9") SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "density_nonpositive.inp:20", "rho = -7.85e-09", PETSC_TRUE},
    {"poisson_range.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET MATERIAL("210000.", "0.5", "7.85e-9") SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "poisson_range.inp:18", "nu = 0.5", PETSC_TRUE},
    {"empty_set.inp", HEAD HEX_NODES HEX_ELEMENT "*NSET, NSET=ROOT\n" STEEL SECTION CLAMP, PETSC_ERR_USER_INPUT, "empty_set.inp:14",
     "empty_set.inp:22", PETSC_TRUE},
    {"bad_number.inp",
     HEAD
     "*NODE, NSET=ALL\n1, 0, 0, 0\n2, 1, 0, 0\n3, 1.5abc, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, 1\n7, 1, 1, 1\n8, 0, 1, 1\n" HEX_ELEMENT ROOT_SET
         STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "bad_number.inp:6", "'1.5abc'", PETSC_TRUE},
    /* keywords that change the model are refused, not skipped (see also TestRefusedKeywords) */
    {"equation.inp", GOOD "*EQUATION\n2\n2, 1, 1.0, 3, 1, -1.0\n" EXPECT("equation\\.inp:24: \\*EQUATION"), PETSC_ERR_USER_INPUT, "equation.inp:24",
     "*EQUATION (linear constraints between DOFs) changes the stiffness, mass or constraints", PETSC_TRUE},
    {"unknown_keyword.inp", GOOD "*ELEMNT, TYPE=C3D8\n9, 1, 2, 3, 4, 5, 6, 7, 8\n" EXPECT("unknown_keyword\\.inp:24: \\*ELEMNT is not a keyword"),
     PETSC_ERR_USER_INPUT, "unknown_keyword.inp:24", "*ELEMNT is not a keyword vicms reads", PETSC_TRUE},
    {"boundary_op_new.inp",
     GOOD "*STEP\n*FREQUENCY\n10\n*BOUNDARY, OP=NEW\nROOT, 1, 1\n*END STEP\n" EXPECT("boundary_op_new\\.inp:27: \\*BOUNDARY, OP=NEW"),
     PETSC_ERR_USER_INPUT, "boundary_op_new.inp:27", "*BOUNDARY, OP=NEW is not supported", PETSC_TRUE},
    {"boundary_in_step.inp", GOOD "*STEP\n*STATIC\n*BOUNDARY\nROOT, 3, 3, 0.5\n*END STEP\n", PETSC_ERR_USER_INPUT, "boundary_in_step.inp:27",
     "prescribes 0.5", PETSC_FALSE},
    {"boundary_fixed.inp", GOOD "*STEP\n*STATIC\n*BOUNDARY, FIXED\nROOT, 1, 3\n*END STEP\n", PETSC_ERR_USER_INPUT, "boundary_fixed.inp:26",
     "*BOUNDARY, FIXED", PETSC_FALSE},
    {"nlgeom.inp", GOOD "*STEP, NLGEOM\n*STATIC\n*END STEP\n", PETSC_ERR_USER_INPUT, "nlgeom.inp:24", "NLGEOM", PETSC_FALSE},
    {"nlgeom_yes.inp", GOOD "*Step, Nlgeom=YES, inc=100\n*STATIC\n*END STEP\n", PETSC_ERR_USER_INPUT, "nlgeom_yes.inp:24", "NLGEOM", PETSC_FALSE},
    {"two_instances.inp", GOOD "*ASSEMBLY, NAME=A\n*INSTANCE, NAME=I1, PART=P\n*END INSTANCE\n*INSTANCE, NAME=I2, PART=P\n", PETSC_ERR_USER_INPUT,
     "two_instances.inp:27", "a second *INSTANCE", PETSC_FALSE},
    {"moved_instance.inp", GOOD "*ASSEMBLY, NAME=A\n*INSTANCE, NAME=I1, PART=P\n10., 0., 0.\n", PETSC_ERR_USER_INPUT, "moved_instance.inp:26",
     "translated or rotated", PETSC_FALSE},
    {"initial_stress.inp", GOOD "*INITIAL CONDITIONS, TYPE=STRESS\nEALL, 1., 0., 0., 0., 0., 0.\n", PETSC_ERR_USER_INPUT, "initial_stress.inp:24",
     "TYPE=STRESS", PETSC_FALSE},
    {"elastic_orthotropic.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET "*MATERIAL, NAME=STEEL\n*Elastic, type=ORTHOTROPIC\n", PETSC_ERR_USER_INPUT,
     "elastic_orthotropic.inp:17", "TYPE=ORTHOTROPIC", PETSC_FALSE},
    /* files that are not decks, include cycles, degenerate elements */
    {"nul_byte.inp", HEAD "*NODE, NSET=ALL\n1, 0, 0, 0\n2, 1, 0, 0\n3, 1," NUL_BYTE " 1, 0\n4, 0, 1, 0\n" EXPECT("nul_byte\\.inp:6: NUL byte"),
     PETSC_ERR_USER_INPUT, "nul_byte.inp:6", "NUL byte at column 6", PETSC_TRUE},
    {"include_device.inp", HEAD "*INCLUDE, INPUT=/dev/zero\n" EXPECT("include_device\\.inp:3: \\*INCLUDE: '/dev/zero' is not a regular file"),
     PETSC_ERR_USER_INPUT, "include_device.inp:3", "'/dev/zero' is not a regular file", PETSC_TRUE},
    {"include_directory.inp", HEAD "*INCLUDE, INPUT=.\n", PETSC_ERR_USER_INPUT, "include_directory.inp:3", "is not a regular file (a directory)",
     PETSC_FALSE},
    {"cycle_b.inp", "** the second of two files that include each other\n*INCLUDE, INPUT=cycle_a.inp\n", PETSC_ERR_USER_INPUT, "cycle_a.inp:3",
     "cycle_b.inp (the deck itself), which is still being read", PETSC_FALSE},
    {"cycle_a.inp", HEAD "*INCLUDE, INPUT=cycle_b.inp\n", PETSC_ERR_USER_INPUT, "cycle_b.inp:2",
     "cycle_a.inp (the deck itself), which is still being read", PETSC_FALSE},
    {"repeated_node.inp",
     HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 7\n" ROOT_SET STEEL SECTION CLAMP EXPECT(
         "repeated_node\\.inp:13: element 1 lists node 7 twice"),
     PETSC_ERR_USER_INPUT, "repeated_node.inp:13", "element 1 lists node 7 twice (as its node 7 and 8)", PETSC_TRUE},
    {"repeated_node_continued.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4,\n1, 6, 7, 8\n" ROOT_SET STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "repeated_node_continued.inp:13", "lists node 1 twice (as its node 1 and 5)", PETSC_FALSE},
    {"nul_byte.msh", "$MeshFormat\n2.2 0 8\n$End" NUL_BYTE "MeshFormat\n", PETSC_ERR_USER_INPUT, "nul_byte.msh:3", "NUL byte at column 5",
     PETSC_FALSE},
    {"repeated_node.msh",
     "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n2\n1 2 2 1 1 1 1 2\n2 4 2 1 1 1 2 "
     "3 3\n$EndElements\n",
     PETSC_ERR_USER_INPUT, "repeated_node.msh:14", "element 2 lists node 3 twice (as its node 3 and 4)", PETSC_TRUE},
    /* only here */
    {"nothere.inp", NULL, PETSC_ERR_FILE_OPEN, "nothere.inp", "cannot open", PETSC_FALSE},
    {"poisson_low.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET MATERIAL("210000.", "-1", "7.85e-9") SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "poisson_low.inp:18", "nu = -1", PETSC_FALSE},
    {"young_negative.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET MATERIAL("-2e5", "0.3", "7.85e-9") SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "young_negative.inp:18", "E = -200000", PETSC_FALSE},
    {"density_zero.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET MATERIAL("210000.", "0.3", "0") SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "density_zero.inp:20", "rho = 0", PETSC_FALSE},
    {"truncated_record.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4", PETSC_ERR_FILE_UNEXPECTED, "truncated_record.inp:13",
     "unexpected end of file", PETSC_FALSE},
    {"truncated_material.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET "*MATERIAL, NAME=STEEL\n*ELASTIC\n", PETSC_ERR_FILE_UNEXPECTED,
     "truncated_material.inp:17", "unexpected end of file", PETSC_FALSE},
    {"wrong_count.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7\n" ROOT_SET STEEL SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "wrong_count.inp:13", "has 7 nodes", PETSC_FALSE},
    {"too_many.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8, 2\n" ROOT_SET STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "too_many.inp:13", "more than the 8 nodes", PETSC_FALSE},
    {"continued_keyword.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4,\n" ROOT_SET STEEL SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "continued_keyword.inp:13", "has 4 nodes", PETSC_FALSE},
    {"bad_element_id.inp", HEAD HEX_NODES "*ELEMENT, TYPE=C3D8, ELSET=EALL\n1x, 1, 2, 3, 4, 5, 6, 7, 8\n" ROOT_SET STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "bad_element_id.inp:13", "'1x'", PETSC_FALSE},
    {"nonzero_value.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL SECTION "*BOUNDARY\nROOT, 1, 3, 0.1\n", PETSC_ERR_USER_INPUT,
     "nonzero_value.inp:23", "prescribes 0.1", PETSC_FALSE},
    {"unknown_material.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL "*SOLID SECTION, ELSET=EALL, MATERIAL=ALU\n" CLAMP, PETSC_ERR_USER_INPUT,
     "unknown_material.inp:21", "'ALU'", PETSC_FALSE},
    {"no_density.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n" SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "no_density.inp:16", "no *DENSITY", PETSC_FALSE},
    {"elastic_type.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET "*MATERIAL, NAME=STEEL\n*ELASTIC, TYPE=ENGINEERING CONSTANTS\n", PETSC_ERR_USER_INPUT,
     "elastic_type.inp:17", "ENGINEERING CONSTANTS", PETSC_FALSE},
    {"temperature_table.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3, 20.\n200000., 0.3, 400.\n",
     PETSC_ERR_USER_INPUT, "temperature_table.inp:19", "temperature", PETSC_FALSE},
    {"undefined_member.inp", HEAD HEX_NODES HEX_ELEMENT "*NSET, NSET=ROOT\n1, 4, 5, 99\n" STEEL SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "undefined_member.inp:15", "node 99", PETSC_FALSE},
    {"undefined_subset.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET "*NSET, NSET=BOTH\nROOT, TIP\n", PETSC_ERR_USER_INPUT, "undefined_subset.inp:17",
     "'TIP'", PETSC_FALSE},
    {"undefined_clamp_set.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL SECTION "*BOUNDARY\nTIP, 1, 3\n", PETSC_ERR_USER_INPUT,
     "undefined_clamp_set.inp:23", "'TIP'", PETSC_FALSE},
    {"clamp_missing_node.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL SECTION "*BOUNDARY\n42, 1, 3\n", PETSC_ERR_USER_INPUT,
     "clamp_missing_node.inp:23", "node 42", PETSC_FALSE},
    {"bad_dof.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL SECTION "*BOUNDARY\nROOT, 3, 2\n", PETSC_ERR_USER_INPUT, "bad_dof.inp:23", "3..2",
     PETSC_FALSE},
    {"empty_elset.inp", HEAD HEX_NODES HEX_ELEMENT ROOT_SET STEEL "*ELSET, ELSET=NONE\n*SOLID SECTION, ELSET=NONE, MATERIAL=STEEL\n" CLAMP,
     PETSC_ERR_USER_INPUT, "empty_elset.inp:21", "empty_elset.inp:22", PETSC_FALSE},
    {"bad_generate.inp", HEAD HEX_NODES HEX_ELEMENT "*NSET, NSET=ROOT, GENERATE\n8, 1, 1\n", PETSC_ERR_USER_INPUT, "bad_generate.inp:15",
     "GENERATE 8, 1, 1", PETSC_FALSE},
    {"data_first.inp", "1, 0, 0, 0\n" HEAD, PETSC_ERR_USER_INPUT, "data_first.inp:1", "before the first keyword", PETSC_FALSE},
    {"recursion.inp", "** includes itself\n*INCLUDE, INPUT=recursion.inp\n", PETSC_ERR_USER_INPUT, "recursion.inp:2", "makes a cycle: that file is",
     PETSC_FALSE},
    {"duplicate_node.inp", HEAD HEX_NODES "1, 5, 5, 5\n" HEX_ELEMENT ROOT_SET STEEL SECTION CLAMP, PETSC_ERR_USER_INPUT,
     "duplicate_node.inp:12: node 1 is defined twice", "defined twice", PETSC_FALSE},
    {"duplicate_element.inp", HEAD HEX_NODES HEX_ELEMENT "2, 1, 2, 3, 4, 5, 6, 7, 8\n1, 1, 2, 3, 4, 5, 6, 7, 8\n" ROOT_SET STEEL SECTION CLAMP,
     PETSC_ERR_USER_INPUT, "duplicate_element.inp:15: element 1 is defined twice", "(first at", PETSC_FALSE},
    /* Gmsh */
    {"binary.msh", "$MeshFormat\n4.1 1 8\n", PETSC_ERR_USER_INPUT, "binary.msh:2", "binary .msh is not supported, save as ASCII", PETSC_FALSE},
    {"version40.msh", "$MeshFormat\n4 0 8\n$EndMeshFormat\n", PETSC_ERR_USER_INPUT, "version40.msh:2", "save as version 4.1 or 2.2", PETSC_FALSE},
    {"not_gmsh.msh", "*NODE\n1, 0, 0, 0\n", PETSC_ERR_USER_INPUT, "not_gmsh.msh:1", "$MeshFormat", PETSC_FALSE},
    {"pyramid.msh",
     "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n$EndNodes\n$Elements\n1\n1 7 2 1 1 1 2 3 4 "
     "5\n$EndElements\n",
     PETSC_ERR_USER_INPUT, "pyramid.msh:14", "5-node pyramid", PETSC_FALSE},
    {"truncated.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n", PETSC_ERR_FILE_UNEXPECTED, "truncated.msh:7",
     "unexpected end of file", PETSC_FALSE},
    {"bad_number.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 0\n2 1.5abc 0 0\n$EndNodes\n", PETSC_ERR_USER_INPUT,
     "bad_number.msh:7", "'1.5abc'", PETSC_FALSE},
    {"short_element.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 0\n2 1 0 0\n$EndNodes\n$Elements\n1\n1 1 2 1 1 1\n$EndElements\n",
     PETSC_ERR_USER_INPUT, "short_element.msh:11", "expected 7 fields", PETSC_FALSE},
    {"missing_node.msh",
     "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 0\n2 1 0 0\n$EndNodes\n$Elements\n2\n1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n$EndElements\n",
     PETSC_ERR_USER_INPUT, "missing_node.msh:12", "node 3", PETSC_FALSE},
    {"off_plane.msh",
     "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0.5\n$EndNodes\n$Elements\n1\n1 2 2 1 1 1 2 3\n$EndElements\n",
     PETSC_ERR_USER_INPUT, "off_plane.msh:8", "z = 0.5", PETSC_FALSE},
    {"count_mismatch.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n2 1 0 0\n$EndNodes\n", PETSC_ERR_USER_INPUT,
     "count_mismatch.msh:7", "expected $EndNodes", PETSC_FALSE},
};

/* ------------------------------------------------------------------ helpers */

static char Captured[8192];

/* Keeps the message of the error where it arose, and returns the error like PetscReturnErrorHandler. */
static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                   void *ctx)
{
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL) snprintf(Captured, sizeof(Captured), "%s", mess ? mess : "");
  return n;
}

/* Write text, with "\r\n" line ends when crlf, and a NUL byte for each NUL_BYTE. */
static PetscErrorCode WriteFile(const char path[], const char text[], PetscBool crlf)
{
  FILE  *fp  = fopen(path, "wb");
  size_t nul = strlen(NUL_BYTE);

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
  for (const char *c = text; *c; c++) {
    if (!strncmp(c, NUL_BYTE, nul)) {
      fputc(0, fp);
      c += nul - 1;
      continue;
    }
    if (crlf && *c == '\n') fputc('\r', fp);
    fputc(*c, fp);
  }
  PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Join(char out[], const char dir[], const char name[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(out, PETSC_MAX_PATH_LEN, "%s/%s", dir, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read path (.inp or .msh) into a new mesh and finish it; *err is the reader's or the builder's error, the message is in Captured. */
static PetscErrorCode ReadMesh(const char path[], VIMesh *mesh, PetscErrorCode *err)
{
  size_t len;

  PetscFunctionBeginUser;
  PetscCall(VIMeshCreate(PETSC_COMM_SELF, mesh));
  PetscCall(PetscStrlen(path, &len));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  *err = (len > 4 && !strcmp(path + len - 4, ".msh")) ? VIMeshReadGmsh(*mesh, path) : VIMeshReadAbaqus(*mesh, path);
  if (!*err) *err = VIMeshBuildFinish(*mesh);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadGood(const char path[], VIMesh *mesh)
{
  PetscErrorCode err;

  PetscFunctionBeginUser;
  PetscCall(ReadMesh(path, mesh, &err));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reading %s failed (error %d): %s", path, (int)err, Captured);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectError(const char path[], const BadDeck *bad)
{
  VIMesh         mesh;
  PetscErrorCode err;

  PetscFunctionBeginUser;
  PetscCall(ReadMesh(path, &mesh, &err));
  PetscCall(VIMeshDestroy(&mesh));
  PetscCheck(err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: expected an error, the file was accepted", path);
  PetscCheck(!bad->code || err == bad->code, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: error code %d, expected %d; message: %s", path, (int)err,
             (int)bad->code, Captured);
  PetscCheck(strstr(Captured, bad->where), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the message does not name '%s': %s", path, bad->where, Captured);
  PetscCheck(!bad->what || strstr(Captured, bad->what), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the message does not say '%s': %s", path, bad->what,
             Captured);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-26s %s\n", bad->name, Captured));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CountClamps(VIMesh mesh, PetscInt *dofs, PetscInt *full_nodes)
{
  const PetscInt *clamped;
  PetscInt        n, dim;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIMeshGetClamps(mesh, &n, &clamped));
  /* the clamped DOFs node * dim + direction, ascending: a node's run of dim entries means all its directions */
  *dofs       = n;
  *full_nodes = 0;
  for (PetscInt k = 0, run = 0; k < n; k++) {
    run = (k > 0 && clamped[k] == clamped[k - 1] + 1 && clamped[k] / dim == clamped[k - 1] / dim) ? run + 1 : 1;
    if (run == dim) (*full_nodes)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Coordinates of the nodes of element e, num_nodes x dim, in the element's (Abaqus) order. */
static PetscErrorCode ElementCoordinates(VIMesh mesh, PetscInt e, PetscReal xe[], PetscInt *nn)
{
  const PetscInt  *nodes;
  const PetscReal *x;
  PetscInt         dim;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIMeshGetCoordinates(mesh, &x));
  PetscCall(VIMeshGetElement(mesh, e, NULL, nn, &nodes));
  for (PetscInt k = 0; k < *nn; k++)
    for (PetscInt d = 0; d < dim; d++) xe[k * dim + d] = x[nodes[k] * dim + d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Measure of element e (times thickness or area) from VIElementMatrices: a wrong node order gives a wrong volume or an inverted element. */
static PetscErrorCode ElementVolume(VIMesh mesh, PetscInt e, PetscReal *volume)
{
  static const VIMaterial dummy = {"dummy", 1.0, 0.25, 1.0};
  const VIMaterial       *mat;
  VIElementType           type;
  PetscReal               xe[3 * 20], thickness;
  PetscInt                nn, dim;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIMeshGetElement(mesh, e, &type, NULL, NULL));
  PetscCall(ElementCoordinates(mesh, e, xe, &nn));
  PetscCall(VIMeshGetElementMaterial(mesh, e, &mat, &thickness));
  PetscCall(VIElementMatrices(type, dim, xe, mat ? mat : &dummy, thickness, PETSC_FALSE, NULL, NULL, volume));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckNodeSet(VIMesh mesh, const char name[], PetscInt expected)
{
  PetscInt  n;
  PetscBool found;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetNodeSet(mesh, name, &n, NULL, &found));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_PLIB, "node set '%s' is missing", name);
  PetscCheck(n == expected, PETSC_COMM_SELF, PETSC_ERR_PLIB, "node set '%s' has %" PetscInt_FMT " nodes, expected %" PetscInt_FMT, name, n, expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckElementSet(VIMesh mesh, const char name[], PetscInt expected)
{
  PetscInt s;

  PetscFunctionBeginUser;
  for (s = 0; s < mesh->num_esets; s++)
    if (!strcmp(mesh->esets[s].name, name)) break;
  PetscCheck(s < mesh->num_esets, PETSC_COMM_SELF, PETSC_ERR_PLIB, "element set '%s' is missing", name);
  PetscCheck(mesh->esets[s].n == expected, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "element set '%s' has %" PetscInt_FMT " elements, expected %" PetscInt_FMT, name, mesh->esets[s].n, expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckSizes(VIMesh mesh, const char what[], PetscInt nodes, PetscInt elements, PetscInt dim)
{
  PetscInt n, e, d;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetSizes(mesh, &n, &e));
  PetscCall(VIMeshGetDimension(mesh, &d));
  PetscCheck(n == nodes && e == elements && d == dim, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: %" PetscInt_FMT " nodes, %" PetscInt_FMT " elements, dimension %" PetscInt_FMT "; expected %" PetscInt_FMT ", %" PetscInt_FMT
             ", %" PetscInt_FMT,
             what, n, e, d, nodes, elements, dim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool Close(PetscReal a, PetscReal b, PetscReal rtol)
{
  return PetscAbsReal(a - b) <= rtol * PetscMax(PetscAbsReal(a), PetscAbsReal(b)) ? PETSC_TRUE : PETSC_FALSE;
}

/* ------------------------------------------------------------------ the Rotor 37 blade */

static PetscErrorCode TestBlade(void)
{
  const char    *shared = getenv("VICMS_SHARED"), *source = getenv("VICMS_SOURCE");
  char           path[PETSC_MAX_PATH_LEN];
  PetscBool      exists;
  VIMesh         mesh;
  PetscLogDouble t0, t1;
  PetscInt       dofs, full, nelem;

  PetscFunctionBeginUser;
  if (shared)
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/data/rotor37/blade.inp", shared));
  else
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/../shared/data/rotor37/blade.inp", source ? source : "."));
  PetscCall(PetscTestFile(path, 'r', &exists));
  if (!exists) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "blade.inp: skipped (%s not found)\n", path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(PetscTime(&t1));
  PetscCall(CheckSizes(mesh, "blade.inp", 20831, 6732, 3));
  PetscCall(VIMeshGetSizes(mesh, NULL, &nelem));
  for (PetscInt e = 0; e < nelem; e++) {
    VIElementType     type;
    const VIMaterial *mat;

    PetscCall(VIMeshGetElement(mesh, e, &type, NULL, NULL));
    PetscCall(VIMeshGetElementMaterial(mesh, e, &mat, NULL));
    PetscCheck(type == VI_ELEM_C3D15, PETSC_COMM_SELF, PETSC_ERR_PLIB, "blade.inp: element %" PetscInt_FMT " is a %s, expected C3D15", e,
               VIElementInfoTable[type].name);
    PetscCheck(mat && Close(mat->young, 210000., 1e-14) && Close(mat->poisson, 0.3, 1e-14) && Close(mat->density, 9e-9, 1e-14), PETSC_COMM_SELF,
               PETSC_ERR_PLIB, "blade.inp: element %" PetscInt_FMT " has not E = 210000, nu = 0.3, rho = 9e-9", e);
  }
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 1395 && full == 465, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "blade.inp: %" PetscInt_FMT " clamped DOFs on %" PetscInt_FMT " fully clamped nodes, expected 1395 on 465", dofs, full);
  PetscCall(CheckNodeSet(mesh, "Nall", 20831));
  PetscCall(CheckElementSet(mesh, "Eall", 6732));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "blade.inp: 20831 nodes, 6732 C3D15, 1395 clamped DOFs on 465 nodes, E = 210000, nu = 0.3, rho = 9e-9; read in %.3f s\n",
                        (double)(t1 - t0)));
  PetscCall(VIMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ small good .inp decks */

static PetscErrorCode TestGoodDecks(const char dir[])
{
  char              path[PETSC_MAX_PATH_LEN], sub[PETSC_MAX_PATH_LEN];
  VIMesh            mesh;
  PetscInt          dofs, full, nn;
  const VIMaterial *mat;
  PetscReal         vol, thickness, xe[24];
  const PetscInt   *nodes, *ids;
  static const char features[] = "** reader features: comments, blank lines, mixed case, continuation lines, GENERATE, sets of sets, *INCLUDE\n"
                                 "*Heading\n"
                                 "  features deck, with a blank line next\n"
                                 "\n"
                                 "*node, nset=Nall\n"
                                 "1, 0., 0., 0.\n2, 1., 0., 0.\n3, 2., 0., 0.\n4, 0., 1., 0.\n5, 1., 1., 0.\n6, 2., 1., 0.\n"
                                 "*Include, Input=sub/part.inp\n"
                                 "*Element, Type=c3d8, Elset=EALL\n"
                                 "1, 1, 2, 5, 4,\n"
                                 "** a comment inside a record\n"
                                 "   7, 8, 11, 10\n"
                                 "2, 2, 3, 6, 5, 8, 9, 12, 11,\n"
                                 "*Nset, Nset=LEFT\n"
                                 " 1, 4, 7, 10\n"
                                 "*NSET, NSET=right, generate\n"
                                 " 3, 12, 3\n"
                                 "*nset, nset=ENDS\n"
                                 " left, RIGHT\n"
                                 "*elset, elset=all, GENERATE\n"
                                 "1, 2\n"
                                 "*Material, Name=Steel\n"
                                 "*Elastic, Type=Isotropic\n"
                                 " 210000., 0.3, 293.\n"
                                 "*Density\n"
                                 " 7.85E-09\n"
                                 "*Solid   Section, Elset=ALL, Material=STEEL\n"
                                 "*Step\n"
                                 "*Frequency\n"
                                 "10\n"
                                 "*Boundary\n"
                                 " ENDS, 1, 3\n"
                                 " 11, 2, 6\n"
                                 " 5, 4, 6\n"
                                 "*Node Print\n"
                                 "U\n"
                                 "*End Step\n";
  static const char part[]  = "** the far face, from an included file (which includes the rest of its data lines)\n*NODE, NSET=Nall\n7, 0, 0, 1\n8, "
                              "1, 0, 1\n*include, input=more.inp\n";
  static const char more[]  = "9, 2, 0, 1\n10, 0, 1, 1\n11, 1, 1, 1\n12, 2, 1, 1\n";
  static const char plane[] = "*NODE\n1, 0, 0\n2, 2, 0\n3, 2, 1\n4, 0, 1\n*ELEMENT, TYPE=CPS4, ELSET=PLATE\n1, 1, 2, 3, 4\n*MATERIAL, "
                              "NAME=AL\n*ELASTIC\n70000, 0.33\n*DENSITY\n2.7e-9\n"
                              "*SOLID SECTION, ELSET=PLATE, MATERIAL=AL\n0.5\n*BOUNDARY\n1, 1, 2\n4, 1\n";
  static const char rod[]   = "*NODE\n1, 0\n2, 1\n3, 2\n*ELEMENT, TYPE=T3D2, ELSET=BAR\n1, 1, 2\n2, 2, 3\n*MATERIAL, NAME=M\n*ELASTIC\n900, "
                              "0\n*DENSITY\n1\n*SOLID SECTION, ELSET=BAR, MATERIAL=M\n2.0\n"
                              "*BOUNDARY\n1, ENCASTRE\n";
  static const PetscInt expect_conn[8] = {1, 2, 5, 4, 7, 8, 11, 10};
  char                 *crlf;
  size_t                len;

  PetscFunctionBeginUser;
  /* features, with a relative *INCLUDE into sub/, which includes more.inp next to it */
  PetscCall(Join(sub, dir, "sub"));
  PetscCall(PetscMkdir(sub));
  PetscCall(Join(path, sub, "part.inp"));
  PetscCall(WriteFile(path, part, PETSC_FALSE));
  PetscCall(Join(path, sub, "more.inp"));
  PetscCall(WriteFile(path, more, PETSC_FALSE));
  PetscCall(Join(path, dir, "features.inp"));
  PetscCall(WriteFile(path, features, PETSC_FALSE));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "features.inp", 12, 2, 3));
  PetscCall(CheckNodeSet(mesh, "NALL", 12));
  PetscCall(CheckNodeSet(mesh, "left", 4));
  PetscCall(CheckNodeSet(mesh, "right", 4));
  PetscCall(CheckNodeSet(mesh, "ends", 8));
  PetscCall(CheckElementSet(mesh, "all", 2));
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 26 && full == 8, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "features.inp: %" PetscInt_FMT " clamped DOFs on %" PetscInt_FMT " full nodes, expected 26 on 8", dofs, full);
  PetscCall(VIMeshGetElement(mesh, 0, NULL, &nn, &nodes));
  PetscCall(VIMeshGetNodeIds(mesh, &ids));
  for (PetscInt k = 0; k < 8; k++)
    PetscCheck(ids[nodes[k]] == expect_conn[k], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "features.inp: node %" PetscInt_FMT " of element 1 is %" PetscInt_FMT ", expected %" PetscInt_FMT, k, ids[nodes[k]], expect_conn[k]);
  PetscCall(ElementCoordinates(mesh, 1, xe, &nn));
  PetscCheck(xe[3 * 6 + 0] == 2 && xe[3 * 6 + 1] == 1 && xe[3 * 6 + 2] == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "features.inp: node 12 is not at (2, 1, 1)");
  for (PetscInt e = 0; e < 2; e++) {
    PetscCall(VIMeshGetElementMaterial(mesh, e, &mat, &thickness));
    PetscCheck(mat && mat->young == 210000. && mat->poisson == 0.3 && mat->density == 7.85e-9, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "features.inp: element %" PetscInt_FMT " lost its material", e);
    PetscCall(ElementVolume(mesh, e, &vol));
    PetscCheck(Close(vol, 1.0, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "features.inp: element %" PetscInt_FMT " has volume %g, expected 1", e,
               (double)vol);
  }
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "features.inp: 12 nodes (two levels of relative *INCLUDE), 2 C3D8 (continued records), sets LEFT/RIGHT "
                                          "(GENERATE)/ENDS (set of sets), 26 clamped DOFs: ok\n"));

  /* the box of the application tests, once as written and once with Windows line ends and very long lines */
  PetscCall(Join(path, dir, "good_box.inp"));
  PetscCall(WriteFile(path, GoodBox, PETSC_FALSE));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "good_box.inp", 20, 4, 3));
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 12 && full == 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "good_box.inp: %" PetscInt_FMT " clamped DOFs, expected 12", dofs);
  for (PetscInt e = 0; e < 4; e++) {
    PetscCall(ElementVolume(mesh, e, &vol));
    PetscCheck(Close(vol, 1000.0, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "good_box.inp: element %" PetscInt_FMT " has volume %g, expected 1000", e,
               (double)vol);
  }
  PetscCall(VIMeshDestroy(&mesh));
  len = strlen(GoodBox) + 300000;
  PetscCall(PetscMalloc1(len, &crlf));
  PetscCall(PetscSNPrintf(crlf, len, "**%0150000d\n*HEADING\n*NODE, NSET=NALL\n1, %0100000d, 0., 0.\n%s", 0, 0, strstr(GoodBox, "2, 10., 0., 0.")));
  PetscCall(Join(path, dir, "crlf.inp"));
  PetscCall(WriteFile(path, crlf, PETSC_TRUE));
  PetscCall(PetscFree(crlf));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "crlf.inp", 20, 4, 3));
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "crlf.inp: %" PetscInt_FMT " clamped DOFs, expected 12", dofs);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "good_box.inp: 20 nodes, 4 C3D8 of volume 1000, 12 clamped DOFs; same with CRLF line ends and 100000-character lines: ok\n"));

  /* plane stress with a thickness, and rods with an area */
  PetscCall(Join(path, dir, "plane.inp"));
  PetscCall(WriteFile(path, plane, PETSC_FALSE));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "plane.inp", 4, 1, 2));
  PetscCall(VIMeshGetElementMaterial(mesh, 0, &mat, &thickness));
  PetscCheck(mat && thickness == 0.5 && mat->young == 70000 && mat->poisson == 0.33 && mat->density == 2.7e-9, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "plane.inp: wrong material or thickness");
  PetscCall(ElementVolume(mesh, 0, &vol));
  PetscCheck(Close(vol, 1.0, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "plane.inp: area x thickness %g, expected 1", (double)vol);
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 3 && full == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "plane.inp: %" PetscInt_FMT " clamped DOFs, expected 3", dofs);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(Join(path, dir, "rod.inp"));
  PetscCall(WriteFile(path, rod, PETSC_FALSE));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "rod.inp", 3, 2, 3));
  PetscCall(VIMeshGetElementMaterial(mesh, 1, &mat, &thickness));
  PetscCheck(mat && thickness == 2.0 && mat->poisson == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rod.inp: wrong material or area");
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 3 && full == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rod.inp: %" PetscInt_FMT " clamped DOFs (ENCASTRE), expected 3", dofs);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "plane.inp (CPS4, thickness 0.5, dim 2) and rod.inp (T3D2, area 2, ENCASTRE, dim 3): ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ Gmsh */

/* The Gmsh reference elements' mid-edge nodes (Gmsh manual, "Node ordering"), and vicms's (Abaqus) ones. */
static const PetscInt GmshTetEdges[6][2]     = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
static const PetscInt GmshHexEdges[12][2]    = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
static const PetscInt GmshPrismEdges[9][2]   = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 4}, {2, 5}, {3, 4}, {3, 5}, {4, 5}};
static const PetscInt AbaqusTetEdges[6][2]   = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
static const PetscInt AbaqusHexEdges[12][2]  = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
static const PetscInt AbaqusPrismEdges[9][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}};

/*
  Write one second-order element: corners given, mid-edge nodes at the midpoints of Gmsh's edges, node tags 10, 11, ...
  in Gmsh order (so that ids do not coincide with positions); 4.1 or 2.2 format.
*/
static PetscErrorCode WriteQuadraticElement(const char path[], PetscInt gtype, PetscInt ncorner, const PetscReal corners[], PetscInt nedge,
                                            const PetscInt edges[][2], PetscBool v41)
{
  PetscReal x[20][3];
  PetscInt  nn = ncorner + nedge;
  FILE     *fp;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ncorner; k++)
    for (PetscInt d = 0; d < 3; d++) x[k][d] = corners[3 * k + d];
  for (PetscInt k = 0; k < nedge; k++)
    for (PetscInt d = 0; d < 3; d++) x[ncorner + k][d] = 0.5 * (x[edges[k][0]][d] + x[edges[k][1]][d]);
  fp = fopen(path, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
  if (v41) {
    fprintf(fp, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 %d 10 %d\n3 1 0 %d\n", (int)nn, (int)(9 + nn), (int)nn);
    for (PetscInt k = 0; k < nn; k++) fprintf(fp, "%d\n", (int)(10 + k));
    for (PetscInt k = 0; k < nn; k++) fprintf(fp, "%.17g %.17g %.17g\n", (double)x[k][0], (double)x[k][1], (double)x[k][2]);
    fprintf(fp, "$EndNodes\n$Elements\n1 1 7 7\n3 1 %d 1\n7", (int)gtype);
  } else {
    fprintf(fp, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", (int)nn);
    for (PetscInt k = 0; k < nn; k++) fprintf(fp, "%d %.17g %.17g %.17g\n", (int)(10 + k), (double)x[k][0], (double)x[k][1], (double)x[k][2]);
    fprintf(fp, "$EndNodes\n$Elements\n1\n7 %d 2 0 1", (int)gtype);
  }
  for (PetscInt k = 0; k < nn; k++) fprintf(fp, " %d", (int)(10 + k));
  fprintf(fp, "\n$EndElements\n");
  PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read it back: every Abaqus mid-edge node must be the midpoint of its Abaqus edge, and the volume must be right. */
static PetscErrorCode CheckQuadraticElement(const char path[], VIElementType type, PetscInt ncorner, PetscInt nedge, const PetscInt edges[][2],
                                            PetscReal volume)
{
  VIMesh        mesh;
  VIElementType t;
  PetscReal     xe[60], vol;
  PetscInt      nn;

  PetscFunctionBeginUser;
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, path, ncorner + nedge, 1, 3));
  PetscCall(VIMeshGetElement(mesh, 0, &t, NULL, NULL));
  PetscCheck(t == type, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: element is a %s, expected %s", path, VIElementInfoTable[t].name,
             VIElementInfoTable[type].name);
  PetscCall(ElementCoordinates(mesh, 0, xe, &nn));
  for (PetscInt k = 0; k < nedge; k++)
    for (PetscInt d = 0; d < 3; d++)
      PetscCheck(Close(xe[3 * (ncorner + k) + d], 0.5 * (xe[3 * edges[k][0] + d] + xe[3 * edges[k][1] + d]), 1e-14) ||
                     PetscAbsReal(xe[3 * (ncorner + k) + d] - 0.5 * (xe[3 * edges[k][0] + d] + xe[3 * edges[k][1] + d])) < 1e-14,
                 PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: %s node %" PetscInt_FMT " is not the midpoint of its edge %" PetscInt_FMT "-%" PetscInt_FMT " (Gmsh node order not converted)",
                 path, VIElementInfoTable[type].name, ncorner + k + 1, edges[k][0] + 1, edges[k][1] + 1);
  PetscCall(ElementVolume(mesh, 0, &vol));
  PetscCheck(Close(vol, volume, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: volume %g, expected %g", path, (double)vol, (double)volume);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s, mid-edge nodes in Abaqus order, volume %g: ok\n", strrchr(path, '/') + 1,
                        VIElementInfoTable[type].name, (double)volume));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestGmsh(const char dir[])
{
  /* a 2 x 1 x 1 box of two hexahedra, node id 1 + i + 3j + 6k; faces x = 0 ("left") and x = 2 ("right"); node 13 on no element */
  static const char box41[] =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$PhysicalNames\n3\n2 2 \"left\"\n2 3 \"right\"\n3 1 \"solid\"\n$EndPhysicalNames\n"
      "$Entities\n1 0 2 1\n1 5 5 5 0\n1 0 0 0 0 1 1 1 2 0\n2 2 0 0 2 1 1 1 3 0\n1 0 0 0 2 1 1 1 1 2 1 2\n$EndEntities\n"
      "$Nodes\n2 13 1 13\n0 1 0 1\n13\n5 5 5\n3 1 0 12\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
      "0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n0 0 1\n1 0 1\n2 0 1\n0 1 1\n1 1 1\n2 1 1\n$EndNodes\n"
      "$Elements\n3 4 1 4\n2 1 3 1\n1 1 4 10 7\n2 2 3 1\n2 3 6 12 9\n3 1 5 2\n3 1 2 5 4 7 8 11 10\n4 2 3 6 5 8 9 12 11\n$EndElements\n";
  static const char      box22[]  = "$MeshFormat\r\n2.2 0 8\r\n$EndMeshFormat\r\n$Comments\r\nwritten by test_readers\r\n$EndComments\r\n"
                                    "$PhysicalNames\r\n3\r\n2 2 \"left\"\r\n2 3 \"right\"\r\n3 1 \"solid\"\r\n$EndPhysicalNames\r\n"
                                    "$Nodes\r\n13\r\n1 0 0 0\r\n2 1 0 0\r\n3 2 0 0\r\n4 0 1 0\r\n5 1 1 0\r\n6 2 1 0\r\n7 0 0 1\r\n8 1 0 1\r\n9 2 0 1\r\n10 "
                                    "0 1 1\r\n11 1 1 1\r\n12 2 1 1\r\n13 5 5 5\r\n$EndNodes\r\n"
                                    "$Elements\r\n5\r\n1 3 2 2 1 1 4 10 7\r\n2 3 2 3 2 3 6 12 9\r\n3 5 2 1 1 1 2 5 4 7 8 11 10\r\n4 5 2 1 1 2 3 6 5 8 9 12 "
                                    "11\r\n5 15 2 4 7 12\r\n$EndElements\r\n";
  static const char      quads[]  = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n1 5 \"edge\"\n$EndPhysicalNames\n"
                                    "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0\n$EndNodes\n"
                                    "$Elements\n3\n1 1 2 5 1 1 4\n2 3 2 0 1 1 2 5 4\n3 3 2 0 1 2 3 6 5\n$EndElements\n";
  static const char      lines[]  = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 1 3\n1 1 0 3\n1\n2\n3\n0 0 0\n0.5 0 0\n1 0 0\n$EndNodes\n"
                                    "$Elements\n1 2 1 2\n1 1 1 2\n1 1 2\n2 2 3\n$EndElements\n";
  static const PetscReal tet[]    = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
  static const PetscReal hex[]    = {0, 0, 0, 2, 0, 0, 2, 3, 0, 0, 3, 0, 0, 0, 4, 2, 0, 4, 2, 3, 4, 0, 3, 4};
  static const PetscReal prism[]  = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 2, 0, 4, 0, 3, 4};
  const char            *boxes[2] = {box41, box22}, *names[2] = {"box41.msh", "box22.msh"};
  char                   path[PETSC_MAX_PATH_LEN];
  VIMesh                 mesh;
  const PetscInt        *set, *ids;
  PetscInt               n;
  PetscBool              found;
  PetscReal              vol;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < 2; b++) {
    PetscCall(Join(path, dir, names[b]));
    PetscCall(WriteFile(path, boxes[b], PETSC_FALSE));
    PetscCall(ReadGood(path, &mesh));
    PetscCall(CheckSizes(mesh, names[b], 12, 2, 3));
    PetscCall(CheckNodeSet(mesh, "left", 4));
    PetscCall(CheckNodeSet(mesh, "right", 4));
    PetscCall(CheckNodeSet(mesh, "solid", 12));
    PetscCall(CheckElementSet(mesh, "solid", 2));
    PetscCall(VIMeshGetNodeIds(mesh, &ids));
    PetscCall(VIMeshGetNodeSet(mesh, "left", &n, &set, &found));
    for (PetscInt i = 0; i < n; i++)
      PetscCheck((ids[set[i]] - 1) % 3 == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: node %" PetscInt_FMT " is not on the face x = 0", names[b],
                 ids[set[i]]);
    if (b == 1) {
      PetscCall(CheckNodeSet(mesh, "physical4", 1));
      PetscCall(VIMeshGetNodeSet(mesh, "physical4", &n, &set, &found));
      PetscCheck(ids[set[0]] == 12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "box22.msh: the physical point is node %" PetscInt_FMT ", expected 12",
                 ids[set[0]]);
    }
    for (PetscInt e = 0; e < 2; e++) {
      PetscCall(ElementVolume(mesh, e, &vol));
      PetscCheck(Close(vol, 1.0, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: element %" PetscInt_FMT " has volume %g, expected 1", names[b], e,
                 (double)vol);
    }
    PetscCall(VIMeshDestroy(&mesh));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: 12 of 13 nodes (one on no element), 2 C3D8, node sets left/right/solid%s, element set solid: ok\n",
                          names[b], b ? "/physical4" : ""));
  }

  PetscCall(Join(path, dir, "tet10.msh"));
  PetscCall(WriteQuadraticElement(path, 11, 4, tet, 6, GmshTetEdges, PETSC_TRUE));
  PetscCall(CheckQuadraticElement(path, VI_ELEM_C3D10, 4, 6, AbaqusTetEdges, 4.0));
  PetscCall(Join(path, dir, "hex20.msh"));
  PetscCall(WriteQuadraticElement(path, 17, 8, hex, 12, GmshHexEdges, PETSC_FALSE));
  PetscCall(CheckQuadraticElement(path, VI_ELEM_C3D20, 8, 12, AbaqusHexEdges, 24.0));
  PetscCall(Join(path, dir, "wedge15.msh"));
  PetscCall(WriteQuadraticElement(path, 18, 6, prism, 9, GmshPrismEdges, PETSC_TRUE));
  PetscCall(CheckQuadraticElement(path, VI_ELEM_C3D15, 6, 9, AbaqusPrismEdges, 12.0));

  PetscCall(Join(path, dir, "quads.msh"));
  PetscCall(WriteFile(path, quads, PETSC_FALSE));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "quads.msh", 6, 2, 2));
  PetscCall(CheckNodeSet(mesh, "edge", 2));
  for (PetscInt e = 0; e < 2; e++) {
    VIElementType t;

    PetscCall(VIMeshGetElement(mesh, e, &t, NULL, NULL));
    PetscCheck(t == VI_ELEM_CPS4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "quads.msh: element %" PetscInt_FMT " is a %s, expected CPS4", e,
               VIElementInfoTable[t].name);
    PetscCall(ElementVolume(mesh, e, &vol));
    PetscCheck(Close(vol, 1.0, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "quads.msh: element %" PetscInt_FMT " has area %g, expected 1", e,
               (double)vol);
  }
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(Join(path, dir, "lines.msh"));
  PetscCall(WriteFile(path, lines, PETSC_FALSE));
  PetscCall(ReadGood(path, &mesh));
  PetscCall(CheckSizes(mesh, "lines.msh", 3, 2, 1));
  PetscCall(ElementVolume(mesh, 1, &vol));
  PetscCheck(Close(vol, 0.5, 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "lines.msh: element 2 has length %g, expected 0.5", (double)vol);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "quads.msh (2 CPS4 in 2D, line set 'edge') and lines.msh (2 T3D2 on the x axis, dim 1): ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the keyword policy */

static char   Printed[16384];
static size_t PrintedLen;

/* Keeps what PetscPrintf prints while a deck is read, to check the reader's notice. */
static PetscErrorCode CapturePrint(FILE *fd, const char format[], va_list ap)
{
  int n;

  (void)fd;
  if (PrintedLen + 1 >= sizeof(Printed)) return PETSC_SUCCESS;
  n = vsnprintf(Printed + PrintedLen, sizeof(Printed) - PrintedLen, format, ap);
  if (n > 0) PrintedLen = PetscMin(PrintedLen + (size_t)n, sizeof(Printed) - 1);
  return PETSC_SUCCESS;
}

/* ReadGood, with what the reader printed in Printed. */
static PetscErrorCode ReadGoodPrinted(const char path[], VIMesh *mesh)
{
  PetscErrorCode (*saved)(FILE *, const char[], va_list) = PetscVFPrintf;
  PetscErrorCode ierr, err;

  PetscFunctionBeginUser;
  PrintedLen    = 0;
  Printed[0]    = 0;
  PetscVFPrintf = CapturePrint;
  ierr          = ReadMesh(path, mesh, &err);
  PetscVFPrintf = saved;
  PetscCall(ierr);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reading %s failed (error %d): %s", path, (int)err, Captured);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt CountOccurrences(const char text[], const char what[])
{
  PetscInt n = 0;

  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* keyword lines, each put at line 21 of a deck (inside the material, where *PLASTIC or *EXPANSION would go) */
static const char *RefusedKeywords[] = {"*EQUATION",
                                        "*MPC",
                                        "*TIE, NAME=T",
                                        "*COUPLING, CONSTRAINT NAME=C, REF NODE=1, SURFACE=S",
                                        "*SPRING, ELSET=EALL",
                                        "*MASS, ELSET=EALL",
                                        "*ORIENTATION, NAME=OR",
                                        "*TRANSFORM, NSET=ALL",
                                        "*DASHPOT, ELSET=EALL",
                                        "*RIGID BODY, NSET=ALL, REF NODE=1",
                                        "*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL",
                                        "*BEAM SECTION, ELSET=EALL, MATERIAL=STEEL, SECTION=RECT",
                                        "*DISTRIBUTING COUPLING, ELSET=D",
                                        "*KINEMATIC COUPLING, REF NODE=1",
                                        "*CONTACT PAIR, INTERACTION=I",
                                        "*SURFACE INTERACTION, NAME=I",
                                        "*GAP, ELSET=G",
                                        "*PLASTIC",
                                        "*EXPANSION",
                                        "*DAMPING, ALPHA=1",
                                        "*CYCLIC SYMMETRY MODEL, N=36",
                                        "*MODEL CHANGE, REMOVE",
                                        "*Equation",
                                        "*Solid  Sektion, ELSET=EALL",
                                        "*FOO"};
static const char *RefusedNames[]    = {"*EQUATION (",
                                        "*MPC (",
                                        "*TIE (",
                                        "*COUPLING (",
                                        "*SPRING (",
                                        "*MASS (",
                                        "*ORIENTATION (",
                                        "*TRANSFORM (",
                                        "*DASHPOT (",
                                        "*RIGID BODY (",
                                        "*SHELL SECTION (",
                                        "*BEAM SECTION (",
                                        "*DISTRIBUTING COUPLING (",
                                        "*KINEMATIC COUPLING (",
                                        "*CONTACT PAIR (",
                                        "*SURFACE INTERACTION (",
                                        "*GAP (",
                                        "*PLASTIC (",
                                        "*EXPANSION (",
                                        "*DAMPING (",
                                        "*CYCLIC SYMMETRY MODEL (",
                                        "*MODEL CHANGE (",
                                        "*EQUATION (",
                                        "*SOLID SEKTION is not a keyword vicms reads",
                                        "*FOO is not a keyword vicms reads"};
/* lines 24-53: what a CalculiX or Abaqus user puts after the model */
static const char SkippedDeck[]   = GOOD "*AMPLITUDE, NAME=RAMP\n0., 0., 1., 1.\n"
                                         "*SURFACE, NAME=TOP, TYPE=ELEMENT\nEALL, S2\n"
                                         "*INITIAL CONDITIONS, TYPE=TEMPERATURE\nALL, 293.\n"
                                         "*STEP, NLGEOM=NO, PERTURBATION\n*FREQUENCY\n10\n"
                                         "*BOUNDARY, OP=MOD, AMPLITUDE=RAMP\n2, 1, 3, 0.\n"
                                         "*CLOAD\n7, 3, 1.\n*DLOAD\nEALL, P2, 1.\n*TEMPERATURE\nALL, 400.\n"
                                         "*NODE FILE\nU\n*EL FILE\nS\n*OUTPUT, FIELD\n*NODE OUTPUT\nU\n*END STEP\n"
                                         "*STEP\n*STATIC\n*CLOAD\n7, 3, 2.\n*END STEP\n";
static const char SkippedNotice[] = "skipped keywords that do not change the model (steps, loads, output): *AMPLITUDE (line 24), *SURFACE (line 26), "
                                    "*INITIAL CONDITIONS (line 28), *STEP (line 30, 2 times), *FREQUENCY (line 31), *CLOAD (line 35, 2 times), "
                                    "*DLOAD (line 37), *TEMPERATURE (line 39), *NODE FILE (line 41), *EL FILE (line 43), *OUTPUT (line 45), "
                                    "*NODE OUTPUT (line 46), *END STEP (line 48, 2 times), *STATIC (line 50)\n";
/* an Abaqus/CAE deck: one part, one instance in place */
static const char PartDeck[] = HEAD "*PART, NAME=P\n" HEX_NODES HEX_ELEMENT ROOT_SET SECTION "*END PART\n*ASSEMBLY, NAME=A\n*INSTANCE, NAME=I, "
                                    "PART=P\n*END INSTANCE\n*END ASSEMBLY\n" STEEL CLAMP;

/*
  Every keyword that changes K, M or the clamps and is not implemented stops the reader at its line, naming it; step,
  load and output keywords are skipped, and listed in one notice with their lines; the model read is the model without them.
*/
static PetscErrorCode TestKeywords(const char dir[])
{
  char     path[PETSC_MAX_PATH_LEN], where[64], deck[4096];
  BadDeck  bad;
  VIMesh   mesh;
  PetscInt dofs, full;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(RefusedKeywords); i++) {
    char name[32];

    PetscCall(PetscSNPrintf(name, sizeof(name), "refused_%d.inp", (int)i));
    PetscCall(PetscSNPrintf(deck, sizeof(deck), "%s%s%s\n1, 2\n%s%s", HEAD HEX_NODES HEX_ELEMENT ROOT_SET, MATERIAL("210000.", "0.3", "7.85e-9"),
                            RefusedKeywords[i], SECTION, CLAMP));
    PetscCall(Join(path, dir, name));
    PetscCall(WriteFile(path, deck, PETSC_FALSE));
    PetscCall(PetscSNPrintf(where, sizeof(where), "%s:21", name));
    bad = (BadDeck){name, deck, PETSC_ERR_USER_INPUT, where, RefusedNames[i], PETSC_FALSE};
    PetscCall(ExpectError(path, &bad));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "keywords that change the model: %d refused at their line: ok\n",
                        (int)PETSC_STATIC_ARRAY_LENGTH(RefusedKeywords)));

  PetscCall(Join(path, dir, "skipped.inp"));
  PetscCall(WriteFile(path, SkippedDeck, PETSC_FALSE));
  PetscCall(ReadGoodPrinted(path, &mesh));
  PetscCheck(CountOccurrences(Printed, "skipped keywords") == 1 && strstr(Printed, SkippedNotice), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "skipped.inp: expected one notice ending '%s', printed:\n%s", SkippedNotice, Printed);
  PetscCall(CheckSizes(mesh, "skipped.inp", 8, 1, 3));
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 15 && full == 5, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "skipped.inp: %" PetscInt_FMT " clamped DOFs on %" PetscInt_FMT " nodes, expected 15 on 5 (ROOT, and node 2 in the step)", dofs, full);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "skipped.inp: 16 kinds of step, load and output keywords skipped in one notice, the step's clamp read: ok\n"));

  PetscCall(Join(path, dir, "part.inp"));
  PetscCall(WriteFile(path, PartDeck, PETSC_FALSE));
  PetscCall(ReadGoodPrinted(path, &mesh));
  PetscCheck(
      CountOccurrences(Printed, "skipped keywords") == 1 &&
          strstr(Printed,
                 "*PART (line 3), *END PART (line 18), *ASSEMBLY (line 19), *INSTANCE (line 20), *END INSTANCE (line 21), *END ASSEMBLY (line 22)\n"),
      PETSC_COMM_SELF, PETSC_ERR_PLIB, "part.inp: the notice does not list the part and assembly keywords:\n%s", Printed);
  PetscCall(CheckSizes(mesh, "part.inp", 8, 1, 3));
  PetscCall(CountClamps(mesh, &dofs, &full));
  PetscCheck(dofs == 12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "part.inp: %" PetscInt_FMT " clamped DOFs, expected 12", dofs);
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "part.inp (one part, one instance in place): read as the flat deck: ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Files that are not text: a line longer than VI_MESH_MAX_LINE, a directory given as the mesh. */
static PetscErrorCode TestNotText(const char dir[])
{
  char    path[PETSC_MAX_PATH_LEN], *text;
  size_t  n = (size_t)VI_MESH_MAX_LINE + 8;
  BadDeck bad;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + sizeof(GOOD) + 2, &text));
  PetscCall(PetscMemcpy(text, "**", 2));
  for (size_t i = 2; i < n; i++) text[i] = 'x';
  text[n] = '\n';
  PetscCall(PetscMemcpy(text + n + 1, GOOD, sizeof(GOOD)));
  PetscCall(Join(path, dir, "long_line.inp"));
  PetscCall(WriteFile(path, text, PETSC_FALSE));
  PetscCall(PetscFree(text));
  bad = (BadDeck){"long_line.inp", NULL, PETSC_ERR_USER_INPUT, "long_line.inp:1", "line longer than 1048576 bytes", PETSC_FALSE};
  PetscCall(ExpectError(path, &bad));
  PetscCall(Join(path, dir, "directory.inp"));
  PetscCheck(!mkdir(path, 0700), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot make %s", path);
  bad = (BadDeck){"directory.inp", NULL, PETSC_ERR_USER_INPUT, "directory.inp", "is not a regular file (a directory)", PETSC_FALSE};
  PetscCall(ExpectError(path, &bad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ bad inputs */

static PetscErrorCode TestBadInputs(const char dir[])
{
  const char *source = getenv("VICMS_SOURCE");
  char        path[PETSC_MAX_PATH_LEN];
  PetscInt    nfiles = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad inputs (each must fail with its file and line):\n"));
  /* all written before any is read: some include others */
  for (size_t i = 0; i < sizeof(BadDecks) / sizeof(BadDecks[0]); i++) {
    PetscCall(Join(path, dir, BadDecks[i].name));
    if (BadDecks[i].text) PetscCall(WriteFile(path, BadDecks[i].text, PETSC_FALSE));
  }
  for (size_t i = 0; i < sizeof(BadDecks) / sizeof(BadDecks[0]); i++) {
    PetscCall(Join(path, dir, BadDecks[i].name));
    PetscCall(ExpectError(path, &BadDecks[i]));
  }
  if (!source) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tests/data: skipped (VICMS_SOURCE not set)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the copies in the source tree, which the application tests run, must fail the same way */
  for (size_t i = 0; i < sizeof(BadDecks) / sizeof(BadDecks[0]); i++) {
    PetscBool exists;

    if (!BadDecks[i].data) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/tests/data/bad/%s", source, BadDecks[i].name));
    PetscCall(PetscTestFile(path, 'r', &exists));
    PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s is missing (refresh tests/data with test_readers -write_data tests/data)", path);
    PetscCall(ExpectError(path, &BadDecks[i]));
    nfiles++;
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/tests/data/good_box.inp", source));
  {
    VIMesh   mesh;
    PetscInt dofs, full;

    PetscCall(ReadGood(path, &mesh));
    PetscCall(CheckSizes(mesh, path, 20, 4, 3));
    PetscCall(CountClamps(mesh, &dofs, &full));
    PetscCheck(dofs == 12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " clamped DOFs, expected 12", path, dofs);
    PetscCall(VIMeshDestroy(&mesh));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tests/data: %" PetscInt_FMT " bad decks fail at their lines, good_box.inp reads: ok\n", nfiles));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteData(const char dir[])
{
  char path[PETSC_MAX_PATH_LEN], bad[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(Join(bad, dir, "bad"));
  PetscCall(PetscMkdir(bad));
  for (size_t i = 0; i < sizeof(BadDecks) / sizeof(BadDecks[0]); i++) {
    if (!BadDecks[i].data) continue;
    PetscCall(Join(path, bad, BadDecks[i].name));
    PetscCall(WriteFile(path, BadDecks[i].text, PETSC_FALSE));
  }
  PetscCall(Join(path, dir, "good_box.inp"));
  PetscCall(WriteFile(path, GoodBox, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      dir[PETSC_MAX_PATH_LEN] = "/tmp/vicms_readers_XXXXXX", data[PETSC_MAX_PATH_LEN];
  PetscBool write_data;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Unit test of the .inp and .msh readers"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write_data", data, sizeof(data), &write_data));
  if (write_data) {
    PetscCall(WriteData(data));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscMkdtemp(dir));
  PetscCall(TestBlade());
  PetscCall(TestGoodDecks(dir));
  PetscCall(TestGmsh(dir));
  PetscCall(TestKeywords(dir));
  PetscCall(TestNotText(dir));
  PetscCall(TestBadInputs(dir));
  PetscCall(PetscRMTree(dir));
  PetscCall(PetscFinalize());
  return 0;
}
