"""hotbench.compare - the same-machine, interleaved compare of two revisions (the CI gate):
revisions (build once, cached), trials (ABBA blocks of processes), rankstats (Hodges-Lehmann,
Mann-Whitney), verdicts, checks, engine, accepted (intended slowdowns), table (outputs), cli."""
