"""A persistent Python session, run inside the sandbox by the CodeExec server (see codexec_mcp/repl.py).

Reads one JSON request per line from the server, runs its code in one namespace that lives as long as the
session, prints the value of a final expression like the interactive prompt, then writes the end marker with
a status on stdout and stderr. The code's own stdin is /dev/null. Standard library only: this file runs under
whatever python3 the sandbox has.
"""

import ast
import asyncio
import builtins
import contextlib
import importlib
import inspect
import json
import os
import signal
import sys
import traceback


class SessionTimeout(BaseException):
    """Raised into the running code when its time is up (BaseException: `except Exception` cannot eat it)."""


def _on_alarm(_signum, _frame):
    raise SessionTimeout()


def _flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()


def _print_error(exc):
    # The first traceback entries are this driver's own frames: the user's code starts below them.
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)


def _compile(code):
    tree = ast.parse(code, "<session>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    body = compile(tree, "<session>", "exec", flags=flags)
    value = compile(last, "<session>", "eval", flags=flags) if last is not None else None
    return body, value


def _evaluate(code_object, namespace):
    result = eval(code_object, namespace)
    if code_object.co_flags & inspect.CO_COROUTINE:
        result = asyncio.run(result)
    return result


def run(code, timeout, namespace):
    importlib.invalidate_caches()  # packages installed since the last request become importable
    try:
        body, value = _compile(code)
    except SyntaxError as exc:
        traceback.print_exception(type(exc), exc, None, file=sys.stderr)
        return {"ok": False}
    signal.setitimer(signal.ITIMER_REAL, max(timeout, 0.001))
    try:
        _evaluate(body, namespace)
        if value is not None:
            result = _evaluate(value, namespace)
            if result is not None:
                print(repr(result))
        return {"ok": True}
    except SessionTimeout:
        print(f"TimeoutError: the code ran longer than {timeout:g} s and was interrupted", file=sys.stderr)
        return {"ok": False, "timed_out": True}
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return {"ok": code == 0, "exit": code}
    except BaseException as exc:
        _print_error(exc)
        return {"ok": False}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main():
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.path[0] = ""  # like the interactive prompt: imports look in the working folder first
    signal.signal(signal.SIGALRM, _on_alarm)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    for line in requests:
        try:
            request = json.loads(line)
            marker = request["marker"].encode("ascii")
            status = run(request["code"], float(request["timeout"]), namespace)
        except SessionTimeout:  # the alarm fired between the code's end and the timer's reset
            status = {"ok": False, "timed_out": True}
        _flush()
        os.write(1, b"\n" + marker + json.dumps(status).encode() + b"\n")
        os.write(2, b"\n" + marker + b"\n")
        if "exit" in status:
            return


if __name__ == "__main__":
    main()
