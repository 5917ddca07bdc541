"""Starting `kvlab serve` and a real redis-server for the server's ctest scripts.

Each server listens on a loopback port that was free a moment before; if another process takes
it first, the server fails to bind and is started again on another port. Servers run in their
own temporary directories and are killed if the test dies (atexit), so no test leaves one
behind or touches another process.
"""
import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kvlab_binary(argv):
    """The kvlab binary named by --kvlab PATH on the command line (ctest passes it)."""
    if "--kvlab" in argv:
        return os.path.abspath(argv[argv.index("--kvlab") + 1])
    raise SystemExit("usage: %s --kvlab PATH/TO/kvlab" % argv[0])


def ping(port, timeout=0.2):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64) == b"+PONG\r\n"
    except OSError:
        return False


class _Process:
    """A server process on a free port, with its log in its own directory."""

    name = "server"

    def __init__(self, env=None):
        self.workdir = tempfile.mkdtemp(prefix="kvlab-%s-" % self.name)
        self.env = env  # the process's environment (None: this one's)
        self.proc = None
        self.port = None
        self.log_path = os.path.join(self.workdir, "log")
        atexit.register(self.cleanup)

    def command(self, port):
        raise NotImplementedError

    def start(self, attempts=5):
        for _ in range(attempts):
            self.port = self.port or free_port()
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(self.command(self.port), stdout=log,
                                             stderr=subprocess.STDOUT, cwd=self.workdir,
                                             env=self.env)
            deadline = time.time() + 20
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    break
                if ping(self.port):
                    return self
                time.sleep(0.02)
            if self.proc.poll() is None:
                self.kill()
                raise RuntimeError("%s did not answer PING: %s" % (self.name, self.log()))
            if "in use" not in self.log():
                raise RuntimeError("%s exited at start: %s" % (self.name, self.log()))
            self.port = None  # the port was taken meanwhile: try another
        raise RuntimeError("%s found no free port" % self.name)

    def stop(self, sig=signal.SIGTERM, timeout=60):
        """Sends `sig` and returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.wait(timeout)

    def wait(self, timeout=60):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RuntimeError("%s did not exit within %d s: %s" % (self.name, timeout, self.log()))

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")[-4000:]

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


class KvlabServer(_Process):
    name = "kvlab"

    def __init__(self, kvlab, backend="memory", store_dir=None, args=(), env=None):
        super().__init__(env)
        self.kvlab = kvlab
        self.backend = backend
        self.store_dir = store_dir
        self.args = list(args)

    def command(self, port):
        cmd = [self.kvlab, "serve", "--backend", self.backend, "--port", str(port)]
        if self.store_dir:
            cmd += ["--dir", self.store_dir]
        return cmd + self.args


class RedisServer(_Process):
    name = "redis"

    def command(self, port):
        return ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", self.workdir]


def send_raw(port, data, timeout=5.0):
    """Sends bytes, half-closes, and returns everything the server sent until it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
