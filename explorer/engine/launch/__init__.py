"""One launch: the device, the build, the NDRange, the buffers bound, the run and its verdict."""
