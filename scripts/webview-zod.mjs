// What `import { z } from 'zod'` means inside the webview bundle (see scripts/build.mjs): zod's
// classic schemas and English messages, without the `z.locales` namespace, which pulls every
// language into the bundle and cannot be tree-shaken (it took 454 KB of a 606 KB webview.js).
// zod does not export this module path, hence the relative file path.
import * as schemas from '../node_modules/zod/v4/classic/schemas.js';
import { config } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

config(en());
export const z = schemas;
