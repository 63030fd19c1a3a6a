#!/usr/bin/env python3
"""Writes shard/command/command_meta_data.cc: what redis-server documents about each command (and
subcommand) ringcache implements, as RESP3 text: its COMMAND DOCS reply, and the tips and
key specs of its COMMAND INFO row.

These replies are part of Redis's interface (redis-cli builds its help and typing hints
from the docs; cluster clients read key specs and tips), and ringcache implements the same
syntax, so they are taken from the reference server rather than retyped. Rerun after
adding a command:
    python3 scripts/gen_command_meta.py build/ringcache shard/command/command_meta_data.cc
Needs redis-server (7.0.15, Debian's) on PATH.
"""
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Conn:
    def __init__(self, port):
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock.settimeout(10)
        self.buf = b""

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def _line(self, pos):
        while (end := self.buf.find(b"\r\n", pos)) < 0:
            self._fill()
        return end

    def _parse(self, pos):
        """(value, next pos); a value is (type byte, payload), aggregates hold lists."""
        end = self._line(pos)
        kind, head = chr(self.buf[pos]), self.buf[pos + 1:end].decode()
        pos = end + 2
        if kind == "$":
            n = int(head)
            while len(self.buf) < pos + n + 2:
                self._fill()
            return (kind, self.buf[pos:pos + n]), pos + n + 2
        if kind in "*~%":
            items = []
            for _ in range(int(head) * (2 if kind == "%" else 1)):
                v, pos = self._parse(pos)
                items.append(v)
            return (kind, items), pos
        if kind == "_":
            return (kind, None), pos
        if kind in "+:-":
            return (kind, head.encode()), pos
        raise ValueError("unexpected reply type %r" % kind)

    def cmd(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)
        v, end = self._parse(0)
        self.buf = self.buf[end:]
        if v[0] == "-":
            raise RuntimeError(v[1].decode())
        return v


def encode(v):
    """RESP3 text of a parsed value, one element per list entry (for one source line each)."""
    kind, payload = v
    if kind == "$":
        return [b"$%d\r\n%s\r\n" % (len(payload), payload)]
    if kind in "+:":
        return [kind.encode() + payload + b"\r\n"]
    n = len(payload) // 2 if kind == "%" else len(payload)
    lines = [kind.encode() + b"%d\r\n" % n]
    for item in payload:
        lines += encode(item)
    return lines


def c_string(line):
    out = '"'
    for b in line:
        c = chr(b)
        if c == "\r":
            out += "\\r"
        elif c == "\n":
            out += "\\n"
        elif c in '"\\':
            out += "\\" + c
        elif 32 <= b < 127 and c != "?":  # '?' could start a trigraph
            out += c
        else:
            out += "\\%03o" % b
    return out + '"'


def strings(v):
    return [item[1].decode() for item in v[1]]


def main():
    binary, out_path = sys.argv[1], sys.argv[2]
    rc_port, redis_port = free_port(), free_port()
    # No snapshots, and a `dir` with no stray dump.rdb to load.
    rc_dir = tempfile.mkdtemp(prefix="ringcache-meta-")
    rc = subprocess.Popen([binary, "--port", str(rc_port), "--threads", "1", "--save", "",
                           "--dir", rc_dir],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--save", "",
                              "--appendonly", "no"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ours, theirs = Conn(rc_port), Conn(redis_port)
        theirs.cmd("HELLO", "3")
        entries = []  # (full name, docs lines, tips lines, key specs lines)
        # Subcommands ("config|get") come with their container.
        for name in sorted(n for n in strings(ours.cmd("COMMAND", "LIST")) if "|" not in n):
            info = ours.cmd("COMMAND", "INFO", name)[1][0][1]
            subs = [s[1][0][1].decode() for s in info[9][1]] if len(info) > 9 else []
            docs = theirs.cmd("COMMAND", "DOCS", name)[1]
            rows = theirs.cmd("COMMAND", "INFO", name)[1]
            if not docs or rows[0][0] != "*":
                print("redis-server has no %s" % name, file=sys.stderr)
                continue
            row = rows[0][1]
            fields = docs[1][1]
            # Subcommands get entries of their own; the server composes the container's.
            redis_subs = {}
            for i in range(0, len(fields), 2):
                if fields[i][1] == b"subcommands":
                    sub_items = fields[i + 1][1]
                    redis_subs = {sub_items[j][1].decode(): sub_items[j + 1]
                                  for j in range(0, len(sub_items), 2)}
                    fields = fields[:i] + fields[i + 2:]
                    break
            sub_rows = {r[1][0][1].decode(): r[1] for r in row[9][1]} if len(row) > 9 else {}
            entries.append((name, encode(("%", fields)), encode(row[7]), encode(row[8])))
            for sub in subs:
                if sub in redis_subs and sub in sub_rows:
                    entries.append((sub, encode(redis_subs[sub]), encode(sub_rows[sub][7]),
                                    encode(sub_rows[sub][8])))
                else:
                    print("redis-server has no %s" % sub, file=sys.stderr)
    finally:
        rc.terminate()
        redis.terminate()
        rc.wait()
        redis.wait()
        shutil.rmtree(rc_dir, ignore_errors=True)
    with open(out_path, "w") as f:
        f.write("// Generated by scripts/gen_command_meta.py from redis-server 7.0.15's COMMAND\n"
                "// DOCS and COMMAND INFO replies (RESP3), for the commands ringcache implements.\n"
                "// Do not edit: rerun the script after adding a command.\n\n"
                '#include "shard/command/command_meta.h"\n\nnamespace rc {\n\n'
                "// {full name, docs, tips, key specs}\n"
                "const CommandMeta kCommandMeta[] = {\n")
        for name, *blobs in entries:
            f.write("    {%s,\n" % c_string(name.encode()))
            for b, lines in enumerate(blobs):
                for i, line in enumerate(lines):
                    end = ("}," if b == len(blobs) - 1 else ",") if i == len(lines) - 1 else ""
                    f.write("     %s%s\n" % (c_string(line), end))
        f.write("};\n\nconst size_t kCommandMetaCount = std::size(kCommandMeta);\n\n"
                "}  // namespace rc\n")

if __name__ == "__main__":
    main()
