"""EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT byte for byte against redis-server, on
1, 2 and 3 threads: Lua <-> RESP2/RESP3 conversions, redis.* functions, the sandbox and
its error texts, the libraries (cjson, cmsgpack, struct, bit), shebang flags, scripts in
MULTI/EXEC. Scripts name their keys in KEYS, or keys sharing a {hash tag} with them, so
every script has one shard on a multi-threaded server (docs/SCRIPTING.md).

Run by ctest as `/usr/bin/python3 test_scripting_differential.py <path-to-ringcache>`.
"""

import ringcache_server
from differential_pair import ServersTestCase, StepChecks, parse, per_thread_count


def ev(body, *keys_and_args, keys=None):
    """EVAL body numkeys ...: `keys` keys (default: all positional ones)."""
    n = len(keys_and_args) if keys is None else keys
    return ("EVAL", body, str(n)) + tuple(keys_and_args)


# Scripts whose replies and errors must match exactly; each runs against a fresh {t}
# keyspace in order.
CASES = [
    ev("return 1"),
    ev("return 'x'"),
    ev("return 3.99"),
    ev("return -3.99"),
    ev("return 1e300"),
    ev("return 0/0"),
    ev("return true"),
    ev("return false"),
    ev("return nil"),
    ev("return {1,2,nil,3}"),
    ev("return {1,'a',{2,{3,{}}},false,true}"),
    ev("return {err='x y'}"),
    ev("return {err='My\\nErr'}"),
    ev("return {ok='fine'}"),
    ev("return {ok='a\\r\\nb'}"),
    ev("return {err=1}"),
    ev("return {ok=1}"),
    ev("return {double=1.5}"),
    ev("return {double=3}"),
    ev("return {map={a=1}}"),
    ev("return {set={a=true}}"),
    ev("return {big_number='123'}"),
    ev("return KEYS", "{t}a", "{t}b"),
    ev("return ARGV", "x", "y", keys=0),
    ev("return {#KEYS, #ARGV}", "{t}a", "b", "c", keys=1),
    ev("KEYS[1]='x'; return KEYS[1]", "{t}a"),
    ev("return redis.call('set', KEYS[1], 'v')", "{t}a"),
    ev("return redis.call('get', KEYS[1])", "{t}a"),
    ev("return redis.call('get', KEYS[1])", "{t}missing"),
    ev("return redis.call('incr', KEYS[1])", "{t}a"),
    ev("return redis.pcall('incr', KEYS[1])", "{t}a"),
    ev("local ok = redis.pcall('incr', KEYS[1]) return ok['err']", "{t}a"),
    ev("return redis.call('nosuch')"),
    ev("return {redis.pcall('nosuch')}"),
    ev("return redis.call()"),
    ev("return redis.pcall()"),
    ev("return redis.call('get')"),
    ev("return redis.call('multi')"),
    ev("return redis.call('eval', 'return 1', '0')"),
    ev("return redis.call('set', KEYS[1], {})", "{t}a"),
    ev("return redis.call('set', KEYS[1], 3.0)", "{t}n"),
    ev("return redis.call('get', KEYS[1])", "{t}n"),
    ev("return redis.call('set', KEYS[1], 0.1)", "{t}n"),
    ev("return redis.call('get', KEYS[1])", "{t}n"),
    ev("return redis.call('set', KEYS[1], -2^53)", "{t}n"),
    ev("return redis.call('get', KEYS[1])", "{t}n"),
    ev("return redis.call('set', KEYS[1], 1e300)", "{t}n"),
    ev("return redis.call('get', KEYS[1])", "{t}n"),
    ev("redis.call('set', KEYS[1], 'a')"
       " return redis.call('zadd', KEYS[1], 1, 'a')", "{t}z"),
    ev("redis.call('zadd', KEYS[1], 1.5, 'a', 2, 'b')"
       " return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", "{t}z"),
    ev("return redis.call('zscore', KEYS[1], 'a')", "{t}z"),
    ev("redis.call('hset', KEYS[1], 'f', 'v', 'g', 'w') return redis.call('hgetall', KEYS[1])",
       "{t}h"),
    ev("redis.call('sadd', KEYS[1], 'm') return redis.call('smembers', KEYS[1])", "{t}s"),
    ev("return redis.call('type', KEYS[1])", "{t}h"),
    ev("return redis.call('ping')"),
    ev("return redis.call('echo', 'hi')"),
    ev("return redis.call('exists', KEYS[1], KEYS[2])", "{t}h", "{t}s"),
    ev("return redis.call('mget', KEYS[1], KEYS[2])", "{t}a", "{t}n"),
    ev("return redis.call('del', KEYS[1], KEYS[2])", "{t}a", "{t}n"),
    # RESP3 inside the script.
    ev("redis.setresp(3) return redis.call('hgetall', KEYS[1])", "{t}h"),
    ev("redis.setresp(3) local r = redis.call('hgetall', KEYS[1]) return r['map']['f']", "{t}h"),
    ev("redis.setresp(3) return redis.call('smembers', KEYS[1])", "{t}s"),
    ev("redis.setresp(3) local r = redis.call('smembers', KEYS[1]) return r['set']['m']", "{t}s"),
    ev("redis.setresp(3) return redis.call('zscore', KEYS[1], 'a')", "{t}z"),
    ev("redis.setresp(3) local r = redis.call('zscore', KEYS[1], 'a') return r['double']",
       "{t}z"),
    ev("redis.setresp(3) return redis.call('get', KEYS[1])", "{t}missing"),
    ev("redis.setresp(3) return redis.call('get', KEYS[1]) == nil", "{t}missing"),
    ev("redis.setresp(3) return true"),
    ev("redis.setresp(3) return false"),
    ev("redis.setresp(3) return {double=2.5}"),
    ev("redis.setresp(3) return {big_number='1234567890123'}"),
    ev("redis.setresp(3) return {map={x={1,2}}}"),
    ev("redis.setresp(3) return {set={x=true}}"),
    ev("return redis.setresp(4)"),
    ev("return redis.setresp()"),
    # redis.* helpers.
    ev("return redis.error_reply('oops')"),
    ev("return redis.error_reply('My error x')"),
    ev("return redis.error_reply('-My error x')"),
    ev("return redis.error_reply()"),
    ev("return redis.status_reply('fine')"),
    ev("return redis.status_reply()"),
    ev("return redis.sha1hex('abc')"),
    ev("return redis.sha1hex('')"),
    ev("return redis.sha1hex()"),
    ev("return redis.log(redis.LOG_NOTICE, 'hi', 'there')"),
    ev("return redis.log()"),
    ev("return redis.log('x', 'y')"),
    ev("return redis.log(9, 'y')"),
    ev("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
    ev("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA,"
       " redis.REPL_ALL}"),
    ev("redis.set_repl(redis.REPL_ALL) return 1"),
    ev("redis.set_repl(99) return 1"),
    ev("return redis.replicate_commands()"),
    ev("return redis.breakpoint()"),
    ev("return redis.debug('x')"),
    ev("return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}"),
    ev("return redis.acl_check_cmd('get', 'x')"),
    ev("return redis.acl_check_cmd('nosuch')"),
    # Errors and where they happened.
    ev("error('boom')"),
    ev("\n\nerror('boom')"),
    ev("error({err='My Err'})"),
    ev("error()"),
    ev("local x = nil; return x.y"),
    ev("syntax error here"),
    ev("return redis.call('incr', KEYS[1])", "{t}h"),
    ev("local r = redis.call('incr', KEYS[1]) return r", "{t}h"),
    ev("\n\nreturn redis.call('nosuch')"),
    ev("return pcall(redis.call, 'incr', KEYS[1])", "{t}h"),
    ev("local f = function() return redis.call('incr', KEYS[1]) end return {pcall(f)}", "{t}i"),
    # Redis's pcall gives an error table's `err` string.
    ev("local ok, e = pcall(redis.call, 'incr', KEYS[1]) return {tostring(ok), e, type(e)}",
       "{t}h"),
    ev("return {pcall(error, {err='x'})}"),
    ev("return {pcall(error, {err=5})}"),
    ev("return {pcall(error, {x=1})}"),
    ev("return {pcall(error)}"),
    ev("return {pcall()}"),
    ev("return {pcall(1)}"),
    ev("return {pcall(function() return 1, 2 end)}"),
    ev("return {pcall(redis.call, 'nosuch')}"),
    # The sandbox.
    ev("x = 1"),
    ev("return y"),
    ev("return os"),
    ev("return print"),
    ev("return dofile"),
    ev("return loadfile"),
    ev("return require"),
    ev("return getfenv"),
    ev("return setfenv"),
    ev("return newproxy"),
    ev("return io"),
    ev("return debug"),
    ev("return jit"),
    ev("return package"),
    ev("string.x = 1 return 1"),
    ev("redis.call = nil return 1"),
    ev("math.random = nil return 1"),
    ev("rawset(_G, 'x', 1) return 1"),
    ev("setmetatable(_G, nil) return 1"),
    ev("_G.KEYS = 1 return 1"),
    ev("local t = {} t.x = 1 return t.x"),
    ev("return loadstring('return 5')()"),
    ev("return {type(bit), type(cjson), type(cmsgpack), type(struct), type(string),"
       " type(table), type(math), type(coroutine), type(loadstring), type(unpack),"
       " type(collectgarbage), type(_G), type(gcinfo), type(load), type(select)}"),
    ev("return _VERSION"),
    ev("return tostring(1e15)..' '..tostring(0.1)..' '..tostring(1/0)..' '..tostring(2^53)"),
    ev("return string.format('%d %s %5.2f', 3.7, 'x', 1.5)"),
    ev("return {string.rep('ab', 3), string.upper('x'), ('abc'):sub(2)}"),
    ev("return table.concat({1, 2, 3}, ',')"),
    ev("local co = coroutine.create(function() coroutine.yield(1) return 2 end)"
       " local _, a = coroutine.resume(co) local _, b = coroutine.resume(co) return {a, b}"),
    # cjson.
    ev("return cjson.encode({a=1})"),
    ev("return cjson.encode({1.5, 1e20, 'x\"', true, cjson.null, {}})"),
    ev("return cjson.encode('\\1\\2')"),
    ev("return cjson.decode('[1,2,null,{\"a\":true}]')[3] == cjson.null"),
    ev("return cjson.decode('{\"a\":[1,2,{\"b\":\"c\"}]}')['a'][3]['b']"),
    ev("return cjson.decode('[1,')"),
    ev("return cjson.decode('\"\\\\u00e9\"')"),
    # cmsgpack.
    ev("return cmsgpack.pack({1,2,3})"),
    ev("return cmsgpack.pack({a=1})"),
    ev("return cmsgpack.pack(1, -1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296,"
       " -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649)"),
    ev("return cmsgpack.pack(1.5, 0.1, -2.25, 1e300, true, false, nil)"),
    ev("return cmsgpack.pack(string.rep('x', 31), string.rep('y', 32), string.rep('z', 256),"
       " string.rep('w', 65536))"),
    ev("local t = {} for i = 1, 20 do t[i] = i end return cmsgpack.pack(t)"),
    ev("local t = {} for i = 1, 20 do t['k' .. i] = i end"
       " return #cmsgpack.pack(t)"),
    ev("return cmsgpack.pack({{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}})"),
    ev("return cmsgpack.pack({})"),
    ev("return cmsgpack.pack({[1]=1, [3]=3})"),
    ev("return cmsgpack.pack()"),
    ev("return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {x=1.5}, {1, {2}}, -7, 2^40))}"),
    ev("local t = cmsgpack.unpack(cmsgpack.pack({x=1.5, y={1, 2}})) return {t.x, t.y[2]}"),
    ev("return cmsgpack.unpack('\\146\\1')"),
    ev("return cmsgpack.unpack('\\193')"),
    ev("return {cmsgpack.unpack('')}"),
    ev("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}"),
    ev("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}"),
    ev("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"),
    ev("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 5, 1)}"),
    # struct.
    ev("return struct.pack('>I2', 258)"),
    ev("return struct.pack('<i4 >h b B', -2, -3, -1, 255)"),
    ev("return struct.pack('!4 b i4 d', 1, 2, 1.5)"),
    ev("return struct.pack('s c3 c0', 'ab', 'xyzw', 'q')"),
    ev("return struct.pack('f d x', 1.5, -2.25)"),
    ev("return struct.pack('i9', 1)"),
    ev("return struct.pack('i33', 1)"),
    ev("return struct.pack('!3 i', 1)"),
    ev("return struct.pack('y', 1)"),
    ev("return struct.pack('c5', 'ab')"),
    ev("return {struct.unpack('<i4', 'abcd')}"),
    ev("return {struct.unpack('>I2 b', '\\1\\2\\255')}"),
    ev("return {struct.unpack('s b', 'hi\\0\\7')}"),
    ev("return {struct.unpack('b c0', '\\3abc')}"),
    ev("return {struct.unpack('c2', 'abcd', 3)}"),
    ev("return {struct.unpack('i4', 'ab')}"),
    ev("return {struct.unpack('s', 'ab')}"),
    ev("return {struct.unpack('i4', 'abcd', 10)}"),
    ev("return {struct.unpack('d', struct.pack('d', 0.1))}"),
    ev("return {struct.size('i4 h !8 d'), struct.size('b')}"),
    ev("return struct.size('s')"),
    # bit.
    ev("return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(3, 1), bit.bnot(0),"
       " bit.lshift(1, 4), bit.rshift(-1, 28), bit.arshift(-16, 2), bit.rol(1, 33),"
       " bit.ror(1, 1), bit.tobit(2^32 + 5), bit.bswap(1)}"),
    ev("return {bit.tohex(255), bit.tohex(-1, 4), bit.tohex(255, -2)}"),
]


class ScriptingBase(StepChecks, ServersTestCase):
    def setUp(self):
        self.p = self.servers.pair()
        self.same(self.p.step("FLUSHALL"))
        self.same(self.p.step("SCRIPT", "FLUSH"))

    def tearDown(self):
        self.p.close()

    def test_conversions_library_and_errors_resp2(self):
        self.run_all(CASES)

    def test_conversions_resp3(self):
        p = self.servers.pair()
        try:
            self.same(p.step("HELLO", "3"))
            self.run_all(CASES, p)
        finally:
            p.close()

    def test_numkeys_and_evalsha_errors(self):
        self.run_all([
            ("EVAL", "return 1", "-1"),
            ("EVAL", "return 1", "2", "a"),
            ("EVAL", "return 1", "x"),
            ("EVAL", "return 1", "1.5", "a"),
            ("EVAL", "return 1"),
            ("EVALSHA", "0123", "0"),
            ("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
            ("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "-1"),
            ("EVALSHA_RO", "ffffffffffffffffffffffffffffffffffffffff", "0"),
            ("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "x"),
            ("SCRIPT", "LOAD", "return 1"),
            ("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "x"),
            ("SCRIPT", "EXISTS", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB"),
            ("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
            ("EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"),
            ("EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
            ("SCRIPT", "LOAD", "return +"),
            ("SCRIPT", "LOAD", "return 'eval-cached'"),
            ("EVAL", "return 'cached by eval'", "0"),
            ("SCRIPT", "EXISTS", "4f0bcb0e4b7a8ae13e7ba6dd28a5e4347c4e2c97"),
            ("SCRIPT", "FLUSH", "x"),
            ("SCRIPT", "FLUSH", "ASYNC"),
            ("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"),
            ("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
            ("SCRIPT", "FLUSH", "SYNC"),
            ("SCRIPT", "FLUSH"),
            ("SCRIPT", "KILL"),
            ("SCRIPT", "DEBUG", "NO"),
            ("SCRIPT", "DEBUG", "x"),
            ("SCRIPT", "HELP"),
            ("SCRIPT", "NOSUCH"),
            ("SCRIPT",),
            ("SCRIPT", "LOAD"),
            ("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c"),
            ("COMMAND", "GETKEYS", "EVAL", "return 1", "0", "c"),
            ("COMMAND", "GETKEYS", "EVALSHA_RO", "x", "3", "a"),
            ("COMMAND", "GETKEYSANDFLAGS", "EVAL_RO", "return 1", "0"),
            ("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "{t}a"),
            ("EVAL_RO", "return redis.call('set', KEYS[1], 'x')", "1", "{t}a"),
            ("EVAL_RO", "return redis.pcall('set', KEYS[1], 'x')", "1", "{t}a"),
        ])

    def test_shebang_flags(self):
        self.run_all([
            ev("#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'b')", "{t}a"),
            ev("#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "{t}a"),
            ev("#!lua\nreturn redis.call('set', KEYS[1], 'b')", "{t}a"),
            ev("#!lua\n\nerror('x')"),
            ev("#!lua flags=no-writes,allow-oom\nreturn 1"),
            ev("#!lua flags=\nreturn 1"),
            ev("#!lua flags=bad\nreturn 1"),
            ev("#!luax\nreturn 1"),
            ev("#!lua x=1\nreturn 1"),
            ev("#!lua"),
            ("EVAL_RO", "#!lua\nreturn 1", "0"),
            ("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"),
            ("EVAL_RO", "return 1", "0"),
            ("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 1"),
            ("SCRIPT", "LOAD", "#!lua flags=bad\nreturn 1"),
        ])

    def test_scripts_in_multi_exec(self):
        self.run_all([
            ("MULTI",),
            ev("return redis.call('incr', KEYS[1])", "{t}c"),
            ("INCR", "{t}c"),
            ev("return redis.call('incr', KEYS[1])", "{t}c"),
            ev("return 1", "-1", keys=0),
            ("EXEC",),
            ("MULTI",),
            ev("error('in exec')"),
            ("GET", "{t}c"),
            ("EXEC",),
            ("MULTI",),
            ("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
            ("EXEC",),
            ("MULTI",),
            ("EVAL",),
            ("EXEC",),
        ])

    def test_slow_log_lists_the_commands_a_script_calls(self):
        """Redis logs a script's commands before the script itself, as client ?:0."""
        self.same(self.p.step("CONFIG", "SET", "slowlog-log-slower-than", "0"))
        self.same(self.p.step("SLOWLOG", "RESET"))
        try:
            self.same(self.p.step(*ev("redis.call('set', KEYS[1], '1') "
                                      "return redis.call('get', KEYS[1])", "{s}k")))
        finally:
            self.same(self.p.step("CONFIG", "SET", "slowlog-log-slower-than", "10000"))
        want, got = self.p.step("SLOWLOG", "GET", "10")

        def shape(data):
            # id, time and duration differ; so does a real client's address.
            return [(e[3], e[4] if e[4] == b"?:0" else b"client", e[5])
                    for e in parse(data)[0]]

        self.assertEqual(shape(got), shape(want))
        self.assertEqual(len(shape(want)), 4)


per_thread_count(ScriptingBase, "Scripting", globals())

if __name__ == "__main__":
    ringcache_server.main()
