"""Keyspace events of every command against redis-server 7.0.15, with 1, 2 and 3 threads.

Run by ctest as `/usr/bin/python3 test_keyspace_events_diff.py <path-to-ringcache>`. Each
server gets the same script of commands (every string, keyspace, expire, sorted-set, hash,
set, bitmap and server command that raises an event, and the cases that raise none) under
several notify-keyspace-events settings, and two subscribers of `__key*__:*` listen:

  * `sub`, a RESP2 connection that only listens;
  * `cmd`, a RESP3 connection that runs the script itself, so it also hears where its
    own events fall relative to each reply.

Compared, per setting:
  * every reply, in order;
  * with one thread, `sub`'s whole stream, in order, and, for each command, `cmd`'s
    frames (pushes and reply) in order, except where noted below;
  * with several threads, each key's events in order on both subscribers (events of keys
    on different shards may interleave differently), and that nothing else arrives.

Where `cmd`'s frames may legitimately differ from Redis 7.0.15 (docs/ARCHITECTURE.md,
keyspace events):
  * ZPOPMIN, ZPOPMAX and MGET run from a third client: Redis 7.0 puts their events in
    the middle of its own reply's array, a broken frame, to a RESP3 client subscribed to
    them;
  * an "expired" or "keymiss" event may come later (ringcache holds them back until the
    next command event or the end of the turn, since a lazy expiry or a miss can happen
    inside a reply), so these are compared per key only;
  * a STORE command's "new" follows its reply (Redis: precedes it), so its events are
    compared as a set.
"""

import shlex
import socket
import time
import unittest

from differential_pair import ServersTestCase, encode, parse, per_thread_count
from ringcache_server import main

# Keys tagged {a} (slot 15495), {b} (slot 3300) and {c} (slot 7365) are on three different
# shards with 3 threads, and {a} is on another shard than {b} and {c} with 2, so commands
# naming them run across shards there.
SCRIPT = """
# SET and its options
SET s v
SET s v2
SET s v EX 100
SET s v KEEPTTL
SET s v3 GET
SET s v4 GET EX 100
SET s v NX
SET s2 v NX
SET s3 v XX
SET s3 v NX GET
SET s v XX PX 100000
SET s v EXAT 99999999999
SET s v PXAT 99999999999999
SET gone v PXAT 1
GET gone
SET gone v EX 100
SET gone v NX
SETNX s v
SETNX s4 v
SETEX s5 100 v
PSETEX s5 100000 v
SETEX s5 -1 v
MSET {a}m1 1 {b}m2 2 {c}m3 3 {a}m1 4
MSETNX {a}n1 1 {b}n2 2
MSETNX {a}n1 1 {c}n3 3
GETSET s v5
GETSET s6 v
GETEX s EX 100
GETEX s PX 100000
GETEX s EXAT 99999999999
GETEX s PERSIST
GETEX s PERSIST
GETEX s
GETEX missing EX 100
GETEX s PXAT 1
GETDEL s6
GETDEL s6
# ranges, appends, counters
SETRANGE r 2 xy
SETRANGE r 0 ab
SETRANGE r 1 ""
SETRANGE r2 0 ""
APPEND r cd
APPEND r ""
APPEND r3 ""
APPEND r4 x
INCR i
INCR i
DECR i
INCRBY i 10
DECRBY i 3
INCRBYFLOAT i 1.5
INCRBYFLOAT f 2
INCR r
INCRBY s2 1
# keyspace
DEL {a}m1 {b}m2 {c}m3 missing
DEL {a}m1
UNLINK {a}n1 {b}n2
MSET {a}x 1 {a}y 2 {b}z 3 {a}t 4
SET {a}x 1 EX 100
RENAME {a}x {a}y
RENAME {a}y {a}y
RENAME {a}y {b}z
RENAME {b}z {a}w
RENAME missing {a}x
RENAMENX {a}w {a}t
RENAMENX {a}w {b}u
RENAMENX {b}u {a}t
RENAMENX {b}u {b}u
RENAMENX {b}u {a}v
EXISTS {a}v missing
TOUCH {a}v {a}t missing
TYPE {a}v
COPY {a}v {a}c
COPY {a}v {a}c
COPY {a}v {a}c REPLACE
COPY {a}v {b}c
COPY {a}v {b}c
COPY {a}v {b}c REPLACE
COPY missing {b}c
# TTLs
SET e v
EXPIRE e 100
EXPIRE e 200 NX
EXPIRE e 50 GT
EXPIRE e 300 GT
EXPIRE e 400 LT
EXPIRE e 10 LT
PEXPIRE e 100000
EXPIREAT e 99999999999
PEXPIREAT e 99999999999999
EXPIRE e 100 XX
TTL e
PERSIST e
PERSIST e
EXPIRE e 100 XX
EXPIRE missing 100
EXPIRE e 0
SET e v
EXPIRE e -5
SET e v
PEXPIRE e -1
SET e v EX 100
PEXPIREAT e 1
SET e v
EXPIREAT e 1
SET lazy v PXAT 1
EXISTS lazy
# sorted sets
ZADD z 1 a 2 b 3 c
ZADD z 1 a
ZADD z NX 5 a
ZADD z XX 5 a
ZADD z XX 1 nomember
ZADD z CH 6 a 7 d
ZADD z INCR 1 a
ZADD z XX INCR 1 nomember
ZADD z GT 1 a
ZADD z LT 1 a
ZADD z GT 0 c
ZADD zx XX 1 a
ZADD z INCR 0 a
ZINCRBY z 1 b
ZINCRBY z2 1 b
ZINCRBY z 0 b
ZADD z nan a
ZREM z nomember
ZREM z a nomember
ZREM z2 b
ZREM z2 b
ZADD z 1 e 2 f 3 g 4 h 5 i 6 j 7 k 8 l
ZREMRANGEBYSCORE z 100 200
ZREMRANGEBYSCORE z 1 1
ZREMRANGEBYRANK z 0 0
ZREMRANGEBYRANK z 100 200
ZREMRANGEBYLEX z [x [z
ZREMRANGEBYLEX z - [i
ZREMRANGEBYRANK z 0 -1
ZADD z 1 a 2 b 3 c 4 d
ZPOPMIN z
ZPOPMAX z
ZPOPMIN z 0
ZPOPMIN missing
ZPOPMAX missing 2
ZPOPMIN z 5
ZADD z 1 a 2 b
ZPOPMAX z 2
ZADD {a}z1 1 a 2 b 3 c
ZADD {b}z2 2 b 3 c 4 d
ZADD {c}z3 3 c 9 z
ZUNIONSTORE {a}d 2 {a}z1 {b}z2
ZUNIONSTORE {a}d 3 {a}z1 {b}z2 {c}z3 WEIGHTS 1 2 3
ZINTERSTORE {b}d 2 {a}z1 {b}z2
ZINTERSTORE {b}d 2 {a}z1 missing
ZINTERSTORE {b}d 2 {a}z1 missing
ZDIFFSTORE {c}d 2 {a}z1 {b}z2
ZDIFFSTORE {c}d 2 {a}z1 {a}z1
ZUNIONSTORE {a}z1 2 {a}z1 {c}z3
ZRANGESTORE {a}r {a}z1 0 1
ZRANGESTORE {b}r {a}z1 0 -1
ZRANGESTORE {b}r {a}z1 100 200
ZRANGESTORE {a}r {a}z1 100 200
ZRANGESTORE {a}r {a}z1 100 200
ZUNIONSTORE {a}z1 1 s
# hashes
HSET h a 1 b 2
HSET h a 1
HMSET h c 3
HSETNX h a 1
HSETNX h d 4
HSETNX h2 a 1
HINCRBY h a 5
HINCRBY h3 a 5
HINCRBY h b x
HINCRBYFLOAT h a 1.5
HINCRBYFLOAT h4 a 2
HDEL h nofield
HDEL h a b
HDEL h c d nofield
HDEL h2 a
HDEL missing a
# sets
SADD st a b c
SADD st a
SREM st nomember
SREM st a
SPOP st
SADD st a b c d
SPOP st 2
SPOP st 0
SPOP st 10
SPOP missing
SPOP missing 2
SADD st a
SPOP st
SADD {a}s1 a b c
SADD {b}s2 b c d
SMOVE {a}s1 {a}s3 a
SMOVE {a}s1 {a}s1 b
SMOVE {a}s1 {b}s2 b
SMOVE {a}s1 {b}s2 nomember
SMOVE {a}s3 {b}s2 a
SMOVE {a}s1 {c}s4 c
SINTERSTORE {c}d2 {a}s1 {b}s2
SINTERSTORE {c}d2 {b}s2 {c}s4
SUNIONSTORE {c}d2 {b}s2 {c}s4
SDIFFSTORE {a}d2 {b}s2 {c}s4
SDIFFSTORE {a}d2 {c}s4 {c}s4
SDIFFSTORE {a}d2 {c}s4 {c}s4
SINTERSTORE {c}d2 {b}s2 missing
SUNIONSTORE {b}s2 {b}s2
# bitmaps
SETBIT bm 7 1
SETBIT bm 7 1
SETBIT bm 7 0
SETBIT bm 100 0
BITFIELD bm SET u8 0 255 GET u8 0
BITFIELD bm GET u8 0
BITFIELD bf INCRBY u8 0 1
SET {a}src abc
BITOP OR {a}bo {a}src
BITOP AND {b}bo {a}src
BITOP AND {b}bo missing
BITOP AND {b}bo missing
# wrong types and errors raise nothing
SET {a}str v
ZADD {a}str 1 a
HSET {a}str a 1
SADD {a}str a
INCR z
# reads: a missing key is a "keymiss" (class m)
GET missing
MGET s missing s2 missing2
EXISTS missing s
TYPE missing
TOUCH missing s
TTL missing
PTTL missing
STRLEN missing
GETRANGE missing 0 1
GETBIT missing 1
BITCOUNT missing
BITPOS missing 1
LCS missing s
ZSCORE missing a
ZRANGE missing 0 -1
ZCARD missing
ZRANK missing a
ZRANDMEMBER missing
ZUNION 2 missing {a}z1
ZINTERCARD 1 missing
HGET missing a
HGETALL missing
HLEN missing
HRANDFIELD missing
SMEMBERS missing
SISMEMBER missing a
SCARD missing
SRANDMEMBER missing
SINTER missing st
OBJECT ENCODING missing
MEMORY USAGE missing
SET gm v GET
GETSET gm2 v
COPY missing s
# transactions (from the third client)
MULTI
SET {b}tx 1
INCR {b}tx
EXPIRE {b}tx 100
ZADD {b}tz 1 a
DEL {b}tz
EXEC
# whole-keyspace commands raise nothing
FLUSHDB
SET f1 v
FLUSHALL
SET f1 v
FLUSHALL ASYNC
"""

# Run from a plain third client (see above): Redis 7.0 breaks their reply to a RESP3
# client subscribed to their events (MGET: a keymiss inside its array); and a
# transaction, so that its replies stay together.
AUX = {"ZPOPMIN", "ZPOPMAX", "MGET", "MULTI", "EXEC"}
# Their reply is random: only its size is compared.
RANDOM = {"SPOP"}
# Their "new" follows the reply in ringcache.
STORES = {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZRANGESTORE", "SINTERSTORE",
          "SUNIONSTORE", "SDIFFSTORE"}

EVENTS = {
    "new", "set", "expire", "expired", "del", "persist", "setrange", "append", "incrby",
    "incrbyfloat", "rename_from", "rename_to", "copy_to", "zadd", "zincr", "zrem",
    "zremrangebyscore", "zremrangebyrank", "zremrangebylex", "zpopmin", "zpopmax",
    "zunionstore", "zinterstore", "zdiffstore", "zrangestore", "hset", "hdel", "hincrby",
    "hincrbyfloat", "sadd", "srem", "spop", "sinterstore", "sunionstore", "sdiffstore",
    "setbit", "keymiss"}

# notify-keyspace-events settings: everything (A leaves out n and m), then single classes
# and channels.
SETTINGS = ["KEAnm", "KEA", "Kg", "E$", "Kz", "Ehs", "KEx", "En", "Km", "A", "Kgz$lshxen"]

PATTERN = "__key*__:*"
# Generous: sanitizer builds on two loaded cores are slow.
EVENTUALLY = 30.0


class Frames:
    """A connection read as whole RESP frames: (is_push, value) pairs, as parse() reads
    them."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def send(self, *args):
        self.sock.sendall(encode(args))

    def next(self, limit=EVENTUALLY):
        """The next frame, or None when none came within `limit` seconds."""
        deadline = time.monotonic() + limit
        while True:
            try:
                value, end = parse(self.buf)
                if end <= len(self.buf):
                    push = self.buf[:1] == b">"
                    self.buf = self.buf[end:]
                    return push, value
            except (ValueError, IndexError):
                pass
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                return None
            self.buf += chunk

    def until(self, marker):
        """Every frame before the reply `marker` (which a PING of it answers)."""
        frames = []
        while True:
            frame = self.next()
            if frame is None:
                raise AssertionError("no %r after %r" % (marker, frames))
            if frame[1] in (marker, [b"pong", marker]):
                return frames
            frames.append(frame)

    def events(self, heard, count):
        """`heard` and what follows: until there are `count`, then up to a marker."""
        heard = list(heard)
        while len(heard) < count:
            frame = self.next()
            if frame is None:
                break
            heard.append(event(frame))
        self.send("PING", "end")
        return heard + [event(f) for f in self.until(b"end")]

    def close(self):
        self.sock.close()


def event(frame):
    """A message frame's (channel, message); None for anything else."""
    _, v = frame
    if isinstance(v, list) and len(v) == 4 and v[0] == b"pmessage":
        return v[2].decode(), v[3].decode()
    return None


def key_of(ev):
    channel, message = ev
    return channel.split(":", 1)[1] if channel.startswith("__keyspace@") else message


def by_key(events):
    out = {}
    for ev in events:
        out.setdefault(key_of(ev), []).append(ev)
    return out


def is_held(ev):
    """Events ringcache may publish later than Redis to the client that caused them."""
    return any(ev[0].endswith(":" + name) or ev[1] == name for name in ("expired", "keymiss"))


class Run:
    """One server's side of a setting: what each client received."""

    def __init__(self, port, setting):
        self.replies = []  # per command: its reply (from aux or cmd)
        self.groups = []  # per command: cmd's frames up to the marker, pushes included
        aux = Frames(port)
        for args in (["FLUSHALL"], ["CONFIG", "SET", "notify-keyspace-events", setting]):
            aux.send(*args)
            assert aux.next() == (False, b"+OK"), args
        self.sub = Frames(port)
        self.sub.send("PSUBSCRIBE", PATTERN)
        assert self.sub.next() is not None
        self.cmd = Frames(port)
        self.cmd.send("HELLO", "3")
        self.cmd.next()
        self.cmd.send("PSUBSCRIBE", PATTERN)
        assert self.cmd.next() is not None
        in_multi = False
        for i, args in enumerate(commands()):
            name = args[0].upper()
            in_multi = (in_multi or name == "MULTI") and name != "EXEC"
            group = []
            if name in AUX or in_multi or name == "EXEC":
                aux.send(*args)
                self.replies.append(aux.next())
            else:
                self.cmd.send(*args)
                # The reply is the first frame that is not a push.
                frame = self.cmd.next()
                while frame is not None and frame[0]:
                    group.append(frame)
                    frame = self.cmd.next()
                group.append(frame)
                self.replies.append(frame)
            marker = b"m%d" % i
            self.cmd.send("PING", marker)
            self.groups.append(group + self.cmd.until(marker))
        aux.close()

    def finish(self, sub_count=0, cmd_count=0):
        """Every event each subscriber heard: everything up to a marker (redis-server,
        which has delivered all by now), after waiting for `sub_count` and `cmd_count` of
        them (ringcache, whose shards may still be delivering)."""
        heard = [event(f) for g in self.groups for f in g if f[0]]
        cmd_events = self.cmd.events(heard, cmd_count)
        sub_events = self.sub.events([], sub_count)
        self.cmd.close()
        self.sub.close()
        return sub_events, cmd_events


def canon(line, frame):
    """`frame` as compared: a random reply by its size."""
    if line.split()[0] not in RANDOM or frame is None or frame[0]:
        return frame
    return frame[0], len(frame[1]) if isinstance(frame[1], list) else "member"


def commands():
    for line in SCRIPT.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            yield shlex.split(line)


class KeyspaceEvents(ServersTestCase):

    def test_every_command_raises_redis_events(self):
        lines = [" ".join(args) for args in commands()]
        for setting in SETTINGS:
            with self.subTest(setting=setting):
                want = Run(self.servers.redis.port, setting)
                got = Run(self.servers.rc.port, setting)
                want_sub, want_cmd = want.finish()
                got_sub, got_cmd = got.finish(len(want_sub), len(want_cmd))
                for line, w, g in zip(lines, want.replies, got.replies):
                    self.assertEqual(canon(line, g), canon(line, w), line)
                self.assertTrue(all(want_sub) and all(want_cmd), "frames other than events")
                if setting == SETTINGS[0]:
                    # The script's own coverage: every event it is meant to raise.
                    raised = {ch.split(":", 1)[1] for ch, _ in want_sub if "keyevent" in ch}
                    self.assertEqual(raised, EVENTS)
                if self.THREADS == 1:
                    self.assertEqual(got_sub, want_sub)
                    self.compare_groups(lines, want, got)
                self.assertEqual(by_key(got_sub), by_key(want_sub))
                self.assertEqual(by_key(got_cmd), by_key(want_cmd))

    def compare_groups(self, lines, want, got):
        """cmd's frames per command, with one thread: pushes where Redis puts them."""
        for line, w, g in zip(lines, want.groups, got.groups):
            w = [canon(line, f) for f in w if not (f[0] and is_held(event(f)))]
            g = [canon(line, f) for f in g if not (f[0] and is_held(event(f)))]
            if line.split()[0] in STORES:
                w, g = sorted(w, key=repr), sorted(g, key=repr)
            self.assertEqual(g, w, line)


per_thread_count(KeyspaceEvents, "KeyspaceEvents", globals())
del KeyspaceEvents

if __name__ == "__main__":
    main()
