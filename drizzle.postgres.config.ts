import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './lib/store/schema/postgres.ts',
  out: './drizzle/postgres',
});
