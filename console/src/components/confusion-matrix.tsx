/**
 * A classifier's confusion matrix on its held-out validation images as a table heat-map: a row per true label,
 * a column per predicted label, counts in the cells (shaded by their share of the row: blue on the diagonal,
 * red for mistakes; the text colour is picked for contrast), recall per row and precision per column.
 */
import { useI18n } from '../i18n/i18n.js';
import './confusion-matrix.css';

export interface ConfusionMatrixData {
  labels: string[];
  counts: number[][];
}

const RIGHT: [number, number, number] = [11, 92, 173];
const WRONG: [number, number, number] = [198, 40, 40];

function luminance([r, g, b]: number[]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}

/** Background mixed from white towards the hue by `share`, with black or white text, whichever contrasts more. */
export function heat(share: number, hue: [number, number, number]): { background: string; color: string } {
  const a = Math.max(0, Math.min(1, share)) * 0.9;
  const rgb = hue.map((c) => Math.round(255 + (c - 255) * a));
  const l = luminance(rgb);
  const onBlack = (l + 0.05) / 0.05;
  const onWhite = 1.05 / (l + 0.05);
  return { background: `rgb(${rgb.join(',')})`, color: onBlack >= onWhite ? '#000' : '#fff' };
}

const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '—');

export function ConfusionMatrix({ matrix, id }: { matrix: ConfusionMatrixData; id: string }) {
  const { t } = useI18n();
  const { labels, counts } = matrix;
  const rowTotals = counts.map((row) => row.reduce((a, b) => a + b, 0));
  const colTotals = labels.map((_, p) => counts.reduce((sum, row) => sum + (row[p] ?? 0), 0));
  const total = rowTotals.reduce((a, b) => a + b, 0);
  const correct = labels.reduce((sum, _, i) => sum + (counts[i]?.[i] ?? 0), 0);
  const captionId = `${id}-caption`;
  return (
    <div class="confusion" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table class="confusion-matrix" data-total={total} data-correct={correct}>
        <caption id={captionId}>
          {t('confusionMatrix')} · {total} {t('heldOut')}
          <span class="visually-hidden"> ({t('confusionHint')})</span>
        </caption>
        <thead>
          <tr>
            <th scope="col" class="corner">
              {t('trueLabel')} ↓ / {t('predictedLabel')} →
            </th>
            {labels.map((label) => (
              <th key={label} scope="col" class="label" title={label}>
                {label}
              </th>
            ))}
            <th scope="col">{t('recall')}</th>
          </tr>
        </thead>
        <tbody>
          {labels.map((label, truth) => (
            <tr key={label}>
              <th scope="row" class="label" title={label}>
                {label}
              </th>
              {labels.map((_, predicted) => {
                const n = counts[truth]?.[predicted] ?? 0;
                const right = truth === predicted;
                const share = rowTotals[truth]! > 0 ? n / rowTotals[truth]! : 0;
                return (
                  <td key={predicted} class={right ? 'cell right' : 'cell'} style={heat(share, right ? RIGHT : WRONG)}>
                    {n}
                  </td>
                );
              })}
              <td class="recall" data-label={label}>
                {percent(counts[truth]?.[truth] ?? 0, rowTotals[truth]!)}
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{t('precision')}</th>
            {labels.map((label, p) => (
              <td key={label}>{percent(counts[p]?.[p] ?? 0, colTotals[p]!)}</td>
            ))}
            <td class="overall">{percent(correct, total)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
