import { useEffect, useState } from 'preact/hooks';
import { apiBlobUrl } from '../api/client.js';

/** A stored picture through the authenticated thumbnail endpoint (fetched with the key's headers). */
export function Thumb({ path, alt, size = 256 }: { path: string; alt: string; size?: number }) {
  const [src, setSrc] = useState<string>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let url: string | undefined;
    let alive = true;
    apiBlobUrl(`${path}?size=${size}`)
      .then((u) => {
        url = u;
        if (alive) setSrc(u);
        else URL.revokeObjectURL(u);
      })
      .catch(() => alive && setFailed(true));
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [path, size]);
  if (failed) return <div class="thumb thumb-missing" role="img" aria-label={alt} />;
  return src ? <img class="thumb" src={src} alt={alt} /> : <div class="thumb thumb-loading" aria-hidden="true" />;
}
