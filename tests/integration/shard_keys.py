"""Keys chosen by slot so that they land on different shards of a ringcache with 2 threads
(slots 0-8191, 8192-16383) and with 3 (0-5460, 5461-10922, 10923-16383): A and D on the
first shard, B on the second, C on the last. Scripts and functions given them run across
shards (docs/SCRIPTING.md)."""

from redis.crc import key_slot


def key_in(lo, hi, taken=()):
    """A key whose slot is in [lo, hi]."""
    i = 0
    while True:
        k = "k%d" % i
        if lo <= key_slot(k.encode()) <= hi and k not in taken:
            return k
        i += 1


A = key_in(0, 5000)
B = key_in(8192, 10922)
C = key_in(10923, 16383)
D = key_in(0, 5000, (A,))
KEYS4 = (A, B, C, D)
