import { getRuntime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export default async function Home() {
  let tags: string[] = [];
  let error: string | null = null;
  try {
    tags = (await getRuntime()).segments.tags();
  } catch {
    error = 'The ID store cannot be reached right now.';
  }
  return (
    <main>
      <h1>leaf-ts</h1>
      <p>Segment-mode ID service. Try one of the routes:</p>
      {error && <p role="alert">{error}</p>}
      <table>
        <thead>
          <tr><th>Tag</th><th>One ID</th><th>Batch</th><th>Leaf-compatible</th></tr>
        </thead>
        <tbody>
          {tags.map((tag) => (
            <tr key={tag}>
              <td><code>{tag}</code></td>
              <td><a href={`/api/id/segment/${tag}`}>/api/id/segment/{tag}</a></td>
              <td><a href={`/api/id/segment/${tag}?count=10`}>?count=10</a></td>
              <td><a href={`/api/segment/get/${tag}`}>/api/segment/get/{tag}</a></td>
            </tr>
          ))}
          {tags.length === 0 && !error && (
            <tr><td colSpan={4}>No tags yet.</td></tr>
          )}
        </tbody>
      </table>
      <p><a href="/api/health">/api/health</a></p>
    </main>
  );
}
