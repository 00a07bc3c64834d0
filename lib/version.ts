import packageJson from '../package.json';

/** This build's version (package.json), as a node publishes it in the fleet registry. */
export const LEAF_VERSION: string = packageJson.version;
