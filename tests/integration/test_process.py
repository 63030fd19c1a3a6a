"""The process as a service manager runs it, and the config file as Redis reads it: a
real ringcache daemonizes and keeps its pid file and log file, tells systemd it is ready
and stopping, sets TCP keepalive on its clients, starts when run through the dynamic
loader, and refuses a config file line it cannot honour (naming the file and the line)
instead of starting without it.

Run by ctest as `/usr/bin/python3 test_process.py <path-to-ringcache> <Class>`.
"""

import os
import socket
import subprocess
import tempfile
import unittest

import redis

import ringcache_server
from ringcache_server import Ringcache, free_port, main, wait_for


def engine_args():
    engine = os.environ.get("RINGCACHE_IO_ENGINE")
    return ["--io-engine", engine] if engine else []


def alive(pid):
    """Running (not gone, not a zombie nobody reaped)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class ProcessDirectivesTest(unittest.TestCase):

    def test_daemon_keeps_its_pid_file_and_log_file(self):
        with tempfile.TemporaryDirectory() as d:
            pidfile, logfile, port = os.path.join(d, "rc.pid"), os.path.join(d, "rc.log"), free_port()
            # The command returns at once: the server went on in the background.
            started = subprocess.run(
                [ringcache_server.BINARY, "--port", str(port), "--threads", "2", "--daemonize",
                 "yes", "--pidfile", pidfile, "--logfile", logfile, "--save", "", "--dir", d]
                + engine_args(), capture_output=True, timeout=30)
            self.assertEqual(started.returncode, 0, started.stderr)
            self.assertEqual(started.stdout + started.stderr, b"")
            pid = int(wait_for(lambda: os.path.exists(pidfile) and open(pidfile).read(),
                               "the pid file"))
            try:
                r = redis.Redis(port=port, decode_responses=True)
                wait_for(lambda: self._pings(r), "the daemon to answer")
                self.assertTrue(alive(pid))
                self.assertEqual(r.config_get("daemonize"), {"daemonize": "yes"})
                self.assertEqual(r.config_get("pidfile"), {"pidfile": pidfile})
                self.assertEqual(r.info("server")["process_id"], pid)
                # The log goes to the file, not to the terminal the daemon left.
                wait_for(lambda: b"Ready to accept connections" in open(logfile, "rb").read(),
                         "the ready line in the log file")
                r.shutdown(nosave=True)  # redis-py takes the closed connection as success
                wait_for(lambda: not alive(pid), "the daemon to exit")
                self.assertFalse(os.path.exists(pidfile))
                self.assertIn(b"bye bye", open(logfile, "rb").read())
            finally:
                if alive(pid):
                    os.kill(pid, 9)

    @staticmethod
    def _pings(r):
        try:
            return r.ping()
        except redis.ConnectionError:
            return False

    def test_systemd_hears_ready_and_stopping(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "notify")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(path)
            sock.settimeout(20)
            os.environ["NOTIFY_SOCKET"] = path
            try:
                # Supervised, it stays in the foreground though told to daemonize.
                server = Ringcache(threads=2, extra=["--supervised", "auto", "--daemonize", "yes"])
            finally:
                del os.environ["NOTIFY_SOCKET"]
            try:
                self.assertIn(b"READY=1\n", sock.recv(4096))
                self.assertTrue(redis.Redis(port=server.port).ping())
            finally:
                server.stop_ok()
            self.assertEqual(sock.recv(4096), b"STOPPING=1\n")
            sock.close()

    def test_keepalive_probes_accepted_clients(self):
        server = Ringcache(threads=2, extra=["--tcp-keepalive", "60"])
        try:
            kept = redis.Redis(port=server.port)
            kept.ping()
            self.assertEqual(self._settled_timer(server.port, kept), 2)  # keepalive
            kept.config_set("tcp-keepalive", 0)
            plain = redis.Redis(port=server.port)
            plain.ping()
            self.assertEqual(self._settled_timer(server.port, plain), 0)  # none
            # Set when it was accepted: a later CONFIG SET leaves it.
            self.assertEqual(self._settled_timer(server.port, kept), 2)
        finally:
            server.stop_ok()

    @classmethod
    def _settled_timer(cls, port, client):
        """_timer once the reply's retransmit timer (1), armed until the client's ACK
        comes, has given way to the socket's resting one."""
        return wait_for(lambda: (cls._timer(port, client),) if cls._timer(port, client) != 1
                        else None, "the reply to be acknowledged")[0]

    @staticmethod
    def _timer(port, client):
        """The server side's timer of `client`'s connection, from /proc/net/tcp: 0 none,
        2 keepalive."""
        peer = client.connection_pool.get_connection("PING")
        try:
            client_port = peer._sock.getsockname()[1]
        finally:
            client.connection_pool.release(peer)
        with open("/proc/net/tcp") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                local, remote = fields[1], fields[2]
                if (int(local.split(":")[1], 16) == port
                        and int(remote.split(":")[1], 16) == client_port):
                    return int(fields[5].split(":")[0], 16)
        raise AssertionError("no server socket for client port %d" % client_port)


class LaunchTest(unittest.TestCase):
    """Started directly, a glibc build re-executes itself once with a deeper per-thread
    malloc cache (GLIBC_TUNABLES, core/malloc/glibc.cc); started through another program,
    as `ld.so ./ringcache ...` (how some supervisors and tools start one), there is no
    re-execution of that program with ringcache's arguments, and the server serves."""

    LOADER = "/lib64/ld-linux-x86-64.so.2"

    @staticmethod
    def _environ(pid):
        with open("/proc/%d/environ" % pid, "rb") as f:
            return f.read().split(b"\0")

    @staticmethod
    def _maps(pid):
        with open("/proc/%d/maps" % pid) as f:
            return f.read()

    def test_direct_start_takes_the_malloc_tunable(self):
        server = Ringcache(threads=1)
        try:
            maps = self._maps(server.proc.pid)
            if "/libasan.so" in maps or "/libtsan.so" in maps:
                return  # the sanitizers' allocator replaces glibc's: nothing to tune
            tunables = [e for e in self._environ(server.proc.pid)
                        if e.startswith(b"GLIBC_TUNABLES=")]
            self.assertEqual(len(tunables), 1)
            self.assertIn(b"glibc.malloc.tcache_count=", tunables[0])
        finally:
            server.stop_ok()

    def test_started_through_the_dynamic_loader(self):
        if not os.path.exists(self.LOADER):
            self.skipTest("no %s on this host" % self.LOADER)
        server = Ringcache(binary=self.LOADER,
                           args=[ringcache_server.BINARY, "--port", "0", "--threads", "2"])
        try:
            r = redis.Redis(port=server.port)
            self.assertTrue(r.ping())
            self.assertTrue(r.set("k", "v"))
            self.assertEqual(r.get("k"), b"v")
            self.assertEqual(os.readlink("/proc/%d/exe" % server.proc.pid),
                             os.path.realpath(self.LOADER))
        finally:
            server.stop_ok()


class DebugCommandTest(unittest.TestCase):
    """DEBUG as Redis 7 guards it: refused by default with Redis's words, allowed from
    loopback under `local`."""

    def test_refused_unless_enabled(self):
        port = free_port()
        reference = subprocess.Popen(["redis-server", "--port", str(port), "--save", ""],
                                     stdout=subprocess.DEVNULL)
        try:
            rr = redis.Redis(port=port)
            wait_for(lambda: ProcessDirectivesTest._pings(rr), "redis-server")
            with self.assertRaises(redis.ResponseError) as expected:
                rr.execute_command("DEBUG", "SLEEP", "0")
        finally:
            reference.terminate()
            reference.wait()
        server = Ringcache(threads=1, extra=["--enable-debug-command", "no"])
        try:
            r = redis.Redis(port=server.port)
            with self.assertRaises(redis.ResponseError) as got:
                r.execute_command("DEBUG", "SLEEP", "0")
            self.assertEqual(str(got.exception), str(expected.exception))
            self.assertEqual(r.config_get("enable-debug-command"), {"enable-debug-command": "no"})
        finally:
            server.stop_ok()
        server = Ringcache(threads=1, extra=["--enable-debug-command", "local"])
        try:
            self.assertTrue(redis.Redis(port=server.port).execute_command("DEBUG", "SLEEP", "0"))
        finally:
            server.stop_ok()


def listeners(port):
    """The local addresses in LISTEN state on `port`, one entry per socket."""
    found = []
    for path, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        with open(path) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, p = local.split(":")
                if state != "0A" or int(p, 16) != port:
                    continue
                raw = bytes.fromhex(addr)
                # /proc prints the address as 32-bit words in host (little-endian) order.
                raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                found.append(socket.inet_ntop(family, raw))
    return sorted(found)


class BindTest(unittest.TestCase):
    """`bind` as Redis reads it: every address listed is listened on (by every thread),
    and one marked "-" is skipped when this host lacks it; CONFIG GET shows the list."""

    def reference_bind(self, *addresses):
        """CONFIG GET bind of a redis-server started with `addresses`."""
        port = free_port()
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--bind",
                                 *addresses], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            r = redis.Redis(port=port, decode_responses=True)
            wait_for(lambda: ProcessDirectivesTest._pings(r), "redis-server to answer")
            return r.config_get("bind")
        finally:
            proc.kill()
            proc.wait()

    def test_every_thread_listens_on_every_address(self):
        rc = Ringcache(args=["--port", "0", "--threads", "2", "--bind", "127.0.0.1 ::1"])
        try:
            self.assertEqual(listeners(rc.port), ["127.0.0.1", "127.0.0.1", "::1", "::1"])
            for host in ("127.0.0.1", "::1"):
                r = redis.Redis(host=host, port=rc.port, decode_responses=True)
                self.assertEqual(r.set("via", host), True)
                self.assertEqual(r.get("via"), host)
                # CLIENT INFO names the address the client came in on, as Redis writes it.
                want = "[::1]:%d" % rc.port if host == "::1" else "127.0.0.1:%d" % rc.port
                self.assertEqual(r.client_info()["laddr"], want)
            self.assertEqual(r.config_get("bind"), {"bind": "127.0.0.1 ::1"})
            self.assertEqual(r.config_get("bind"), self.reference_bind("127.0.0.1", "::1"))
        finally:
            rc.stop_ok()

    def test_an_optional_address_this_host_lacks_is_skipped(self):
        # 10.255.255.254 is on no interface here: binding it fails with EADDRNOTAVAIL.
        rc = Ringcache(args=["--port", "0", "--threads", "2", "--bind",
                             "-10.255.255.254 127.0.0.1"])
        try:
            self.assertEqual(listeners(rc.port), ["127.0.0.1", "127.0.0.1"])
            r = redis.Redis(port=rc.port, decode_responses=True)
            self.assertEqual(r.config_get("bind"), {"bind": "-10.255.255.254 127.0.0.1"})
            self.assertEqual(r.config_get("bind"),
                             self.reference_bind("-10.255.255.254", "127.0.0.1"))
        finally:
            rc.stop_ok()
        self.assertIn(b"10.255.255.254", rc.output)

    def test_a_required_address_this_host_lacks_stops_the_start(self):
        port = free_port()
        # redis-server takes the list as separate arguments, ringcache as one.
        for argv in (["redis-server", "--save", "", "--bind", "127.0.0.1", "10.255.255.254"],
                     [ringcache_server.BINARY, "--bind", "127.0.0.1 10.255.255.254"]):
            run = subprocess.run(argv + ["--port", str(port)], capture_output=True, timeout=30)
            self.assertNotEqual(run.returncode, 0, run)
            self.assertIn(b"10.255.255.254", run.stdout + run.stderr)


class ConfigFileTest(unittest.TestCase):

    def refused(self, text):
        """Starts ringcache on a file holding `text`; returns (file, what it printed), the
        server having refused to start."""
        d = tempfile.mkdtemp(prefix="ringcache-conf-")
        path = os.path.join(d, "ringcache.conf")
        with open(path, "w") as f:
            f.write(text)
        run = subprocess.run([ringcache_server.BINARY, path, "--port", "0", "--dir", d],
                             capture_output=True, timeout=30)
        self.assertEqual(run.returncode, 1, run)
        return path, (run.stdout + run.stderr).decode()

    def test_a_typo_stops_the_start_naming_file_and_line(self):
        path, said = self.refused("port 0\n# a comment\nmaxmemroy 1gb\n")
        self.assertIn(path, said)
        self.assertIn("line 3", said)
        self.assertIn("'maxmemroy 1gb'", said)
        self.assertIn("Bad directive or wrong number of arguments", said)
        # redis-server refuses the same file.
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write("port 0\n# a comment\nmaxmemroy 1gb\n")
            f.flush()
            reference = subprocess.run(["redis-server", f.name], capture_output=True, timeout=30)
        self.assertEqual(reference.returncode, 1)
        self.assertIn(b"Bad directive or wrong number of arguments",
                      reference.stdout + reference.stderr)

    def test_redis_settings_ringcache_lacks(self):
        _, said = self.refused("set-proc-title yes\n")
        self.assertIn("ringcache does not implement this Redis setting", said)
        _, said = self.refused("replica-read-only yes\nrepl-backlog-size 2mb\n")
        self.assertIn("line 2", said)
        self.assertIn("ringcache's replication has no such setting yet (docs/REPLICATION.md): "
                      "only Redis's default '1048576' is accepted", said)
        _, said = self.refused("io-threads 4\n")
        self.assertIn("set threads instead", said)

    def test_redis_defaults_load_and_show_as_redis_shows_them(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ringcache.conf")
            with open(path, "w") as f:
                f.write("replica-read-only YES\nrepl-backlog-size 1mb\nactivedefrag no\n"
                        "oom-score-adj-values 0 200 800\nunixsocket \"\"\nio-threads 1\n"
                        "tcp-keepalive 120\nactiverehashing no\ndisable-thp yes\n")
            server = Ringcache(args=[path, "--port", "0"], extra=["--dir", d])
            try:
                r = redis.Redis(port=server.port, decode_responses=True)
                self.assertEqual(r.config_get("repl-backlog-size"), {"repl-backlog-size": "1048576"})
                self.assertEqual(r.config_get("tcp-keepalive"), {"tcp-keepalive": "120"})
                self.assertEqual(r.config_get("activerehashing"), {"activerehashing": "no"})
                # CONFIG SET takes the default where Redis lets it change the setting at all.
                self.assertTrue(r.config_set("replica-serve-stale-data", "yes"))
                with self.assertRaisesRegex(redis.ResponseError, "no such setting yet"):
                    r.config_set("replica-serve-stale-data", "no")
                with self.assertRaisesRegex(redis.ResponseError, "immutable"):
                    r.config_set("unixsocket", "")
                # THP is off for the process, as disable-thp says.
                with open("/proc/%d/status" % server.proc.pid) as status:
                    self.assertIn("THP_enabled:\t0", status.read())
                r.close()
            finally:
                server.stop_ok()


if __name__ == "__main__":
    main()
