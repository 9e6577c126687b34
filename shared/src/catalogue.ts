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

/** `sub_type` of the colour services. */
export const COLOR_SUB_TYPES: Record<string, string> = {
  _0000072: 'everything',
  _0000073: 'foreground',
  _0000074: 'person_outfit',
};

/** Search-service scenarios; each maps to a pipeline configuration documented in the README. */
export const SCENARIOS = ['general', 'fashion', 'fashion_v3', 'fashion_5_7', 'fashion_v5_5', 'material'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export function isScenario(value: unknown): value is Scenario {
  return typeof value === 'string' && (SCENARIOS as readonly string[]).includes(value);
}

/** `Accept-Language` → label language: any value starting with `zh` (any case) selects Chinese. */
export function languageFromHeader(value: string | null | undefined): Lang {
  return value && value.trim().toLowerCase().startsWith('zh') ? 'zh' : 'en';
}
