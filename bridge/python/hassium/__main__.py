"""python -m hassium script.py [args...]: run an unmodified NumPy script on hassium.

`import numpy` inside the script (and the user's modules next to it) gives hassium; libraries
keep the real NumPy (the rule is in hassium/_importer.py). Pending work is flushed at the end.
"""

import os
import runpy
import sys

USAGE = "usage: python -m hassium script.py [args...]"


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if len(sys.argv) < 2 else sys.stdout)
        return 2 if len(sys.argv) < 2 else 0
    script = sys.argv[1]
    if not os.path.exists(script):
        print(f"hassium: error: no such script: {script}", file=sys.stderr)
        return 2
    import hassium
    from hassium import _importer

    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    _importer.install(script)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        hassium.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
