"""OpenCL C sources of the kernel catalog, one file per variant (package data)."""
