/** One data set: live progress, its pictures as a paged thumbnail grid, failed records with reasons, adding, deleting. */
import { useState } from 'preact/hooks';
import { api, apiBlobUrl, form } from '../api/client.js';
import { BULK_UPLOAD, recordsPath, SET_PATHS } from '../api/sets.js';
import type { DataSet, RecordPage, SetKind } from '../api/types.js';
import { ErrorNote, Field, Pager, ProgressBar, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { Thumb } from '../components/thumb.js';
import { useI18n } from '../i18n/i18n.js';
import { href } from '../router.js';

const PAGE = 24;

interface Counts {
  total: number;
  downloaded: number;
  failed: number;
}

/** Every record of the set as JSON lines (streamed by the API; the browser keeps the file it saves). */
async function exportRecords(kind: SetKind, id: string): Promise<void> {
  const blobUrl = await apiBlobUrl(`/iris/${kind}/${encodeURIComponent(id)}/export`);
  const a = document.createElement('a');
  a.href = blobUrl;
  a.download = `${kind}-${id}.jsonl`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(blobUrl), 10_000);
}

async function counts(kind: SetKind, id: string): Promise<Counts> {
  const p = await api<RecordPage>(`${recordsPath(kind, id)}?count=1`);
  return { total: p.n_items, downloaded: p.n_downloaded, failed: p.n_failed };
}

function AddImages({ kind, id, onAdded }: { kind: SetKind; id: string; onAdded: () => void }) {
  const { t } = useI18n();
  const [file, setFile] = useState<File>();
  const [url, setUrl] = useState('');
  const [meta, setMeta] = useState('');
  const [extra, setExtra] = useState('');
  const upload = useAction();
  const one = useAction();
  const bulk = BULK_UPLOAD[kind];
  const hint = kind === 'product_sets' ? t('uploadHintJsonl') : kind === 'training_sets' ? t('uploadHintTraining') : t('uploadHintCsv');
  const addOne = async () => {
    if (kind === 'image_sets') await api(`${SET_PATHS.image_sets}/${id}`, 'POST', form({ image_url: url, meta, tags: extra }));
    else if (kind === 'product_sets') await api(`${SET_PATHS.product_sets}/${id}/products`, 'POST', { product_id: extra, image_url: url, meta });
    else await api(bulk.path(id), 'POST', form({ urls_to_add: new File([`${url},${extra}\n`], 'one.csv', { type: 'text/csv' }) }));
    setUrl('');
    onAdded();
  };
  return (
    <Section title={t('addImages')}>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void upload.run(async () => {
            if (!file) return;
            await api(bulk.path(id), 'POST', form({ [bulk.field]: file }));
            onAdded();
          });
        }}
      >
        <Field label={t('uploadFile')}>
          <input id="upload-file" type="file" accept={bulk.accept} required onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0])} />
        </Field>
        <button type="submit" class="primary" disabled={upload.busy || !file}>
          {t('upload')}
        </button>
      </form>
      <p class="muted">{hint}</p>
      <ErrorNote error={upload.error} />
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void one.run(addOne);
        }}
      >
        <Field label={t('imageUrl')}>
          <input id="add-url" type="url" required value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        {kind !== 'training_sets' && (
          <Field label={t('meta')}>
            <input value={meta} maxLength={512} onInput={(e) => setMeta((e.currentTarget as HTMLInputElement).value)} />
          </Field>
        )}
        <Field label={kind === 'image_sets' ? t('tags') : kind === 'product_sets' ? t('productId') : t('label')}>
          <input value={extra} required={kind !== 'image_sets'} onInput={(e) => setExtra((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <button type="submit" disabled={one.busy}>
          {t('add')}
        </button>
      </form>
      <ErrorNote error={one.error} />
    </Section>
  );
}

function Records({ kind, id, failedOnly, version }: { kind: SetKind; id: string; failedOnly: boolean; version: number }) {
  const { t } = useI18n();
  const [page, setPage] = useState(0);
  const records = useLoad(
    () => api<RecordPage>(`${recordsPath(kind, id)}?page=${page}&count=${PAGE}${failedOnly ? '&status=failed' : ''}`),
    [kind, id, page, failedOnly, version],
    3000,
    (p) => p.results.some((r) => r.status === 'pending'),
  );
  const data = records.data;
  return (
    <div>
      <ErrorNote error={records.error} />
      {data && !data.total && <p class="muted">{t('none')}</p>}
      {data && failedOnly && data.total > 0 && (
        <table class="failed-records">
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">{t('reason')}</th>
            </tr>
          </thead>
          <tbody>
            {data.results.map((r) => (
              <tr key={r.id}>
                <td class="mono wrap">{r.url}</td>
                <td>{r.last_error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && !failedOnly && data.total > 0 && (
        <ul class="grid" aria-label={t('pictures')}>
          {data.results.map((r) => (
            <li key={r.id} class="tile" data-status={r.status}>
              {r.status === 'downloaded' ? <Thumb path={`${recordsPath(kind, id)}/${r.id}/thumbnail`} alt={r.meta || r.url} /> : <div class={`thumb thumb-${r.status}`} role="img" aria-label={r.status} />}
              <div class="tile-meta">
                <span class={`badge badge-${r.status}`}>{t(r.status)}</span>
                {r.label && <span class="badge">{r.label}</span>}
                {r.product_id && <span class="badge">{r.product_id}</span>}
                {r.meta && <div class="clip">{r.meta}</div>}
                {r.tags && r.tags.length > 0 && <div class="muted clip">{r.tags.join(' | ')}</div>}
                {r.last_error && <div class="error clip">{r.last_error}</div>}
              </div>
            </li>
          ))}
        </ul>
      )}
      {data && data.total > PAGE && <Pager page={page} count={PAGE} total={data.total} onPage={setPage} />}
    </div>
  );
}

export function SetDetailPage({ kind, id }: { kind: SetKind; id: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [version, setVersion] = useState(0);
  const [tab, setTab] = useState<'all' | 'failed'>('all');
  const set = useLoad(() => api<DataSet>(`${SET_PATHS[kind]}/${id}`).catch(() => undefined), [kind, id, version]);
  const progress = useLoad(() => counts(kind, id), [kind, id, version], 2000, (c) => c.downloaded + c.failed < c.total);
  const remove = useAction();
  const exporting = useAction();
  const c = progress.data;
  // The specification's set status: an empty set, or one with nothing downloaded yet, is not-downloaded.
  const status = !c ? '' : c.downloaded === 0 ? 'not-downloaded' : c.downloaded + c.failed >= c.total ? 'downloaded' : 'downloading';
  return (
    <div class="page">
      <p>
        <a href={href('sets')}>← {t('back')}</a>
      </p>
      <h1>
        {set.data?.name ?? id} <span class="muted mono">{id}</span>
      </h1>
      <Section
        title={t('progress')}
        actions={
          <>
            <button type="button" id="export-records" disabled={exporting.busy} onClick={() => void exporting.run(() => exportRecords(kind, id))}>
              {t('exportRecords')}
            </button>
            <button
              type="button"
              class="danger"
              onClick={() =>
                confirm(t('confirmDelete')) &&
                void remove.run(async () => {
                  await api(`${SET_PATHS[kind]}/${id}`, 'DELETE');
                  location.hash = href('sets');
                })
              }
            >
              {t('delete')}
            </button>
          </>
        }
      >
        <ErrorNote error={remove.error ?? exporting.error ?? progress.error} />
        {c && (
          <div id="set-progress" data-status={status} data-total={c.total} data-downloaded={c.downloaded} data-failed={c.failed}>
            <ProgressBar label={t('progress')} total={c.total} parts={[{ value: c.downloaded, kind: 'ok' }, { value: c.failed, kind: 'bad' }]} />
            <p>
              {t('status')}: <strong class="set-status">{i18n.status(status)}</strong> · {t('downloaded')} {c.downloaded} · {t('failed')} {c.failed} · {t('items')} {c.total}
            </p>
          </div>
        )}
      </Section>
      <AddImages kind={kind} id={id} onAdded={() => setVersion((v) => v + 1)} />
      <section class="card">
        <div role="tablist" aria-label={t('pictures')} class="tabs">
          <button type="button" role="tab" aria-selected={tab === 'all'} onClick={() => setTab('all')}>
            {t('pictures')}
          </button>
          <button type="button" role="tab" aria-selected={tab === 'failed'} onClick={() => setTab('failed')}>
            {t('failedRecords')} {c ? `(${c.failed})` : ''}
          </button>
        </div>
        <Records key={tab} kind={kind} id={id} failedOnly={tab === 'failed'} version={version + (c?.downloaded ?? 0) + (c?.failed ?? 0)} />
      </section>
    </div>
  );
}
