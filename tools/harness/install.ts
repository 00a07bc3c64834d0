/**
 * `tsx tools/harness/install.ts <debian-package> <executable>…`: installs the package with apt-get unless one of
 * the executables is already there (used by scripts/test.sh for chromium). Prints the executable's path.
 */
import { ensurePackage, findExecutable } from './apt';

const [pkg, ...names] = process.argv.slice(2);
if (pkg === undefined) {
  process.stderr.write('usage: tsx tools/harness/install.ts <debian-package> [executable…]\n');
  process.exit(2);
}
const found = ensurePackage(
  pkg,
  () => findExecutable(names.length > 0 ? names : [pkg]),
  (line) => process.stderr.write(`[install] ${line}\n`),
);
process.stdout.write(`${found}\n`);
