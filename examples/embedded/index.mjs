// A service's view of @leaf-ts/embedded: the segment engine in this process, straight on the database, no server.
//   cd examples/embedded && npm install && node index.mjs file:./leaf.db demo
// The database is any the servers take (file:path, a plain SQLite path, mysql://…); a new SQLite file is created
// with the `demo` tag, as `npm start` does. Plain Node, no TypeScript: @leaf-ts/embedded ships compiled JavaScript.
import { createLeaf, isLeafError } from '@leaf-ts/embedded';

const databaseUrl = process.argv[2] ?? 'file:./leaf.db';
const tag = process.argv[3] ?? 'demo';
let leaf;

try {
  leaf = await createLeaf({ databaseUrl });
  // The first call waits for the first segment; later ones return a bigint at once.
  console.log('first ID:', String(await leaf.nextId(tag)));

  const orders = leaf.tag(tag);
  const started = performance.now();
  let last = 0n;
  for (let i = 0; i < 1_000_000; i++) {
    const id = orders.next();
    last = typeof id === 'bigint' ? id : await id;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`1,000,000 more IDs in ${seconds.toFixed(3)} s, last ${last}`);

  const batch = await leaf.take(tag, 5);
  console.log('a batch of 5:', batch.map(String).join(', '));
} catch (error) {
  if (!isLeafError(error)) throw error;
  console.error(`leaf-ts: ${error.code}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await leaf?.close();
}
