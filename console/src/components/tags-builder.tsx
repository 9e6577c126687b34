/** The AND/OR tag expression builder of the search playground: a top-level group holding tags and sub-groups. */
import { useI18n } from '../i18n/i18n.js';

export type Op = 'and' | 'or';
export interface TagGroup {
  op: Op;
  tags: string[];
  groups: { op: Op; tags: string[] }[];
}

export const EMPTY_TAGS: TagGroup = { op: 'and', tags: [], groups: [] };

/** The `tags` parameter: `{"and": ["A", {"or": ["B", "C"]}]}` (docs/search.md), or '' without tags. */
export function tagExpression(group: TagGroup): string {
  const clean = (tags: string[]) => tags.map((t) => t.trim()).filter(Boolean);
  const subgroups = group.groups.map((g) => ({ [g.op]: clean(g.tags) })).filter((g) => Object.values(g)[0]!.length);
  const items = [...clean(group.tags), ...subgroups];
  return items.length ? JSON.stringify({ [group.op]: items }) : '';
}

function TagList({ tags, onChange, label }: { tags: string[]; onChange: (tags: string[]) => void; label: string }) {
  const { t } = useI18n();
  return (
    <div class="tag-list">
      {tags.map((tag, i) => (
        <span class="tag-edit" key={i}>
          <input aria-label={`${label} ${i + 1}`} value={tag} onInput={(e) => onChange(tags.map((x, j) => (j === i ? (e.currentTarget as HTMLInputElement).value : x)))} />
          <button type="button" aria-label={`${t('remove')} ${tag}`} onClick={() => onChange(tags.filter((_, j) => j !== i))}>
            ×
          </button>
        </span>
      ))}
      <button type="button" onClick={() => onChange([...tags, ''])}>
        {t('addTag')}
      </button>
    </div>
  );
}

function OpSelect({ value, onChange, label }: { value: Op; onChange: (op: Op) => void; label: string }) {
  const { t } = useI18n();
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as Op)}>
      <option value="and">{t('allOf')}</option>
      <option value="or">{t('anyOf')}</option>
    </select>
  );
}

export function TagsBuilder({ value, onChange }: { value: TagGroup; onChange: (group: TagGroup) => void }) {
  const { t } = useI18n();
  const expression = tagExpression(value);
  return (
    <fieldset class="tags-builder">
      <legend>{t('tagFilter')}</legend>
      <OpSelect label={t('tagFilter')} value={value.op} onChange={(op) => onChange({ ...value, op })} />
      <TagList label={t('tags')} tags={value.tags} onChange={(tags) => onChange({ ...value, tags })} />
      {value.groups.map((g, i) => (
        <div class="tag-group" key={i}>
          <OpSelect label={`${t('addGroup')} ${i + 1}`} value={g.op} onChange={(op) => onChange({ ...value, groups: value.groups.map((x, j) => (j === i ? { ...x, op } : x)) })} />
          <TagList label={`${t('tags')} ${i + 1}`} tags={g.tags} onChange={(tags) => onChange({ ...value, groups: value.groups.map((x, j) => (j === i ? { ...x, tags } : x)) })} />
          <button type="button" onClick={() => onChange({ ...value, groups: value.groups.filter((_, j) => j !== i) })}>
            {t('remove')}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange({ ...value, groups: [...value.groups, { op: value.op === 'and' ? 'or' : 'and', tags: [''] }] })}>
        {t('addGroup')}
      </button>
      {expression && (
        <p class="muted">
          {t('expression')}: <code>{expression}</code>
        </p>
      )}
    </fieldset>
  );
}
