"""Source instrumentation, trace decoding and access analysis (numpy only)."""
