import { describe, expect, it } from 'vitest';
import { boundaryOf, multipartTextFields } from './multipart.js';
import { RequestBody } from './request-body.js';

const encoder = new TextEncoder();

async function encode(form: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { bytes: new Uint8Array(await req.arrayBuffer()), type: req.headers.get('content-type')! };
}

describe('multipart text fields', () => {
  it('returns text fields in order and skips file parts', async () => {
    const form = new FormData();
    form.append('service_id', '_0000049');
    form.append('urls', new File(['http://a/1.jpg\n'], 'urls.txt'));
    form.append('名前', 'ü ✓\r\nline');
    const { bytes, type } = await encode(form);
    expect(multipartTextFields(bytes, boundaryOf(type)!)).toEqual([['service_id', '_0000049'], ['名前', 'ü ✓\r\nline']]);
  });

  it('treats exactly application/octet-stream parts as files, skips non-form-data parts, keeps a BOM, reads boundaries like busboy', () => {
    const body = [
      '--b1',
      'Content-Disposition: form-data; name="blob"',
      'Content-Type: application/octet-stream',
      '',
      'binary',
      '--b1',
      'Content-Disposition: form-data; name="typed"',
      'Content-Type: application/octet-streamed',
      '',
      'text',
      '--b1',
      'Content-Disposition: attachment; name="other"',
      '',
      'skipped',
      '--b1',
      'Content-Disposition: form-data; name=count',
      '',
      '\uFEFF20',
      '--b1--',
      '',
    ].join('\r\n');
    expect(boundaryOf('multipart/form-data; boundary="with space"')).toBe('with space');
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary=b"1')).toBe('b1'); // busboy drops the quote
    expect(multipartTextFields(encoder.encode(body), 'b1')).toEqual([['typed', 'text'], ['count', '\uFEFF20']]);
  });

  it('stops quietly on a truncated body', () => {
    const body = '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name="b"\r\n\r\nno end';
    expect(multipartTextFields(encoder.encode(body), 'b')).toEqual([['a', '1']]);
  });
});

describe('request body parameters', () => {
  const query: [string, string][] = [['task_id', 'fromquery'], ['page', '1']];
  it('reads form, JSON and query parameters, body over query', () => {
    const form = new RequestBody(encoder.encode('task_id=fromform&x=%E5%90%8D+1'), 'application/x-www-form-urlencoded', query);
    expect(form.param('task_id')).toBe('fromform');
    expect(form.param('x')).toBe('名 1');
    expect(form.param('page')).toBe('1');
    expect(form.json).toBeNull();

    const json = new RequestBody(encoder.encode('{"task_id": "fromjson", "count": 20}'), 'application/json', query);
    expect(json.param('task_id')).toBe('fromjson');
    expect(json.param('count')).toBe('20');
    expect(json.form).toEqual([]);
    expect(new TextDecoder().decode(json.json?.signed)).toBe('{"task_id": "fromjson", "count": 20}');

    // Like the backend: JSON-looking text without a form content type is JSON.
    expect(new RequestBody(encoder.encode(' {"ids": ["a"]}'), 'text/plain', []).json?.value).toEqual({ ids: ['a'] });
    expect(new RequestBody(null, 'application/json', query).param('task_id')).toBe('fromquery');
  });
});
