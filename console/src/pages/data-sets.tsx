/** Data sets: the three kinds of sets with status, counts and live progress; create one. */
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { isBusy, listSetsWithCounts, SET_PATHS } from '../api/sets.js';
import type { DataSet, SetKind } from '../api/types.js';
import { ErrorNote, Field, ProgressBar, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { useI18n } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages.js';
import { href } from '../router.js';

const KINDS: [SetKind, MessageKey][] = [
  ['image_sets', 'imageSets'],
  ['product_sets', 'productSets'],
  ['training_sets', 'trainingSets'],
];

export function SetProgress({ set }: { set: DataSet }) {
  const { t, status } = useI18n();
  if (!('n_items' in set)) return <span>{status(set.status)}</span>;
  return (
    <div>
      <ProgressBar
        label={`${set.name} ${t('progress')}`}
        total={set.n_items}
        parts={[
          { value: set.n_downloaded, kind: 'ok' },
          { value: set.n_failed, kind: 'bad' },
        ]}
      />
      <small>
        {t('downloaded')} {set.n_downloaded} · {t('failed')} {set.n_failed} · {t('items')} {set.n_items}
      </small>
    </div>
  );
}

function SetTable({ kind, title }: { kind: SetKind; title: string }) {
  const { t, status } = useI18n();
  const sets = useLoad(() => listSetsWithCounts(kind), [kind], 2000, (list) => list.some(isBusy));
  return (
    <Section title={title}>
      <ErrorNote error={sets.error} />
      {sets.data && !sets.data.length && <p class="muted">{t('none')}</p>}
      {sets.data && sets.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('status')}</th>
              <th scope="col">{t('progress')}</th>
              <th scope="col">{t('created')}</th>
            </tr>
          </thead>
          <tbody>
            {sets.data.map((set) => (
              <tr key={set.id} data-set-id={set.id}>
                <td>
                  <a href={href('sets', kind, set.id)}>{set.name}</a>
                  <div class="muted mono">{set.id}</div>
                </td>
                <td class="set-status" data-status={set.status}>
                  {status(set.status)}
                </td>
                <td>
                  <SetProgress set={set} />
                </td>
                <td>{set.created_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function CreateSet({ onCreated }: { onCreated: () => void }) {
  const { t } = useI18n();
  const [kind, setKind] = useState<SetKind>('image_sets');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  return (
    <Section title={t('createSet')}>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const created = await api<DataSet>(SET_PATHS[kind], 'POST', { name, description: description || name });
            setName('');
            setDescription('');
            onCreated();
            location.hash = href('sets', kind, created.id);
          });
        }}
      >
        <Field label={t('kind')}>
          <select id="create-kind" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as SetKind)}>
            {KINDS.map(([k, key]) => (
              <option key={k} value={k}>
                {t(key)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('name')}>
          <input id="create-name" required maxLength={16} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label={t('description')}>
          <input id="create-description" maxLength={128} value={description} onInput={(e) => setDescription((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <button type="submit" class="primary" disabled={action.busy}>
          {t('create')}
        </button>
      </form>
      <ErrorNote error={action.error} />
    </Section>
  );
}

export function DataSetsPage() {
  const { t } = useI18n();
  const [version, setVersion] = useState(0);
  return (
    <div class="page" key={version}>
      <h1>{t('navSets')}</h1>
      <CreateSet onCreated={() => setVersion((v) => v + 1)} />
      {KINDS.map(([kind, key]) => (
        <SetTable key={kind} kind={kind} title={t(key)} />
      ))}
    </div>
  );
}
