'use strict';
// node-redis 5 (package `redis`) speaking RESP3 (HELLO 3 on connect) against a server on
// 127.0.0.1:<argv[2]>. Run through test_node_clients.py, or by hand:
// NODE_PATH=$(python3 test_node_clients.py dir)/node_modules node node_redis_test.js <port>.
// Besides the client's typed commands, raw sendCommand() replies show what the RESP3
// decoder saw: maps arrive as objects, doubles as numbers, nulls as null, and pub/sub
// messages only arrive if the server sent them as push frames.

const {test, before, after, beforeEach} = require('node:test');
const assert = require('node:assert/strict');
const {createClient, RESP_TYPES, WatchError} = require('redis');
const common = require('./common');

const port = common.PortFromArgv();
const clients = [];

/** A connected RESP3 client; closed in after(). No reconnects: a dropped link fails. */
async function Connect(options = {}) {
  const client = createClient({
    socket: {host: '127.0.0.1', port, reconnectStrategy: false},
    RESP: 3,
    ...options,
  });
  client.on('error', () => {});  // rejections reach the awaiting test instead
  clients.push(client);
  await client.connect();
  return client;
}

function IsPlainMap(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value) &&
         !Buffer.isBuffer(value);
}

let redis;
let other;

before(async () => {
  redis = await Connect({name: 'node-redis-main'});
  other = await Connect();
});

after(async () => {
  for (const c of clients) {
    if (c.isOpen) c.destroy();
  }
});

beforeEach(async () => {
  assert.equal(await redis.flushAll(), 'OK');
});

test('connect: HELLO 3 answered with a map, SETNAME applied', async () => {
  assert.ok(redis.isReady);
  const hello = await redis.sendCommand(['HELLO', '3']);
  assert.ok(IsPlainMap(hello), `HELLO reply is not a map: ${JSON.stringify(hello)}`);
  assert.equal(hello.server, 'redis');
  assert.equal(hello.proto, 3);
  assert.equal(typeof hello.id, 'number');
  assert.match(hello.version, /^\d+\.\d+\.\d+$/);
  assert.equal(hello.mode, 'standalone');
  assert.equal(hello.role, 'master');
  assert.ok(Array.isArray(hello.modules));
  assert.equal(await redis.clientGetName(), 'node-redis-main');
  assert.equal(await redis.ping(), 'PONG');
});

test('INFO parsed into fields counts both clients', async () => {
  const text = await redis.info();
  assert.equal(typeof text, 'string');
  assert.ok(text.startsWith('# Server'), `INFO starts ${JSON.stringify(text.slice(0, 12))}`);
  const info = common.ParseInfo(text);
  common.CheckInfoFields(info, 2);
  assert.equal(info.tcp_port, String(port));
  const hello = await redis.sendCommand(['HELLO']);
  assert.equal(info.redis_version, hello.version);
  const clientsOnly = common.ParseInfo(await redis.info('clients'));
  assert.ok(Number(clientsOnly.connected_clients) >= 2);
  assert.equal(clientsOnly.redis_version, undefined, 'INFO clients has only that section');
});

test('CONFIG GET replies as a map', async () => {
  const typed = await redis.configGet('maxclients');
  assert.ok(IsPlainMap(typed));
  assert.match(typed.maxclients, /^\d+$/);
  const raw = await redis.sendCommand(['CONFIG', 'GET', 'maxclients']);
  assert.ok(IsPlainMap(raw), `CONFIG GET reply is not a map: ${JSON.stringify(raw)}`);
  assert.deepEqual(Object.keys(raw), ['maxclients']);
  const none = await redis.sendCommand(['CONFIG', 'GET', 'no-such-parameter']);
  assert.ok(IsPlainMap(none));
  assert.deepEqual(Object.keys(none), []);
});

test('SET GET MGET EX TTL, nulls', async () => {
  assert.equal(await redis.set('k', 'v'), 'OK');
  assert.equal(await redis.get('k'), 'v');
  assert.equal(await redis.get('missing'), null);
  assert.equal(await redis.sendCommand(['GET', 'missing']), null);
  assert.equal(await redis.set('k', 'w', {condition: 'NX'}), null);
  assert.equal(await redis.set('k', 'w', {condition: 'XX', GET: true}), 'v');
  assert.equal(await redis.set('e', 'x', {expiration: {type: 'EX', value: 100}}), 'OK');
  const ttl = await redis.ttl('e');
  assert.ok(ttl > 95 && ttl <= 100, `TTL ${ttl}`);
  assert.equal(await redis.ttl('k'), -1);
  assert.equal(await redis.ttl('missing'), -2);
  assert.equal(await redis.setEx('s', 50, 'y'), 'OK');
  const pttl = await redis.pTTL('s');
  assert.ok(pttl > 45000 && pttl <= 50000, `PTTL ${pttl}`);
  const keys = Array.from({length: 50}, (_, i) => `m${i}`);
  assert.equal(await redis.mSet(keys.map((k, i) => [k, `val${i}`])), 'OK');
  assert.deepEqual(await redis.mGet([...keys, 'missing']),
                   [...keys.map((_, i) => `val${i}`), null]);
  assert.equal(await redis.del(['k', 'e', 'missing']), 2);
  assert.equal(await redis.exists(['k', 's']), 1);
});

test('binary keys and values round-trip byte for byte', async () => {
  const raw = redis.withTypeMapping({[RESP_TYPES.BLOB_STRING]: Buffer});
  const value = common.BinaryValue();
  const key = Buffer.from([0, 0x62, 0x69, 0x6e, 0xff, 0x0d, 0x0a]);
  assert.equal(await raw.set(key, value), 'OK');
  const got = await raw.get(key);
  assert.ok(Buffer.isBuffer(got));
  assert.ok(got.equals(value));
  assert.equal(await raw.strLen(key), value.length);
  const [viaMget, missing] = await raw.mGet([key, 'missing']);
  assert.ok(viaMget.equals(value));
  assert.equal(missing, null);
});

test('sorted set round trip: ZADD ZRANGE WITHSCORES ZSCORE, doubles', async () => {
  assert.equal(await redis.zAdd('z', [
    {score: 1, value: 'a'}, {score: 2.5, value: 'b'}, {score: -3, value: 'c'},
    {score: Infinity, value: 'top'},
  ]), 4);
  assert.deepEqual(await redis.zRangeWithScores('z', 0, -1), [
    {value: 'c', score: -3}, {value: 'a', score: 1}, {value: 'b', score: 2.5},
    {value: 'top', score: Infinity},
  ]);
  assert.deepEqual(await redis.zRange('z', 0, 1), ['c', 'a']);
  assert.equal(await redis.zScore('z', 'b'), 2.5);
  assert.equal(await redis.zScore('z', 'top'), Infinity);
  assert.equal(await redis.zScore('z', 'nobody'), null);
  // Raw replies: RESP3 doubles decode to numbers; WITHSCORES pairs up member and score.
  assert.equal(await redis.sendCommand(['ZSCORE', 'z', 'b']), 2.5);
  assert.equal(await redis.sendCommand(['ZSCORE', 'z', 'top']), Infinity);
  assert.equal(await redis.sendCommand(['ZSCORE', 'z', 'nobody']), null);
  assert.deepEqual(await redis.sendCommand(['ZRANGE', 'z', '0', '-1', 'WITHSCORES']),
                   [['c', -3], ['a', 1], ['b', 2.5], ['top', Infinity]]);
  assert.deepEqual(await redis.sendCommand(['ZMSCORE', 'z', 'a', 'nobody']), [1, null]);
  assert.equal(await redis.zIncrBy('z', 0.25, 'b'), 2.75);
  assert.equal(await redis.zCard('z'), 4);
  assert.equal(await redis.zRank('z', 'a'), 1);
  assert.deepEqual(await redis.zPopMin('z'), {value: 'c', score: -3});
});

test('pipeline', async () => {
  const results = await redis.multi()
      .set('p', '1').incr('p').get('p').get('missing').incr('p')
      .execAsPipeline();
  assert.deepEqual(results, ['OK', 2, '2', null, 3]);
});

test('large pipeline: 10000 commands, replies in order', async () => {
  const pipeline = redis.multi();
  const want = [];
  for (let i = 0; i < common.kPipelineLength; ++i) {
    const step = common.PipelineStep(i);
    pipeline.addCommand(step.args);
    want.push(step.want);
  }
  const results = await pipeline.execAsPipeline();
  assert.equal(results.length, common.kPipelineLength);
  for (let i = 0; i < results.length; ++i) {
    assert.equal(results[i], want[i], `slot ${i}`);
  }
});

test('auto-pipelining: 10000 concurrent commands', async () => {
  const replies = await Promise.all(Array.from({length: common.kPipelineLength}, (_, i) =>
    redis.sendCommand(common.PipelineStep(i).args)));
  replies.forEach((reply, i) => assert.equal(reply, common.PipelineStep(i).want, `slot ${i}`));
});

test('MULTI/EXEC transaction', async () => {
  const results = await redis.multi()
      .set('t', '10').incrBy('t', 5).get('t').zAdd('tz', {score: 1, value: 'm'}).zScore('tz', 'm')
      .exec();
  assert.deepEqual(results, ['OK', 15, '15', 1, 1]);
  // A command that fails at run time inside EXEC does not abort the others.
  await assert.rejects(redis.multi().set('str', 'a').incr('str').set('after', 'b').exec(),
                       (err) => {
                         assert.deepEqual(err.replies.map((r) => r instanceof Error),
                                          [false, true, false]);
                         return true;
                       });
  assert.equal(await redis.get('after'), 'b');
});

test('WATCH: a conflicting write from another connection aborts EXEC', async () => {
  await redis.set('w', 'start');
  assert.equal(await redis.watch(['w', 'w2']), 'OK');
  assert.equal(await other.set('w', 'theirs'), 'OK');
  await assert.rejects(redis.multi().set('w', 'mine').set('side', 'effect').exec(), WatchError);
  assert.equal(await redis.get('w'), 'theirs');
  assert.equal(await redis.exists('side'), 0);
  // Without a conflict the same transaction commits.
  assert.equal(await redis.watch('w'), 'OK');
  assert.deepEqual(await redis.multi().set('w', 'mine').exec(), ['OK']);
  assert.equal(await other.get('w'), 'mine');
  // UNWATCH forgets the watch: a later conflict does not abort.
  await redis.watch('w');
  assert.equal(await redis.unwatch(), 'OK');
  await other.set('w', 'again');
  assert.deepEqual(await redis.multi().get('w').exec(), ['again']);
});

test('pub/sub over RESP3 pushes: SUBSCRIBE PSUBSCRIBE, PUBLISH, UNSUBSCRIBE', async () => {
  const sub = await Connect();
  const messages = [];
  const pmessages = [];
  const binary = [];
  await sub.subscribe(['ch1', 'ch2'], (message, channel) => messages.push([channel, message]));
  await sub.subscribe('bin', (message) => binary.push(message), true);
  await sub.pSubscribe('news.*', (message, channel) => pmessages.push([channel, message]));
  assert.ok(sub.isPubSubActive);

  assert.equal(await other.publish('ch1', 'hello'), 1);
  assert.equal(await other.publish('news.tech', 'patterned'), 1);
  assert.equal(await other.publish('bin', Buffer.from([0, 255, 13, 10])), 1);
  assert.equal(await other.publish('ch2', 'second'), 1);
  assert.equal(await other.publish('nobody', 'lost'), 0);
  await common.WaitFor(
      () => messages.length >= 2 && pmessages.length >= 1 && binary.length >= 1, 'messages');
  assert.deepEqual(messages, [['ch1', 'hello'], ['ch2', 'second']]);
  assert.deepEqual(pmessages, [['news.tech', 'patterned']]);
  assert.ok(binary[0].equals(Buffer.from([0, 255, 13, 10])));

  // RESP3 lets a subscribed connection run ordinary commands in between.
  assert.equal(await sub.set('from-sub', '1'), 'OK');
  assert.equal(await sub.get('from-sub'), '1');
  assert.equal(await sub.ping(), 'PONG');
  assert.deepEqual({...await other.pubSubNumSub(['ch1', 'nobody'])}, {ch1: 1, nobody: 0});
  assert.equal(await other.pubSubNumPat(), 1);

  await sub.unsubscribe('ch1');
  assert.equal(await other.publish('ch1', 'after unsubscribe'), 0);
  assert.equal(await other.publish('ch2', 'still here'), 1);
  await sub.pUnsubscribe('news.*');
  assert.equal(await other.publish('news.tech', 'after punsubscribe'), 0);
  await sub.unsubscribe();
  assert.ok(!sub.isPubSubActive);
  assert.equal(await other.publish('ch2', 'after all'), 0);
  await common.WaitFor(() => messages.length >= 3, 'the message before UNSUBSCRIBE');
  assert.equal(await sub.ping(), 'PONG');
  assert.deepEqual(messages[2], ['ch2', 'still here']);
  assert.equal(messages.length, 3);
  assert.equal(pmessages.length, 1);
});
