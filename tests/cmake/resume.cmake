# vicms run resumes after SIGKILL on 2 ranks (the ROM reused, same reduction), another reduction or job refused before
# any work, diagnostics outside the fingerprints, corrupt journal files moved aside, vicms info | head (issue 10).
vicms_app_test(resume)
