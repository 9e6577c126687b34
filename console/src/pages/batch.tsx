/** Batch tasks: the list with states and progress, creating one from a URL file, downloading results. */
import { useState } from 'preact/hooks';
import { serviceById } from '../../../shared/src/catalogue.js';
import { api, apiBlobUrl, form, type Body } from '../api/client.js';
import type { BatchTask } from '../api/types.js';
import { ErrorNote, Field, ProgressBar, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';

const ACTIVE = ['RECEIVED', 'PENDING', 'STARTED'];

/** Batch answers are `{data, is_error: 0, request_id}` (docs/batch.md): the payload is `data`. */
async function batch<T>(path: string, method = 'GET', body?: Body): Promise<T> {
  return (await api<{ data: T }>(path, method, body)).data;
}

/** The result links point at the edge; fetch them with the key and hand the bytes to the browser. */
async function download(link: string): Promise<void> {
  const url = new URL(link, location.href);
  const blobUrl = await apiBlobUrl(url.pathname + url.search);
  const a = document.createElement('a');
  a.href = blobUrl;
  a.download = url.pathname.split('/').pop() ?? 'results.jsonl';
  a.click();
  setTimeout(() => URL.revokeObjectURL(blobUrl), 10_000);
}

export function BatchPage() {
  const { t, lang } = useI18n();
  const serviceName = (id: string) => serviceById(id)?.name[lang] ?? id;
  const tasks = useLoad(
    () => batch<Record<string, BatchTask>>('/batch/_1000001/tasks').then((tasks) => Object.values(tasks).reverse()),
    [],
    3000,
    (list) => list.some((task) => ACTIVE.includes(task.state)),
  );
  const services = useLoad(() => batch<string[]>('/batch/_1000001/services'), []);
  const [serviceId, setServiceId] = useState('');
  const [file, setFile] = useState<File>();
  const create = useAction();
  const fetching = useAction();
  return (
    <div class="page">
      <h1>{t('navBatch')}</h1>
      <Section title={t('createTask')}>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              if (!file) return;
              const prepared = await batch<{ task_id: string }>('/batch/_1000001/task/prepare', 'POST', form({ service_id: serviceId, urls: file }));
              await batch('/batch/_1000001/task/apply', 'POST', { task_id: prepared.task_id });
              tasks.reload();
            });
          }}
        >
          <Field label={t('service')}>
            <select required value={serviceId} onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">—</option>
              {services.data?.map((id) => (
                <option key={id} value={id}>
                  {serviceName(id)} ({id})
                </option>
              ))}
            </select>
          </Field>
          <Field label={t('urlFile')}>
            <input type="file" accept=".txt,.csv,text/plain" required onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0])} />
          </Field>
          <button type="submit" class="primary" disabled={create.busy}>
            {t('prepareApply')}
          </button>
        </form>
        <ErrorNote error={create.error} />
      </Section>
      <Section title={t('tasks')}>
        <ErrorNote error={tasks.error ?? fetching.error} />
        {tasks.data?.length === 0 && <p class="muted">{t('none')}</p>}
        {tasks.data && tasks.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">{t('service')}</th>
                <th scope="col">{t('state')}</th>
                <th scope="col">{t('progress')}</th>
                <th scope="col">{t('received')}</th>
                <th scope="col">{t('download')}</th>
              </tr>
            </thead>
            <tbody>
              {tasks.data.map((task) => (
                <tr key={task.task_id}>
                  <td class="mono">{task.task_id}</td>
                  <td>
                    {serviceName(task.service_id)} <span class="muted mono">{task.service_id}</span>
                  </td>
                  <td>{task.state}</td>
                  <td>
                    <ProgressBar label={`${task.task_id} ${t('progress')}`} total={task.total} parts={[{ value: task.success ?? 0, kind: 'ok' }]} />
                    <small>
                      {task.success ?? 0}/{task.total}
                    </small>
                  </td>
                  <td>{task.received_time}</td>
                  <td>
                    {task.download_urls?.map((link, i) => (
                      <button key={link} type="button" onClick={() => void fetching.run(() => download(link))}>
                        {t('download')} {i + 1}
                      </button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </div>
  );
}
