/**
 * Search playground: a service, a query picture with a drawn `loc`, count, tag expression, product filters,
 * the regions mode; the hits, and with `regions=all` each region's box on the query and its results beside it.
 */
import { useState } from 'preact/hooks';
import { api, form } from '../api/client.js';
import type { SearchHit, SearchService } from '../api/types.js';
import { ErrorNote, Field, Section } from '../components/bits.js';
import { useAction, useLoad } from '../components/hooks.js';
import { ImageCanvas, type Rect } from '../components/image-canvas.js';
import { ImagePicker, type PickedImage } from '../components/image-picker.js';
import { EMPTY_TAGS, tagExpression, TagsBuilder, type TagGroup } from '../components/tags-builder.js';
import { useI18n } from '../i18n/i18n.js';

export function locParam(loc: Rect): string {
  return loc.map((v) => v.toFixed(4)).join('-');
}

function LocInputs({ loc, onLoc }: { loc: Rect | null; onLoc: (loc: Rect | null) => void }) {
  const { t } = useI18n();
  const value = loc ?? [0, 0, 1, 1];
  return (
    <fieldset class="row">
      <legend>{t('loc')}</legend>
      {(['x', 'y', 'w', 'h'] as const).map((name, i) => (
        <label key={name} class="field small">
          <span>{name}</span>
          <input
            type="number"
            min={0}
            max={1}
            step={0.01}
            value={value[i]!.toFixed(2)}
            onChange={(e) => {
              const next = [...value] as Rect;
              next[i] = Math.min(1, Math.max(0, Number((e.currentTarget as HTMLInputElement).value)));
              onLoc(next);
            }}
          />
        </label>
      ))}
      <button type="button" onClick={() => onLoc(null)}>
        {t('clearLoc')}
      </button>
    </fieldset>
  );
}

const MATCH_COLOUR = '#00a37a';
const REGION_COLOURS = ['#d9480f', '#1c7ed6', '#ae3ec9', '#f08c00', '#2b8a3e', '#c2255c', '#1098ad', '#5f3dc4'];
const regionColour = (i: number) => REGION_COLOURS[i % REGION_COLOURS.length]!;

type RegionsMode = 'auto' | 'off' | 'all';
/** A group of `regions=all`: one region of the query and its results. */
interface RegionGroup {
  box: number[];
  score: number;
  results: SearchHit[];
}

function RegionGroups({ groups }: { groups: RegionGroup[] }) {
  const { t } = useI18n();
  return (
    <ol id="search-region-groups" class="region-groups">
      {groups.map((g, i) => (
        <li key={i} class="region-group" data-region={i}>
          <h3 style={{ color: regionColour(i) }}>
            R{i + 1} [{g.box.map((v) => v.toFixed(2)).join(', ')}] · {t('score')} {g.score.toFixed(3)}
          </h3>
          {g.results.length ? (
            <ul class="grid">
              {g.results.map((hit, k) => (
                <Hit key={k} hit={hit} />
              ))}
            </ul>
          ) : (
            <p class="muted">{t('noResults')}</p>
          )}
        </li>
      ))}
    </ol>
  );
}

/** A query box of the answer (relative to the `loc` region searched) in the coordinates of the whole picture. */
export function inPicture(box: Rect, loc: Rect | null): Rect {
  const [lx, ly, lw, lh] = loc ?? [0, 0, 1, 1];
  return [lx + box[0] * lw, ly + box[1] * lh, box[2] * lw, box[3] * lh];
}

/** A box of the contract (`[x, y, w, h]`, four numbers by its schema). */
const toRect = (box: number[]): Rect => [box[0] ?? 0, box[1] ?? 0, box[2] ?? 0, box[3] ?? 0];

function Hit({ hit }: { hit: SearchHit }) {
  const { t } = useI18n();
  const tags = Array.isArray(hit.tags) ? hit.tags.join(' | ') : (hit.tags ?? '');
  const match = hit.matched_region && { inliers: hit.matched_region.inliers, result: toRect(hit.matched_region.result) };
  return (
    <li class="tile result">
      {match ? (
        <div class="match-frame">
          <img src={hit.url} alt={hit.metadata || hit.url} loading="lazy" referrerpolicy="no-referrer" />
          <span
            class="match-box"
            title={`${t('matched')} (${match.inliers})`}
            style={{ left: `${match.result[0] * 100}%`, top: `${match.result[1] * 100}%`, width: `${match.result[2] * 100}%`, height: `${match.result[3] * 100}%`, borderColor: MATCH_COLOUR }}
          />
        </div>
      ) : (
        <img class="thumb" src={hit.url} alt={hit.metadata || hit.url} loading="lazy" referrerpolicy="no-referrer" />
      )}
      <div class="tile-meta">
        <strong>
          {t('score')} {Number(hit.score).toFixed(3)}
        </strong>
        {hit.product_id && (
          <div>
            {t('productId')}: {hit.product_id}
          </div>
        )}
        {hit.price !== undefined && hit.price !== null && hit.price !== '' && (
          <div>
            {t('price')}: {String(hit.price)}
          </div>
        )}
        {hit.keywords && <div class="clip">{Array.isArray(hit.keywords) ? hit.keywords.join(' ') : hit.keywords}</div>}
        {hit.metadata && <div class="clip">{hit.metadata}</div>}
        {tags && <div class="muted clip">{tags}</div>}
      </div>
    </li>
  );
}

export function SearchPage() {
  const { t } = useI18n();
  const services = useLoad(() => api<{ results: SearchService[] }>('/customer_services/_0000172').then((r) => r.results), []);
  const [serviceId, setServiceId] = useState('');
  const [image, setImage] = useState<PickedImage>();
  const [loc, setLoc] = useState<Rect | null>(null);
  const [count, setCount] = useState(20);
  const [tags, setTags] = useState<TagGroup>(EMPTY_TAGS);
  const [keywords, setKeywords] = useState('');
  const [minPrice, setMinPrice] = useState('');
  const [maxPrice, setMaxPrice] = useState('');
  const [hits, setHits] = useState<SearchHit[]>();
  const [searchedLoc, setSearchedLoc] = useState<Rect | null>(null);
  const [regionsMode, setRegionsMode] = useState<RegionsMode>('auto');
  const [groups, setGroups] = useState<RegionGroup[]>();
  const action = useAction();
  const service = services.data?.find((s) => s.id === serviceId);
  const isProduct = Boolean(service?.product_set_id);

  const search = () =>
    action.run(async () => {
      if (!service || !image) return;
      const body = form({
        ...(image.file ? { search: image.file } : { url: image.url }),
        count: String(count),
        ...(loc ? { loc: locParam(loc) } : {}),
        tags: tagExpression(tags),
        ...(regionsMode !== 'auto' ? { regions: regionsMode } : {}),
        ...(isProduct ? { keywords, min_price: minPrice, max_price: maxPrice } : {}),
      });
      const answer = await api<{ results: SearchHit[]; regions?: RegionGroup[] }>(`/${isProduct ? 'product_search' : 'search'}/${service.id}`, 'POST', body);
      setHits(answer.results);
      setGroups(answer.regions);
      // Matched boxes are relative to the drawn loc (the regions of a query are matched with the whole query's keypoints).
      setSearchedLoc(loc);
    });
  // Where the best verified result lies in the query picture.
  const verified = hits?.find((h) => h.matched_region);
  const queryOverlays = groups
    ? groups.map((g, i) => ({ box: toRect(g.box), label: `R${i + 1}`, colour: regionColour(i) }))
    : verified?.matched_region
      ? [{ box: inPicture(toRect(verified.matched_region.query), searchedLoc), label: t('matched'), colour: MATCH_COLOUR }]
      : [];

  return (
    <div class="page">
      <h1>{t('navSearch')}</h1>
      <div class="split">
        <Section title={t('picture')}>
          <ErrorNote error={services.error} />
          <Field label={t('service')}>
            <select id="search-service" value={serviceId} onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">{t('chooseService')}</option>
              {services.data?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.n_indexed})
                </option>
              ))}
            </select>
          </Field>
          <ImagePicker id="search" onPick={(img) => (setImage(img), setLoc(null), setHits(undefined))} />
          {image && (
            <>
              <p class="muted">{t('locHint')}</p>
              <ImageCanvas src={image.src} loc={loc} onLoc={setLoc} overlays={queryOverlays} label={t('picture')} />
              <LocInputs loc={loc} onLoc={setLoc} />
            </>
          )}
        </Section>
        <Section title={t('search')}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void search();
            }}
          >
            <Field label={t('count')}>
              <input type="number" min={1} max={100} value={count} onInput={(e) => setCount(Number((e.currentTarget as HTMLInputElement).value) || 20)} />
            </Field>
            <TagsBuilder value={tags} onChange={setTags} />
            <Field label={t('regionsMode')}>
              <select id="search-regions" value={regionsMode} onChange={(e) => setRegionsMode((e.currentTarget as HTMLSelectElement).value as RegionsMode)}>
                <option value="auto">{t('regionsAuto')}</option>
                <option value="off">{t('regionsOff')}</option>
                <option value="all">{t('regionsAll')}</option>
              </select>
            </Field>
            {isProduct && (
              <fieldset>
                <legend>{t('productFilters')}</legend>
                <Field label={t('keywords')}>
                  <input value={keywords} onInput={(e) => setKeywords((e.currentTarget as HTMLInputElement).value)} />
                </Field>
                <Field label={t('minPrice')}>
                  <input type="number" value={minPrice} onInput={(e) => setMinPrice((e.currentTarget as HTMLInputElement).value)} />
                </Field>
                <Field label={t('maxPrice')}>
                  <input type="number" value={maxPrice} onInput={(e) => setMaxPrice((e.currentTarget as HTMLInputElement).value)} />
                </Field>
              </fieldset>
            )}
            <button id="search-run" type="submit" class="primary" disabled={action.busy || !service || !image}>
              {t('search')}
            </button>
          </form>
          <ErrorNote error={action.error} />
        </Section>
      </div>
      {hits && (
        <Section title={`${t('results')} (${hits.length})`}>
          {hits.length ? (
            <ul class="grid" id="search-results">
              {hits.map((hit, i) => (
                <Hit key={i} hit={hit} />
              ))}
            </ul>
          ) : (
            <p class="muted">{t('noResults')}</p>
          )}
        </Section>
      )}
      {groups && (
        <Section title={`${t('regionGroups')} (${groups.length})`}>
          <RegionGroups groups={groups} />
        </Section>
      )}
    </div>
  );
}
