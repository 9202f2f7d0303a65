# Job files and commands as users mistype them (issue 24 items 11, 13, 24): FIFOs, devices, directories, pipes, missing
# files, a BOM, NUL bytes, nested options_file, a load named twice, mistyped commands, SIGTERM while reducing (exit 75).
vicms_app_test(job_files)
