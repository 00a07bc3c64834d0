import { defineConfig } from 'drizzle-kit';

export default defineConfig({ dialect: 'mysql', schema: './lib/store/schema/mysql.ts', out: './drizzle/mysql' });
