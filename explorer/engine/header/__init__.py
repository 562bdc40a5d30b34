"""Reading what a kernel is: its file and header, an Oclgrind .sim file, its signature,
and the first guess of a header for a kernel that has none."""
