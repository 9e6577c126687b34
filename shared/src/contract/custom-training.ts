/** Custom training (`/custom_training/_0000194`): training sets, classifier services, and classifier inference. */
import { z } from 'zod';
import { ANY_FORM, intText, listOf, op, pathParams, requestId, timestamp, upload } from './common.js';
import { DataSet, DataSetResponse } from './image-sets.js';
import { ClassifyResponse, ImageInput } from './analysis.js';

const BASE = '/custom_training/_0000194';
const bySet = pathParams('training_set_id');
const byService = pathParams('service_id');

export const CreateTrainingSet = z.object({ name: z.string(), description: z.string() }).passthrough();
export const ModifyTrainingSet = z.object({ name: z.string(), description: z.string() }).passthrough();
export const AddTrainingData = z.object({ urls_to_add: upload.describe('CSV url,label rows (at least 50 images per label)') }).passthrough();
export const DeleteTrainingData = z.object({ urls_to_delete: upload.describe('CSV: one column of URLs, or two whose first is the URL') }).passthrough();
export const ClearTrainingSet = z
  .object({ name: z.string(), training_set_id: z.string(), token: z.string().describe('base64 of "selfserve_admin:" + the set name') })
  .passthrough();
export const CreateCustomService = z
  .object({ scenario: z.string().describe('only classifier is accepted'), name: z.string(), description: z.string().optional() })
  .passthrough();
export const RenameCustomService = z.object({ name: z.string() }).passthrough();

export type CreateTrainingSetInput = z.output<typeof CreateTrainingSet>;
export type AddTrainingDataInput = z.output<typeof AddTrainingData>;
export type DeleteTrainingDataInput = z.output<typeof DeleteTrainingData>;
export type ClearTrainingSetInput = z.output<typeof ClearTrainingSet>;
export type CreateCustomServiceInput = z.output<typeof CreateCustomService>;
export type RenameCustomServiceInput = z.output<typeof RenameCustomService>;

export const CustomServiceStatus = z.enum(['pending', 'preparing', 'running', 'failed', 'deleted']);
export const TrainingStage = z.enum(['queued', 'downloading', 'embedding', 'training', 'done', 'failed']);
export const CustomService = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  scenario: z.string(),
  status: CustomServiceStatus,
  training_set_id: z.string(),
  created_at: timestamp,
  last_updated_at: timestamp,
  creator_id: z.number().int(),
  message: z.string().optional().describe('only when status is failed: why'),
  validation_accuracy: z.number().nullable().describe('Iris: accuracy on the held-out validation images'),
  label_counts: z.record(z.number().int()).describe('Iris: usable images per label'),
  progress: z.number().describe('Iris: share of the preparation done, 0..1'),
  stage: TrainingStage.describe('Iris: the step of preparation'),
});
/** Iris extension on answers about one service (docs/custom-training.md, "Confusion matrix"). */
export const ConfusionMatrix = z
  .object({
    labels: z.array(z.string()).describe('the labels, in the order of the rows and of the columns'),
    counts: z.array(z.array(z.number().int())).describe('counts[t][p]: held-out images of label t the classifier predicted as label p'),
  })
  .describe('Iris: the held-out validation images by true label (row) and predicted label (column); the diagonal over the total is validation_accuracy');
export const CustomServiceResponse = CustomService.extend({
  confusion_matrix: ConfusionMatrix.nullable().describe('Iris: null until trained; left out of list results'),
  request_id: requestId,
});

export const ClassifierQuery = ImageInput.extend({
  image_url: z.string().optional().describe('alias of url'),
  image: upload.optional().describe('alias of search'),
  topk: intText.optional().describe('number of labels to return'),
});

const tag = 'Custom training';
const setErrors = ['setNotFound'] as const;
export const customTrainingOperations = [
  op({
    id: 'createTrainingSet', method: 'post', path: `${BASE}/training_sets`, servedBy: 'backend', tag, summary: 'Create a training set', errors: 'resource',
    errorCodes: ['setNameMissing', 'trainingSetQuota'], body: { schema: CreateTrainingSet, forms: ANY_FORM, required: true }, fieldErrors: { name: 'setNameMissing', description: 'setNameMissing' }, response: DataSetResponse,
  }),
  op({ id: 'listTrainingSets', method: 'get', path: `${BASE}/training_sets`, servedBy: 'backend', tag, summary: 'List training sets', errors: 'resource', response: listOf(DataSet) }),
  op({ id: 'getTrainingSet', method: 'get', path: `${BASE}/training_sets/{training_set_id}`, servedBy: 'backend', tag, summary: 'Get a training set', errors: 'resource', errorCodes: setErrors, params: bySet, response: DataSetResponse }),
  op({
    id: 'modifyTrainingSet', method: 'put', path: `${BASE}/training_sets/{training_set_id}`, servedBy: 'backend', tag, summary: 'Modify a training set', errors: 'resource',
    errorCodes: ['setNameMissing', 'setNotFound'], params: bySet, body: { schema: ModifyTrainingSet, forms: ANY_FORM, required: true }, fieldErrors: { name: 'setNameMissing', description: 'setNameMissing' }, response: DataSetResponse,
  }),
  op({
    id: 'deleteTrainingSet', method: 'delete', path: `${BASE}/training_sets/{training_set_id}`, servedBy: 'backend', tag, summary: 'Delete a training set', errors: 'resource',
    errorCodes: ['setNotFound', 'inUse'], params: bySet, response: z.object({ request_id: requestId }),
  }),
  op({
    id: 'addTrainingData', method: 'post', path: `${BASE}/training_sets/{training_set_id}/images`, servedBy: 'backend', tag, summary: 'Add training data (CSV url,label)', errors: 'resource',
    errorCodes: ['invalidData', 'setNotFound', 'setRecordQuota', 'accountRecordQuota', 'storedBytesQuota'], params: bySet, body: { schema: AddTrainingData, forms: ['multipart'], required: true }, response: DataSetResponse,
  }),
  op({
    id: 'deleteTrainingData', method: 'delete', path: `${BASE}/training_sets/{training_set_id}/images`, servedBy: 'backend', tag, summary: 'Delete training data (CSV of URLs)', errors: 'resource',
    errorCodes: ['invalidData', 'setNotFound', 'inUse'], params: bySet, body: { schema: DeleteTrainingData, forms: ['multipart'], required: true }, response: DataSetResponse,
  }),
  op({
    id: 'clearTrainingSet', method: 'delete', path: `${BASE}/training_sets/{training_set_id}/clear`, servedBy: 'backend', tag, summary: 'Clear a training set (name, training_set_id and token must match)', errors: 'resource',
    errorCodes: ['clearNameMismatch', 'inUse', 'setNotFound', 'invalidData'], params: bySet, body: { schema: ClearTrainingSet, forms: ANY_FORM, required: true }, fieldErrors: { name: 'clearNameMismatch' }, response: DataSetResponse,
  }),
  op({
    id: 'createCustomService', method: 'post', path: `${BASE}/training_sets/{training_set_id}/services`, servedBy: 'backend', tag, summary: 'Train a classifier service on a training set', errors: 'resource',
    errorCodes: ['setNotFound', 'customServiceQuota', 'scenarioUnknown', 'invalidData'], params: bySet, body: { schema: CreateCustomService, forms: ANY_FORM, required: true }, fieldErrors: { scenario: 'scenarioUnknown' }, response: CustomServiceResponse,
  }),
  op({ id: 'listCustomServices', method: 'get', path: `${BASE}/services`, servedBy: 'backend', tag, summary: 'List classifier services', errors: 'resource', response: listOf(CustomService) }),
  op({ id: 'getCustomService', method: 'get', path: `${BASE}/services/{service_id}`, servedBy: 'backend', tag, summary: 'Get a classifier service (message when failed)', errors: 'resource', errorCodes: ['serviceNotFound'], params: byService, response: CustomServiceResponse }),
  op({
    id: 'renameCustomService', method: 'put', path: `${BASE}/services/{service_id}`, servedBy: 'backend', tag, summary: 'Rename a classifier service', extension: 'clients', errors: 'resource',
    errorCodes: ['serviceNotFound', 'invalidData'], params: byService, body: { schema: RenameCustomService, forms: ANY_FORM, required: true }, response: CustomServiceResponse,
  }),
  op({
    id: 'patchCustomService', method: 'patch', path: `${BASE}/services/{service_id}`, servedBy: 'backend', tag, summary: 'Rename a classifier service', extension: 'clients', errors: 'resource',
    errorCodes: ['serviceNotFound'], params: byService, body: { schema: RenameCustomService, forms: ANY_FORM, required: true }, response: CustomServiceResponse,
  }),
  op({
    id: 'deleteCustomService', method: 'delete', path: `${BASE}/services/{service_id}`, servedBy: 'backend', tag, summary: 'Delete a classifier service', extension: 'clients', errors: 'resource',
    errorCodes: ['serviceNotFound'], params: byService, response: CustomServiceResponse,
  }),
  op({
    id: 'classifyCustom', method: 'post', path: '/custom_training/{service_id}', servedBy: 'backend', tag, summary: 'Classify an image with a trained classifier', extension: 'clients', errors: 'analysis',
    errorCodes: ['serviceNotFound', 'analysisBadRequest', 'detectNoImage', 'detectDownloadFailed', 'detectUndecodable'], params: byService,
    body: { schema: ClassifierQuery, forms: ['form', 'multipart', 'json'], required: true }, response: ClassifyResponse,
  }),
];
