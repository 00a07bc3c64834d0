/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and pooled drivers stay outside the bundle: one copy per process, shared with server.ts.
  serverExternalPackages: ['better-sqlite3', 'mysql2'],
  poweredByHeader: false,
  // `next build` checks the app's own code; `npm test` type-checks everything, tests included.
  typescript: { tsconfigPath: './tsconfig.build.json' },
};

module.exports = nextConfig;
