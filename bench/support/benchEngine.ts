/**
 * Foreman's engine over a given store, as the benches build it: its blobs, exports and archive in
 * `foremanDir`, git at `repoDir` on `main`, nothing started (requests only, no agents).
 */
import * as path from 'node:path';
import { Engine } from '../../src/engine/engine';
import type { Store } from '../../src/engine/ports';
import type { EngineSettings } from '../../src/engine/settings';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../src/infra/fs';
import { GitPortAdapter } from '../../src/infra/git/gitPort';

export function benchEngine(store: Store, settings: EngineSettings, repoDir: string, foremanDir: string): Engine {
  return new Engine({
    store,
    settings,
    blobs: new FileBlobStore(path.join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(repoDir, () => 'main', { branchTemplate: settings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
  });
}
