"""Entry point of the standalone app (PyInstaller): the same main() as `python -m advisor`."""

import sys

from advisor.app import main

if __name__ == "__main__":
    # Old macOS Finder launches add a process serial number argument; it is not ours.
    sys.exit(main([a for a in sys.argv[1:] if not a.startswith("-psn_")]))
