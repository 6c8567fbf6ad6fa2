"""The escape corpus: attempts by sandboxed code to reach what it must not (data, run by
test_codexec_escapes.py).

Each attempt is code plus what must hold afterwards. The code prints `BLOCKED …` when its attack failed and
`ESCAPED …` when it worked; the test also checks, from outside, that no secret appeared in any output, that no
file outside the sandbox changed, that nothing the attempt started is still running and that no listener of
the host was reached. Placeholders in braces are filled per run: {TOKEN_PATH} (the hub's token file),
{OUTSIDE} (a host folder with a secret file), {HOST_HOME} (a home with ~/.ssh and ~/.aws files), {SANDBOX_HOST}
and {ANNABELLE_HOME} (host paths), {PID}/{PPID}/{PGID} (the test process, standing in for the hub),
{PORT}/{UDP_PORT} (listeners on the host's 127.0.0.1), {ABSTRACT}/{UNIX_PATH} (host unix sockets), {MARK}
(unique per attempt, put in the command line of anything it leaves running) and {CANARY_HASH} (the sha256
of the secret, so code can look for it without containing it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from textwrap import dedent
from typing import Any

PYTHON_PRELUDE = dedent(
    """
    import ctypes, hashlib, os, signal, socket, subprocess, sys, time
    def must_fail(fn, *args):
        try:
            value = fn(*args)
        except BaseException as exc:
            print("BLOCKED", type(exc).__name__)
        else:
            print("ESCAPED", type(value).__name__)
    def verdict(escaped, detail=""):
        print("ESCAPED" if escaped else "BLOCKED", detail)
    def has_secret(data):
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        return any(
            hashlib.sha256(text[i:i + 32].encode()).hexdigest() == "{CANARY_HASH}" for i in range(len(text) - 31)
        )
    libc = ctypes.CDLL(None, use_errno=True)
    """
)
NODE_PRELUDE = dedent(
    """
    const fs = require('fs'), net = require('net'), cp = require('child_process'), http = require('http');
    function mustFail(fn) {
      try { const v = fn(); console.log('ESCAPED', typeof v); } catch (e) { console.log('BLOCKED', e.code || e.name); }
    }
    function mustFailAsync(start) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => { console.log('BLOCKED timeout'); resolve(); }, 3000);
        start(() => { clearTimeout(timer); console.log('ESCAPED connected'); resolve(); },
              (e) => { clearTimeout(timer); console.log('BLOCKED', e.code || e.name); resolve(); });
      });
    }
    """
)
BASH_PRELUDE = dedent(
    """
    must_fail() { if "$@" >/dev/null 2>&1; then echo "ESCAPED $1"; else echo "BLOCKED $1"; fi; }
    """
)
PRELUDES = {"python": PYTHON_PRELUDE, "node": NODE_PRELUDE, "bash": BASH_PRELUDE}


@dataclass(frozen=True)
class Attempt:
    id: str
    language: str
    code: str
    expect: str | None = "BLOCKED"
    """Text stdout must contain (the attack ran to its end and failed); None when only the checks matter."""
    timeout_ms: int = 15_000
    tight: bool = False
    """Run under small limits (CPU, memory, processes, files, output)."""
    check: Callable[[Any], bool] | None = None
    """Extra condition on the ExecutionResult."""
    working_dir: str | None = None
    then_working_dir: str | None = None
    """A later run in this working_dir must be refused (the code planted a link there)."""

    def source(self) -> str:
        return PRELUDES[self.language] + dedent(self.code)


def py(id: str, code: str, **kw: Any) -> Attempt:
    return Attempt(id, "python", code, **kw)


def js(id: str, code: str, **kw: Any) -> Attempt:
    return Attempt(id, "node", code, **kw)


def sh(id: str, code: str, **kw: Any) -> Attempt:
    return Attempt(id, "bash", code, **kw)


def _bounded_output(result: Any) -> bool:
    return result.truncated and len(result.stdout) < 9000 and len(result.stderr) < 9000


ROOT_ENTRIES = "{'bin','dev','etc','lib','lib32','lib64','libx32','proc','run','sandbox','sbin','tmp','usr'}"

ATTEMPTS: tuple[Attempt, ...] = (
    # --- reading outside the sandbox -------------------------------------------------------------------------
    py("py-read-token", "must_fail(lambda: open('{TOKEN_PATH}').read())"),
    js("js-read-token", "mustFail(() => fs.readFileSync('{TOKEN_PATH}', 'utf8'))"),
    sh("sh-read-token", "must_fail cat '{TOKEN_PATH}'"),
    py("py-read-outside-file", "must_fail(lambda: open('{OUTSIDE}/codexec-outside-secret.txt').read())"),
    js("js-read-outside-file", "mustFail(() => fs.readFileSync('{OUTSIDE}/codexec-outside-secret.txt'))"),
    sh("sh-read-outside-file", "must_fail cat '{OUTSIDE}/codexec-outside-secret.txt'"),
    py("py-read-ssh-key", "must_fail(lambda: open('{HOST_HOME}/.ssh/id_rsa').read())"),
    sh("sh-read-aws-credentials", "must_fail cat '{HOST_HOME}/.aws/credentials'"),
    js("js-read-aws-credentials", "mustFail(() => fs.readFileSync('{HOST_HOME}/.aws/credentials'))"),
    py("py-list-host-home", "must_fail(os.listdir, '{HOST_HOME}')"),
    py("py-list-root-home", "must_fail(os.listdir, '/root')"),
    sh("sh-list-home", "must_fail ls /home/"),
    py("py-read-shadow", "must_fail(lambda: open('/etc/shadow').read())"),
    py(
        "py-passwd-is-the-sandboxs-own",
        "names = [l.split(':')[0] for l in open('/etc/passwd')]\nverdict(names != ['root', 'sandbox'], names)",
    ),
    py(
        "py-root-has-only-sandbox-entries",
        f"extra = set(os.listdir('/')) - {ROOT_ENTRIES}\nverdict(bool(extra), sorted(extra))",
    ),
    js(
        "js-root-has-only-sandbox-entries",
        "const extra = fs.readdirSync('/').filter((n) => !"
        + ROOT_ENTRIES.replace("{", "[").replace("}", "]")
        + ".includes(n));\nconsole.log(extra.length ? 'ESCAPED' : 'BLOCKED', extra.join(','));",
    ),
    py(
        "py-etc-has-no-host-secrets",
        "bad = {'shadow', 'gshadow', 'sudoers', 'ssh', 'pip.conf', 'hostname', 'machine-id', 'netrc'} & set(os.listdir('/etc'))\n"
        "verdict(bool(bad), sorted(bad))",
    ),
    py("py-list-var", "must_fail(os.listdir, '/var/log')"),
    py("py-list-sys", "must_fail(os.listdir, '/sys/class')"),
    py("py-list-sandbox-host-path", "must_fail(os.listdir, '{SANDBOX_HOST}')"),
    py("py-list-annabelle-home", "must_fail(os.listdir, '{ANNABELLE_HOME}')"),
    py(
        "py-walk-the-whole-tree-for-secrets",
        """
        names = {'annabelle.token', 'codexec-outside-secret.txt', 'id_rsa', 'credentials'}
        found = []
        for top in ('/etc', '/run', '/tmp', '/sandbox', '/dev', '/root', '/home'):
            for folder, dirs, files in os.walk(top):
                found += [f for f in files if f in names]
        verdict(bool(found), found)
        """,
    ),
    sh(
        "sh-find-token-by-name",
        "hits=$(find / \\( -path /proc -o -path /usr -o -path /sys \\) -prune -o -name annabelle.token -print 2>/dev/null | wc -l)\n"
        '[ "$hits" = 0 ] && echo BLOCKED || echo ESCAPED',
    ),
    # --- writing outside ---------------------------------------------------------------------------------------
    py("py-write-outside", "must_fail(lambda: open('{OUTSIDE}/pwned', 'w').write('x'))"),
    sh("sh-write-outside", "must_fail sh -c \"echo x > '{OUTSIDE}/pwned'\""),
    js("js-write-outside", "mustFail(() => fs.writeFileSync('{OUTSIDE}/pwned', 'x'))"),
    py("py-write-etc-passwd", "must_fail(lambda: open('/etc/passwd', 'a').write('evil::0:0::/:/bin/sh'))"),
    py("py-write-usr-bin", "must_fail(lambda: open('/usr/bin/codexec-evil', 'w').write('x'))"),
    sh("sh-touch-usr-lib", "must_fail touch /usr/lib/codexec-evil"),
    py("py-overwrite-own-code", "must_fail(lambda: open('/run/codexec/main.py', 'w').write('x'))"),
    py("py-write-beside-the-sandbox-folder", "must_fail(lambda: open('/sandbox/../planted', 'w').write('x'))"),
    py("py-mkdir-filesystem-root", "must_fail(os.mkdir, '/planted')"),
    py("py-write-proc-sys", "must_fail(lambda: open('/proc/sys/kernel/hostname', 'w').write('evil'))"),
    py("py-write-sysrq", "must_fail(lambda: open('/proc/sysrq-trigger', 'w').write('b'))"),
    sh("sh-write-block-device", "must_fail sh -c 'echo x > /dev/sda'"),
    py(
        "py-private-tmp-stays-private",
        "open('/tmp/codexec-escape-{MARK}', 'w').write('x')\nprint('BLOCKED wrote only the private /tmp')",
    ),
    py("py-overwrite-token", "must_fail(lambda: open('{TOKEN_PATH}', 'w').write('x'))"),
    sh("sh-copy-shell-outside", "must_fail cp /bin/sh '{OUTSIDE}/sh'"),
    py("py-hardlink-outside-file", "must_fail(os.link, '{OUTSIDE}/codexec-outside-secret.txt', 'stolen')"),
    py("py-rename-own-folder-away", "must_fail(os.rename, os.getcwd(), '/sandbox/../moved')"),
    py("py-chmod-system-folder", "must_fail(os.chmod, '/usr/bin', 0o777)"),
    sh("sh-mount-tmpfs", "must_fail mount -t tmpfs none /tmp"),
    py("py-chroot", "must_fail(os.chroot, '/tmp')"),
    sh(
        "sh-nested-user-namespace-cannot-see-host",
        "must_fail unshare -Urm sh -c \"cat '{TOKEN_PATH}' || cat '{OUTSIDE}/codexec-outside-secret.txt'\"",
    ),
    # --- symbolic links ----------------------------------------------------------------------------------------
    py("py-symlink-to-token", "os.symlink('{TOKEN_PATH}', 'link')\nmust_fail(lambda: open('link').read())"),
    py(
        "py-symlink-to-root-shows-the-sandbox-root",
        f"os.symlink('/', 'top')\nextra = set(os.listdir('top')) - {ROOT_ENTRIES}\nverdict(bool(extra), sorted(extra))",
    ),
    sh("sh-symlink-to-outside-folder", "ln -s '{OUTSIDE}' out\nmust_fail cat out/codexec-outside-secret.txt"),
    js("js-symlink-to-init-root", "fs.symlinkSync('/proc/1/root', 'r');\nmustFail(() => fs.readdirSync('r'))"),
    py(
        "py-link-planted-for-a-later-run",
        "os.symlink('/etc', 'evil')\nos.symlink('{OUTSIDE}', 'evil2')\nprint('BLOCKED planted; the server must refuse it')",
        working_dir="planted-{MARK}",
        then_working_dir="planted-{MARK}/evil",
    ),
    py(
        "py-link-planted-to-outside-for-a-later-run",
        "os.symlink('{OUTSIDE}', 'away')\nprint('BLOCKED planted')",
        working_dir="planted2-{MARK}",
        then_working_dir="planted2-{MARK}/away",
    ),
    # --- /proc ----------------------------------------------------------------------------------------------------
    py("py-read-init-environ", "must_fail(lambda: open('/proc/1/environ', 'rb').read())"),
    py("py-init-root", "must_fail(os.listdir, '/proc/1/root')"),
    py("py-init-cwd", "must_fail(os.readlink, '/proc/1/cwd')"),
    py("py-init-memory", "must_fail(lambda: open('/proc/1/mem', 'rb').read(1))"),
    py(
        "py-hub-process-is-invisible",
        "p = '/proc/{PID}/cmdline'\nverdict(os.path.exists(p) and b'pytest' in open(p, 'rb').read())",
    ),
    py(
        "py-only-sandbox-processes-are-visible",
        "pids = [p for p in os.listdir('/proc') if p.isdigit()]\nverdict(len(pids) > 8, len(pids))",
    ),
    py("py-read-kcore", "must_fail(lambda: open('/proc/kcore', 'rb').read(1))"),
    py("py-read-kmsg", "must_fail(lambda: open('/proc/kmsg', 'rb').read(1))"),
    py("py-init-cmdline-holds-no-secret", "verdict(has_secret(open('/proc/1/cmdline', 'rb').read()))"),
    py("py-ptrace-init", "verdict(libc.ptrace(16, 1, 0, 0) == 0, ctypes.get_errno())"),
    py("py-ptrace-parent", "verdict(libc.ptrace(16, os.getppid(), 0, 0) == 0, ctypes.get_errno())"),
    py(
        "py-no-capabilities",
        "caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('Cap')]\n"
        "verdict(any(int(c, 16) for c in caps), caps)",
    ),
    py(
        "py-no-new-privileges",
        "nnp = [l.split()[1] for l in open('/proc/self/status') if l.startswith('NoNewPrivs')]\nverdict(nnp != ['1'], nnp)",
    ),
    py(
        "py-system-mounts-are-read-only",
        """
        rw = []
        for line in open('/proc/self/mountinfo'):
            fields = line.split()
            if fields[4] in ('/usr', '/etc/ssl', '/run/codexec') and 'ro' not in fields[5].split(','):
                rw.append(fields[4])
        verdict(bool(rw), rw)
        """,
    ),
    # --- the environment ---------------------------------------------------------------------------------------------
    py("py-environment-has-no-secret", "verdict(any(has_secret(v) for v in os.environ.values()))"),
    js(
        "js-environment-has-no-secret",
        "const names = Object.keys(process.env).filter((k) => /TOKEN|KEY|SECRET|ANNABELLE|AWS/.test(k));\n"
        "console.log(names.length ? 'ESCAPED' : 'BLOCKED', names.join(','));",
    ),
    sh(
        "sh-environment-has-no-secret",
        "n=$(env | grep -c -E 'TOKEN|API_KEY|SECRET|ANNABELLE'); [ \"$n\" = 0 ] && echo BLOCKED || echo ESCAPED",
    ),
    py(
        "py-environment-is-the-minimal-list",
        "allowed = {'PATH','HOME','TMPDIR','USER','LOGNAME','LANG','TERM','PYTHONPATH','PYTHONUNBUFFERED',"
        "'PYTHONDONTWRITEBYTECODE','NODE_PATH','PIP_DISABLE_PIP_VERSION_CHECK','PIP_NO_INPUT',"
        "'npm_config_update_notifier','npm_config_cache','PWD','LC_CTYPE'}\n"
        "extra = set(os.environ) - allowed\nverdict(bool(extra), sorted(extra))",
    ),
    py(
        "py-every-readable-environ-in-proc",
        """
        leaked = False
        for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
            try:
                leaked |= has_secret(open(f'/proc/{pid}/environ', 'rb').read())
            except OSError:
                pass
        verdict(leaked)
        """,
    ),
    py("py-self-environ", "verdict(has_secret(open('/proc/self/environ', 'rb').read()))"),
    py(
        "py-token-variable",
        "verdict(os.environ.get('ANNABELLE_TOKEN') is not None or os.environ.get('GROQ_API_KEY') is not None)",
    ),
    # --- the network ---------------------------------------------------------------------------------------------------
    py("py-tcp-to-host-listener", "must_fail(lambda: socket.create_connection(('127.0.0.1', {PORT}), timeout=2))"),
    js(
        "js-tcp-to-host-listener",
        "mustFailAsync((ok, bad) => { const s = net.connect({PORT}, '127.0.0.1', ok); s.on('error', bad); });",
    ),
    sh("sh-dev-tcp-to-host-listener", "must_fail bash -c 'exec 3<>/dev/tcp/127.0.0.1/{PORT}'"),
    js(
        "js-http-to-host-listener",
        "mustFailAsync((ok, bad) => http.get('http://127.0.0.1:{PORT}/', ok).on('error', bad));",
    ),
    py("py-tcp6-to-host-listener", "must_fail(lambda: socket.create_connection(('::1', {PORT}), timeout=2))"),
    py(
        "py-udp-to-host-listener",
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "try:\n    s.sendto(b'leak', ('127.0.0.1', {UDP_PORT}))\nexcept OSError:\n    pass\nprint('BLOCKED sent into the sandbox loopback only')",
    ),
    py(
        "py-abstract-unix-socket",
        "s = socket.socket(socket.AF_UNIX)\nmust_fail(s.connect, '\\0{ABSTRACT}')",
    ),
    py("py-unix-socket-path", "s = socket.socket(socket.AF_UNIX)\nmust_fail(s.connect, '{UNIX_PATH}')"),
    py(
        "py-only-loopback-interface",
        "names = [l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]]\nverdict(names != ['lo'], names)",
    ),
    py("py-no-routes", "routes = open('/proc/net/route').readlines()[1:]\nverdict(bool(routes), len(routes))"),
    py("py-packet-socket", "must_fail(socket.socket, socket.AF_PACKET, socket.SOCK_RAW)"),
    py("py-raw-icmp-socket", "must_fail(socket.socket, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)"),
    py("py-dns-lookup", "must_fail(socket.getaddrinfo, 'example.com', 80)"),
    sh("sh-add-network-interface", "must_fail ip link add codexec0 type dummy"),
    # --- resources -----------------------------------------------------------------------------------------------------
    py(
        "py-fork-bomb",
        """
        n = 0
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(2)
                    os._exit(0)
                n += 1
        except OSError:
            print('BLOCKED limited at', n < 64)
        """,
        tight=True,
    ),
    sh(
        "sh-fork-bomb",
        "bomb() { bomb | bomb & }; bomb; sleep 1; echo BLOCKED",
        tight=True,
        timeout_ms=4000,
        expect=None,
    ),
    js(
        "js-shell-fork-bomb",
        "try { cp.execSync('bomb() { bomb | bomb & }; bomb; sleep 1', { shell: '/bin/bash', stdio: 'ignore' }); } catch (e) {}\n"
        "console.log('BLOCKED');",
        tight=True,
        timeout_ms=4000,
        expect=None,
    ),
    py(
        "py-thread-bomb",
        """
        import threading
        n = 0
        try:
            while n < 5000:
                threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
                n += 1
            print('ESCAPED', n)
        except RuntimeError:
            print('BLOCKED limited')
        """,
        tight=True,
    ),
    py("py-allocate-a-gigabyte", "must_fail(bytearray, 1024 ** 3)", tight=True),
    py(
        "py-grow-a-list-forever",
        "x = []\ntry:\n    while True: x.append(' ' * 10**6)\nexcept MemoryError:\n    print('BLOCKED')",
        tight=True,
    ),
    js(
        "js-allocate-a-gigabyte",
        "const b = []; for (let i = 0; i < 64; i++) b.push(Buffer.alloc(16 * 1024 * 1024, 1)); console.log('ESCAPED');",
        tight=True,
        expect=None,
    ),
    py(
        "py-spin-the-cpu",
        "while True: pass",
        tight=True,
        expect=None,
        check=lambda r: r.exit_code in (137, 152) and not r.timed_out,
    ),
    py(
        "py-write-a-huge-file",
        "must_fail(lambda: open('big', 'wb').write(b'0' * 20 * 1024 * 1024))",
        tight=True,
        expect=None,
        check=lambda r: r.exit_code != 0 or "BLOCKED" in r.stdout,
    ),
    py(
        "py-fill-tmp",
        "must_fail(lambda: [open(f'/tmp/f{i}', 'wb').write(b'0' * 4 * 1024 * 1024) for i in range(20)])",
        tight=True,
    ),
    py("py-exhaust-file-descriptors", "must_fail(lambda: [open('/dev/null') for _ in range(5000)])", tight=True),
    py(
        "py-raise-own-process-limit",
        "import resource\nmust_fail(resource.setrlimit, resource.RLIMIT_NPROC, (100000, 100000))",
        tight=True,
    ),
    # --- output floods -------------------------------------------------------------------------------------------------
    py(
        "py-print-fifty-megabytes",
        "sys.stdout.write('x' * 50 * 1024 * 1024)",
        tight=True,
        expect=None,
        check=_bounded_output,
    ),
    py(
        "py-one-endless-line",
        "while True: sys.stdout.write('y' * 65536)",
        tight=True,
        expect=None,
        check=_bounded_output,
    ),
    sh("sh-yes-forever", "yes", tight=True, expect=None, check=_bounded_output),
    js(
        "js-stdout-flood",
        "const s = 'z'.repeat(65536); for (;;) process.stdout.write(s);",
        tight=True,
        expect=None,
        check=_bounded_output,
    ),
    py("py-stderr-flood", "while True: sys.stderr.write('e' * 65536)", tight=True, expect=None, check=_bounded_output),
    py(
        "py-binary-garbage",
        "sys.stdout.buffer.write(os.urandom(200000))",
        expect=None,
        check=lambda r: len(r.stdout) < 9000,
    ),
    py("py-nul-bytes", "sys.stdout.write('\\0' * 50000)", expect=None, check=lambda r: r.truncated),
    # --- orphans --------------------------------------------------------------------------------------------------------
    py(
        "py-forked-child-outlives-parent",
        "if os.fork() == 0:\n    os.setsid()\n    os.execvp('bash', ['bash', '-c', 'sleep 300; : {MARK}'])\nprint('BLOCKED parent left')",
    ),
    py(
        "py-double-fork-daemon",
        """
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp('bash', ['bash', '-c', 'sleep 300; : {MARK}'])
            os._exit(0)
        print('BLOCKED parent left')
        """,
    ),
    sh("sh-nohup-background", "nohup bash -c 'sleep 300; : {MARK}' >/dev/null 2>&1 &\necho BLOCKED"),
    sh("sh-setsid-background", "setsid bash -c 'sleep 300; : {MARK}' >/dev/null 2>&1 &\necho BLOCKED"),
    sh("sh-disowned-subshell", "( bash -c 'sleep 300; : {MARK}' & ) ; disown -a 2>/dev/null; echo BLOCKED"),
    js(
        "js-detached-child",
        "cp.spawn('bash', ['-c', 'sleep 300; : {MARK}'], { detached: true, stdio: 'ignore' }).unref();\nconsole.log('BLOCKED');",
    ),
    py(
        "py-new-session-child",
        "subprocess.Popen(['bash', '-c', 'sleep 300; : {MARK}'], start_new_session=True, stdout=subprocess.DEVNULL)\nprint('BLOCKED')",
    ),
    sh(
        "sh-ignores-sigterm",
        "trap '' TERM HUP\nbash -c \"trap '' TERM; sleep 300; : {MARK}\"",
        timeout_ms=1000,
        expect=None,
        check=lambda r: r.timed_out,
    ),
    py(
        "py-ignores-sigterm",
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nsubprocess.Popen(['bash', '-c', \"trap '' TERM; sleep 300; : {MARK}\"])\nwhile True: time.sleep(1)",
        timeout_ms=1000,
        expect=None,
        check=lambda r: r.timed_out,
    ),
    py(
        "py-child-in-new-session-ignoring-signals",
        "subprocess.Popen(['bash', '-c', \"trap '' TERM HUP INT; sleep 300; : {MARK}\"], start_new_session=True)\nprint('BLOCKED')",
    ),
    # --- signals to the hub and the sandbox's parents -------------------------------------------------------------------
    # SIGWINCH: harmless if it ever arrived, and kill() still reports whether it could be sent.
    py("py-signal-the-hub", "must_fail(os.kill, {PID}, signal.SIGWINCH)"),
    py("py-signal-the-hubs-group", "must_fail(os.killpg, {PGID}, signal.SIGWINCH)"),
    py("py-signal-the-hubs-parent", "must_fail(os.kill, {PPID}, signal.SIGWINCH)"),
    py("py-kill-own-parent", "must_fail(os.kill, os.getppid(), signal.SIGKILL)"),
    py("py-kill-pid-one", "must_fail(os.kill, 1, signal.SIGTERM)"),
    # kill(-1) reaches every process the caller may signal except itself: inside the PID namespace, only its own.
    py(
        "py-kill-everything",
        "try:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    pass\ntime.sleep(0.2)\nprint('survived alone')",
        expect="survived",
    ),
    sh("sh-kill-everything", "kill -9 -1; sleep 0.2; echo survived alone", expect="survived"),
    sh("sh-signal-the-hubs-parent", "must_fail kill -WINCH {PPID}"),
    js("js-kill-the-hub", "mustFail(() => process.kill({PID}, 'SIGWINCH'))"),
    py(
        "py-hub-pid-not-signalable",
        "try:\n    os.kill({PID}, 0)\n    print('ESCAPED visible')\nexcept ProcessLookupError:\n    print('BLOCKED not visible')\nexcept PermissionError:\n    print('BLOCKED not permitted')",
    ),
    py("py-open-controlling-tty", "must_fail(open, '/dev/tty')"),
    py(
        "py-tiocsti-injection",
        "import fcntl, termios\nmust_fail(lambda: fcntl.ioctl(0, termios.TIOCSTI, b'x'))",
    ),
    # --- privileges ------------------------------------------------------------------------------------------------------
    py("py-setuid-root", "must_fail(os.setuid, 0)"),
    py("py-setgroups-root", "must_fail(os.setgroups, [0])"),
    sh("sh-su-root", "must_fail su -c id root"),
    sh("sh-mount-proc", "must_fail mount -t proc proc /tmp"),
    # Harmless commands even if they were allowed: Ctrl-Alt-Del off, the clock set to the current time.
    py("py-reboot-call", "verdict(libc.reboot(0) == 0, ctypes.get_errno())"),
    py("py-sethostname", "verdict(libc.sethostname(b'evil', 4) == 0, ctypes.get_errno())"),
    py("py-load-kernel-module", "verdict(libc.syscall(175, None, 0, b'') == 0, ctypes.get_errno())"),
    py(
        "py-set-the-system-clock",
        "now = (ctypes.c_long * 2)(int(time.time()), 0)\nverdict(libc.clock_settime(0, now) == 0, ctypes.get_errno())",
    ),
    py(
        "py-setuid-binary-gives-nothing",
        "out = subprocess.run(['su', '-c', 'id -u', 'root'], capture_output=True, text=True, stdin=subprocess.DEVNULL)\n"
        "verdict(out.stdout.strip() == '0', out.returncode)",
    ),
)
