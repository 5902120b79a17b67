import { readFileSync } from 'node:fs';

/** This package's version (package.json), for `--version`, the banner and the system endpoints. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
