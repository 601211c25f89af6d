// esbuild inlines the one field; the rest of package.json stays out of the bundle.
import { version } from '../../package.json';

/** The version `foreman --version` prints: the package's own. */
export const foremanVersion: string = version;
