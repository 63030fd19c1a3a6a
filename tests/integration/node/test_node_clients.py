"""ringcache driven by real Node.js clients: ioredis 5 (RESP2) and node-redis 5 (RESP3).

Run by ctest in two steps:

  test_node_clients.py install <dir>
      npm ci of package.json / package-lock.json (beside this file) into <dir>, once: a
      stamp of the lock file and node's version makes later runs skip npm entirely.
  test_node_clients.py run <server-binary> <dir> <script.js>
      starts the server on a free port (ringcache with 3 threads; or redis-server, to
      check the scripts themselves against the real thing), runs
      `node <script.js> <port>` with NODE_PATH=<dir>/node_modules, and passes when node
      exits 0 having run at least one test and failed none. ringcache must also exit 0 on
      SIGTERM afterwards.
"""

import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ringcache_server import Ringcache, free_port  # noqa: E402  (shared launcher)

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFESTS = ("package.json", "package-lock.json")
THREADS = 3
NPM_TIMEOUT_S = 540
NODE_TIMEOUT_S = 240


def Fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def InstallStamp():
    """What the installed node_modules depends on: the manifests and node's version."""
    digest = hashlib.sha256()
    for name in MANIFESTS:
        with open(os.path.join(HERE, name), "rb") as f:
            digest.update(f.read())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    digest.update(node.stdout.encode())
    return digest.hexdigest()


def Install(target):
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            Fail("%s is not installed; run scripts/setup.sh (Debian packages nodejs, npm)" % tool)
    os.makedirs(target, exist_ok=True)
    stamp_path = os.path.join(target, ".installed")
    stamp = InstallStamp()
    if os.path.isdir(os.path.join(target, "node_modules")) and os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read().strip() == stamp:
                print("node clients already installed in %s" % target)
                return
    for name in MANIFESTS:
        shutil.copyfile(os.path.join(HERE, name), os.path.join(target, name))
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    command = ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
    print("installing node clients: (cd %s && %s)" % (target, " ".join(command)), flush=True)
    try:
        out = subprocess.run(command, cwd=target, capture_output=True, text=True,
                             timeout=NPM_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        Fail("npm ci did not finish in %d s: is the npm registry reachable? (npm config get "
             "registry)" % NPM_TIMEOUT_S)
    if out.returncode != 0:
        Fail("npm ci could not install ioredis and redis into %s (exit %d). Is the npm "
             "registry reachable from this machine? (npm config get registry). npm said:\n%s%s"
             % (target, out.returncode, out.stdout, out.stderr))
    with open(stamp_path + ".tmp", "w") as f:
        f.write(stamp + "\n")
    os.replace(stamp_path + ".tmp", stamp_path)
    print("node clients installed in %s" % target)


class RedisServer:
    """redis-server as a child process, with the interface of Ringcache."""

    def __init__(self, binary):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.output = b""
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("redis-server did not start; output:\n"
                                       + self.output.decode(errors="replace"))
                time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        code = self.proc.wait(timeout=10)
        self.output += self.proc.stdout.read()
        self.proc.stdout.close()
        return code


def Run(binary, target, script):
    modules = os.path.join(target, "node_modules")
    if not os.path.isdir(modules):
        Fail("%s is missing: run `test_node_clients.py install %s` first (ctest runs the "
             "node_clients_install fixture before the node tests)" % (modules, target))
    is_redis = os.path.basename(binary).startswith("redis-server")
    server = RedisServer(binary) if is_redis else Ringcache(binary, THREADS)
    env = dict(os.environ, NODE_PATH=modules, NO_COLOR="1")
    command = ["node", script, str(server.port)]
    print("$ NODE_PATH=%s %s" % (modules, " ".join(command)), flush=True)
    try:
        node = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=NODE_TIMEOUT_S, stdin=subprocess.DEVNULL)
        output = node.stdout + node.stderr
        code = node.returncode
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(
            errors="replace")
        code = "timeout after %d s" % NODE_TIMEOUT_S
    server_code = server.stop()
    print(output, flush=True)
    passed = re.search(r"^# pass (\d+)$", output, re.M)
    failed = re.search(r"^# fail (\d+)$", output, re.M)
    if code != 0:
        Fail("node %s exited with %s" % (os.path.basename(script), code))
    if not passed or int(passed.group(1)) == 0 or not failed or int(failed.group(1)) != 0:
        Fail("node %s printed no '# pass N' with N > 0 and '# fail 0'" % os.path.basename(script))
    if not is_redis and server_code != 0:
        Fail("ringcache did not exit 0 on SIGTERM (code %r); output:\n%s"
             % (server_code, server.output.decode(errors="replace")))
    print("%s: %s passed, 0 failed against %s" % (os.path.basename(script), passed.group(1),
                                                   os.path.basename(binary)))


def main(argv):
    if len(argv) == 3 and argv[1] == "install":
        Install(os.path.abspath(argv[2]))
    elif len(argv) == 5 and argv[1] == "run":
        Run(argv[2], os.path.abspath(argv[3]), os.path.join(HERE, argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
