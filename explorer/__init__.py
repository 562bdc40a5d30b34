"""OpenCL Kernel Explorer: run, verify, time and trace OpenCL kernels, and watch them work."""

__version__ = "0.1.0"
