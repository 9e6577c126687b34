/**
 * Ready-made analysis services: detect, classify, colour and fashion, addressed by service id
 * (`/{type word}/{service_id}`; old clients use other type words for the same id, so the backend routes on the id).
 */
import { z } from 'zod';
import { intText, numberText, op, pathParams, requestId, secondsString, upload } from './common.js';

/** The query image: exactly one of url and search. */
export const ImageInput = z
  .object({
    url: z.string().optional().describe('image URL (or give the file search)'),
    search: upload.optional().describe('image file (or give url)'),
    loc: z.union([z.string(), z.array(numberText).length(4)]).optional().describe('Iris: region x-y-w-h of the image to analyse'),
  })
  .passthrough();

export const DetectQuery = ImageInput;
export const ClassifyQuery = ImageInput.extend({ count: intText.optional().describe('general tagging: number of tags, default 20') });
export const ColorQuery = ImageInput.extend({
  image: upload.optional().describe('alias of search'),
  sub_type: z.enum(['everything', 'foreground', 'person_outfit']).optional().describe('selects the analysis (_0000072, _0000073, _0000074) whatever the path\'s colour service id'),
  granularity: z.enum(['major', 'detailed', 'dominant']),
  return_type: z.enum(['basic', 'w3c', 'ncs', 'cncs']),
});
export const DressingQuery = ImageInput;

const box = z.array(z.number()).length(4).describe('x-y-w-h as ratios of the image size, origin top-left');
export const DetectBox = z.object({ box, puid: z.string(), score: z.number(), type: z.string() });
export const ReceiptField = z.object({ type: z.string(), value: z.string().nullable(), score: z.number().describe('always 0') });
export const TextLine = z.object({ box, score: z.number(), type: z.string().describe('the recognised text') });
export const DetectResponse = z.object({
  boxes_detected: z.array(z.union([DetectBox, TextLine, ReceiptField])),
  detecttime: secondsString,
  time: secondsString,
  get_image_time: secondsString,
  image_id: z.string(),
  request_id: requestId,
  ver: z.string(),
});

export const ClassifyItem = z.object({ category: z.string(), puid: z.string(), score: z.number() });
export const ClassifyResponse = z.object({ classify_time: secondsString, is_err: z.literal(0), request_id: requestId, results: z.array(ClassifyItem), version: z.string() });
export const TaggingResponse = z.object({ is_err: z.literal(0), request_id: requestId, results: z.array(ClassifyItem), time: z.number() });

const cncs = z.object({ chroma: z.string(), cncs: z.string(), color: z.string(), lightness: z.string(), rgb: z.array(z.string()).length(3) });
export const ColorItem = z.object({
  freq: z.number(),
  hex: z.string(),
  rgb: z.array(z.number().int()).length(3),
  basic: z.string().optional(),
  w3c: z.string().optional(),
  ncs: z.string().optional(),
  cncs: cncs.optional(),
});
export const ColorResponse = z.object({ is_err: z.literal(0), request_id: requestId, results: z.array(ColorItem), time: z.number() });

export const DressingColor = z.object({
  'basic-cn': z.string(),
  'basic-en': z.string(),
  'w3c-cn': z.string(),
  'w3c-en': z.string(),
  ncs: z.string(),
  percent: z.number(),
  rgb: z.array(z.number().int()).length(3),
});
export const DressingItem = z.object({
  box,
  item: z.string(),
  'item-en': z.string(),
  textures: z.array(z.string()),
  'textures-en': z.array(z.string()),
  colors: z.array(DressingColor),
});
export const DressingResponse = z.object({
  is_err: z.literal(0),
  request_id: requestId,
  time: z.number(),
  labels: z.array(z.string()),
  'labels-en': z.array(z.string()),
  results: z.array(DressingItem),
});

const ANALYSIS_ROUTE = '/:word/:service_id';
const forms = ['form', 'multipart', 'json'] as const;
const byService = pathParams('service_id');
const tag = 'Analysis';
export const analysisOperations = [
  op({
    id: 'detect', method: 'post', path: '/detect/{service_id}', route: ANALYSIS_ROUTE, servedBy: 'backend', tag, errors: 'analysis',
    summary: 'Detect objects, faces, bodies, people, logos, receipt fields or text (_0000173, _0000171, _0000049, _0000059, _0000187, _0000188, _0000143, _0000154)',
    errorCodes: ['detectUndecodable', 'detectNoImage', 'detectDownloadFailed', 'detectTooSmall', 'analysisBadRequest', 'classifyServiceUnknown', 'serviceNotGranted', 'internal'],
    params: byService, body: { schema: DetectQuery, forms, required: true }, response: DetectResponse,
  }),
  op({
    id: 'classify', method: 'post', path: '/classify/{service_id}', route: ANALYSIS_ROUTE, servedBy: 'backend', tag, errors: 'analysis',
    summary: 'Classify scenes (_0000039), pornography (_0000024) or tag an image (_0000159)',
    errorCodes: ['detectUndecodable', 'detectNoImage', 'detectDownloadFailed', 'detectTooSmall', 'analysisBadRequest', 'classifyServiceUnknown', 'serviceNotGranted', 'internal'],
    params: byService, body: { schema: ClassifyQuery, forms, required: true }, response: z.union([ClassifyResponse, TaggingResponse]),
  }),
  op({
    id: 'color', method: 'post', path: '/color/{service_id}', route: ANALYSIS_ROUTE, servedBy: 'backend', tag, errors: 'analysis',
    summary: 'Colour analysis: whole image (_0000072), outfit (_0000074), foreground (_0000073)',
    errorCodes: ['analysisBadRequest', 'analysisImageFailed', 'classifyServiceUnknown', 'serviceNotGranted'],
    params: byService, body: { schema: ColorQuery, forms, required: true }, response: ColorResponse,
  }),
  op({
    id: 'dressing', method: 'post', path: '/dressing/{service_id}', route: ANALYSIS_ROUTE, servedBy: 'backend', tag, errors: 'analysis',
    summary: 'Fashion analysis (_0000111)',
    errorCodes: ['analysisBadRequest', 'analysisImageFailed', 'classifyServiceUnknown', 'serviceNotGranted'],
    params: byService, body: { schema: DressingQuery, forms, required: true }, response: DressingResponse,
  }),
];
