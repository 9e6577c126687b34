/* eslint-disable @typescript-eslint/no-explicit-any -- walking the generated JSON document */
import { describe, expect, it } from 'vitest';
import { ConfusionMatrix, CustomService, CustomServiceResponse } from './custom-training.js';
import { buildOpenApiDocument } from './openapi.js';

const service = {
  id: 'c1', name: 'n', description: 'd', scenario: 'classifier', status: 'running', training_set_id: 't1', created_at: '2024-05-01T00:00:00Z',
  last_updated_at: '2024-05-01T00:00:00Z', creator_id: 7, validation_accuracy: 0.85, label_counts: { cat: 50, dog: 50 }, progress: 1, stage: 'done',
};

describe('the confusion matrix extension of custom services', () => {
  it('is in the answers about one service, null until trained, and not in list items', () => {
    const matrix = { labels: ['cat', 'dog'], counts: [[9, 1], [2, 8]] };
    expect(CustomServiceResponse.parse({ ...service, confusion_matrix: matrix, request_id: 'r' }).confusion_matrix).toEqual(matrix);
    expect(CustomServiceResponse.parse({ ...service, confusion_matrix: null, request_id: 'r' }).confusion_matrix).toBeNull();
    expect(CustomServiceResponse.safeParse({ ...service, request_id: 'r' }).success).toBe(false);
    expect(CustomService.parse({ ...service, confusion_matrix: matrix })).not.toHaveProperty('confusion_matrix');
    expect(ConfusionMatrix.safeParse({ labels: ['a'], counts: [[0.5]] }).success).toBe(false);
  });

  it('is described in the OpenAPI document on the service answers', () => {
    const document = buildOpenApiDocument({ servers: [{ url: 'https://cn-east.example.com', description: 'cn-east' }] }) as Record<string, any>;
    const schemaOf = (path: string, method: string) => {
      const schema = document.paths[path][method].responses['200'].content['application/json'].schema;
      return schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
    };
    for (const [path, method] of [
      ['/custom_training/_0000194/services/{service_id}', 'get'],
      ['/custom_training/_0000194/training_sets/{training_set_id}/services', 'post'],
    ] as const) {
      const field = schemaOf(path, method).properties.confusion_matrix;
      expect(JSON.stringify(field), `${method} ${path}`).toContain('counts[t][p]');
    }
  });
});
