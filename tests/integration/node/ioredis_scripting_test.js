'use strict';
// ioredis 5's scripting against a server on 127.0.0.1:<argv[2]>: defineCommand (EVALSHA,
// then EVAL when the server answers NOSCRIPT) alone, in pipelines and in MULTI, and
// eval / evalsha / script as apps call them. Run through test_node_clients.py, or by hand:
// NODE_PATH=$(python3 test_node_clients.py dir)/node_modules node ioredis_scripting_test.js
// <port>.

const {test, before, after, beforeEach} = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const Redis = require('ioredis');
const common = require('./common');

const port = common.PortFromArgv();

// The fixed-window limiter most rate limiters send: one key, INCR then EXPIRE.
const kIncrExpire = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;
const kSwap = `local a = redis.call('GET', KEYS[1])
local b = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[1], b)
redis.call('SET', KEYS[2], a)
return {a, b}`;

function Sha1(body) {
  return crypto.createHash('sha1').update(body).digest('hex');
}

let redis;

before(async () => {
  redis = new Redis({
    host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  await redis.connect();
  redis.defineCommand('incrExpire', {numberOfKeys: 1, lua: kIncrExpire});
  redis.defineCommand('swap', {numberOfKeys: 2, lua: kSwap});
  redis.defineCommand('echoArgs', {lua: 'return {#KEYS, ARGV[1], ARGV[2]}'});
  redis.defineCommand('refuse', {numberOfKeys: 0, lua: 'return redis.error_reply("MYERR no")'});
});

after(async () => {
  await redis.quit().catch(() => redis.disconnect());
});

beforeEach(async () => {
  assert.equal(await redis.flushall(), 'OK');
  assert.equal(await redis.script('FLUSH'), 'OK');
});

test('defineCommand: EVALSHA, EVAL after NOSCRIPT, then EVALSHA again', async () => {
  assert.deepEqual(await redis.script('EXISTS', Sha1(kIncrExpire)), [0]);
  assert.equal(await redis.incrExpire('hits', 60), 1);
  assert.deepEqual(await redis.script('EXISTS', Sha1(kIncrExpire)), [1]);
  assert.equal(await redis.incrExpire('hits', 60), 2);
  const ttl = await redis.ttl('hits');
  assert.ok(ttl > 0 && ttl <= 60, `ttl ${ttl}`);
  assert.equal(await redis.get('hits'), '2');
  assert.equal(await redis.incrExpireBuffer('hits', 60), 3);
});

test('defineCommand in a pipeline and in MULTI', async () => {
  // The first test loaded the script, so ioredis pipelines EVALSHA; after beforeEach's
  // SCRIPT FLUSH each answers NOSCRIPT and ioredis sends them again as EVAL, after the
  // pipeline's GET (which so sees no key).
  const piped = await redis.pipeline()
      .incrExpire('p1', 10).incrExpire('p2', 10).incrExpire('p1', 10).exists('p1').exec();
  assert.deepEqual(piped, [[null, 1], [null, 1], [null, 2], [null, 0]]);
  assert.equal(await redis.get('p1'), '2');
  const again = await redis.pipeline().incrExpire('p1', 10).get('p1').exec();
  assert.deepEqual(again, [[null, 3], [null, '3']]);
  const tx = await redis.multi().incrExpire('m', 10).incrExpire('m', 10).get('m').exec();
  assert.deepEqual(tx, [[null, 1], [null, 2], [null, '2']]);
});

test('defineCommand over two keys of one {hash tag}; keys counted per call', async () => {
  await redis.mset('{s}a', '1', '{s}b', '2');
  assert.deepEqual(await redis.swap('{s}a', '{s}b'), ['1', '2']);
  assert.deepEqual(await redis.mget('{s}a', '{s}b'), ['2', '1']);
  assert.deepEqual(await redis.echoArgs(0, 'x', 'y'), [0, 'x', 'y']);
  assert.deepEqual(await redis.echoArgs(1, 'k', 'y'), [1, 'y']);  // a table ends at nil
});

test('a script error reaches the caller as a ReplyError', async () => {
  await assert.rejects(redis.refuse(), (e) => e.name === 'ReplyError' && e.message === 'MYERR no');
  await redis.set('str', 'x');
  await assert.rejects(redis.eval('return redis.call("INCR", KEYS[1])', 1, 'str'),
      (e) => e.message.startsWith('ERR value is not an integer or out of range script: '));
  const [[err]] = await redis.pipeline().refuse().exec();
  assert.equal(err.message, 'MYERR no');
});

test('eval, evalsha, script load/exists/flush', async () => {
  assert.deepEqual(await redis.eval("return {1, 'two', 3.99, false, {ok='fine'}}", 0),
      [1, 'two', 3, null, 'fine']);
  const sha = await redis.script('LOAD', 'return ARGV[1] .. KEYS[1]');
  assert.equal(sha, Sha1('return ARGV[1] .. KEYS[1]'));
  assert.equal(await redis.evalsha(sha, 1, 'k', 'v'), 'vk');
  assert.deepEqual(await redis.script('EXISTS', sha, Sha1('nope')), [1, 0]);
  assert.equal(await redis.script('FLUSH'), 'OK');
  await assert.rejects(redis.evalsha(sha, 0),
      (e) => e.message === 'NOSCRIPT No matching script. Please use EVAL.');
});
