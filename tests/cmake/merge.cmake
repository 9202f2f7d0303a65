# The incremental merge of finished cases (a merge after each case equals one merge at the end and keeps the file's
# size within 1.5 times its; a case in both the results file and the journal is merged once; what each merge of a
# 1000-case job, stopped twice, takes in does not grow with the cases merged before, issue 24 item 10).
vicms_app_test(merge)
