# A full disk: a message naming the file, no crash, nothing written lost, resume once there is room (issue 10).
vicms_app_test(full_disk)
