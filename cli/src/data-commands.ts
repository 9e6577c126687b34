/**
 * The data-plane commands of `iris`: sets, products, services, search, analysis, batch and training.
 * Each answers a value (printed as JSON with --json) and a human summary.
 */
import { existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { CallInput, IrisClient } from './client.js';
import { drawBoxes, imageBytes, type DrawnBox } from './draw.js';
import { evaluate, type EvaluateOptions } from './evaluate-command.js';
import { t, type Lang } from './messages.js';
import { watch } from './progress.js';
import { UsageError } from './errors.js';
import { uploadFolder } from './upload-command.js';
import { runApi, type ApiOptions } from './api-command.js';

export interface CommandOptions extends EvaluateOptions, ApiOptions {
  name?: string;
  description?: string;
  scenario?: string;
  product?: boolean;
  count?: string;
  loc?: string;
  tags?: string;
  draw?: string;
  granularity?: string;
  'return-type'?: string;
  wait?: boolean;
  watch?: boolean;
  out?: string;
  json?: boolean;
  'timeout-seconds'?: string;
  kind?: string;
  concurrency?: string;
  meta?: string;
}

/** `--concurrency`: uploads at once, 1 to 32 (default 4). */
export function concurrencyOf(opts: CommandOptions): number {
  if (opts.concurrency === undefined) return 4;
  const n = Number(opts.concurrency);
  if (!/^\d+$/.test(opts.concurrency) || n < 1 || n > 32) throw new UsageError('--concurrency must be a whole number from 1 to 32');
  return n;
}

async function upload(client: IrisClient, kind: 'image_sets' | 'product_sets', args: string[], opts: CommandOptions): Promise<Outcome> {
  const setId = need(args[0], kind === 'image_sets' ? '<image_set_id>' : '<product_set_id>');
  const dir = need(args[1], '<dir>');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`not a folder: ${dir}`);
  const report = await uploadFolder(client, { kind, setId, dir, concurrency: concurrencyOf(opts), meta: opts.meta, tags: opts.tags, progress: !opts.json });
  const failures = report.failed.map((f) => `  ${f.name}: ${f.error}`);
  const text = [`${setId}: ${report.uploaded} uploaded, ${report.skipped} already stored, ${report.failed.length} failed (${report.files} pictures)`, ...failures].join('\n');
  return { value: report, text, ...(report.failed.length ? { code: 1 } : {}) };
}

const SET_KINDS = ['image_sets', 'product_sets', 'training_sets'] as const;
/** `--kind` of `sets failures`: image sets unless told otherwise. */
function setKind(opts: CommandOptions): (typeof SET_KINDS)[number] {
  const kind = opts.kind ?? 'image_sets';
  if (!(SET_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${SET_KINDS.join(', ')}`);
  return kind as (typeof SET_KINDS)[number];
}

export interface Outcome {
  value: unknown;
  text: string;
  /** Exit code when not 0 (some files of an upload were refused). */
  code?: number;
}

const isUrl = (image: string) => /^https?:\/\//.test(image);
/** The query image as `url` (form) or as the uploaded file `search` (multipart). */
const imageInput = (image: string, fields: Record<string, string | undefined> = {}): CallInput =>
  isUrl(image) ? { form: { url: image, ...fields } } : { multipart: { fields, files: { search: image } } };

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}



const timeoutMs = (opts: CommandOptions) => (opts['timeout-seconds'] ? Number(opts['timeout-seconds']) * 1000 : undefined);

async function sets(client: IrisClient, lang: Lang, action: string | undefined, args: string[], opts: CommandOptions): Promise<Outcome> {
  switch (action) {
    case 'create': {
      const set = await client.call('createImageSet', { json: { name: need(args[0], '<name>'), description: opts.description ?? '' } });
      return { value: set, text: `${t(lang, 'created')} ${set.id} (${set.name})` };
    }
    case 'ls': {
      const list = await client.call('listImageSets', {});
      const rows = list.results.map((s) => `${s.id}  ${s.name.padEnd(16)}  ${s.status.padEnd(14)}  ${s.n_downloaded}/${s.n_items} (${s.n_failed} failed)`);
      return { value: list.results, text: rows.join('\n') };
    }
    case 'add': {
      const id = need(args[0], '<image_set_id>');
      await client.call('postImageSet', { params: { image_set_id: id }, multipart: { files: { urls_to_add: need(args[1], '<csv>') } } });
      const set = await watch(
        t(lang, 'downloading'),
        async () => {
          const s = await client.call('getImageSet', { params: { image_set_id: id } });
          return { value: s, progress: { done: s.n_downloaded + s.n_failed, total: s.n_items, finished: s.status === 'downloaded' || s.n_items === 0, note: s.n_failed ? `(${s.n_failed} failed)` : '' } };
        },
        { quiet: opts.json, timeoutMs: timeoutMs(opts) },
      );
      return { value: set, text: `${set.id}: ${set.n_downloaded} downloaded, ${set.n_failed} failed, ${set.n_items} images` };
    }
    case 'show': {
      const set = await client.call('getImageSet', { params: { image_set_id: need(args[0], '<image_set_id>') } });
      return { value: set, text: `${set.id}  ${set.name}  ${set.status}  ${set.n_downloaded}/${set.n_items} (${set.n_failed} failed)` };
    }
    case 'upload':
      return upload(client, 'image_sets', args, opts);
    case 'remove-urls': {
      const id = need(args[0], '<image_set_id>');
      const set = await client.call('postImageSet', { params: { image_set_id: id }, multipart: { files: { urls_to_delete: need(args[1], '<urls.csv>') } } });
      return { value: set, text: `${id}: ${set?.n_items ?? 0} images` };
    }
    case 'rm': {
      const id = need(args[0], '<image_set_id>');
      await client.call('deleteImageSet', { params: { image_set_id: id } });
      return { value: { id, deleted: true }, text: `${id}: deleted` };
    }
    case 'failures': {
      const id = need(args[0], '<set_id>');
      const page = await client.call('listSetRecords', { params: { kind: setKind(opts), id }, query: { status: 'failed', count: 100 } });
      const rows = page.results.map((r) => `${r.url}\n    ${r.last_error ?? ''}`);
      return { value: page.results, text: page.results.length ? `${t(lang, 'failedDownloads')}: ${page.total}\n${rows.join('\n')}` : t(lang, 'noFailures') };
    }
    default:
      throw new UsageError('sets create|ls|show|upload|add|failures|remove-urls|rm', 'sets');
  }
}

async function services(client: IrisClient, lang: Lang, action: string | undefined, args: string[], opts: CommandOptions): Promise<Outcome> {
  if (action === 'create') {
    const setId = need(args[0], '<set_id>');
    const body = { json: { name: opts.name ?? 'search', scenario: opts.scenario ?? 'general' } };
    const service = opts.product
      ? await client.call('createProductSetService', { params: { product_set_id: setId }, ...body })
      : await client.call('createImageSetService', { params: { image_set_id: setId }, ...body });
    return { value: service, text: `${t(lang, 'created')} ${service.id} (${service.scenario})` };
  }
  if (action === 'status') {
    const id = need(args[0], '<service_id>');
    const get = () => client.call('getSearchServices', { params: { service_id: id } });
    const service = opts.watch
      ? await watch(
          t(lang, 'indexing'),
          async () => {
            const s = await get();
            return { value: s, progress: { done: Math.round(s.indexed_ratio * 100), total: 100, finished: s.indexed_ratio >= 1, note: `${s.n_indexed} images` } };
          },
          { quiet: opts.json, timeoutMs: timeoutMs(opts) },
        )
      : await get();
    return { value: service, text: `${service.id}: ${service.status}, ${service.n_indexed} indexed (${Math.round(service.indexed_ratio * 100)}%)` };
  }
  throw new UsageError('services create|status', 'services');
}

async function search(client: IrisClient, args: string[], opts: CommandOptions): Promise<Outcome> {
  const [service, image] = [need(args[0], '<service_id>'), need(args[1], '<image>')];
  const answer = await client.call('search', { params: { service_id: service }, ...imageInput(image, { count: opts.count, loc: opts.loc, tags: opts.tags }) });
  if (opts.draw) await drawBoxes(await imageBytes(image), [{ box: answer.loc, label: 'query' }], opts.draw);
  const rows = answer.results.map((r, i) => `${String(i + 1).padStart(3)}  ${r.score.toFixed(3)}  ${r.url}${r.metadata ? `  ${r.metadata}` : ''}`);
  return { value: answer, text: rows.join('\n') };
}

async function analyse(client: IrisClient, kind: 'detect' | 'classify' | 'color', args: string[], opts: CommandOptions): Promise<Outcome> {
  const [service, image] = [need(args[0], '<service_id>'), need(args[1], '<image>')];
  const input = (fields: Parameters<typeof imageInput>[1]) => ({ params: { service_id: service }, ...imageInput(image, fields) });
  let answer: unknown;
  let drawn: DrawnBox[] = [];
  let lines: string[] = [];
  if (kind === 'detect') {
    const detected = await client.call('detect', input({}));
    answer = detected;
    drawn = detected.boxes_detected.flatMap((b) => ('box' in b ? [{ box: b.box, label: `${b.type} ${b.score.toFixed(2)}` }] : []));
    lines = detected.boxes_detected.map((b) => ('box' in b ? `${b.type.padEnd(20)} ${b.score.toFixed(3)}  [${b.box.map((v) => v.toFixed(3)).join(', ')}]` : `${b.type}: ${b.value ?? ''}`));
  } else if (kind === 'color') {
    const colours = await client.call('color', input({ granularity: opts.granularity ?? 'major', return_type: opts['return-type'] ?? 'basic' }));
    answer = colours;
    lines = colours.results.map((c) => `${c.hex}  ${(c.freq * 100).toFixed(1)}%  ${c.basic ?? c.w3c ?? c.ncs ?? c.cncs?.cncs ?? ''}`);
    drawn = lines.slice(0, 5).map((label, i) => ({ box: [0.02, 0.04 + i * 0.07, 0, 0], label }));
  } else {
    const classified = await client.call('classify', input({ count: opts.count }));
    answer = classified;
    const items = classified.results;
    lines = items.map((c) => `${c.category.padEnd(24)} ${c.score.toFixed(3)}`);
    drawn = items.slice(0, 5).map((c, i) => ({ box: [0.02, 0.04 + i * 0.07, 0, 0], label: `${c.category} ${c.score.toFixed(2)}` }));
  }
  if (opts.draw) await drawBoxes(await imageBytes(image), drawn, opts.draw);
  return { value: answer, text: lines.join('\n') };
}

async function batch(client: IrisClient, lang: Lang, action: string | undefined, args: string[], opts: CommandOptions): Promise<Outcome> {
  if (action === 'services') {
    const list = await client.call('listBatchServices', {});
    return { value: list.data, text: list.data.join('\n') };
  }
  if (action === 'ls') {
    const tasks = await client.call('listBatchTasks', {});
    return { value: tasks.data, text: JSON.stringify(tasks.data, null, 2) };
  }
  if (action === 'cancel') {
    const taskId = need(args[0], '<task_id>');
    const revoked = await client.call('revokeBatchTask', { params: { task_id: taskId } });
    return { value: revoked, text: `${taskId}: revoked` };
  }
  let taskId: string;
  if (action === 'status') {
    taskId = need(args[0], '<task_id>');
    if (!opts.wait) {
      const d = (await client.call('getBatchTask', { params: { task_id: taskId } })).data;
      return { value: d, text: `${taskId}: ${d.state}, ${d.success ?? 0}/${d.total}` };
    }
  } else if (action === 'run') {
    const [service, urls] = [need(args[0], '<service_id>'), need(args[1], '<urls.txt>')];
    const prepared = await client.call('prepareBatchTask', { multipart: { fields: { service_id: service }, files: { urls } } });
    taskId = prepared.data.task_id;
    await client.call('applyBatchTask', { form: { task_id: taskId } });
    if (!opts.wait) return { value: prepared.data, text: `${t(lang, 'created')} ${taskId} (${prepared.data.total} images)` };
  } else throw new UsageError('batch run|status|ls|cancel|services', 'batch');
  const task = await watch(
    t(lang, 'batch'),
    async () => {
      const info = await client.call('getBatchTask', { params: { task_id: taskId } });
      const d = info.data;
      return { value: d, progress: { done: d.success ?? 0, total: d.total, finished: ['SUCCESS', 'FAILURE', 'REVOKED'].includes(d.state), note: d.state } };
    },
    { quiet: opts.json, timeoutMs: timeoutMs(opts) },
  );
  if (opts.out && task.download_urls?.length) {
    const out = await open(opts.out, 'w');
    try {
      for (const link of task.download_urls) await out.write(await client.download(link));
    } finally {
      await out.close();
    }
  }
  return { value: task, text: `${taskId}: ${task.state}, ${task.success ?? 0}/${task.total}${opts.out ? ` — ${t(lang, 'wrote')} ${opts.out}` : ''}` };
}

async function train(client: IrisClient, lang: Lang, args: string[], opts: CommandOptions): Promise<Outcome> {
  const setId = need(args[0], '<training_set_id>');
  const created = await client.call('createCustomService', { params: { training_set_id: setId }, json: { name: opts.name ?? 'classifier', scenario: 'classifier', description: opts.description ?? '' } });
  if (!opts.watch) return { value: created, text: `${t(lang, 'created')} ${created.id} (${created.status})` };
  const service = await watch(
    t(lang, 'training'),
    async () => {
      const s = await client.call('getCustomService', { params: { service_id: created.id } });
      return { value: s, progress: { done: Math.round(s.progress * 100), total: 100, finished: s.status === 'running' || s.status === 'failed' || s.status === 'deleted', note: s.stage } };
    },
    { quiet: opts.json, intervalMs: 2000, timeoutMs: timeoutMs(opts) },
  );
  const accuracy = service.validation_accuracy === null ? '' : `, validation accuracy ${(service.validation_accuracy * 100).toFixed(1)}%`;
  return { value: service, text: `${service.id}: ${service.status}${service.message ? ` (${service.message})` : ''}${accuracy}` };
}

async function products(client: IrisClient, lang: Lang, action: string | undefined, args: string[], opts: CommandOptions): Promise<Outcome> {
  if (action === 'create') {
    const set = await client.call('createProductSet', { json: { name: need(args[0], '<name>'), description: opts.description ?? '' } });
    return { value: set, text: `${t(lang, 'created')} ${set.id} (${set.name})` };
  }
  if (action === 'ls') {
    const list = await client.call('listProductSets', {});
    return { value: list.results, text: list.results.map((p) => `${p.id}  ${p.name.padEnd(16)}  ${p.status}`).join('\n') };
  }
  if (action === 'upload') return upload(client, 'product_sets', args, opts);
  if (action === 'rm') {
    const id = need(args[0], '<product_set_id>');
    await client.call('deleteProductSet', { params: { product_set_id: id } });
    return { value: { id, deleted: true }, text: `${id}: deleted` };
  }
  if (action !== 'add') throw new UsageError('products create|ls|upload|add|rm', 'products');
  const id = need(args[0], '<product_set_id>');
  const answer = await client.call('postProducts', { params: { product_set_id: id }, multipart: { files: { products_to_add: need(args[1], '<jsonl>') } } });
  return { value: answer, text: `${id}: ${answer.ok ? t(lang, 'done') : 'refused'}` };
}

export const DATA_GROUPS = ['sets', 'products', 'services', 'search', 'detect', 'classify', 'color', 'batch', 'train', 'evaluate', 'api'] as const;

export async function runDataCommand(client: IrisClient, positionals: string[], opts: CommandOptions): Promise<Outcome> {
  const [group, action, ...rest] = positionals;
  const lang = client.config.lang;
  switch (group) {
    case 'sets':
      return sets(client, lang, action, rest, opts);
    case 'products':
      return products(client, lang, action, rest, opts);
    case 'services':
      return services(client, lang, action, rest, opts);
    case 'search':
      return search(client, positionals.slice(1), opts);
    case 'detect':
    case 'classify':
    case 'color':
      return analyse(client, group, positionals.slice(1), opts);
    case 'batch':
      return batch(client, lang, action, rest, opts);
    case 'train':
      return train(client, lang, positionals.slice(1), opts);
    case 'api':
      return runApi(client, positionals.slice(1), opts);
    case 'evaluate':
      return evaluate(client, need(positionals[1], '<service_id>'), opts);
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
}
