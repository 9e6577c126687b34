/**
 * A picture on a canvas with boxes (fractions [x, y, w, h] of the picture) and, when `onLoc` is given, a
 * region the user draws by dragging (pointer) — the search playground's `loc`.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

export type Rect = [number, number, number, number];
export interface Overlay {
  box: Rect;
  label: string;
  colour: string;
}

const MAX_WIDTH = 640;
const MIN_DRAG = 0.01;

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}

export function ImageCanvas({ src, overlays = [], loc, onLoc, label }: { src: string; overlays?: Overlay[]; loc?: Rect | null; onLoc?: (loc: Rect | null) => void; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [image, setImage] = useState<HTMLImageElement>();
  const [drag, setDrag] = useState<{ x0: number; y0: number; rect: Rect } | null>(null);

  useEffect(() => {
    const img = new Image();
    img.onload = () => setImage(img);
    img.src = src;
  }, [src]);

  useEffect(() => {
    const el = canvas.current;
    if (!el || !image) return;
    const scale = Math.min(1, MAX_WIDTH / image.naturalWidth);
    el.width = Math.max(1, Math.round(image.naturalWidth * scale));
    el.height = Math.max(1, Math.round(image.naturalHeight * scale));
    const g = el.getContext('2d');
    if (!g) return;
    g.drawImage(image, 0, 0, el.width, el.height);
    const lineWidth = Math.max(2, Math.round(el.width / 200));
    g.font = `${Math.max(12, Math.round(el.width / 40))}px system-ui, sans-serif`;
    for (const o of overlays) {
      const [x, y, w, h] = o.box;
      g.strokeStyle = o.colour;
      g.lineWidth = lineWidth;
      g.strokeRect(x * el.width, y * el.height, w * el.width, h * el.height);
      if (o.label) {
        const text = o.label.slice(0, 40);
        const tw = g.measureText(text).width + 8;
        const th = parseInt(g.font, 10) + 6;
        const ty = y * el.height > th ? y * el.height - th : y * el.height;
        g.fillStyle = o.colour;
        g.fillRect(x * el.width, ty, tw, th);
        g.fillStyle = '#000';
        g.fillText(text, x * el.width + 4, ty + th - 6);
      }
    }
    const region = drag?.rect ?? loc;
    if (region) {
      const [x, y, w, h] = region;
      g.setLineDash([8, 4]);
      g.strokeStyle = '#ffd400';
      g.lineWidth = lineWidth;
      g.strokeRect(x * el.width, y * el.height, w * el.width, h * el.height);
      g.setLineDash([]);
    }
  }, [image, overlays, loc, drag]);

  const at = (e: PointerEvent): [number, number] => {
    const r = canvas.current!.getBoundingClientRect();
    return [clamp01((e.clientX - r.left) / r.width), clamp01((e.clientY - r.top) / r.height)];
  };
  const rectFrom = (x0: number, y0: number, x1: number, y1: number): Rect => [Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0)];

  return (
    <canvas
      ref={canvas}
      class={`picture ${onLoc ? 'drawable' : ''}`}
      role="img"
      aria-label={label}
      data-box-count={overlays.length}
      data-loc={loc ? loc.map((v) => v.toFixed(4)).join('-') : ''}
      onPointerDown={
        onLoc &&
        ((e) => {
          const [x, y] = at(e);
          (e.currentTarget as HTMLCanvasElement).setPointerCapture(e.pointerId);
          setDrag({ x0: x, y0: y, rect: [x, y, 0, 0] });
        })
      }
      onPointerMove={onLoc && ((e) => drag && setDrag({ ...drag, rect: rectFrom(drag.x0, drag.y0, ...at(e)) }))}
      onPointerUp={
        onLoc &&
        ((e) => {
          if (!drag) return;
          const rect = rectFrom(drag.x0, drag.y0, ...at(e));
          setDrag(null);
          onLoc(rect[2] > MIN_DRAG && rect[3] > MIN_DRAG ? rect : null);
        })
      }
    />
  );
}
