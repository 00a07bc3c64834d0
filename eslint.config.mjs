// ESLint (flat config): typescript-eslint's recommended rules, React hooks rules for the console, and the
// import boundaries that keep the layers apart. `npm run lint`; part of `npm test`.
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Import patterns a layer must not use, with the reason shown to whoever tries. */
const restrict = (groups) => ({ 'no-restricted-imports': ['error', { patterns: groups }] });

const NOT_TOOLS = {
  group: ['@/tools/*', '**/tools/**', '@/test/*', '**/test/**', '@/e2e/*', '**/e2e/**'],
  message: 'The product never imports its tests or tools.',
};

/** What every lib/ module must not import: lib/ is plain TypeScript below the app. */
const PLAIN_LIB = [
  {
    group: ['next', 'next/*', 'react', 'react/*', 'react-dom', 'react-dom/*'],
    message: 'lib/ is plain TypeScript: no Next or React.',
  },
  {
    group: ['@/app/*', '**/app/**', '@/components/*', '**/components/**'],
    message: 'lib/ never imports app/ or components/.',
  },
  NOT_TOOLS,
];

export default tseslint.config(
  {
    ignores: [
      '.next/**',
      'node_modules/**',
      'drizzle/**',
      'test-results/**',
      'playwright-report/**',
      '.tmp/**',
      'next-env.d.ts',
      'packages/*/dist/**',
      'packages/*/drizzle/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Plain JavaScript run by Node (config files, the start script): Node's globals, CommonJS allowed.
    files: ['**/*.{js,cjs,mjs}'],
    languageOptions: { globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['components/**/*.{ts,tsx}', 'app/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  // The boundaries.
  {
    files: ['lib/**/*.ts'],
    rules: restrict(PLAIN_LIB),
  },
  {
    // @leaf-ts/client runs in other people's services: HTTP only, no dependencies, compiled on its own (packages/client).
    files: ['lib/client/**/*.ts'],
    rules: restrict([
      ...PLAIN_LIB,
      {
        group: [
          'mysql2',
          'mysql2/*',
          'better-sqlite3',
          'drizzle-orm',
          'drizzle-orm/*',
          '@/lib/*',
          '**/store',
          '**/store/**',
          '**/segment/**',
          '**/snowflake/**',
          // Pure functions of a layout (no imports): the client decodes IDs and finds the IDs at a time without a call.
          '!../snowflake/layout',
          '!../snowflake/timeBounds',
          '**/http/**',
          '**/runtime',
          '**/config',
          '**/admin/**',
          '**/metrics/**',
          '**/fleet/**',
        ],
        message:
          '@leaf-ts/client talks to servers over HTTP: no database driver, no server modules, relative imports only (tsc does not map @/).',
      },
    ]),
  },
  {
    // @leaf-ts/embedded runs in other people's services: the engine and the stores, nothing of the server around them.
    files: ['lib/embedded/**/*.ts'],
    rules: restrict([
      ...PLAIN_LIB,
      {
        group: [
          '@/lib/*',
          '**/http/**',
          '**/runtime',
          '**/config',
          '**/admin/**',
          '**/metrics/**',
          '**/fleet/**',
          '**/auth/**',
          '**/snowflake/**',
          '**/client/**',
        ],
        message:
          '@leaf-ts/embedded is the engine and the store only: no server modules (HTTP, runtime, process config, console), relative imports only (tsc does not map @/).',
      },
    ]),
  },
  {
    // The store implements the ports its users declare beside them (segment/, snowflake/, fleet/, auth/, format/,
    // admin/): it may import their types, never their code, so nothing of the server rides along with a store
    // (leaf-ts/embedded ships the store).
    files: ['lib/store/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@/lib/*',
                '**/admin/**',
                '**/fleet/**',
                '**/auth/**',
                '**/snowflake/**',
                '**/http/**',
                '**/metrics/**',
                '**/runtime',
                '**/config',
                '**/embedded/**',
                '**/client/**',
              ],
              allowTypeImports: true,
              message: "lib/store implements its users' ports: import their types (import type …), never their code.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['components/**/*.{ts,tsx}'],
    rules: restrict([
      {
        group: [
          '@/lib/runtime',
          '**/lib/runtime',
          '@/lib/store',
          '@/lib/store/*',
          '**/lib/store/**',
          '@/lib/http',
          '@/lib/http/*',
          '**/lib/http/**',
        ],
        message: 'Client components talk to the server over HTTP, never to the runtime, the store or the HTTP layer.',
      },
      NOT_TOOLS,
    ]),
  },
  {
    files: ['app/**/*.{ts,tsx}', 'server.ts', 'proxy.ts'],
    rules: restrict([NOT_TOOLS]),
  },
);
