/**
 * The import boundaries of eslint.config.mjs, proved on snippets linted as if they lived in each layer: a rule
 * that silently stopped matching (a renamed folder, a changed alias) would fail here, not pass everything.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((m) => m.message);
}

describe('import boundaries', () => {
  it.each([
    ['components/console/X.tsx', "import { getRuntime } from '@/lib/runtime';"],
    ['components/console/X.tsx', "import { openStore } from '@/lib/store';"],
    ['components/console/X.tsx', "import { MysqlStore } from '../../lib/store/mysql';"],
    ['components/console/X.tsx', "import { SqliteTags } from '@/lib/store/sqlite/tags';"],
    ['components/console/X.tsx', "import { jsonOk } from '@/lib/http/answer';"],
    ['lib/segment/X.ts', "import { NextResponse } from 'next/server';"],
    ['lib/segment/X.ts', "import next from 'next';"],
    ['lib/X.ts', "import { useState } from 'react';"],
    ['lib/http/X.ts', "import { json } from '@/app/_server/adminRoute';"],
    ['lib/http/X.ts', "import { json } from '../../app/_server/adminRoute';"],
    ['lib/X.ts', "import { freePort } from '../tools/harness';"],
    ['app/api/x/route.ts', "import { rng } from '@/test/support/rng';"],
    ['lib/client/X.ts', "import mysql from 'mysql2/promise';"],
    ['lib/client/X.ts', "import Database from 'better-sqlite3';"],
    ['lib/client/X.ts', "import { sql } from 'drizzle-orm';"],
    ['lib/client/X.ts', "import { SqliteStore } from '../store/sqlite';"],
    ['lib/client/X.ts', "import { MysqlExecutor } from '../store/mysql/executor';"],
    ['lib/client/X.ts', "import { SegmentEngine } from '../segment/engine';"],
    ['lib/client/X.ts', "import { systemClock } from '@/lib/clock';"],
    ['lib/client/X.ts', "import { NextResponse } from 'next/server';"],
    ['lib/client/X.ts', "import { SnowflakeNode } from '../snowflake/node';"],
    ['lib/embedded/X.ts', "import { NextResponse } from 'next/server';"],
    ['lib/embedded/X.ts', "import { useState } from 'react';"],
    ['lib/embedded/X.ts', "import { getRuntime } from '../runtime';"],
    ['lib/embedded/X.ts', "import { processConfig } from '../config';"],
    ['lib/embedded/X.ts', "import { handleId } from '../http/idHandler';"],
    ['lib/embedded/X.ts', "import { SegmentEngine } from '@/lib/segment/engine';"],
    ['lib/store/mysql/X.ts', "import { NodeRegistry } from '../../fleet/registry';"],
    ['lib/store/sqlite/X.ts', "import { hostProblems } from '../../admin/hostHealth';"],
    ['lib/store/X.ts', "import { SnowflakeNode } from '../snowflake/node';"],
    ['lib/store/X.ts', "import { IdAccess } from '../auth/scopedTokens';"],
    ['lib/store/X.ts', "import { tagNotFound } from '@/lib/errors';"],
  ])('%s may not: %s', async (file, code) => {
    expect(await restricted(file, `${code}\nexport {};\n`)).toHaveLength(1);
  });

  it.each([
    ['components/console/X.tsx', "import { createTagSchema } from '@/lib/admin/schema';"],
    ['components/console/X.tsx', "import type { EngineView } from '@/lib/admin/views';"],
    ['lib/http/X.ts', "import { LeafError } from '../errors';"],
    ['app/api/x/route.ts', "import { processIdHandler } from '@/lib/http/defaultHandler';"],
    ['lib/client/X.ts', "import { systemClock } from '../clock';"],
    ['lib/client/X.ts', "import { isValidBizTag } from '../bizTag';"],
    ['lib/client/X.ts', "import { SnowflakeLayout } from '../snowflake/layout';"],
    ['lib/client/X.ts', "import { snowflakeBounds } from '../snowflake/timeBounds';"],
    ['lib/embedded/X.ts', "import { SegmentEngine } from '../segment/engine';"],
    ['lib/embedded/X.ts', "import { openStore } from '../store';"],
    ['lib/store/mysql/X.ts', "import type { NodeStore } from '../../fleet/nodeStore';"],
    ['lib/store/sqlite/X.ts', "import { type AuditStore } from '../../admin/auditStore';"],
    ['lib/store/X.ts', "import type { TokenRow } from '../auth/tokenStore';"],
    ['lib/store/X.ts', "import { changeProblem } from '../format/rules';"],
    ['lib/store/X.ts', "import { idBigint } from '../segment/id';"],
  ])('%s may: %s', async (file, code) => {
    expect(await restricted(file, `${code}\nexport {};\n`)).toEqual([]);
  });
});
