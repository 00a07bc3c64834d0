import type { Metadata } from 'next';
import { RequireSession } from '@/components/console/RequireSession';
import { TagDetail } from '@/components/console/TagDetail';

type Params = { params: Promise<{ tag: string }> };

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  return { title: decode((await params).tag) };
}

export default async function TagPage({ params }: Params) {
  const bizTag = decode((await params).tag);
  return (
    <RequireSession>
      <TagDetail bizTag={bizTag} />
    </RequireSession>
  );
}
