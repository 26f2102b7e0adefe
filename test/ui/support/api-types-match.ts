// Compile-time only: the renderer's API types (src/shared/api-types.ts) must accept what main
// actually sends. If a main type changes shape, `npm run typecheck` fails here, naming the type.
import type * as Shared from '../../../src/shared/api-types.js';
import type { CachedManagerEntry } from '../../../src/main/cache/cached-manager.js';
import type { SettingDescription } from '../../../src/main/config/settings.js';
import type { ConfigDump } from '../../../src/main/xds/status/config-dump.js';
import type { inspectRules } from '../../../src/main/api/policy-inspection.js';
import type { previewPolicyChange } from '../../../src/main/api/policy-preview.js';

type Fits<Main extends SharedType, SharedType> = [Main, SharedType];

export type ApiTypesMatchMain = [
  Fits<ConfigDump, Shared.ConfigDump>,
  Fits<SettingDescription, Shared.SettingDescription>,
  Fits<CachedManagerEntry, Shared.CacheEntry>,
  Fits<ReturnType<typeof inspectRules>, Shared.ProxyRulesBody>,
  Fits<ReturnType<typeof previewPolicyChange>, Shared.PolicyPreviewBody>,
];
