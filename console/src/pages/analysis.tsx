/** Analysis playground: any ready-made service or custom classifier on a picture; boxes, swatches, labels and the raw answer. */
import { useMemo, useState } from 'preact/hooks';
import { SERVICES } from '../../../shared/src/catalogue.js';
import { api, apiRaw, form } from '../api/client.js';
import type { CustomService } from '../api/types.js';
import { findBoxes, findFashion, findLabels, findSwatches } from '../components/analysis-view.js';
import { ErrorNote, Field, JsonView, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { ImageCanvas } from '../components/image-canvas.js';
import { ImagePicker, type PickedImage } from '../components/image-picker.js';
import { useI18n } from '../i18n/i18n.js';

export function Swatches({ groups }: { groups: ReturnType<typeof findSwatches> }) {
  const { t } = useI18n();
  return (
    <div id="swatches">
      {groups.map((group, i) => (
        <div class="swatch-row" role="list" aria-label={`${t('colours')} ${i + 1}`} key={i}>
          {group.map((s, j) => (
            <div role="listitem" key={j} class="swatch" style={{ flexGrow: Math.max(s.share, 0.02), background: `rgb(${s.rgb.join(',')})` }} title={`${s.name} ${(s.share * 100).toFixed(1)}%`}>
              <span class={s.rgb[0] * 0.299 + s.rgb[1] * 0.587 + s.rgb[2] * 0.114 > 140 ? 'on-light' : 'on-dark'}>
                {s.name} {(s.share * 100).toFixed(1)}%
              </span>
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

export function AnalysisPage() {
  const { t, lang } = useI18n();
  const custom = useLoad(() => api<{ results: CustomService[] }>('/custom_training/_0000194/services').then((r) => r.results.filter((s) => s.status === 'running')), []);
  const [serviceId, setServiceId] = useState('_0000049');
  const [image, setImage] = useState<PickedImage>();
  const [answer, setAnswer] = useState<{ status: number; json: unknown }>();
  const action = useAction();
  const ready = SERVICES.find((s) => s.id === serviceId);
  const path = ready ? `/${ready.family}/${ready.id}` : `/custom_training/${serviceId}`;
  const boxes = useMemo(() => (answer ? findBoxes(answer.json, lang) : []), [answer, lang]);
  const swatches = useMemo(() => (answer ? findSwatches(answer.json, lang) : []), [answer, lang]);
  const labels = useMemo(() => (answer ? findLabels(answer.json, lang) : []), [answer, lang]);
  const garments = useMemo(() => (answer ? findFashion(answer.json, lang) : []), [answer, lang]);

  return (
    <div class="page">
      <h1>{t('navAnalysis')}</h1>
      <div class="split">
        <Section title={t('picture')}>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                if (!image) return;
                setAnswer(await apiRaw(path, 'POST', form(image.file ? { search: image.file } : { url: image.url })));
              });
            }}
          >
            <Field label={t('service')}>
              <select id="analysis-service" value={serviceId} onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}>
                <optgroup label={t('readyMade')}>
                  {SERVICES.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name[lang]} ({s.id})
                    </option>
                  ))}
                </optgroup>
                {custom.data && custom.data.length > 0 && (
                  <optgroup label={t('customClassifiers')}>
                    {custom.data.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name} ({s.id})
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>
            </Field>
            <button id="analysis-run" type="submit" class="primary" disabled={action.busy || !image}>
              {t('run')}
            </button>
          </form>
          <ImagePicker id="analysis" onPick={(img) => (setImage(img), setAnswer(undefined))} />
          <ErrorNote error={action.error} />
          {image && <ImageCanvas src={image.src} overlays={boxes} label={`${t('picture')}: ${boxes.length} ${t('boxes')}`} />}
          {garments.length > 0 && (
            <>
              <h3>{t('fashionItems')}</h3>
              <ul id="fashion-items">
                {garments.map((g, i) => (
                  <li key={i}>
                    <strong>{g.name}</strong>
                    {g.textures.length > 0 && (
                      <span>
                        {' '}
                        · {t('textures')}: {g.textures.join(', ')}
                      </span>
                    )}
                    {g.colours.length > 0 && <Swatches groups={[g.colours]} />}
                  </li>
                ))}
              </ul>
            </>
          )}
          {swatches.length > 0 && garments.length === 0 && (
            <>
              <h3>{t('colours')}</h3>
              <Swatches groups={swatches} />
            </>
          )}
          {labels.length > 0 && (
            <>
              <h3>{t('labels')}</h3>
              <ol id="labels">
                {labels.map((l, i) => (
                  <li key={i}>
                    {l.label} <span class="muted">{l.score?.toFixed(3)}</span>
                  </li>
                ))}
              </ol>
            </>
          )}
          {boxes.length > 0 && (
            <>
              <h3>{t('boxes')}</h3>
              <ol id="boxes">
                {boxes.map((b, i) => (
                  <li key={i}>
                    <span class="dot" style={{ background: b.colour }} aria-hidden="true" /> {b.label || '—'} <span class="muted mono">[{b.box.map((v) => v.toFixed(3)).join(', ')}]</span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </Section>
        <Section title={t('rawJson')}>{answer ? <JsonView value={answer.json} label={t('rawJson')} /> : <p class="muted">{t('none')}</p>}</Section>
      </div>
    </div>
  );
}
