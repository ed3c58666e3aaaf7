import sys

from .cli import main

# The guard: worker processes a local cluster spawns import the main module again, and must not
# run the command a second time (docs/scaling.md).
if __name__ == "__main__":
    sys.exit(main())
