#!/bin/bash
# the same steps as ../bench-ci-idle/run.sh (a one-commit pull request on a clean clone of main,
# make bench-ci idle), its output in /var/tmp/bci-intel/.
exec "$(dirname "$0")/../bench-ci-idle/run.sh" /var/tmp/bci-intel
