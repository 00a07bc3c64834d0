import type { Metadata } from 'next';
import { FormatDetail } from '@/components/console/FormatsPage';
import { RequireSession } from '@/components/console/RequireSession';

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

export default async function FormatPage({ params }: Params) {
  return (
    <RequireSession>
      <FormatDetail bizTag={decode((await params).tag)} />
    </RequireSession>
  );
}
