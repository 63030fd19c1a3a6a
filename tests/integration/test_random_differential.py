"""A seeded random session over pub/sub, CLIENT REPLY, MULTI and CONFIG (with string,
bitmap, LCS and COPY commands on a few keys spread over the shards), sent to
redis-server and to ringcache (1, 2 and 3 threads) by three clients at once; every byte
each client receives (replies and pushes) must be the same.

A small model of each client (protocol, reply mode, subscriptions, transaction) says how
many frames a step sends to whom, so reading never waits on a timeout. Each class runs
two fixed seeds, then sessions on fresh seeds for a few seconds, from
RINGCACHE_TEST_SEED if it is set (else a random one). A difference names its seed;
RINGCACHE_TEST_SEED=<seed> runs that session first.

Run by ctest as `/usr/bin/python3 test_random_differential.py <path-to-ringcache>`.
"""

import fnmatch
import itertools
import os
import random
import time

import ringcache_server
from differential_pair import HZ, ServersTestCase, parse, per_thread_count

CHANNELS = ["ch0", "ch1", "news"]
PATTERNS = ["ch*", "ch[01]", "n?ws", "*"]
KEYS = ["k0", "k1", "k2", "{k0}x", "k5"]
# The bitmap, LCS and COPY commands' own keys, written only by commands whose reply the
# session waits for (see pick): a write nobody waits for may still be on its way to its
# shard in ringcache when another client's next command reads the key.
BKEYS = ["b0", "b1", "b2", "{b0}x", "b5"]
CONFIG_SETS = [
    ("slowlog-max-len", ["7", "128", "-1", "x"]),
    ("latency-monitor-threshold", ["0", "100", "abc"]),
    ("zset-max-ziplist-entries", ["64", "128", "-5"]),
    ("zset-max-listpack-value", ["64", "200b", "big"]),
    ("notify-keyspace-events", ["", "Ex", "Q"]),
    ("list-max-listpack-size", ["-2", "5", "x"]),
    ("list-compress-depth", ["0", "-1"]),
    ("hz", ["10", "50", "0"]),
    ("daemonize", ["no"]),
    ("nosuchparam", ["1"]),
]
CONFIG_GETS = ["slowlog-max-len", "zset-max-ziplist-entries", "ZSET-MAX-LISTPACK-VALUE",
               "notify-keyspace-events", "hz", "slaveof", "nosuch",
               "list-max-ziplist-size", "list-compress-depth"]
# Stand for the settings (CONFIG SET writes them all) and for the subscriptions (what
# PUBLISH reads) where KEYS are named.
CONFIG = "(config)"
PUBSUB = "(pubsub)"
# RESP2 subscribers may run only these.
SUBSCRIBED_OK = {"SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PING"}


def canon(data):
    """The frames of `data` with each run of pattern messages sorted: Redis delivers
    one message's pmessages in its pattern table's hash order, which its random hash seed
    changes from run to run."""
    frames, pos = [], 0
    while pos < len(data):
        start = pos
        try:
            _, pos = parse(data, pos)
        except (ValueError, IndexError):
            frames.append(data[start:])
            break
        frames.append(data[start:pos])
    out, run = [], []
    for f in frames + [b""]:
        if b"\r\npmessage\r\n" in f[:20]:
            run.append(f)
            continue
        out += sorted(run) + [f]
        run = []
    return b"".join(out)


def canon_unsubscribes(data):
    """UNSUBSCRIBE without names leaves the client's channels in its own hash order in
    Redis: the names are compared as a set, the counts in order."""
    frames, pos = [], 0
    while pos < len(data):
        try:
            value, pos = parse(data, pos)
        except (ValueError, IndexError):
            return data
        frames.append(value)
    kinds = [f[0] if isinstance(f, list) and len(f) == 3 else None for f in frames]
    if not frames or kinds[0] not in (b"unsubscribe", b"punsubscribe") or len(set(kinds)) != 1:
        return data
    return repr((kinds[0], sorted(f[1] for f in frames), [f[2] for f in frames]))


class Model:
    """What one client's state makes of its next command."""

    def __init__(self, resp3):
        self.resp3 = resp3
        self.off = False
        self.skip = False  # the next command's reply is dropped
        self.channels = set()
        self.patterns = set()
        self.multi = False
        self.queued = set()  # KEYS and CONFIG its transaction writes or reads

    def subscribed(self):
        return bool(self.channels or self.patterns)

    def limited(self):
        return self.subscribed() and not self.resp3

    def hears(self, channel):
        return (channel in self.channels) + sum(
            fnmatch.fnmatchcase(channel, p) for p in self.patterns)


class RandomSession:
    def __init__(self, servers, seed, steps):
        self.seed = seed
        self.rng = random.Random(seed)
        self.steps = steps
        self.pairs = [servers.pair() for _ in range(3)]
        self.models = [Model(self.rng.random() < 0.5) for _ in self.pairs]
        # KEYS, CONFIG and PUBSUB written by a command whose reply was dropped, and by
        # whom, until that client gets a reply again: replies come in order, so then the
        # write has been done.
        self.unanswered = {}
        self.log = []

    def close(self):
        for p in self.pairs:
            p.close()

    def free(self, i):
        """The KEYS, CONFIG and PUBSUB client i may use: a write nobody waited for may
        still be on its way in ringcache (to a shard, to the subscribers), where a command
        of i's could overtake it; so may one that another client's transaction queued, if
        its EXEC goes unanswered."""
        taken = {k for k, j in self.unanswered.items() if j != i}
        for j, m in enumerate(self.models):
            if j != i:
                taken |= m.queued
        return [k for k in KEYS + [CONFIG, PUBSUB] if k not in taken]

    def pick(self, i):
        r = self.rng
        m = self.models[i]
        free = self.free(i)
        keys = [k for k in free if k in KEYS]
        pubsub = PUBSUB in free
        choices = ["ping"]
        if pubsub:
            choices += ["subscribe", "psubscribe", "unsubscribe", "punsubscribe"]
        if not m.limited():
            choices += ["publish", "publish", "reply"] if pubsub else ["reply"]
            if CONFIG in free:
                choices += ["config_set", "config_get"]
            if keys:
                choices += ["set", "get", "incr"]
            if not (m.off or m.skip or m.multi):
                choices += ["setbit", "bitcount", "bitpos", "bitop", "bitfield", "copy", "lcs"]
            choices += ["exec", "discard", "shutdown", "nosuch"] if m.multi else ["multi"]
        if m.multi:
            # Queued pushes and reply-mode changes would land inside EXEC's array.
            choices = [c for c in choices
                       if "subscribe" not in c and c not in ("publish", "reply")]
        kind = r.choice(choices)
        if kind == "ping":
            return ["PING"] + ([r.choice(["hi", ""])] if r.random() < 0.3 else [])
        if kind in ("subscribe", "unsubscribe"):
            n = r.randint(0 if kind == "unsubscribe" else 1, 2)
            return [kind.upper()] + r.sample(CHANNELS, n)
        if kind in ("psubscribe", "punsubscribe"):
            n = r.randint(0 if kind == "punsubscribe" else 1, 2)
            return [kind.upper()] + r.sample(PATTERNS, n)
        if kind == "publish":
            return ["PUBLISH", r.choice(CHANNELS), "m%d" % r.randrange(100)]
        if kind == "reply":
            return ["CLIENT", "REPLY", r.choice(["ON", "OFF", "SKIP", "ON"])]
        if kind == "config_set":
            args = ["CONFIG", "SET"]
            for name, values in r.sample(CONFIG_SETS, r.randint(1, 2)):
                args += [name, r.choice(values)]
            return args
        if kind == "config_get":
            return ["CONFIG", "GET", r.choice(CONFIG_GETS)]
        if kind == "set":
            return ["SET", r.choice(keys), str(r.randrange(50))]
        if kind == "get":
            return ["GET", r.choice(keys)]
        if kind == "incr":
            return ["INCR", r.choice(keys)]
        if kind == "setbit":
            return ["SETBIT", r.choice(BKEYS), str(r.randrange(64)), r.choice("01")]
        if kind in ("bitcount", "bitpos"):
            args = ["BITCOUNT", r.choice(BKEYS)] if kind == "bitcount" else [
                "BITPOS", r.choice(BKEYS), r.choice("01")]
            if r.random() < 0.5:
                args += [str(r.randrange(-10, 10)), str(r.randrange(-10, 10))]
                if r.random() < 0.5:
                    args.append(r.choice(["BIT", "BYTE"]))
            return args
        if kind == "bitop":
            op = r.choice(["AND", "OR", "XOR", "NOT"])
            n = 1 if op == "NOT" else r.randint(1, 3)
            return ["BITOP", op, r.choice(BKEYS)] + [r.choice(BKEYS) for _ in range(n)]
        if kind == "bitfield":
            return ["BITFIELD", r.choice(BKEYS), "OVERFLOW", r.choice(["WRAP", "SAT", "FAIL"]),
                    "INCRBY", r.choice(["u4", "i8", "i64"]), "#%d" % r.randrange(4),
                    str(r.randrange(-300, 300)), "GET", "u8", "0"]
        if kind == "copy":
            return ["COPY", r.choice(BKEYS), r.choice(BKEYS)] + (
                ["REPLACE"] if r.random() < 0.5 else [])
        if kind == "lcs":
            return ["LCS", r.choice(BKEYS), r.choice(BKEYS)] + r.choice(
                [[], ["LEN"], ["IDX", "WITHMATCHLEN"]])
        if kind == "shutdown":
            return ["SHUTDOWN", "NOSAVE"]
        if kind == "nosuch":
            return ["NOSUCHCMD", "x"]
        return [kind.upper()]

    def frames(self, i, args):
        """({client index: frames} that args, sent by client i, makes the servers send,
        whether i gets a reply); updates the model."""
        m = self.models[i]
        name = args[0].upper()
        out = {j: 0 for j in range(len(self.models))}
        silenced = m.off or m.skip
        pushes = 0
        replies = 1
        if m.multi and name not in ("EXEC", "DISCARD", "MULTI"):
            pass  # queued, or refused: one reply
        elif name in ("SUBSCRIBE", "PSUBSCRIBE"):
            names = m.channels if name == "SUBSCRIBE" else m.patterns
            names.update(args[1:])
            pushes, replies = len(args) - 1, 0
        elif name in ("UNSUBSCRIBE", "PUNSUBSCRIBE"):
            names = m.channels if name == "UNSUBSCRIBE" else m.patterns
            gone = args[1:] or sorted(names)
            names.difference_update(gone)
            pushes, replies = max(len(gone), 1), 0
        elif m.limited() and name not in SUBSCRIBED_OK:
            pass  # refused: one error reply
        elif name == "CLIENT" and args[2] == "OFF":
            m.off, replies = True, 0
        elif name == "CLIENT" and args[2] == "ON":
            m.off, m.skip, silenced = False, False, False
        elif name == "CLIENT" and args[2] == "SKIP":
            replies = 0
            if not m.off:
                out[i] += pushes
                m.skip = True
                return out, False
        elif name == "PUBLISH" and not m.multi:
            for j, other in enumerate(self.models):
                out[j] += other.hears(args[1])
        elif name == "MULTI":
            m.multi = True
        elif name in ("EXEC", "DISCARD"):
            m.multi = False
        m.skip = False
        out[i] += pushes + (0 if silenced else replies)
        return out, not silenced and replies > 0

    def run(self, test):
        for step in range(self.steps):
            i = self.rng.randrange(len(self.pairs))
            self.step(test, step, i, self.pick(i))
        # Every client ends with a reply, so nothing is left on its way (the next session
        # starts with FLUSHALL), nor unread on either side: whatever came before it must be
        # the same.
        for i, m in enumerate(self.models):
            end = [["DISCARD"]] if m.multi else []
            end += [["UNSUBSCRIBE"], ["PUNSUBSCRIBE"]] if m.limited() else []
            for args in end + [["CLIENT", "REPLY", "ON"]]:
                self.step(test, "end", i, args)

    def step(self, test, step, i, args):
        """Client i sends args; every client it makes the servers send to reads that."""
        self.log.append((i, args))
        m = self.models[i]
        name, silenced, queued = args[0].upper(), m.off or m.skip, m.multi
        frames, replied = self.frames(i, args)
        written = (args[1] if name in ("SET", "INCR")
                   else CONFIG if args[:2] == ["CONFIG", "SET"]
                   else PUBSUB if name == "PUBLISH" else None)
        if written and queued:
            m.queued.add(written)
        elif queued and (name == "GET" or args[:2] == ["CONFIG", "GET"]):
            # EXEC reads it later: a write of another client's must not be on its way then.
            m.queued.add(args[1] if name == "GET" else CONFIG)
        elif written and silenced:
            self.unanswered[written] = i
        elif name == "EXEC" and silenced:
            self.unanswered.update((k, i) for k in m.queued)
        if name in ("EXEC", "DISCARD"):
            m.queued.clear()
        if replied:
            self.unanswered = {k: j for k, j in self.unanswered.items() if j != i}
        self.pairs[i].send(*args)
        for j, n in frames.items():
            if n:
                want, got = self.pairs[j].read(frames=n)
                if canon_unsubscribes(canon(got)) != canon_unsubscribes(canon(want)):
                    test.fail("seed %d (RINGCACHE_TEST_SEED=%d replays it), step %s: client %d "
                              "after client %d sent %r\n  redis:     %r\n  ringcache: %r\n"
                              "  last steps: %r" % (self.seed, self.seed, step, j, i, args,
                                                    want, got, self.log[-12:]))


class RandomBase(ServersTestCase):
    STEPS = 250
    FRESH_SECONDS = 2

    def session(self, seed):
        with self.subTest(seed=seed):
            session = RandomSession(self.servers, seed, self.STEPS)
            try:
                want, got = session.pairs[0].step("FLUSHALL")
                self.assertEqual(got, want)
                for p, m in zip(session.pairs, session.models):
                    if m.resp3:
                        want, got = p.step("HELLO", "3")
                        self.assertEqual(got, want)
                session.run(self)
            finally:
                session.close()
                p = self.servers.pair()
                p.step("CONFIG", "SET", "notify-keyspace-events", "", "hz", HZ)
                p.close()

    def test_fixed_seeds(self):
        for k in range(2):
            self.session(1000 * self.THREADS + k)

    def test_fresh_seeds(self):
        """Sessions on consecutive seeds for FRESH_SECONDS (at least one)."""
        first = int(os.environ.get("RINGCACHE_TEST_SEED") or random.randrange(1 << 32))
        print("fresh seeds from %d" % first, flush=True)
        deadline = time.monotonic() + self.FRESH_SECONDS
        for seed in itertools.count(first):
            self.session(seed)
            if time.monotonic() > deadline:
                break


per_thread_count(RandomBase, "Random", globals())

if __name__ == "__main__":
    ringcache_server.main()
