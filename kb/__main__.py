from kb.cli import script

raise SystemExit(script())
