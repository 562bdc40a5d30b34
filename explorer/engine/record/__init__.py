"""Recording what a kernel did: the instrumented launch behind a trace, and a run on
Oclgrind with its checks on."""
