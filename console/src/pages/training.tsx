/**
 * Training: training sets with label counts (labels short of 50 usable images highlighted), classifiers with
 * status, progress, validation accuracy and confusion matrix, trying one on a picture.
 */
import { useState } from 'preact/hooks';
import { api, form } from '../api/client.js';
import { listSets, SET_PATHS } from '../api/sets.js';
import type { CustomService, CountedSet, LabelCount } from '../api/types.js';
import { ErrorNote, Field, ProgressBar, Section } from '../components/bits.js';
import { ConfusionMatrix, type ConfusionMatrixData } from '../components/confusion-matrix.js';
import { useAction, useLoad } from '../components/hooks.js';
import { ImagePicker, type PickedImage } from '../components/image-picker.js';
import { useI18n } from '../i18n/i18n.js';
import { href } from '../router.js';
import './training.css';

const MIN_PER_LABEL = 50;
const SERVICES = '/custom_training/_0000194/services';

/** One service's answer also carries the Iris extension `confusion_matrix` (not in list results). */
type ServiceDetail = CustomService & { confusion_matrix?: ConfusionMatrixData | null };

const accuracyText = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);

/** The confusion matrix of a trained service, read from the service's own answer. */
function TrainedDetails({ service }: { service: CustomService }) {
  const detail = useLoad(() => api<ServiceDetail>(`${SERVICES}/${service.id}`), [service.id, service.status]);
  const matrix = detail.data?.confusion_matrix;
  return (
    <div>
      <ErrorNote error={detail.error} />
      {matrix && matrix.labels.length > 0 && <ConfusionMatrix matrix={matrix} id={`confusion-${service.id}`} />}
    </div>
  );
}

function Labels({ set }: { set: CountedSet }) {
  const { t } = useI18n();
  const labels = useLoad(() => api<{ results: LabelCount[] }>(`/iris/training_sets/${set.id}/labels`).then((r) => r.results), [set.id, set.n_downloaded]);
  return (
    <div>
      <ErrorNote error={labels.error} />
      <ul class="chips" aria-label={`${set.name} ${t('labelCounts')}`}>
        {labels.data?.map((l) => (
          <li key={l.label} class={l.downloaded < MIN_PER_LABEL ? 'chip chip-warn' : 'chip'} title={l.downloaded < MIN_PER_LABEL ? t('tooFew') : undefined}>
            {l.label}: {l.downloaded}/{l.total}
            {l.downloaded < MIN_PER_LABEL && <span class="visually-hidden"> ({t('tooFew')})</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function TryClassifier({ service }: { service: CustomService }) {
  const { t } = useI18n();
  const [image, setImage] = useState<PickedImage>();
  const [results, setResults] = useState<{ category: string; score: number }[]>();
  const action = useAction();
  return (
    <div class="try">
      <ImagePicker id={`try-${service.id}`} onPick={setImage} />
      {image && <img class="thumb" src={image.src} alt={t('picture')} />}
      <button
        type="button"
        id={`try-${service.id}-run`}
        disabled={!image || action.busy}
        onClick={() =>
          void action.run(async () => {
            if (!image) return;
            const answer = await api<{ results: { category: string; score: number }[] }>(`/custom_training/${service.id}`, 'POST', form(image.file ? { search: image.file } : { url: image.url }));
            setResults(answer.results);
          })
        }
      >
        {t('run')}
      </button>
      <ErrorNote error={action.error} />
      {results && (
        <ol class="classifier-answer" aria-label={t('classifierAnswer')}>
          {results.map((r, i) => (
            <li key={i} data-category={r.category}>
              {r.category} <span class="muted">{(r.score * 100).toFixed(1)}%</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function TrainingPage() {
  const { t, status } = useI18n();
  const sets = useLoad(() => listSets('training_sets'), [], 3000, (list) => list.some((s) => s.status !== 'downloaded'));
  const services = useLoad(
    () => api<{ results: CustomService[] }>(SERVICES).then((r) => r.results),
    [],
    3000,
    (list) => list.some((s) => s.status === 'pending' || s.status === 'preparing'),
  );
  const [setId, setSetId] = useState('');
  const [name, setName] = useState('');
  const [trying, setTrying] = useState<string>();
  const create = useAction();
  return (
    <div class="page">
      <h1>{t('navTraining')}</h1>
      <Section title={t('trainingSets')}>
        <ErrorNote error={sets.error} />
        {sets.data?.length === 0 && <p class="muted">{t('none')}</p>}
        {sets.data?.map((set) => (
          <article key={set.id} class="sub">
            <h3>
              <a href={href('sets', 'training_sets', set.id)}>{set.name}</a> <span class="muted mono">{set.id}</span> · {status(set.status)}
            </h3>
            <Labels set={set} />
          </article>
        ))}
      </Section>
      <Section title={t('trainService')}>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              await api(`${SET_PATHS.training_sets}/${setId}/services`, 'POST', { name, scenario: 'classifier' });
              setName('');
              services.reload();
            });
          }}
        >
          <Field label={t('trainingSet')}>
            <select required value={setId} onChange={(e) => setSetId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">—</option>
              {sets.data?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t('name')}>
            <input required maxLength={32} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="primary" disabled={create.busy}>
            {t('create')}
          </button>
        </form>
        <ErrorNote error={create.error} />
      </Section>
      <Section title={t('customClassifiers')}>
        <ErrorNote error={services.error} />
        {services.data?.length === 0 && <p class="muted">{t('none')}</p>}
        {services.data?.map((s) => (
          <article key={s.id} class="sub" data-service-id={s.id} data-status={s.status}>
            <h3>
              {s.name} <span class="muted mono">{s.id}</span>
            </h3>
            <p>
              {t('status')}: <strong>{status(s.status)}</strong> · {t('stage')}: {s.stage ? status(s.stage) : '—'} · {t('accuracy')}:{' '}
              <strong class="accuracy">{accuracyText(s.validation_accuracy)}</strong>
            </p>
            <ProgressBar label={`${s.name} ${t('progress')}`} total={1} parts={[{ value: s.progress ?? 0, kind: 'info' }]} />
            {s.message && <p class="error">{s.message}</p>}
            {s.label_counts && Object.keys(s.label_counts).length > 0 && (
              <ul class="chips">
                {Object.entries(s.label_counts).map(([label, n]) => (
                  <li key={label} class={n < MIN_PER_LABEL ? 'chip chip-warn' : 'chip'}>
                    {label}: {n}
                  </li>
                ))}
              </ul>
            )}
            {s.status === 'running' && <TrainedDetails service={s} />}
            {s.status === 'running' && (
              <button type="button" onClick={() => setTrying(trying === s.id ? undefined : s.id)} aria-expanded={trying === s.id}>
                {t('trySvc')}
              </button>
            )}
            {trying === s.id && <TryClassifier service={s} />}
          </article>
        ))}
      </Section>
    </div>
  );
}
