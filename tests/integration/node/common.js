'use strict';
// Helpers shared by the Node.js client tests: the port from argv, waiting for pub/sub
// messages with a deadline, INFO text to fields, and the large-pipeline command list.

const assert = require('node:assert/strict');

/** The server's port: the only command-line argument. */
function PortFromArgv() {
  const port = Number(process.argv[2]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error(`usage: node ${process.argv[1]} <port>`);
    process.exit(2);
  }
  return port;
}

/** Resolves once predicate() is true; rejects with `what` after timeoutMs. */
async function WaitFor(predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** INFO's "# Section\r\nfield:value\r\n" text to {field: value}. */
function ParseInfo(text) {
  const fields = {};
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    assert.ok(colon > 0, `INFO line without a colon: ${JSON.stringify(line)}`);
    fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** Fields every INFO (and ioredis's ready check) must carry, with sane values. */
function CheckInfoFields(info, minClients) {
  assert.match(info.redis_version, /^\d+\.\d+\.\d+$/);
  assert.ok(Number(info.redis_version.split('.')[0]) >= 7,
            `redis_version ${info.redis_version} is older than 7`);
  assert.match(info.connected_clients, /^\d+$/);
  assert.ok(Number(info.connected_clients) >= minClients,
            `connected_clients ${info.connected_clients} < ${minClients}`);
  assert.match(info.tcp_port, /^\d+$/);
}

// The large pipeline: kPipelineLength commands over kPipelineKeys keys (which land on
// every shard), alternating SET key i, GET key, INCR counter, ECHO i, so a reply out of
// order shows as a value from the wrong slot.
const kPipelineLength = 10000;
const kPipelineKeys = 997;

/** [command args..., expected reply as a string or number] for slot i. */
function PipelineStep(i) {
  const key = `pipe:${Math.floor(i / 4) % kPipelineKeys}`;
  switch (i % 4) {
    case 0: return {args: ['SET', key, `v${i}`], want: 'OK'};
    case 1: return {args: ['GET', key], want: `v${i - 1}`};
    case 2: return {args: ['INCR', 'pipe:counter'], want: (i + 2) / 4};
    default: return {args: ['ECHO', `e${i}`], want: `e${i}`};
  }
}

/** A binary value holding every byte 0..255 four times, CR LF included. */
function BinaryValue() {
  const bytes = Buffer.alloc(1024);
  for (let i = 0; i < bytes.length; ++i) bytes[i] = i % 256;
  return bytes;
}

module.exports = {
  PortFromArgv, WaitFor, ParseInfo, CheckInfoFields, kPipelineLength, PipelineStep,
  BinaryValue,
};
