// A service's view of leaf-ts: IDs from local memory, leased in ranges from the leaf-ts nodes.
//   cd examples/client && npm install && npm start          # against `npm start` of leaf-ts on this machine
//   LEAF_URLS=http://10.0.0.5:3000,http://10.0.0.6:3000 LEAF_ID_TOKEN=… node index.mjs orders
// The tag defaults to `demo`, the one a new node creates. Plain Node, no TypeScript: @leaf-ts/client ships compiled
// JavaScript with type declarations.
import { LeafClient, isLeafClientError } from '@leaf-ts/client';

const urls = (process.env.LEAF_URLS ?? 'http://127.0.0.1:3000').split(',');
const tag = process.argv[2] ?? 'demo';
const client = new LeafClient({ urls, token: process.env.LEAF_ID_TOKEN });

try {
  // The first call waits for a lease; later ones return a bigint at once.
  console.log('first ID:', String(await client.nextId(tag)));

  const orders = client.tag(tag);
  const started = performance.now();
  let last = 0n;
  for (let i = 0; i < 1_000_000; i++) {
    const id = orders.next();
    last = typeof id === 'bigint' ? id : await id;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`1,000,000 more IDs in ${seconds.toFixed(3)} s, last ${last}`);

  const batch = await client.take(tag, 5);
  console.log('a batch of 5:', batch.map(String).join(', '));
} catch (error) {
  if (!isLeafClientError(error)) throw error;
  console.error(`leaf-ts: ${error.code}${error.status ? ` (HTTP ${error.status})` : ''}: ${error.message}`);
  process.exitCode = 1;
} finally {
  client.close();
}
