#!/bin/bash
# the same steps as ../bench-ci-loaded/run.sh (a one-commit pull request on a clean clone of
# main, make bench-ci beside two busy processes), its output in /var/tmp/bci-loaded-intel/.
exec "$(dirname "$0")/../bench-ci-loaded/run.sh" /var/tmp/bci-loaded-intel
