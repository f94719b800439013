#!/usr/bin/python3
"""peers.py - the real libraries of the incidents beside the C models: each case's peers driver
(cases/<case>/peers/driver.py, named by the manifest) runs them on the inputs the C models use,
checks them against the C references and times them; the work is scripts/hotbench/peers.py.

Usage: scripts/peers.py [--build DIR] [--quick]   run everything, write the results
       scripts/peers.py --check                   exit 0 if some case's runtimes are installed
       scripts/peers.py --verify [CASE] --work DIR [--build DIR]
                                                  verification only (ctest); 77 without runtimes
--help: the details. Run under Debian's /usr/bin/python3.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.peers import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
