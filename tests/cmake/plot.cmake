# scripts/plot_results.py on synthetic results files: every kind of plot, failed cases, files that are not results.
vicms_app_test(plot)
