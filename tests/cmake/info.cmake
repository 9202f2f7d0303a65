# `vicms info` on a modes file, and on a missing file.
vicms_app_test(info)
