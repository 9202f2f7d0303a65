# `vicms slide` as a job (issue 24): one job per history file (lock), a rerun resumes or is refused before any work, bad
# input refused at the start, a failed contact solve keeps the steps computed, a full disk stops resumably, no leak.
vicms_app_test(slide_job)
