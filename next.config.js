/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and pooled drivers stay outside the bundle: one copy per process, shared with server.ts.
  serverExternalPackages: ['better-sqlite3', 'mysql2'],
  poweredByHeader: false,
};

module.exports = nextConfig;
