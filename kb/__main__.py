import sys

from kb.cli import main

code = main()
if sys.argv[1:2] == ["diagnose"] and isinstance(code, int):
    # `kb diagnose` is done: skip the interpreter's teardown (freeing the knowledge index's objects one by one,
    # module by module: ~3 ms, a tenth of its start-up). Exit handlers run and the standard streams are flushed
    # first; when a flush fails, the ordinary exit reports it as it always did.
    import atexit
    import os

    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # noqa: BLE001 - the ordinary exit flushes again and says what failed
        raise SystemExit(code) from None
    os._exit(code)
raise SystemExit(code)
