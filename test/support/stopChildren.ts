/**
 * setupFiles of the projects that start processes: whatever a test file started through the harness and did not stop
 * (a failed Promise.all of server starts, an assertion before the cleanup) is stopped when the file ends, so it
 * cannot load the machine under the files that follow.
 */
import { afterAll } from 'vitest';
import { stopAllChildren } from '../../tools/harness';

afterAll(() => stopAllChildren(2_000));
