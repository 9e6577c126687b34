/** Search services with their indexing progress; creating one on a set; deleting. */
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { listSets, SET_PATHS } from '../api/sets.js';
import type { SearchService } from '../api/types.js';
import { ErrorNote, Field, ProgressBar, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';
import { EvaluationPanel } from './service-evaluation.js';

// The catalogue's scenarios (shared/src/catalogue.ts SCENARIO_EMBEDDINGS), kept out of the first chunk.
const SCENARIOS = ['general', 'fashion', 'fashion_v3', 'fashion_5_7', 'fashion_v5_4', 'fashion_v5_5', 'furniture_v6', 'wine_v2_1', 'material'];

export function ServicesPage() {
  const { t } = useI18n();
  const services = useLoad(
    () => api<{ results: SearchService[] }>('/customer_services/_0000172').then((r) => r.results),
    [],
    3000,
    (list) => list.some((s) => s.indexed_ratio < 1 || s.n_first_pass_only > 0),
  );
  const sets = useLoad(async () => [...(await listSets('image_sets')).map((s) => ({ ...s, kind: 'image_sets' as const })), ...(await listSets('product_sets')).map((s) => ({ ...s, kind: 'product_sets' as const }))], []);
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [scenario, setScenario] = useState('general');
  const create = useAction();
  const remove = useAction();
  const [evaluated, setEvaluated] = useState<SearchService | null>(null);
  return (
    <div class="page">
      <h1>{t('navServices')}</h1>
      <Section title={t('createService')}>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              const [kind, id] = target.split(':') as ['image_sets' | 'product_sets', string];
              await api(`${SET_PATHS[kind]}/${id}/services`, 'POST', { name, scenario });
              setName('');
              services.reload();
            });
          }}
        >
          <Field label={t('dataSet')}>
            <select id="service-set" required value={target} onChange={(e) => setTarget((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">—</option>
              {sets.data?.map((s) => (
                <option key={s.id} value={`${s.kind}:${s.id}`}>
                  {s.kind === 'image_sets' ? t('imageSets') : t('productSets')}: {s.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t('name')}>
            <input id="service-name" required maxLength={32} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <Field label={t('scenario')}>
            <select value={scenario} onChange={(e) => setScenario((e.currentTarget as HTMLSelectElement).value)}>
              {SCENARIOS.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
          <button type="submit" class="primary" disabled={create.busy}>
            {t('create')}
          </button>
        </form>
        <ErrorNote error={create.error} />
      </Section>
      <Section title={t('searchServices')}>
        <ErrorNote error={services.error ?? remove.error} />
        {services.data?.length === 0 && <p class="muted">{t('none')}</p>}
        {services.data && services.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('name')}</th>
                <th scope="col">{t('scenario')}</th>
                <th scope="col">{t('dataSet')}</th>
                <th scope="col">{t('indexed')}</th>
                <th scope="col">{t('lastIndexed')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {services.data.map((s) => (
                <tr key={s.id} data-service-id={s.id}>
                  <td>
                    {s.name}
                    <div class="muted mono">{s.id}</div>
                  </td>
                  <td>{s.scenario}</td>
                  <td class="mono">{s.product_set_id ?? s.image_set_id}</td>
                  <td>
                    <ProgressBar label={`${s.name} ${t('indexed')}`} total={1} parts={[{ value: s.indexed_ratio, kind: 'ok' }]} />
                    <small>
                      {s.n_indexed} ({(s.indexed_ratio * 100).toFixed(0)}%)
                      {s.n_first_pass_only > 0 ? ` · ${s.n_first_pass_only} ${t('secondPass')}` : ''}
                    </small>
                  </td>
                  <td>{s.last_indexed_time ?? '—'}</td>
                  <td>
                    <button type="button" onClick={() => setEvaluated(s)} aria-pressed={evaluated?.id === s.id}>
                      {t('evaluate')}
                    </button>{' '}
                    <button
                      type="button"
                      class="danger"
                      onClick={() =>
                        confirm(t('confirmDelete')) &&
                        void remove.run(async () => {
                          await api(s.product_set_id ? `/product_sets/_0000178/services/${s.id}` : `/customer_services/_0000172/${s.id}`, 'DELETE');
                          services.reload();
                        })
                      }
                    >
                      {t('delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      {evaluated && <EvaluationPanel key={evaluated.id} serviceId={evaluated.id} serviceName={evaluated.name} />}
    </div>
  );
}
