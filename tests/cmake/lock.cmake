# One job per results file: a second job refused while the first's results equal a lone run's; stale locks (issue 10);
# a requeued SLURM job or the next array task takes over its own lock from another host (issue 24 item 9).
vicms_app_test(lock)
