# One job per results file: a second job refused while the first's results equal a lone run's; stale locks (issue 10).
vicms_app_test(lock PROCESSORS 2)
