"""Everything Qt: windows, views and workers. Never calls pyopencl directly."""
