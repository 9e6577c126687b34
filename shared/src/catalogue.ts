/** The ready-made analysis services, their ids, families and names in both languages. */
export type AnalysisFamily = 'detect' | 'classify' | 'color' | 'dressing';
export type Lang = 'en' | 'zh';
export type RegionId = 'cn-east' | 'ap-southeast';

export const REGIONS: readonly RegionId[] = ['cn-east', 'ap-southeast'];
export const DEFAULT_REGION: RegionId = 'cn-east';

export interface ServiceEntry {
  id: string;
  family: AnalysisFamily;
  /** The name the specification gives, with its version. */
  name: { en: string; zh: string };
  /** Model/pipeline version string answered as `ver` / `version`. */
  version: string;
  /** Regions that offer the service unless configuration says otherwise. */
  regions: readonly RegionId[];
}

const BOTH = REGIONS;

export const SERVICES: readonly ServiceEntry[] = [
  { id: '_0000173', family: 'detect', name: { en: 'fashion detection v2.0', zh: '服饰检测 v2.0' }, version: '2.0', regions: BOTH },
  { id: '_0000171', family: 'detect', name: { en: 'furniture detection v3.0', zh: '家具检测 v3.0' }, version: '3.0', regions: BOTH },
  { id: '_0000049', family: 'detect', name: { en: 'face detection v1.0', zh: '人脸检测 v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000059', family: 'detect', name: { en: 'human body detection v1.0', zh: '人体检测 v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000187', family: 'detect', name: { en: 'people detection v1.0', zh: '人物检测 v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000188', family: 'detect', name: { en: 'logo detection v2.0', zh: '商标检测 v2.0' }, version: '2.0', regions: BOTH },
  { id: '_0000143', family: 'detect', name: { en: 'receipt text recognition v1.0', zh: '小票文字识别 v1.0' }, version: '1.0', regions: ['cn-east'] },
  { id: '_0000154', family: 'detect', name: { en: 'text recognition v1.0', zh: '文字识别 v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000039', family: 'classify', name: { en: 'scene identification v1.0', zh: '场景识别 v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000024', family: 'classify', name: { en: 'pornography identification v1.0', zh: '色情识别 v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000159', family: 'classify', name: { en: 'general tagging', zh: '通用标签' }, version: '1.0', regions: BOTH },
  { id: '_0000072', family: 'color', name: { en: 'colour analysis (everything) v1.0', zh: '颜色分析（全图） v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000073', family: 'color', name: { en: 'colour analysis (foreground) v1.0', zh: '颜色分析（前景） v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000074', family: 'color', name: { en: 'colour analysis (person outfit) v1.0', zh: '颜色分析（人物服饰） v1.0' }, version: '1.0', regions: BOTH },
  { id: '_0000111', family: 'dressing', name: { en: 'fashion analysis v1.0', zh: '服饰分析 v1.0' }, version: '1.0', regions: BOTH },
];

const BY_ID = new Map(SERVICES.map((s) => [s.id, s]));

export function serviceById(id: string): ServiceEntry | undefined {
  return BY_ID.get(id);
}

/** `sub_type` of the colour services, as the specification's colour table pairs them with the service ids. */
export const COLOR_SUB_TYPES = {
  everything: '_0000072',
  foreground: '_0000073',
  person_outfit: '_0000074',
} as const;
export type ColorSubType = keyof typeof COLOR_SUB_TYPES;

const isColorSubType = (value: string): value is ColorSubType => Object.hasOwn(COLOR_SUB_TYPES, value);

/**
 * The colour service a call runs: clients post every colour call to `/color/_0000072` and name the analysis
 * with `sub_type`; a valid `sub_type` selects its service, without one the path's id does. Null for a
 * `sub_type` that is none of the three (the caller answers 400). Not a colour id: the id itself.
 */
export function colorServiceFor(pathId: string, subType: string | undefined): string | null {
  if (serviceById(pathId)?.family !== 'color' || subType === undefined) return pathId;
  return isColorSubType(subType) ? COLOR_SUB_TYPES[subType] : null;
}

/**
 * Search-service scenarios and the embedding each one uses (`general`: the whole image; `product`: the whole
 * image, its mirror and the centre; `material`: the centre at a finer scale). The specification's examples,
 * plus the names released clients offer (`fashion_v5_4`, `furniture_v6`, `wine_v2_1`), each on its closest one.
 */
export const SCENARIO_EMBEDDINGS = {
  general: 'general',
  fashion: 'product',
  fashion_v3: 'product',
  fashion_5_7: 'product',
  fashion_v5_4: 'product',
  fashion_v5_5: 'product',
  // Furniture is photographed as products are: centred, either way round.
  furniture_v6: 'product',
  // A mirror would reverse a label's text: the whole image as it is.
  wine_v2_1: 'general',
  material: 'material',
} as const;
export type Scenario = keyof typeof SCENARIO_EMBEDDINGS;
export type ScenarioEmbedding = (typeof SCENARIO_EMBEDDINGS)[Scenario];
export const SCENARIOS = Object.keys(SCENARIO_EMBEDDINGS) as readonly Scenario[];

export function isScenario(value: unknown): value is Scenario {
  return typeof value === 'string' && Object.hasOwn(SCENARIO_EMBEDDINGS, value);
}

/** `Accept-Language` → label language: any value starting with `zh` (any case) selects Chinese. */
export function languageFromHeader(value: string | null | undefined): Lang {
  return value && value.trim().toLowerCase().startsWith('zh') ? 'zh' : 'en';
}
