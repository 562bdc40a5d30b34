#!/usr/bin/env python3
"""Double-clickable entry point: starts the OpenCL Kernel Explorer window."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from explorer.app import main

if __name__ == "__main__":
    sys.exit(main())
