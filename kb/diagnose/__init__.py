"""`kb diagnose`: read error output, parse it, match it against the knowledge, redact and print."""
