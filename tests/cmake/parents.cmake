# Parents given as matrices (CalculiX matrix storage, Matrix Market, Abaqus coordinate text) against ccx and vicms's own assembly;
# bad files refused with file and line; `vicms info` on mesh files (skipped without ccx).
vicms_app_test(parents)
