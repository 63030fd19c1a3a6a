"""ringcache driven by real Node.js clients: ioredis 5 (RESP2) and node-redis 5 (RESP3).

Run by ctest in two steps:

  test_node_clients.py install
      npm ci of package.json / package-lock.json (beside this file) into a folder of the
      clone (ClientsDir: .cache/node-clients/<hash of the manifests and node's version>),
      once for every build directory: later runs, from any of them, skip npm entirely. A
      lock makes concurrent installs (build, build-asan, build-tsan) wait for the first.
  test_node_clients.py run <server-binary> <script.js>
      starts the server on a free port (ringcache with 3 threads; or redis-server, to
      check the scripts themselves against the real thing), runs
      `node <script.js> <port>` with NODE_PATH=<ClientsDir>/node_modules, and passes when
      node exits 0 having run at least one test and failed none. ringcache must also exit
      0 on SIGTERM afterwards.

  test_node_clients.py dir
      prints ClientsDir, for running a script by hand.

RINGCACHE_NODE_CLIENTS=<folder> puts the installs there instead of .cache/node-clients.
"""

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from differential_pair import RedisServer  # noqa: E402  (shared launchers)
from ringcache_server import CACHE_DIR, Ringcache  # noqa: E402
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


def ClientsBase():
    return os.environ.get("RINGCACHE_NODE_CLIENTS") or os.path.join(CACHE_DIR, "node-clients")


def ClientsDir():
    """Where this package-lock, under this node, is installed: shared by every build
    directory of the clone."""
    return os.path.join(ClientsBase(), InstallStamp()[:16])  # Install prunes by this shape


def Install():
    RequireNode("npm")
    base = ClientsBase()
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        target = ClientsDir()
        InstallLocked(target)
        # Installs of other lock files or node versions are stale: the clone has one.
        for name in os.listdir(base):
            other = os.path.join(base, name)
            if re.fullmatch("[0-9a-f]{16}", name) and other != target:
                shutil.rmtree(other, ignore_errors=True)


def RequireNode(*tools):
    for tool in ("node",) + tools:
        if shutil.which(tool) is None:
            Fail("%s is not installed; run scripts/setup.sh (Debian packages nodejs, npm)" % tool)


def InstallLocked(target):
    stamp_path = os.path.join(target, ".installed")
    if os.path.isdir(os.path.join(target, "node_modules")) and os.path.exists(stamp_path):
        print("node clients already installed in %s" % target)
        return
    os.makedirs(target, exist_ok=True)
    for name in MANIFESTS:
        shutil.copyfile(os.path.join(HERE, name), os.path.join(target, name))
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
    # Written last: a folder without it (an install cut short) is installed again.
    with open(stamp_path, "w") as f:
        f.write("ok\n")
    print("node clients installed in %s" % target)


def Run(binary, script):
    RequireNode()
    modules = os.path.join(ClientsDir(), "node_modules")
    if not os.path.isdir(modules):
        Fail("%s is missing: run `test_node_clients.py install` first (ctest runs the "
             "node_clients_install fixture before the node tests)" % modules)
    is_redis = os.path.basename(binary).startswith("redis-server")
    if not is_redis:  # a sanitizer build's server in CI (server_process.h)
        binary = os.environ.get("RINGCACHE_SERVER") or binary
    server = RedisServer(binary=binary) if is_redis else Ringcache(binary, THREADS)
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
    if argv[1:] == ["install"]:
        Install()
    elif argv[1:] == ["dir"]:
        print(ClientsDir())
    elif len(argv) == 4 and argv[1] == "run":
        Run(argv[2], os.path.join(HERE, argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
