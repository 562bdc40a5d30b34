"""``python -m explorer``: the command-line interface."""

import sys

if __name__ == "__main__":
    # The executor's process first: it starts while the command imports the engine.
    from explorer.engine.early import start_for

    start_for(sys.argv[1:])

from explorer.cli import main

if __name__ == "__main__":
    sys.exit(main())
