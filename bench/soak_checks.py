"""The soak checker's hashes, sets, lists, counters, blocking pops, scripts and
transactions (bench/soak.py, docs/SOAK.md).

A checker owns every key named here and is the only client that writes them, so each
reply has exactly one right value, which a model of the keys predicts. An Op is the
commands it sends and a check that compares their replies with the model and then
applies the operation to it. An Op of one command composes: the same Op runs alone,
queued in MULTI/EXEC (after WATCH or not), or as one of the commands a script or a
function runs (EVAL, EVALSHA, EVAL_RO, FCALL, FCALL_RO), and its check is given that
command's element of the EXEC or script reply.

The keys of each type are split between the slot ranges of the two shards of
`--threads 2` (0-8191, 8192-16383), and every multi-key operation takes its first two
keys from different ranges, so SMOVE, S*STORE, LMOVE, BLPOP's wake-up, transactions,
WATCH and scripts run across shards.
"""

import binascii
import hashlib
import time

SHARD_SLOTS = 8192     # ringcache --threads 2: shard 0 owns the slots below, shard 1 the rest
LIST_MAX = 30          # past this length a list op trims or pops instead of pushing

FIELDS = [b"f%d" % i for i in range(10)]        # hash fields HSET writes (any bytes)
IFIELDS = [b"i%d" % i for i in range(3)]        # hash fields only HINCRBY writes
MEMBERS = [b"%d" % i for i in range(10)] + [b"m%d" % i for i in range(10)]  # intset, then not

# Runs the commands ARGV spells out (a count, then that many words, then the next) and
# returns each one's reply: the same commands and replies as outside a script.
RUN_LUA = """
local out, i = {}, 1
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  out[#out + 1] = redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return out
"""
RUN_SHA = hashlib.sha1(RUN_LUA.encode()).hexdigest().encode()
LIBRARY = ("#!lua name=soakcheck\n"
           "local function run(keys, ARGV)\n" + RUN_LUA.split("\n", 1)[1] + "end\n"
           "redis.register_function('soak_run', run)\n"
           "redis.register_function{function_name='soak_read', callback=run, "
           "flags={'no-writes'}}\n")


def key_slot(key):
    """Redis's hash slot of a key without a hash tag: CRC16 (XMODEM) mod 16384."""
    return binascii.crc_hqx(key, 0) & 16383


def split_keys(prefix, n):
    """n keys `prefix:i` with slots below SHARD_SLOTS and n above."""
    lo, hi, i = [], [], 0
    while len(lo) < n or len(hi) < n:
        k = b"%s:%d" % (prefix, i)
        half = lo if key_slot(k) < SHARD_SLOTS else hi
        if len(half) < n:
            half.append(k)
        i += 1
    return lo, hi


def lrange(lst, start, stop):
    """LRANGE's and LTRIM's index rules."""
    n = len(lst)
    start = max(n + start, 0) if start < 0 else start
    stop = n + stop if stop < 0 else min(stop, n - 1)
    return lst[start:stop + 1] if start <= stop else []


def as_dict(r):
    """A flat field/value array as a dict; None if it is not one."""
    if not isinstance(r, list) or len(r) % 2 or any(not isinstance(x, bytes) for x in r):
        return None
    d = dict(zip(r[::2], r[1::2]))
    return d if len(d) * 2 == len(r) else None


def as_set(r):
    """An array of distinct strings as a set; None if it is not one."""
    if not isinstance(r, list) or any(not isinstance(x, bytes) for x in r):
        return None
    s = set(r)
    return s if len(s) == len(r) else None


def take(lst, n, left):
    """Removes and returns up to n elements from one end, in the order a pop gives them."""
    n = min(n, len(lst))
    if left:
        out = lst[:n]
        del lst[:n]
    else:
        out = lst[len(lst) - n:][::-1]
        del lst[len(lst) - n:]
    return out


def flat(pairs):
    return [x for kv in pairs for x in kv]


class Op:
    """Commands and the check of their replies. `check(replies)` compares and applies;
    `writes` are the keys it may change (unknown if its replies never come); `ro` ops
    only read, so they may run in EVAL_RO and FCALL_RO."""

    __slots__ = ("name", "cmds", "check", "writes", "ro")

    def __init__(self, name, cmds, check, writes=(), ro=False):
        self.name, self.cmds, self.check, self.writes, self.ro = name, cmds, check, list(writes), ro


class Model:
    """The checker's keys of these types and what they hold: a dict (hash), set, list or
    int (counter); empty means absent; None while unknown (a write whose reply was lost),
    until a reply that shows the whole key (HGETALL, SMEMBERS, LRANGE 0 -1, GET)."""

    def __init__(self, tag, rng, stats, val, per_half=4):
        self.rng, self.stats, self.val = rng, stats, val
        self.groups = {t: split_keys(b"c%s:%s" % (t[:1].encode(), tag.encode()), per_half)
                       for t in ("hash", "set", "list", "num")}
        self.data = {}
        for t, (lo, hi) in self.groups.items():
            for k in lo + hi:
                self.data[k] = 0 if t == "num" else {"hash": dict, "set": set, "list": list}[t]()

    def keys(self, kind):
        lo, hi = self.groups[kind]
        return lo + hi

    def init_ops(self):
        """Counters exist from the start (SET 0), so GET always shows one whole."""
        return [self.set_num(k) for k in self.keys("num")]

    # ------------------------------------------------------------ checking

    def expect(self, what, key, got, want):
        if got == want:
            return True
        self.stats.violation(what, key=repr(key)[:80], want=repr(want)[:160],
                             got=repr(got)[:160])
        return False

    def whole(self, what, k, got, parse):
        """A reply showing all of k: learns k while unknown, else checks it."""
        value = parse(got)
        if value is None:
            self.stats.violation(what + " malformed", key=repr(k), got=repr(got)[:160])
        elif self.data[k] is None:
            self.data[k] = value
        else:
            self.expect(what, k, value, self.data[k])

    def read(self, name, cmd, keys, want, parse=lambda r: r):
        """A command that reads `keys`: its reply, parsed, must be `want` of their models."""
        def check(rs):
            models = [self.data[k] for k in keys]
            if all(m is not None for m in models):
                self.expect(name, keys, parse(rs[0]), want(*models))
        return Op(name, [cmd], check, ro=True)

    def forget(self, keys):
        for k in keys:
            self.data[k] = None

    def pick(self, kind, m=1):
        """m distinct keys of a kind; the first two from different shards' slots."""
        rng = self.rng
        lo, hi = self.groups[kind]
        if m == 1:
            return rng.choice(lo + hi)
        ks = [rng.choice(lo), rng.choice(hi)]
        rng.shuffle(ks)
        return ks + rng.sample([k for k in lo + hi if k not in ks], m - 2)

    # ------------------------------------------------------------ hashes

    def hash_op(self):
        rng, k = self.rng, self.pick("hash")
        r = rng.random()
        if r < 0.25:
            fvs = {rng.choice(FIELDS): self.val() for _ in range(rng.randint(1, 3))}

            def check(rs):
                h = self.data[k]
                if h is not None:
                    self.expect("HSET", k, rs[0], sum(f not in h for f in fvs))
                    h.update(fvs)
            return Op("HSET", [(b"HSET", k, *flat(fvs.items()))], check, [k])
        if r < 0.37:
            fs = rng.sample(FIELDS + IFIELDS, rng.randint(1, 3))

            def check(rs):
                h = self.data[k]
                if h is not None:
                    self.expect("HDEL", k, rs[0], sum(f in h for f in fs))
                    for f in fs:
                        h.pop(f, None)
            return Op("HDEL", [(b"HDEL", k, *fs)], check, [k])
        if r < 0.50:
            f, n = rng.choice(IFIELDS), rng.randint(-100, 100)

            def check(rs):
                h = self.data[k]
                if h is not None:
                    want = int(h.get(f, b"0")) + n
                    self.expect("HINCRBY", k, rs[0], want)
                    h[f] = b"%d" % want
            return Op("HINCRBY", [(b"HINCRBY", k, f, n)], check, [k])
        if r < 0.62:
            f = rng.choice(FIELDS + IFIELDS)
            return self.read("HGET", (b"HGET", k, f), (k,), lambda h: h.get(f))
        if r < 0.72:
            fs = rng.sample(FIELDS + IFIELDS, 3)
            return self.read("HMGET", (b"HMGET", k, *fs), (k,), lambda h: [h.get(f) for f in fs])
        if r < 0.80:
            return self.read("HLEN", (b"HLEN", k), (k,), len)
        if r < 0.87:
            f = rng.choice(FIELDS)
            return self.read("HEXISTS", (b"HEXISTS", k, f), (k,), lambda h: int(f in h))
        return self.hgetall(k)

    def hgetall(self, k):
        return Op("HGETALL", [(b"HGETALL", k)],
                  lambda rs: self.whole("HGETALL", k, rs[0], as_dict), ro=True)

    # ------------------------------------------------------------ sets

    def set_op(self):
        rng = self.rng
        r = rng.random()
        if r < 0.55:
            return self.set_one(self.pick("set"), r / 0.55)
        if r < 0.65:
            src, dst = self.pick("set", 2)
            m = rng.choice(MEMBERS)

            def check(rs):
                s, d = self.data[src], self.data[dst]
                if s is None or d is None:
                    self.forget([src, dst])
                    return
                moved = int(m in s)
                self.expect("SMOVE", (src, dst), rs[0], moved)
                if moved:
                    s.discard(m)
                    d.add(m)
            return Op("SMOVE", [(b"SMOVE", src, dst, m)], check, [src, dst])
        how = rng.choice(("INTER", "UNION", "DIFF"))
        combine = {"INTER": set.intersection, "UNION": set.union, "DIFF": set.difference}[how]
        if r < 0.80:
            dst, a, b = self.pick("set", 3)

            def check(rs):
                sa, sb = self.data[a], self.data[b]
                if sa is None or sb is None:
                    self.forget([dst])
                    return
                result = combine(sa, sb)
                self.expect(f"S{how}STORE", (dst, a, b), rs[0], len(result))
                self.data[dst] = result
            return Op(f"S{how}STORE", [(b"S%sSTORE" % how.encode(), dst, a, b)], check, [dst])
        a, b = self.pick("set", 2)
        if r < 0.92:
            return self.read(f"S{how}", (b"S%s" % how.encode(), a, b), (a, b),
                                 lambda sa, sb: combine(sa, sb), as_set)
        return self.read("SINTERCARD", (b"SINTERCARD", 2, a, b), (a, b),
                             lambda sa, sb: len(sa & sb))

    def set_one(self, k, r):
        rng = self.rng
        if r < 0.30:
            ms = rng.sample(MEMBERS, rng.randint(1, 3))

            def check(rs):
                s = self.data[k]
                if s is not None:
                    self.expect("SADD", k, rs[0], sum(m not in s for m in ms))
                    s.update(ms)
            return Op("SADD", [(b"SADD", k, *ms)], check, [k])
        if r < 0.45:
            ms = rng.sample(MEMBERS, rng.randint(1, 3))

            def check(rs):
                s = self.data[k]
                if s is not None:
                    self.expect("SREM", k, rs[0], sum(m in s for m in ms))
                    s.difference_update(ms)
            return Op("SREM", [(b"SREM", k, *ms)], check, [k])
        if r < 0.55:
            count = rng.choice((None, 1, 3))

            def check(rs):
                s = self.data[k]
                if s is None:
                    return
                got = rs[0]
                if count is None:
                    ok = got in s if s else got is None
                    popped = [got] if s else []
                else:
                    popped = as_set(got)
                    ok = popped is not None and popped <= s and len(popped) == min(count, len(s))
                    popped = popped or set()
                if not ok:
                    self.stats.violation("SPOP", key=repr(k), count=count, model=repr(s)[:160],
                                         got=repr(got)[:160])
                    self.forget([k])
                    return
                s.difference_update(popped)
            cmd = (b"SPOP", k) if count is None else (b"SPOP", k, count)
            return Op("SPOP", [cmd], check, [k])
        if r < 0.62:
            count = rng.choice((-4, 3))

            def check(rs):
                s = self.data[k]
                if s is None:
                    return
                got = rs[0]
                ok = isinstance(got, list) and all(m in s for m in got)
                ok = ok and len(got) == (min(count, len(s)) if count > 0 else -count if s else 0)
                if not ok or (count > 0 and as_set(got) is None):
                    self.stats.violation("SRANDMEMBER", key=repr(k), count=count,
                                         model=repr(s)[:160], got=repr(got)[:160])
            return Op("SRANDMEMBER", [(b"SRANDMEMBER", k, count)], check, ro=True)
        if r < 0.72:
            m = rng.choice(MEMBERS)
            return self.read("SISMEMBER", (b"SISMEMBER", k, m), (k,), lambda s: int(m in s))
        if r < 0.80:
            ms = rng.sample(MEMBERS, 3)
            return self.read("SMISMEMBER", (b"SMISMEMBER", k, *ms), (k,),
                                 lambda s: [int(m in s) for m in ms])
        if r < 0.88:
            return self.read("SCARD", (b"SCARD", k), (k,), len)
        return self.smembers(k)

    def smembers(self, k):
        return Op("SMEMBERS", [(b"SMEMBERS", k)],
                  lambda rs: self.whole("SMEMBERS", k, rs[0], as_set), ro=True)

    # ------------------------------------------------------------ lists

    def list_op(self):
        rng, k = self.rng, self.pick("list")
        lst = self.data[k]
        long = lst is not None and len(lst) > LIST_MAX
        r = rng.random()
        if r < 0.30 and not long:
            return self.list_push(k, [self.val() for _ in range(rng.randint(1, 3))],
                                  rng.random() < 0.5)
        if r < 0.45 or long:
            left, count = rng.random() < 0.5, rng.choice((None, None, 2))
            name = "LPOP" if left else "RPOP"

            def check(rs):
                cur = self.data[k]
                if cur is None:
                    return
                if count is None:
                    want = (cur[0] if left else cur[-1]) if cur else None
                else:
                    want = (cur[:count] if left else cur[::-1][:count]) if cur else None
                self.expect(name, k, rs[0], want)
                take(cur, 1 if count is None else count, left)
            cmd = (name.encode(), k) if count is None else (name.encode(), k, count)
            return Op(name, [cmd], check, [k])
        if r < 0.55:
            src, dst = self.pick("list", 2)
            wf, wt = rng.choice((b"LEFT", b"RIGHT")), rng.choice((b"LEFT", b"RIGHT"))
            return Op("LMOVE", [(b"LMOVE", src, dst, wf, wt)],
                      lambda rs: self.move("LMOVE", src, dst, wf, wt, rs[0]), [src, dst])
        if r < 0.62:
            a, b = rng.randint(-8, 3), rng.randint(-3, 12)

            def check(rs):
                cur = self.data[k]
                if cur is not None:
                    self.expect("LTRIM", k, rs[0], b"OK")
                    cur[:] = lrange(cur, a, b)
            return Op("LTRIM", [(b"LTRIM", k, a, b)], check, [k])
        if r < 0.72:
            a, b = rng.randint(-6, 6), rng.randint(-6, 12)
            return self.read("LRANGE", (b"LRANGE", k, a, b), (k,), lambda c: lrange(c, a, b))
        if r < 0.80:
            i = rng.randint(-5, 5)
            return self.read("LINDEX", (b"LINDEX", k, i), (k,),
                                  lambda c: c[i] if -len(c) <= i < len(c) else None)
        if r < 0.88:
            return self.read("LLEN", (b"LLEN", k), (k,), len)
        return self.lrange_all(k)

    def move(self, name, src, dst, wf, wt, got):
        """Checks and applies LMOVE's or BLMOVE's reply (None: src was empty)."""
        s, d = self.data[src], self.data[dst]
        if s is None or d is None:
            self.forget([src, dst])
            return
        want = (s[0] if wf == b"LEFT" else s[-1]) if s else None
        if not self.expect(name, (src, dst), got, want) or want is None:
            return
        s.pop(0 if wf == b"LEFT" else -1)
        d.insert(0 if wt == b"LEFT" else len(d), want)

    def lrange_all(self, k):
        return Op("LRANGE", [(b"LRANGE", k, 0, -1)],
                  lambda rs: self.whole("LRANGE 0 -1", k, rs[0],
                                        lambda r: r if isinstance(r, list) else None), ro=True)

    def pops_from(self, keys, left, count, got):
        """Checks and applies BLPOP/BRPOP/BLMPOP: the first non-empty key gives up to
        `count` elements (None: one, as [key, element]); None if every key is empty."""
        models = [self.data[k] for k in keys]
        if any(m is None for m in models):
            self.forget(keys)
            return
        want = None
        for k, cur in zip(keys, models):
            if cur:
                taken = take(cur, count or 1, left)
                want = [k, taken[0]] if count is None else [k, taken]
                break
        self.expect("BLMPOP" if count else "BLPOP" if left else "BRPOP", keys, got, want)

    def blocking_op(self):
        """A blocking pop in the pipeline: served at once from a non-empty list, else
        nil after its 10 ms timeout (the wake-up by a push is wake_up's)."""
        rng = self.rng
        a, b = self.pick("list", 2)
        r = rng.random()
        if r < 0.4:
            left = rng.random() < 0.5
            return Op("BLPOP" if left else "BRPOP",
                      [(b"BLPOP" if left else b"BRPOP", a, b, b"0.01")],
                      lambda rs: self.pops_from([a, b], left, None, rs[0]), [a, b])
        if r < 0.7:
            wf, wt = rng.choice((b"LEFT", b"RIGHT")), rng.choice((b"LEFT", b"RIGHT"))
            return Op("BLMOVE", [(b"BLMOVE", a, b, wf, wt, b"0.01")],
                      lambda rs: self.move("BLMOVE", a, b, wf, wt, rs[0]), [a, b])
        left, count = rng.random() < 0.5, rng.randint(1, 3)
        return Op("BLMPOP", [(b"BLMPOP", b"0.01", 2, a, b, b"LEFT" if left else b"RIGHT",
                              b"COUNT", count)],
                  lambda rs: self.pops_from([a, b], left, count, rs[0]), [a, b])

    # ------------------------------------------------------------ counters

    def num_op(self):
        rng, k = self.rng, self.pick("num")
        r = rng.random()
        if r < 0.6:
            n = rng.randint(-50, 50)
            decr = rng.random() < 0.3

            def check(rs):
                if self.data[k] is not None:
                    want = self.data[k] + (-n if decr else n)
                    self.expect("DECRBY" if decr else "INCRBY", k, rs[0], want)
                    self.data[k] = want
            return Op("INCRBY", [(b"DECRBY" if decr else b"INCRBY", k, n)], check, [k])
        return self.get_num(k)

    def get_num(self, k):
        return Op("GET", [(b"GET", k)],
                  lambda rs: self.whole("GET", k, rs[0],
                                        lambda r: int(r) if isinstance(r, bytes) else None),
                  ro=True)

    def set_num(self, k):
        def check(rs):
            self.expect("SET", k, rs[0], b"OK")
            self.data[k] = 0
        return Op("SET", [(b"SET", k, 0)], check, [k])

    # ------------------------------------------------------------ composites

    def single(self, ro=False):
        """One command on one of the types, for a transaction or script."""
        while True:
            r = self.rng.random()
            op = (self.hash_op() if r < 0.3 else self.set_op() if r < 0.6 else
                  self.list_op() if r < 0.85 else self.num_op())
            if op.ro or not ro:
                return op

    def singles(self, ro=False):
        return [self.single(ro) for _ in range(self.rng.randint(2, 5))]

    def fan_out(self, what, subs, got):
        """Gives each op its element of an EXEC or script reply."""
        if not isinstance(got, list) or len(got) != len(subs):
            self.stats.violation(what + " bad reply", got=repr(got)[:200],
                                 ops=[s.name for s in subs])
            self.forget(k for s in subs for k in s.writes)
            return
        for s, x in zip(subs, got):
            s.check([x])

    def multi(self, subs=None, watch=()):
        """[WATCH keys;] MULTI; the ops; EXEC: every op runs, in order, as one."""
        subs = subs or self.singles()
        head = [(b"WATCH", *watch)] if watch else []
        cmds = head + [(b"MULTI",)] + [s.cmds[0] for s in subs] + [(b"EXEC",)]

        def check(rs):
            if rs[:-1] != [b"OK"] * (len(head) + 1) + [b"QUEUED"] * len(subs):
                self.stats.violation("MULTI queueing", got=repr(rs[:-1])[:200])
            self.fan_out("EXEC", subs, rs[-1])
        name = "WATCH+EXEC" if watch else "MULTI/EXEC"
        return Op(name, cmds, check, [k for s in subs for k in s.writes])

    def watched(self):
        """WATCH of keys nobody else writes: EXEC must run the transaction."""
        subs = self.singles()
        a, b = self.pick("num", 2)
        subs += [self.num_op_on(a), self.num_op_on(b)]
        self.rng.shuffle(subs)
        return self.multi(subs, watch=(a, b) + tuple(k for s in subs for k in s.writes))

    def num_op_on(self, k):
        n = self.rng.randint(1, 9)

        def check(rs):
            if self.data[k] is not None:
                self.expect("INCRBY", k, rs[0], self.data[k] + n)
                self.data[k] += n
        return Op("INCRBY", [(b"INCRBY", k, n)], check, [k])

    def not_run(self):
        """MULTI whose ops must not run: DISCARD, or EXECABORT after a queueing error."""
        subs = self.singles()
        discard = self.rng.random() < 0.5
        bad = [] if discard else [(b"INCRBY", self.pick("num"))]   # wrong arity
        end = (b"DISCARD",) if discard else (b"EXEC",)
        cmds = [(b"MULTI",)] + [s.cmds[0] for s in subs] + bad + [end]

        def check(rs):
            ok = rs[0] == b"OK" and rs[1:1 + len(subs)] == [b"QUEUED"] * len(subs)
            if discard:
                ok = ok and rs[-1] == b"OK"
            else:
                ok = ok and str(rs[-2]).startswith("ERR wrong number of arguments")
                ok = ok and str(rs[-1]).startswith("EXECABORT")
            if not ok:
                self.stats.violation("DISCARD" if discard else "EXECABORT", got=repr(rs)[:200])
        return Op("DISCARD" if discard else "EXECABORT", cmds, check)

    def script(self):
        """The ops run by one script or function: EVAL, EVALSHA, FCALL, or with read-only
        ops EVAL_RO and FCALL_RO."""
        how = self.rng.choice((b"EVAL", b"EVALSHA", b"FCALL", b"EVAL_RO", b"FCALL_RO"))
        ro = how.endswith(b"_RO")
        subs = self.singles(ro)
        keys = list(dict.fromkeys(k for s in subs for c in s.cmds for k in c if k in self.data))
        argv = []
        for s in subs:
            argv += [len(s.cmds[0])] + list(s.cmds[0])
        body = {b"EVAL": RUN_LUA.encode(), b"EVALSHA": RUN_SHA, b"EVAL_RO": RUN_LUA.encode(),
                b"FCALL": b"soak_run", b"FCALL_RO": b"soak_read"}[how]
        return Op(how.decode(), [(how, body, len(keys), *keys, *argv)],
                  lambda rs: self.fan_out(how.decode(), subs, rs[0]),
                  [k for s in subs for k in s.writes])

    def random_op(self):
        make = self.rng.choices(
            (self.hash_op, self.set_op, self.list_op, self.num_op, self.blocking_op,
             self.multi, self.watched, self.not_run, self.script),
            weights=(22, 22, 18, 6, 4, 8, 4, 2, 14))[0]
        return make()

    def sweep_ops(self):
        """Reads that show every key whole."""
        return ([self.hgetall(k) for k in self.keys("hash")] +
                [self.smembers(k) for k in self.keys("set")] +
                [self.lrange_all(k) for k in self.keys("list")] +
                [self.get_num(k) for k in self.keys("num")])

    # ------------------------------------------------------------ two connections

    def duo(self, a, b):
        """A step that needs a second client `b` beside the checker's connection `a`:
        a blocked pop woken by b's push, or a WATCH that b's write must abort."""
        if self.rng.random() < 0.5:
            return self.watch_broken(a, b)
        return self.wake_up(a, b)

    def watch_broken(self, a, b):
        x, y = self.pick("num", 2)
        self.expect("WATCH", (x, y), a.call(b"WATCH", x, y), b"OK")
        touched = self.rng.choice((x, y))
        bump = self.num_op_on(touched)
        bump.check([b.call(*bump.cmds[0])])
        subs = self.singles() + [self.num_op_on(x if touched == y else y)]
        rs = a.pipeline([(b"MULTI",)] + [s.cmds[0] for s in subs] + [(b"EXEC",)])
        self.stats.op("check_WATCH_aborted")
        # The transaction must not run: none of its ops' checks apply.
        if rs[-1] is not None:
            self.stats.violation("EXEC ran after a watched key changed", key=repr(touched),
                                 got=repr(rs[-1])[:200])
            self.forget(k for s in subs for k in s.writes)

    def wake_up(self, a, b):
        """a blocks on empty lists (BLPOP, BRPOP, BLMOVE or BLMPOP on two shards), b
        pushes onto one; a must get what a pop after that push gets (whichever of the two
        the server ran first, the replies are the same)."""
        empty = [k for k in self.keys("list") if self.data[k] == []]
        lo = [k for k in empty if key_slot(k) < SHARD_SLOTS]
        hi = [k for k in empty if key_slot(k) >= SHARD_SLOTS]
        if not lo or not hi:
            return
        keys = [self.rng.choice(lo), self.rng.choice(hi)]
        self.rng.shuffle(keys)
        target = self.rng.choice(keys)
        kind = self.rng.choice(("BLPOP", "BRPOP", "BLMOVE", "BLMPOP"))
        left, count = kind != "BRPOP", self.rng.randint(1, 3)
        if kind == "BLMOVE":
            target = keys[0]
            dst = self.rng.choice([k for k in self.keys("list") if k != target])
            block = (b"BLMOVE", target, dst, b"LEFT", b"RIGHT", 5)
        elif kind == "BLMPOP":
            block = (b"BLMPOP", 5, 2, *keys, b"LEFT", b"COUNT", count)
        else:
            block = (kind.encode(), *keys, 5)
        a.start(*block)
        if self.rng.random() < 0.5:
            time.sleep(0.002)   # usually blocked by now; else the push comes first
        vs = [self.val() for _ in range(self.rng.randint(1, 3))]
        push = self.list_push(target, vs)
        push.check([b.call(*push.cmds[0])])
        got = a.read()
        self.stats.op("check_" + kind + "_woken")
        if got is None:
            self.stats.violation(kind + " not woken by a push", keys=repr(keys))
        if kind == "BLMOVE":
            self.move("BLMOVE", target, dst, b"LEFT", b"RIGHT", got)
        else:
            self.pops_from(keys, left, count if kind == "BLMPOP" else None, got)

    def list_push(self, k, vs, left=False):
        name = "LPUSH" if left else "RPUSH"

        def check(rs):
            cur = self.data[k]
            if cur is not None:
                self.expect(name, k, rs[0], len(cur) + len(vs))
                if left:
                    cur[0:0] = vs[::-1]
                else:
                    cur.extend(vs)
        return Op(name, [(name.encode(), k, *vs)], check, [k])
