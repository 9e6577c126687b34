/**
 * The interface specification's operations, transcribed: method, path, the service ids the path carries,
 * and the error codes the specification gives each one ("Errors per operation", the Errors section). Where
 * the specification gives none ("not shown"), `extends` holds the specification's own codes Iris answers
 * there, each with the reason. `specification.test.ts` holds the contract to this table.
 */
import type { ErrorKey } from '../errors.js';
import type { HttpMethod } from './common.js';

export interface SpecifiedOperation {
  /** The contract operation that implements it. */
  id: string;
  method: HttpMethod;
  path: string;
  /** Fixed service ids of the path (`_0000014`), or the ready-made services the path's `{service_id}` names. */
  serviceIds: readonly string[];
  /** Codes the specification gives the operation. */
  errors: readonly ErrorKey[];
  /** Codes of the specification Iris also answers where the specification is silent, and why. */
  extends?: { codes: readonly ErrorKey[]; why: string };
}

const IMAGE_SETS = '/image_sets/_0000014';
const PRODUCT_SETS = '/product_sets/_0000178';
const TRAINING = '/custom_training/_0000194';
const BATCH = '/batch/_1000001';

const BY_ID_SERVICE = { codes: ['classifyServiceUnknown', 'serviceNotGranted'], why: 'the classify rules (404/1001, 403/2005) hold for every ready-made service' } as const;

export const SPECIFICATION: readonly SpecifiedOperation[] = [
  // Image sets: "Errors per operation"
  { id: 'createImageSet', method: 'post', path: IMAGE_SETS, serviceIds: ['_0000014'], errors: ['setNameMissing', 'imageSetQuota'] },
  { id: 'listImageSets', method: 'get', path: '/get_image_sets/_0000014', serviceIds: ['_0000014'], errors: [] },
  { id: 'getImageSet', method: 'get', path: `${IMAGE_SETS}/{image_set_id}`, serviceIds: ['_0000014'], errors: ['imageSetForbidden', 'setNotFound'] },
  { id: 'modifyImageSet', method: 'put', path: `${IMAGE_SETS}/{image_set_id}`, serviceIds: ['_0000014'], errors: ['setNameMissing', 'imageSetForbidden', 'setNotFound'] },
  // Delete, Add one, Add many and Delete many share the method and path.
  {
    id: 'postImageSet', method: 'post', path: `${IMAGE_SETS}/{image_set_id}`, serviceIds: ['_0000014'],
    errors: ['imageSetForbidden', 'inUse', 'setNotFound', 'invalidData', 'imageDownloadFailed'],
  },

  // Search services
  {
    id: 'createImageSetService', method: 'post', path: `${IMAGE_SETS}/{image_set_id}/services`, serviceIds: ['_0000014'], errors: [],
    extends: { codes: ['scenarioUnknown', 'imageSetForbidden', 'setNotFound', 'invalidData'], why: 'the product-set variant\'s 400/2003, the image set\'s by-id codes, 400/5001 for a missing name' },
  },
  {
    id: 'createProductSetService', method: 'post', path: `${PRODUCT_SETS}/{product_set_id}/services`, serviceIds: ['_0000178'], errors: ['scenarioUnknown'],
    extends: { codes: ['productSetForbidden', 'productSetNotFound', 'invalidData'], why: 'the product set\'s by-id codes, 400/5001 for a missing name' },
  },
  {
    id: 'search', method: 'post', path: '/search/{service_id}', serviceIds: [], errors: [],
    extends: { codes: ['serviceNotFound', 'invalidData', 'imageDownloadFailed'], why: '"error codes of the search query: not shown": the service codes and the image codes of Add one' },
  },

  // Product sets
  { id: 'createProductSet', method: 'post', path: PRODUCT_SETS, serviceIds: ['_0000178'], errors: ['productSetNameMissing'] },
  { id: 'listProductSets', method: 'get', path: PRODUCT_SETS, serviceIds: ['_0000178'], errors: [] },
  { id: 'getProductSet', method: 'get', path: `${PRODUCT_SETS}/{product_set_id}`, serviceIds: ['_0000178'], errors: ['productSetForbidden', 'productSetNotFound'] },
  { id: 'modifyProductSet', method: 'post', path: `${PRODUCT_SETS}/{product_set_id}`, serviceIds: ['_0000178'], errors: ['productSetNameMissing', 'productSetForbidden', 'productSetNotFound'] },
  {
    id: 'deleteProductSet', method: 'delete', path: `${PRODUCT_SETS}/{product_set_id}`, serviceIds: ['_0000178'], errors: ['productSetForbidden', 'productSetNotFound', 'productSetDeleteFailed'],
    extends: { codes: ['inUse'], why: 'a product set a search service still uses cannot be deleted, as the image set rule says (403/3001)' },
  },
  {
    id: 'postProducts', method: 'post', path: `${PRODUCT_SETS}/{product_set_id}/products`, serviceIds: ['_0000178'], errors: ['productSetNotFound'],
    extends: { codes: ['productSetForbidden', 'invalidData'], why: 'rule 2 of Authentication (403/1005), 400/5001 for a bad record or file' },
  },
  {
    id: 'deleteProducts', method: 'delete', path: `${PRODUCT_SETS}/{product_set_id}/products`, serviceIds: ['_0000178'], errors: ['productSetNotFound'],
    extends: { codes: ['productSetForbidden', 'invalidData'], why: 'rule 2 of Authentication (403/1005), 400/5001 for a bad id list' },
  },

  // Custom training
  { id: 'createTrainingSet', method: 'post', path: `${TRAINING}/training_sets`, serviceIds: ['_0000194'], errors: ['setNameMissing', 'trainingSetQuota'] },
  { id: 'listTrainingSets', method: 'get', path: `${TRAINING}/training_sets`, serviceIds: ['_0000194'], errors: [] },
  { id: 'getTrainingSet', method: 'get', path: `${TRAINING}/training_sets/{training_set_id}`, serviceIds: ['_0000194'], errors: ['setNotFound'] },
  { id: 'modifyTrainingSet', method: 'put', path: `${TRAINING}/training_sets/{training_set_id}`, serviceIds: ['_0000194'], errors: ['setNameMissing', 'setNotFound'] },
  { id: 'deleteTrainingSet', method: 'delete', path: `${TRAINING}/training_sets/{training_set_id}`, serviceIds: ['_0000194'], errors: ['setNotFound', 'inUse'] },
  { id: 'addTrainingData', method: 'post', path: `${TRAINING}/training_sets/{training_set_id}/images`, serviceIds: ['_0000194'], errors: ['setNotFound', 'invalidData'] },
  { id: 'deleteTrainingData', method: 'delete', path: `${TRAINING}/training_sets/{training_set_id}/images`, serviceIds: ['_0000194'], errors: ['setNotFound', 'invalidData', 'inUse'] },
  {
    id: 'clearTrainingSet', method: 'delete', path: `${TRAINING}/training_sets/{training_set_id}/clear`, serviceIds: ['_0000194'], errors: ['setNotFound', 'clearNameMismatch', 'inUse'],
    extends: { codes: ['invalidData'], why: 'a training_set_id or token that does not match the set' },
  },
  {
    id: 'createCustomService', method: 'post', path: `${TRAINING}/training_sets/{training_set_id}/services`, serviceIds: ['_0000194'], errors: ['setNotFound', 'customServiceQuota'],
    extends: { codes: ['scenarioUnknown', 'invalidData'], why: '"only classifier is accepted" (400/2003 as for search scenarios), 400/5001 for a missing name' },
  },
  { id: 'listCustomServices', method: 'get', path: `${TRAINING}/services`, serviceIds: ['_0000194'], errors: [] },
  { id: 'getCustomService', method: 'get', path: `${TRAINING}/services/{service_id}`, serviceIds: ['_0000194'], errors: ['serviceNotFound'] },

  // Ready-made analysis services
  {
    id: 'detect', method: 'post', path: '/detect/{service_id}', serviceIds: ['_0000173', '_0000171', '_0000049', '_0000059', '_0000187', '_0000188', '_0000143', '_0000154'],
    errors: ['detectUndecodable', 'detectNoImage', 'detectDownloadFailed', 'detectTooSmall'],
    extends: { codes: [...BY_ID_SERVICE.codes, 'analysisBadRequest'], why: `${BY_ID_SERVICE.why}; 400 for a bad loc as on colour services` },
  },
  {
    id: 'classify', method: 'post', path: '/classify/{service_id}', serviceIds: ['_0000039', '_0000024', '_0000159'],
    // "General tagging: 400 when no query image URL is given": the detect code for it (400/400003).
    errors: ['classifyServiceUnknown', 'serviceNotGranted', 'detectNoImage'],
    extends: { codes: ['detectUndecodable', 'detectDownloadFailed', 'detectTooSmall', 'analysisBadRequest'], why: 'the other image problems answer as on detect services; 400 for a bad count or loc' },
  },
  {
    id: 'color', method: 'post', path: '/color/{service_id}', serviceIds: ['_0000072', '_0000073', '_0000074'], errors: ['analysisBadRequest', 'analysisImageFailed'],
    extends: BY_ID_SERVICE,
  },
  { id: 'dressing', method: 'post', path: '/dressing/{service_id}', serviceIds: ['_0000111'], errors: ['analysisBadRequest', 'analysisImageFailed'], extends: BY_ID_SERVICE },

  // Batch tasks
  { id: 'listBatchServices', method: 'get', path: `${BATCH}/services`, serviceIds: ['_1000001'], errors: [] },
  {
    id: 'prepareBatchTask', method: 'post', path: `${BATCH}/task/prepare`, serviceIds: ['_1000001'],
    errors: ['batchServiceIdMissing', 'batchUrlsMissing', 'batchUrlsNotUtf8', 'batchUrlsEmpty', 'batchUrlsInvalid', 'batchServiceUnknown', 'batchServiceUnsupported'],
    extends: { codes: ['batchDailyLimit'], why: 'the account\'s limits on open tasks and kept batch files answer as its daily task limit' },
  },
  { id: 'applyBatchTask', method: 'post', path: `${BATCH}/task/apply`, serviceIds: ['_1000001'], errors: ['batchDailyLimit', 'batchAlreadyRunning', 'batchTaskUnknown'] },
  {
    id: 'getBatchTask', method: 'get', path: `${BATCH}/task/info/{task_id}`, serviceIds: ['_1000001'], errors: [],
    extends: { codes: ['batchTaskUnknown'], why: 'the task does not exist' },
  },
  {
    id: 'revokeBatchTask', method: 'post', path: `${BATCH}/task/revoke/{task_id}`, serviceIds: ['_1000001'], errors: ['batchNotPending'],
    extends: { codes: ['batchTaskUnknown'], why: 'the task does not exist' },
  },
  { id: 'listBatchTasks', method: 'get', path: `${BATCH}/tasks`, serviceIds: ['_1000001'], errors: [] },
];

/** Every code of the specification's error tables; any other code is Iris's own (auth, gateway, quotas, internal). */
export const SPECIFICATION_CODES: readonly ErrorKey[] = [
  'productSetNameMissing', 'scenarioUnknown', 'invalidData', 'setNameMissing', 'clearNameMismatch', 'imageSetForbidden', 'productSetForbidden',
  'serviceNotGranted', 'inUse', 'trainingSetQuota', 'imageSetQuota', 'customServiceQuota', 'classifyServiceUnknown', 'productSetNotFound',
  'setNotFound', 'serviceNotFound', 'productSetDeleteFailed', 'imageDownloadFailed',
  'detectUndecodable', 'detectNoImage', 'detectDownloadFailed', 'detectTooSmall', 'analysisBadRequest', 'analysisImageFailed',
  'batchServiceIdMissing', 'batchUrlsMissing', 'batchUrlsNotUtf8', 'batchUrlsEmpty', 'batchUrlsInvalid', 'batchServiceUnknown',
  'batchServiceUnsupported', 'batchDailyLimit', 'batchAlreadyRunning', 'batchTaskUnknown', 'batchNotPending',
];

/** The specification's request headers (Authentication). */
export const SPECIFICATION_HEADERS = ['x-ca-version', 'x-ca-accesskeyid'] as const;
