"""The launch description every kernel becomes before the engine sees it, and the small
expression languages of headers (numpy only: neither Qt nor OpenCL)."""
