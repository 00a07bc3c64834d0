import type { Metadata } from 'next';
import { RequireSession } from '@/components/console/RequireSession';
import { SessionsCard } from '@/components/console/SessionsCard';
import { TokensPage } from '@/components/console/TokensPage';

export const metadata: Metadata = { title: 'Access tokens' };

export default function Tokens() {
  return (
    <RequireSession>
      <div className="section-head">
        <h1>Access tokens</h1>
      </div>
      <TokensPage />
      <SessionsCard />
    </RequireSession>
  );
}
