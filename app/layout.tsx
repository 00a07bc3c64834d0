import { HydrationBoundary } from '@tanstack/react-query';
import type { Metadata, Viewport } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { AppHeader } from '@/components/console/AppHeader';
import { sessionSeed } from './_server/sessionSeed';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'leaf-ts console', template: '%s · leaf-ts' },
  description: 'Operator console of the leaf-ts distributed ID service',
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#f6f7f9' },
    { media: '(prefers-color-scheme: dark)', color: '#101318' },
  ],
};

/** Every page knows from the request whether an operator is signed in (sessionSeed): no round trip to find out. */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await sessionSeed((await headers()).get('cookie'));
  return (
    <html lang="en">
      <body>
        <Providers>
          <HydrationBoundary state={session}>
            <AppHeader />
            <main className="page">{children}</main>
          </HydrationBoundary>
        </Providers>
      </body>
    </html>
  );
}
