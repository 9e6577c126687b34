/** The command line, without any network: options, the calls `iris api` and the operator commands plan, help. */
import { describe, expect, it } from 'vitest';
import { planCalls } from './admin-commands.js';
import { apiCall, pairs } from './api-command.js';
import { parseDataArgs } from './args.js';
import { concurrencyOf } from './data-commands.js';
import { UsageError } from './errors.js';
import { GROUP_HELP, groupHelp, overview } from './help.js';
import { loginSettings } from './login-command.js';
import { productIdOf } from './upload-command.js';

describe('data command lines', () => {
  it('reads positionals and options, repeated ones as lists', () => {
    const { positionals, options } = parseDataArgs(['sets', 'upload', 'set-1', './pics', '--concurrency', '8', '--tags', 'a|b', '--json']);
    expect(positionals).toEqual(['sets', 'upload', 'set-1', './pics']);
    expect(options).toMatchObject({ concurrency: '8', tags: 'a|b', json: true });
    expect(parseDataArgs(['api', 'getImageSet', '--param', 'image_set_id=x', '--query', 'a=1', '--query', 'b=2']).options).toMatchObject({ param: ['image_set_id=x'], query: ['a=1', 'b=2'] });
  });

  it('refuses an unknown option or a missing value as a usage error naming the command', () => {
    const unknown = (() => {
      try {
        parseDataArgs(['sets', 'ls', '--colour']);
      } catch (err) {
        return err;
      }
    })();
    expect(unknown).toBeInstanceOf(UsageError);
    expect((unknown as UsageError).group).toBe('sets');
    expect(() => parseDataArgs(['search', 's', 'q.jpg', '--count'])).toThrow(UsageError);
  });

  it('bounds --concurrency to 1..32', () => {
    expect(concurrencyOf({})).toBe(4);
    expect(concurrencyOf({ concurrency: '16' })).toBe(16);
    for (const bad of ['0', '33', '-1', '2.5', 'many', '']) expect(() => concurrencyOf({ concurrency: bad }), bad).toThrow(UsageError);
  });

  it('names a product after its first folder, else after its file', () => {
    expect(productIdOf('sku-1/front.jpg')).toBe('sku-1');
    expect(productIdOf('sku-1/side/left.jpg')).toBe('sku-1');
    expect(productIdOf('sku-2.jpeg')).toBe('sku-2');
  });
});

describe('iris api', () => {
  it('turns a command line into a typed call of the operation', () => {
    expect(apiCall(['getImageSet'], { param: ['image_set_id=abc'] })).toEqual({ id: 'getImageSet', input: { params: { image_set_id: 'abc' } } });
    expect(apiCall(['createImageSet'], { body: '{"name":"n"}' }).input).toEqual({ json: { name: 'n' } });
    expect(apiCall(['search'], { param: ['service_id=s'], form: ['url=http://x/a.jpg?b=c', 'count=3'] }).input).toEqual({ params: { service_id: 's' }, form: { url: 'http://x/a.jpg?b=c', count: '3' } });
    expect(apiCall(['search'], { param: ['service_id=s'], file: ['search=q.jpg'], form: ['count=3'] }).input).toEqual({ params: { service_id: 's' }, multipart: { fields: { count: '3' }, files: { search: 'q.jpg' } } });
  });

  it('refuses what the operation cannot take', () => {
    expect(() => apiCall([], {})).toThrow(/operation_id/);
    expect(() => apiCall(['nope'], {})).toThrow(/no operation nope/);
    expect(() => apiCall(['getImageSet'], {})).toThrow(/--param image_set_id/);
    expect(() => apiCall(['createImageSet'], { body: '{' })).toThrow(/JSON/);
    expect(() => apiCall(['createImageSet'], { body: '{}', form: ['a=b'] })).toThrow(/not both/);
    expect(() => apiCall(['getRecordThumbnail'], { param: ['kind=image_sets', 'id=a', 'record_id=1'] })).toThrow(/answers a file/);
    expect(() => pairs(['novalue'], 'form')).toThrow(/name=value/);
  });
});

describe('operator command lines', () => {
  it('plan their admin API calls', () => {
    expect(planCalls(['keys', 'create', '7', '--signature-required'])).toEqual([{ method: 'POST', path: '/accounts/7/keys', body: { signature_required: true } }]);
    expect(planCalls(['grants', 'add', '7', '_0000072', '_0000024'])).toHaveLength(2);
    expect(() => planCalls(['accounts', 'show', 'seven'])).toThrow(UsageError);
  });
});

describe('iris login', () => {
  const env = { IRIS_CONFIG: '/nonexistent/iris/config.json' };
  it('takes the endpoint, the key and the secret (from standard input, never an argument)', () => {
    expect(loginSettings(['--url', 'http://127.0.0.1:8787/', '--key', 'AK', '--secret-stdin'], env, () => 'SK')).toEqual({
      content: { url_root: 'http://127.0.0.1:8787', access_key_id: 'AK', secret_key: 'SK' },
      verify: true,
    });
    expect(loginSettings(['--url', 'http://h', '--key', 'AK', '--no-verify', '--lang', 'zh'], env).content).toEqual({ url_root: 'http://h', access_key_id: 'AK', lang: 'zh' });
    expect(() => loginSettings(['--key', 'AK'], env)).toThrow(/--url/);
    expect(() => loginSettings(['--url', 'not a url', '--key', 'AK'], env)).toThrow(/not a URL/);
    expect(() => loginSettings(['--url', 'http://h', '--key', 'AK', '--secret', 'SK'], env)).toThrow();
  });
});

describe('help', () => {
  it('has a text for every command group, and the overview names them all', () => {
    const text = overview('1.2.3');
    expect(text).toContain('iris 1.2.3');
    for (const group of Object.keys(GROUP_HELP)) {
      expect(text).toContain(`  ${group} `);
      expect(groupHelp(group), group).toMatch(new RegExp(`iris ${group}`));
    }
    expect(groupHelp('nope')).toBeUndefined();
  });
});
