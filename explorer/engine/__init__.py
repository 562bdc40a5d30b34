"""Everything that talks to OpenCL. Never imports Qt."""
