"""``%load_ext kb``: kb's diagnosis under the traceback of a failing cell (IPython, Jupyter, Colab, Kaggle).

The extension installs an IPython custom exception handler (``InteractiveShell.set_custom_exc``) for every
``Exception`` (KeyboardInterrupt and SystemExit stay IPython's). The handler first shows the traceback the
usual way (``shell.showtraceback``: the same colours, ``%xmode``, ``%pdb`` and ``%debug`` as without kb), then
diagnoses the exception and, when kb knows it, displays the one-screen answer below: HTML in Jupyter, the
text in a terminal (one display with both forms; the front end picks). When kb has no answer, nothing more
is shown: the handler sees every error of the session, most of them typos kb has nothing to say about.

Nothing may escape the handler: IPython would unregister it and print its own traceback. A failure inside
kb prints one line on standard error; the traceback above it is Python's own and stays.
``%unload_ext kb`` puts back the handler that was there before.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

_HANDLED = (Exception,)
# id(shell) -> (the shell's custom exception types before kb, its CustomTB before kb, kb's CustomTB)
_installed: dict[int, tuple[tuple[type[BaseException], ...], Any, Any]] = {}


def load(shell: Any) -> None:
    """Install the handler on ``shell`` (an InteractiveShell); loading twice installs it once."""
    if id(shell) in _installed and shell.CustomTB is _installed[id(shell)][2]:
        return
    previous = (shell.custom_exceptions, shell.CustomTB)
    shell.set_custom_exc(_HANDLED, handler)
    _installed[id(shell)] = (*previous, shell.CustomTB)
    print("kb: errors in this session's cells are diagnosed below their traceback when kb knows them "
          "(%unload_ext kb to stop)")


def unload(shell: Any) -> None:
    """Remove the handler, putting back the one there before (unless another has replaced kb's since)."""
    entry = _installed.pop(id(shell), None)
    if entry is None:
        return
    exceptions, custom_tb, ours = entry
    if shell.CustomTB is ours:
        shell.custom_exceptions, shell.CustomTB = exceptions, custom_tb


def handler(shell: Any, etype: type[BaseException], value: BaseException, tb: TracebackType | None,
            tb_offset: int | None = None) -> None:
    """IPython's CustomTB: the normal traceback, then kb's answer when it has one. Never raises."""
    try:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    except Exception:  # IPython failing to format it: Python's own formatting, so the traceback is never lost
        try:
            import traceback

            traceback.print_exception(etype, value, tb)
        except Exception:
            pass
    try:
        show_diagnosis(etype, value, tb)
    except BaseException as exc:  # noqa: BLE001 - a Ctrl-C while kb works, too: the traceback is shown already
        try:
            from kb.render.sanitize import sanitize_for_terminal

            print(sanitize_for_terminal(f"kb: could not diagnose this error ({type(exc).__name__}: {exc}); the "
                                        "traceback above is Python's own"), file=sys.stderr)
        except BaseException:
            pass
    return None


def text_width() -> int:
    """The terminal's width for the text form (a terminal IPython, at most 100), else 80 (a notebook's
    text/plain, a pipe): a kernel's standard output is no terminal, whatever started the kernel."""
    import os

    try:
        if sys.stdout.isatty():
            return min(max(os.get_terminal_size(sys.stdout.fileno()).columns, 40), 100)
    except (OSError, ValueError, AttributeError):
        pass
    return 80


def _without_ipython(tb: TracebackType | None) -> TracebackType | None:
    """The traceback without IPython's frames at its top (run_code's ``exec``): no part of the user's error."""
    inner = tb
    while inner is not None and str(inner.tb_frame.f_globals.get("__name__", "")).startswith("IPython."):
        inner = inner.tb_next
    return inner if inner is not None else tb


def show_diagnosis(etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> bool:
    """Display kb's answer for the exception, if kb has one; whether it did."""
    import traceback

    from kb.notebook.result import diagnose_text

    text = "".join(traceback.format_exception(etype, value, _without_ipython(tb)))
    width = text_width()
    result = diagnose_text(text, width=width)
    if result.top is None:
        return False
    from IPython.display import display

    rule = "─── kb " + "─" * max(width - 7, 0)
    display({"text/plain": f"{rule}\n{result.text.rstrip()}", "text/html": result._repr_html_()}, raw=True)
    return True
