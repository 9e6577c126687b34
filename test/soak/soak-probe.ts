/**
 * The ordinary call whose latency the soak compares with idle: a colour analysis of a small JPEG upload by
 * an account of its own, one call at a time.
 */
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import type { Outcome } from './soak-traffic.js';
import type { SoakPlatform } from './soak-platform.js';

export type Probe = () => Promise<Outcome>;

export async function ordinaryCall(soak: SoakPlatform): Promise<Probe> {
  const picture = await photoJpeg(320, 240, 99);
  return async () => {
    const result = await soak.call(soak.probe, {
      method: 'POST',
      path: '/color/_0000072',
      multipart: { fields: { granularity: 'major', return_type: 'basic' }, file: { field: 'search', name: 'q.jpg', bytes: picture } },
    });
    return { action: 'ordinary call', account: soak.probe.name, result };
  };
}
