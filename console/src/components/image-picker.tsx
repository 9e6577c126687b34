/** Choose the query picture: drop it, pick a file, or give a URL. Keyboard users use the file button or the URL field. */
import { useState } from 'preact/hooks';
import { useI18n } from '../i18n/i18n.js';

export interface PickedImage {
  file?: File;
  url?: string;
  /** What the browser displays: an object URL of the file, or the URL itself. */
  src: string;
}

export function ImagePicker({ onPick, id }: { onPick: (image: PickedImage) => void; id: string }) {
  const { t } = useI18n();
  const [url, setUrl] = useState('');
  const [over, setOver] = useState(false);
  const pickFile = (file: File | undefined) => {
    if (file) onPick({ file, src: URL.createObjectURL(file) });
  };
  return (
    <div
      class={`drop ${over ? 'drop-over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        pickFile(e.dataTransfer?.files[0]);
      }}
    >
      <p>{t('dropHint')}</p>
      <label class="button-like">
        {t('chooseFile')}
        <input id={`${id}-file`} class="visually-hidden" type="file" accept="image/*" onChange={(e) => pickFile((e.currentTarget as HTMLInputElement).files?.[0])} />
      </label>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) onPick({ url: url.trim(), src: url.trim() });
        }}
      >
        <label>
          <span class="visually-hidden">{t('orUrl')}</span>
          <input id={`${id}-url`} type="url" placeholder={t('orUrl')} value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">{t('use')}</button>
      </form>
    </div>
  );
}
