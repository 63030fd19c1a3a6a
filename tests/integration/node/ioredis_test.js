'use strict';
// ioredis 5 (RESP2) against a server on 127.0.0.1:<argv[2]>. Run through
// test_node_clients.py, or by hand: NODE_PATH=$(python3 test_node_clients.py
// dir)/node_modules node ioredis_test.js <port>. Every test starts from FLUSHALL.

const {test, before, after, beforeEach} = require('node:test');
const assert = require('node:assert/strict');
const Redis = require('ioredis');
const StandaloneConnector = require('ioredis/built/connectors/StandaloneConnector').default;
const common = require('./common');

const port = common.PortFromArgv();
const clients = [];

// ioredis's ready check sends INFO on connect, parses it into fields and hands them to the
// connector's check(); this connector keeps what ioredis parsed.
const readyChecks = [];
class InfoKeepingConnector extends StandaloneConnector {
  check(info) {
    readyChecks.push(info);
    return super.check(info);
  }
}

/** A connected client; closed in after(). Connection errors fail the test, no retries. */
async function Connect(options = {}) {
  const client = new Redis({
    host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0,
    retryStrategy: () => null, ...options,
  });
  client.on('error', () => {});  // rejections reach the awaiting test instead
  clients.push(client);
  await client.connect();
  return client;
}

let redis;
let other;

before(async () => {
  redis = await Connect({connectionName: 'ioredis-main', Connector: InfoKeepingConnector});
  other = await Connect();
});

after(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
});

beforeEach(async () => {
  assert.equal(await redis.flushall(), 'OK');
});

test('connect: the ready check parsed INFO, CLIENT SETNAME was sent', async () => {
  assert.equal(redis.status, 'ready');
  assert.equal(readyChecks.length, 1);
  const info = readyChecks[0];
  assert.equal(info.loading, '0');
  common.CheckInfoFields(info, 1);
  assert.equal(await redis.client('GETNAME'), 'ioredis-main');
  assert.equal(await redis.ping(), 'PONG');
  assert.equal(await redis.echo('hi'), 'hi');
});

test('INFO parsed into fields counts both clients', async () => {
  const info = common.ParseInfo(await redis.info());
  common.CheckInfoFields(info, 2);
  assert.equal(info.tcp_port, String(port));
  const clientsOnly = common.ParseInfo(await redis.info('clients'));
  assert.ok(Number(clientsOnly.connected_clients) >= 2);
  assert.equal(clientsOnly.redis_version, undefined, 'INFO clients has only that section');
});

test('SET GET MGET EX TTL', async () => {
  assert.equal(await redis.set('k', 'v'), 'OK');
  assert.equal(await redis.get('k'), 'v');
  assert.equal(await redis.get('missing'), null);
  assert.equal(await redis.set('k', 'w', 'NX'), null);
  assert.equal(await redis.set('k', 'w', 'XX', 'GET'), 'v');
  assert.equal(await redis.set('e', 'x', 'EX', 100), 'OK');
  const ttl = await redis.ttl('e');
  assert.ok(ttl > 95 && ttl <= 100, `TTL ${ttl}`);
  assert.equal(await redis.ttl('k'), -1);
  assert.equal(await redis.ttl('missing'), -2);
  assert.equal(await redis.setex('s', 50, 'y'), 'OK');
  const pttl = await redis.pttl('s');
  assert.ok(pttl > 45000 && pttl <= 50000, `PTTL ${pttl}`);
  const keys = Array.from({length: 50}, (_, i) => `m${i}`);
  assert.equal(await redis.mset(...keys.flatMap((k, i) => [k, `val${i}`])), 'OK');
  assert.deepEqual(await redis.mget(...keys, 'missing'),
                   [...keys.map((_, i) => `val${i}`), null]);
  assert.equal(await redis.del('k', 'e', 'missing'), 2);
  assert.equal(await redis.exists('k', 's'), 1);
});

test('binary keys and values round-trip byte for byte', async () => {
  const value = common.BinaryValue();
  const key = Buffer.from([0, 0x62, 0x69, 0x6e, 0xff, 0x0d, 0x0a]);
  assert.equal(await redis.set(key, value), 'OK');
  assert.ok((await redis.getBuffer(key)).equals(value));
  assert.equal(await redis.strlen(key), value.length);
  const [got] = await redis.mgetBuffer(key);
  assert.ok(got.equals(value));
  assert.equal(await redis.append(key, Buffer.from([0xfe, 0])), value.length + 2);
  assert.ok((await redis.getrangeBuffer(key, -3, -1)).equals(Buffer.from([0xff, 0xfe, 0])));
});

test('sorted set round trip: ZADD ZRANGE WITHSCORES ZSCORE', async () => {
  assert.equal(await redis.zadd('z', 1, 'a', 2.5, 'b', -3, 'c', '+inf', 'top'), 4);
  assert.deepEqual(await redis.zrange('z', 0, -1, 'WITHSCORES'),
                   ['c', '-3', 'a', '1', 'b', '2.5', 'top', 'inf']);
  assert.deepEqual(await redis.zrange('z', 0, 1), ['c', 'a']);
  assert.equal(await redis.zscore('z', 'b'), '2.5');
  assert.equal(await redis.zscore('z', 'top'), 'inf');
  assert.equal(await redis.zscore('z', 'nobody'), null);
  assert.equal(await redis.zincrby('z', 0.25, 'b'), '2.75');
  assert.deepEqual(await redis.zrevrange('z', 0, 0, 'WITHSCORES'), ['top', 'inf']);
  assert.deepEqual(await redis.zrangebyscore('z', '(1', 3), ['b']);
  assert.equal(await redis.zcard('z'), 4);
  assert.equal(await redis.zrank('z', 'a'), 1);
  assert.deepEqual(await redis.zpopmin('z'), ['c', '-3']);
});

test('pipeline', async () => {
  const results = await redis.pipeline()
      .set('p', '1').incr('p').get('p').get('missing').incr('p')
      .exec();
  assert.deepEqual(results, [[null, 'OK'], [null, 2], [null, '2'], [null, null], [null, 3]]);
  const withError = await redis.pipeline().set('s', 'x').incr('s').get('s').exec();
  assert.equal(withError[0][1], 'OK');
  assert.match(withError[1][0].message, /ERR value is not an integer/);
  assert.equal(withError[2][1], 'x');
});

test('large pipeline: 10000 commands, replies in order', async () => {
  const pipeline = redis.pipeline();
  const want = [];
  for (let i = 0; i < common.kPipelineLength; ++i) {
    const step = common.PipelineStep(i);
    pipeline.call(...step.args);
    want.push(step.want);
  }
  const results = await pipeline.exec();
  assert.equal(results.length, common.kPipelineLength);
  for (let i = 0; i < results.length; ++i) {
    assert.equal(results[i][0], null, `slot ${i}: ${results[i][0]}`);
    assert.equal(results[i][1], want[i], `slot ${i}`);
  }
});

test('auto-pipelining: 2000 concurrent commands', async () => {
  const auto = await Connect({enableAutoPipelining: true});
  const sets = await Promise.all(
      Array.from({length: 1000}, (_, i) => auto.set(`auto:${i}`, String(i))));
  assert.ok(sets.every((r) => r === 'OK'));
  const gets = await Promise.all(Array.from({length: 1000}, (_, i) => auto.get(`auto:${i}`)));
  gets.forEach((v, i) => assert.equal(v, String(i)));
});

test('MULTI/EXEC transaction', async () => {
  const results = await redis.multi().set('t', '10').incrby('t', 5).get('t').zadd('tz', 1, 'm')
      .exec();
  assert.deepEqual(results, [[null, 'OK'], [null, 15], [null, '15'], [null, 1]]);
  assert.equal(await redis.multi({pipeline: false}), 'OK');
  assert.equal(await redis.set('t', 'gone'), 'QUEUED');
  assert.equal(await redis.discard(), 'OK');
  assert.equal(await redis.get('t'), '15');
  // A command that fails at run time inside EXEC does not abort the others.
  const mixed = await redis.multi().set('str', 'a').incr('str').set('after', 'b').exec();
  assert.equal(mixed[0][1], 'OK');
  assert.match(mixed[1][0].message, /not an integer/);
  assert.equal(mixed[2][1], 'OK');
});

test('WATCH: a conflicting write from another connection aborts EXEC', async () => {
  await redis.set('w', 'start');
  assert.equal(await redis.watch('w', 'w2'), 'OK');
  assert.equal(await other.set('w', 'theirs'), 'OK');
  const aborted = await redis.multi().set('w', 'mine').set('side', 'effect').exec();
  assert.equal(aborted, null);
  assert.equal(await redis.get('w'), 'theirs');
  assert.equal(await redis.exists('side'), 0);
  // Without a conflict the same transaction commits.
  assert.equal(await redis.watch('w'), 'OK');
  const committed = await redis.multi().set('w', 'mine').exec();
  assert.deepEqual(committed, [[null, 'OK']]);
  assert.equal(await other.get('w'), 'mine');
  // UNWATCH forgets the watch: a later conflict does not abort.
  await redis.watch('w');
  assert.equal(await redis.unwatch(), 'OK');
  await other.set('w', 'again');
  assert.deepEqual(await redis.multi().get('w').exec(), [[null, 'again']]);
});

test('pub/sub: SUBSCRIBE PSUBSCRIBE, PUBLISH from another client, UNSUBSCRIBE', async () => {
  const sub = await Connect();
  const messages = [];
  const pmessages = [];
  const binary = [];
  sub.on('message', (channel, message) => messages.push([channel, message]));
  sub.on('pmessage', (pattern, channel, message) => pmessages.push([pattern, channel, message]));
  sub.on('messageBuffer', (channel, message) => binary.push(message));
  assert.equal(await sub.subscribe('ch1', 'ch2'), 2);
  assert.equal(await sub.psubscribe('news.*'), 3);

  assert.equal(await other.publish('ch1', 'hello'), 1);
  assert.equal(await other.publish('news.tech', 'patterned'), 1);
  assert.equal(await other.publish('ch2', Buffer.from([0, 255, 13, 10])), 1);
  assert.equal(await other.publish('nobody', 'lost'), 0);
  await common.WaitFor(() => messages.length >= 2 && pmessages.length >= 1, 'messages');
  assert.deepEqual(messages, [['ch1', 'hello'], ['ch2', '\u0000\ufffd\r\n']]);
  assert.deepEqual(pmessages, [['news.*', 'news.tech', 'patterned']]);
  assert.ok(binary[1].equals(Buffer.from([0, 255, 13, 10])));

  const numsub = await other.pubsub('NUMSUB', 'ch1', 'nobody');
  assert.deepEqual(numsub, ['ch1', 1, 'nobody', 0]);
  assert.equal(await other.pubsub('NUMPAT'), 1);

  assert.equal(await sub.unsubscribe('ch1'), 2);
  assert.equal(await other.publish('ch1', 'after unsubscribe'), 0);
  // Named: ioredis resolves an argument-less (P)UNSUBSCRIBE only once the count reaches 0.
  assert.equal(await sub.punsubscribe('news.*'), 1);
  assert.equal(await other.publish('news.tech', 'after punsubscribe'), 0);
  assert.equal(await sub.unsubscribe(), 0);
  // Out of subscriber mode, ordinary commands work again on the same connection.
  assert.equal(await sub.ping(), 'PONG');
  assert.equal(messages.length, 2);
  assert.equal(pmessages.length, 1);
});

test('CONFIG GET replies as a flat array in RESP2', async () => {
  const [name, value] = await redis.config('GET', 'maxclients');
  assert.equal(name, 'maxclients');
  assert.match(value, /^\d+$/);
  assert.equal(await redis.dbsize(), 0);
});
