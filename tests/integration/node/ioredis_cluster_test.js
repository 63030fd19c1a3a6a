'use strict';
// ioredis 5's Cluster client against a ringcache cluster whose node (or main port) is
// 127.0.0.1:<argv[2]>: it discovers the nodes with CLUSTER SLOTS, writes and reads keys
// spread over every node, runs a hash-tagged MSET and a pipeline, and sees CROSSSLOT.
// Run by tests/integration/test_cluster.py with NODE_PATH set as test_node_clients.py does.

const {test, after} = require('node:test');
const assert = require('node:assert/strict');
const Redis = require('ioredis');
const common = require('./common');

const port = common.PortFromArgv();
const cluster = new Redis.Cluster([{host: '127.0.0.1', port}], {
  redisOptions: {maxRetriesPerRequest: 1},
  clusterRetryStrategy: () => null,
});
cluster.on('error', () => {});

after(() => cluster.disconnect());

test('discovers every node', async () => {
  await new Promise((resolve, reject) => {
    cluster.once('ready', resolve);
    cluster.once('end', () => reject(new Error('cluster connection ended')));
  });
  assert.ok(cluster.nodes('master').length >= 3);
});

test('round-trips keys of every slot range', async () => {
  // Concurrent commands: ioredis sends each to its key's node.
  const n = 2000;
  const keys = Array.from({length: n}, (_, i) => `io:${i}`);
  const set = await Promise.all(keys.map((k, i) => cluster.set(k, String(i))));
  assert.ok(set.every((r) => r === 'OK'));
  const got = await Promise.all(keys.map((k) => cluster.get(k)));
  assert.deepEqual(got, keys.map((_, i) => String(i)));
});

test('a pipeline of one slot', async () => {
  // ioredis pipelines go to one node: keys under one hash tag.
  const pipe = cluster.pipeline();
  for (let i = 0; i < 100; ++i) pipe.set(`{iop}${i}`, String(i));
  for (let i = 0; i < 100; ++i) pipe.get(`{iop}${i}`);
  const replies = await pipe.exec();
  assert.equal(replies.filter(([err]) => err !== null).length, 0);
  assert.deepEqual(replies.slice(100).map(([, v]) => v),
      Array.from({length: 100}, (_, i) => String(i)));
});

test('hash-tagged MSET and CROSSSLOT', async () => {
  assert.equal(await cluster.mset('{io}a', '1', '{io}b', '2'), 'OK');
  assert.deepEqual(await cluster.mget('{io}a', '{io}b'), ['1', '2']);
  await assert.rejects(cluster.mset('a', '1', 'b', '2'), /CROSSSLOT|same slot/);
});
