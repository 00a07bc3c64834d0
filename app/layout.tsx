import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { AppHeader } from '@/components/console/AppHeader';
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

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <AppHeader />
          <main className="page">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
