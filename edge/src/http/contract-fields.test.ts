import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError } from '@iris/shared';
import { contractFields } from './contract-fields.js';
import { RequestBody } from './request-body.js';

const encoder = new TextEncoder();
const jsonBody = (value: unknown, query: [string, string][] = []) => new RequestBody(encoder.encode(JSON.stringify(value)), 'application/json', query);

async function multipart(form: FormData): Promise<RequestBody> {
  const req = new Request('http://x/', { method: 'POST', body: form });
  return new RequestBody(new Uint8Array(await req.arrayBuffer()), req.headers.get('content-type')!, []);
}

describe('body fields read through the contract', () => {
  it('reads the checked fields of JSON, urlencoded, multipart and query-string bodies, trimmed', async () => {
    expect(contractFields(jsonBody({ task_id: ' abc ' }), 'applyBatchTask', ['task_id'])).toEqual({ task_id: 'abc' });
    expect(contractFields(jsonBody({ task_id: 12 }), 'applyBatchTask', ['task_id'])).toEqual({ task_id: '12' });
    const form = new RequestBody(encoder.encode('service_id=_0000049&other=1'), 'application/x-www-form-urlencoded', []);
    expect(contractFields(form, 'prepareBatchTask', ['service_id'])).toEqual({ service_id: '_0000049' });
    const data = new FormData();
    data.append('service_id', '_0000024');
    data.append('urls', new File(['http://a/1.jpg\nhttp://a/2.jpg\n'], 'urls.txt'));
    expect(contractFields(await multipart(data), 'prepareBatchTask', ['service_id'])).toEqual({ service_id: '_0000024' });
    expect(contractFields(jsonBody({}, [['task_id', 'q1']]), 'applyBatchTask', ['task_id'])).toEqual({ task_id: 'q1' });
  });

  it('leaves a missing field empty for the check that owns it', () => {
    expect(contractFields(new RequestBody(null, '', []), 'applyBatchTask', ['task_id'])).toEqual({ task_id: '' });
    expect(contractFields(jsonBody({ task_id: { nested: 1 } }), 'applyBatchTask', ['task_id'])).toEqual({ task_id: '' });
  });

  it('refuses a field the operation does not have in the contract (a programming error, not a request error)', () => {
    let thrown: unknown;
    try {
      contractFields(jsonBody({ task_id: 'x' }), 'applyBatchTask', ['no_such_field']);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(isApiError(thrown)).toBe(false);
  });

  it('reads any text value the way the backend does (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom('json', 'form', 'query'), (value, form) => {
        const body =
          form === 'json'
            ? jsonBody({ service_id: value })
            : form === 'form'
              ? new RequestBody(encoder.encode(new URLSearchParams({ service_id: value }).toString()), 'application/x-www-form-urlencoded', [])
              : new RequestBody(null, '', [['service_id', value]]);
        expect(contractFields(body, 'prepareBatchTask', ['service_id'])).toEqual({ service_id: value.trim() });
      }),
      { numRuns: 200 },
    );
  });
});
