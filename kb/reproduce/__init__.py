"""Running a case's programs: runner, harness, hardware profiles, pins, memory limits, evidence."""
